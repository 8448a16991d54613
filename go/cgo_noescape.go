//go:build cgo && go1.24

package roundbench

// The ffi round's annotated calls, apart from cgo.go because their
// annotations are Go 1.24's (cmd/cgo documentation, "Optimizing calls of C
// code"): an older cgo refuses the lines, so an older toolchain builds the
// package without these functions and the ffi runner without their
// variants. Like cgo.go, they only convert and call; the package's #cgo
// flags are cgo.go's.

/*
#cgo noescape rb_ffi_noop_noescape
#cgo nocallback rb_ffi_noop_nocallback
#cgo noescape rb_ffi_noop_out_noescape
#cgo nocallback rb_ffi_noop_out_nocallback
#cgo noescape rb_ffi_noop_out_both
#cgo nocallback rb_ffi_noop_out_both
#include "roundbench.h"
*/
import "C"

// FfiNoopNoescape calls the core's trivial callee declared `#cgo noescape`.
func FfiNoopNoescape(x int64) int64 { return int64(C.rb_ffi_noop_noescape(C.int64_t(x))) }

// FfiNoopNocallback calls the same callee declared `#cgo nocallback`.
func FfiNoopNocallback(x int64) int64 { return int64(C.rb_ffi_noop_nocallback(C.int64_t(x))) }

// FfiNoopOutNoescape has the callee declared `#cgo noescape` write x + 1
// to a local. Alone, the annotation leaves the local on the heap as
// FfiNoopOut's (an allocation a call): cgo keeps its arguments alive
// without forcing them to escape only when the callee is declared
// nocallback as well (FfiNoopOutBoth).
func FfiNoopOutNoescape(x int64) int64 {
	var out C.int64_t
	C.rb_ffi_noop_out_noescape(C.int64_t(x), &out)
	return int64(out)
}

// FfiNoopOutNocallback is FfiNoopOut with the callee declared `#cgo
// nocallback` (it never calls back into Go).
func FfiNoopOutNocallback(x int64) int64 {
	var out C.int64_t
	C.rb_ffi_noop_out_nocallback(C.int64_t(x), &out)
	return int64(out)
}

// FfiNoopOutBoth has the callee declared `#cgo noescape` and `#cgo
// nocallback` at once: the local's address stays on the stack, no
// allocation.
func FfiNoopOutBoth(x int64) int64 {
	var out C.int64_t
	C.rb_ffi_noop_out_both(C.int64_t(x), &out)
	return int64(out)
}
