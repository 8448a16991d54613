//go:build cgo && go1.24

package roundbench

// The ffi round's two annotated calls, apart from cgo.go because their
// annotations are Go 1.24's (cmd/cgo documentation, "Optimizing calls of C
// code"): an older cgo refuses the lines, so an older toolchain builds the
// package without these two functions and the ffi runner without their
// variants. Like cgo.go, they only convert and call; the package's #cgo
// flags are cgo.go's.

/*
#cgo noescape rb_ffi_noop_noescape
#cgo nocallback rb_ffi_noop_nocallback
#include "roundbench.h"
*/
import "C"

// FfiNoopNoescape calls the core's trivial callee declared `#cgo noescape`.
func FfiNoopNoescape(x int64) int64 { return int64(C.rb_ffi_noop_noescape(C.int64_t(x))) }

// FfiNoopNocallback calls the same callee declared `#cgo nocallback`.
func FfiNoopNocallback(x int64) int64 { return int64(C.rb_ffi_noop_nocallback(C.int64_t(x))) }
