package roundbench

// This is the package's only cgo file: every crossing into the C core is
// here, and each function only converts arguments, calls, and converts the
// result or the core's error record. The preamble holds declarations only,
// as a file with //export requires (cmd/cgo documentation, "C references
// to Go").

/*
#cgo CFLAGS: -O2 -std=gnu11 -DRB_CGO
#cgo noescape rb_ffi_noop_noescape
#cgo nocallback rb_ffi_noop_nocallback
#include <stdlib.h>
#include "roundbench.h"
int rbGoCallback(void *ctx, int64_t x, int64_t *result);
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"
)

// coreError converts the core's error record into an *Error.
func coreError(fn string, st C.rb_status, e *C.rb_error) error {
	kind := ErrInterrupted
	switch st {
	case C.RB_ERR_ARG:
		kind = ErrArg
	case C.RB_ERR_OVERFLOW:
		kind = ErrOverflow
	case C.RB_ERR_NOMEM:
		kind = ErrNoMem
	case C.RB_ERR_IO:
		kind = ErrIO
	case C.RB_ERR_TYPE:
		kind = ErrType
	}
	out := &Error{Func: fn, Msg: C.GoString(C.rb_status_name(st)), Pos: int64(e.pos), Kind: kind}
	if e.msg != nil {
		out.Msg = C.GoString(e.msg)
	}
	if e.arg != nil {
		out.Arg = C.GoString(e.arg)
	}
	return out
}

// Loop returns the sum of i*i % 7 for i in [0, n), computed by the C core in
// one call.
func Loop(n int64) (int64, error) {
	if err := checkLoopN("Loop", n); err != nil {
		return 0, err
	}
	var sum C.int64_t
	var e C.rb_error
	if st := C.rb_loop(C.int64_t(n), &sum, &e); st != C.RB_OK {
		return 0, coreError("Loop", st, &e)
	}
	return int64(sum), nil
}

// LoopRange returns the sum of i*i % 7 for i in [lo, hi), computed by the C
// core: one worker's share in the cores round. Safe for concurrent use.
func LoopRange(lo, hi int64) (int64, error) {
	var sum C.int64_t
	var e C.rb_error
	if st := C.rb_loop_range(C.int64_t(lo), C.int64_t(hi), &sum, &e); st != C.RB_OK {
		return 0, coreError("LoopRange", st, &e)
	}
	return int64(sum), nil
}

// FfiNoop calls the core's trivial callee rb_ffi_noop: a plain cgo call.
func FfiNoop(x int64) int64 { return int64(C.rb_ffi_noop(C.int64_t(x))) }

// FfiNoopNoescape calls the same callee declared `#cgo noescape`.
func FfiNoopNoescape(x int64) int64 { return int64(C.rb_ffi_noop_noescape(C.int64_t(x))) }

// FfiNoopNocallback calls the same callee declared `#cgo nocallback`.
func FfiNoopNocallback(x int64) int64 { return int64(C.rb_ffi_noop_nocallback(C.int64_t(x))) }

// FfiBuffer hands b to the core without copying (a pointer to its first
// element) and returns b[0] + b[len(b)-1], or 0 for an empty slice.
func FfiBuffer(b []byte) int64 {
	if len(b) == 0 {
		return int64(C.rb_ffi_buffer(nil, 0))
	}
	r := C.rb_ffi_buffer((*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b)))
	// cgo keeps b alive for the call already; KeepAlive states that the
	// core reads b's memory up to this point.
	runtime.KeepAlive(b)
	return int64(r)
}

// FfiBufferCopy copies b into C memory (C.CBytes), hands the copy to the
// core and frees it: what code that may not share Go memory with C pays.
func FfiBufferCopy(b []byte) int64 {
	p := C.CBytes(b)
	defer C.free(p)
	return int64(C.rb_ffi_buffer((*C.uint8_t)(p), C.size_t(len(b))))
}

//export rbGoCallback
func rbGoCallback(ctx unsafe.Pointer, x C.int64_t, result *C.int64_t) C.int {
	*result = C.int64_t(PureNoop(int64(x)))
	return 0
}

// FfiCallbackLoop has the core call back into Go count times (C to Go, the
// //export rbGoCallback above) and returns the sum of the results.
func FfiCallbackLoop(count int64) (int64, error) {
	return callbackLoop("FfiCallbackLoop", C.rb_ffi_callback(C.rbGoCallback), count)
}

// FfiCallbackLoopC runs the same core loop with the core's own C callback:
// the baseline that FfiCallbackLoop's crossing is measured against.
func FfiCallbackLoopC(count int64) (int64, error) {
	return callbackLoop("FfiCallbackLoopC", C.rb_ffi_callback(C.rb_ffi_noop_callback), count)
}

func callbackLoop(fn string, cb C.rb_ffi_callback, count int64) (int64, error) {
	var sink C.int64_t
	var e C.rb_error
	if st := C.rb_ffi_callback_loop(cb, nil, C.int64_t(count), &sink, &e); st != C.RB_OK {
		return 0, coreError(fn, st, &e)
	}
	return int64(sink), nil
}

// ---- issue 5: round sleep ----

// Sleep runs the sleep round on the core's single-threaded event loop, in
// one cgo call that blocks its OS thread for about wait: n tasks, all live
// at once, each waking at a common start + wait.
func Sleep(n int64, wait time.Duration) (SleepStats, error) {
	if err := checkSleepArgs("Sleep", n, wait); err != nil {
		return SleepStats{}, err
	}
	var s C.rb_sleep_stats
	var e C.rb_error
	if st := C.rb_sleep(C.int64_t(n), C.int64_t(wait.Nanoseconds()), &s, &e); st != C.RB_OK {
		return SleepStats{}, coreError("Sleep", st, &e)
	}
	return SleepStats{N: int64(s.n), SetupNs: int64(s.setup_ns), RunNs: int64(s.run_ns),
		OverheadNs: int64(s.overhead_ns), PeakLive: int64(s.peak_live),
		Completed: int64(s.completed), Early: int64(s.early)}, nil
}

// ---- end of round sleep ----

// BuildInfo returns the compiler and flags the core was built with.
func BuildInfo() string { return C.GoString(C.rb_build_info()) }
