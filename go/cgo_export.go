//go:build cgo

package roundbench

// The Go functions the C core calls back, each an //export trampoline that
// converts the core's arguments, calls the Go code and converts its
// answer. They have a file of their own because a file with //export may
// hold only declarations in its preamble (cmd/cgo documentation, "C
// references to Go"); cgo.go declares them to the core and passes them as
// function pointers. The package's #cgo flags are cgo.go's.

/*
#include "roundbench.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export rbGoCallback
func rbGoCallback(ctx unsafe.Pointer, x C.int64_t, result *C.int64_t) C.int {
	*result = C.int64_t(PureNoop(int64(x)))
	return 0
}

//export rbGoHTTPHandler
func rbGoHTTPHandler(ctx unsafe.Pointer, req *C.rb_http_request, resp *C.rb_http_response) C.int {
	h := cgo.Handle(*(*C.uintptr_t)(ctx)).Value().(HTTPHandler)
	// Views of the core's buffers, valid for this call only: no copies.
	method := unsafe.Slice((*byte)(unsafe.Pointer(req.method)), int(req.method_len))
	path := unsafe.Slice((*byte)(unsafe.Pointer(req.path)), int(req.path_len))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(resp.body)), int(resp.body_cap))
	status, n := h(method, path, buf)
	if n < 0 || n > len(buf) {
		return 1
	}
	resp.status = C.int(status)
	resp.body_len = C.size_t(n)
	return 0
}
