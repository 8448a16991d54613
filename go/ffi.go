package roundbench

// PureNoop is the ffi round's callee written in Go: x + 1 (wrapping). It is
// kept out of line so that a call to it is a real call, as rb_ffi_noop is
// for the C mechanisms.
//
//go:noinline
func PureNoop(x int64) int64 {
	return x + 1
}

// FfiBufferSize is the size of the buffer the ffi round hands to C.
const FfiBufferSize = 1 << 20
