package roundbench

import "testing"

// ffiCall is one Go-side callee of the ffi round: its variant name and its
// function's.
type ffiCall struct {
	impl, name string
	f          func(int64) int64
}

// ffiBuffer is one Go-side way to hand a buffer to the ffi round's callee.
type ffiBuffer struct {
	impl, name string
	f          func([]byte) int64
}

// ffiCalls and ffiBuffers are the round's Go-side mechanisms; the pure one
// is here, ffi_cgo_test.go adds the crossings.
var (
	ffiCalls   = []ffiCall{{"go", "PureNoop", PureNoop}}
	ffiBuffers []ffiBuffer
)

func TestFfiNoopVectors(t *testing.T) {
	for _, v := range loadVectors(t, "ffi") {
		x, want := v.int(t, "x"), v.int(t, "noop")
		for _, c := range ffiCalls {
			if got := c.f(x); got != want {
				t.Errorf("%s(%d) = %d; want %d", c.name, x, got, want)
			}
		}
	}
}

var sink int64

// BenchmarkFfi gives each Go-side mechanism of the ffi round under go test.
func BenchmarkFfi(b *testing.B) {
	for _, c := range ffiCalls {
		b.Run("impl="+c.impl, func(b *testing.B) {
			var acc int64
			for i := int64(0); b.Loop(); i++ {
				acc += c.f(i)
			}
			sink = acc
		})
	}
	buf := make([]byte, FfiBufferSize)
	for _, c := range ffiBuffers {
		b.Run("impl="+c.impl, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if c.f(buf) != 0 {
					b.Fatalf("%s(zeros) != 0", c.name)
				}
			}
		})
	}
}
