//go:build cgo

package roundbench

import (
	"encoding/hex"
	"errors"
	"testing"
)

func init() {
	ffiCalls = append(ffiCalls,
		ffiCall{"go-c", "FfiNoop", FfiNoop},
		ffiCall{"go-c-noescape", "FfiNoopNoescape", FfiNoopNoescape},
		ffiCall{"go-c-nocallback", "FfiNoopNocallback", FfiNoopNocallback},
		ffiCall{"go-c-ptr", "FfiNoopOut", FfiNoopOut},
		ffiCall{"go-c-ptr-noescape", "FfiNoopOutNoescape", FfiNoopOutNoescape},
		ffiCall{"go-c-ptr-nocallback", "FfiNoopOutNocallback", FfiNoopOutNocallback},
		ffiCall{"go-c-ptr-both", "FfiNoopOutBoth", FfiNoopOutBoth})
	ffiBuffers = append(ffiBuffers,
		ffiBuffer{"go-c-slice", "FfiBuffer", FfiBuffer},
		ffiBuffer{"go-c-copy", "FfiBufferCopy", FfiBufferCopy})
}

func TestFfiBufferVectors(t *testing.T) {
	for _, v := range loadVectors(t, "ffi-buffer") {
		b, err := hex.DecodeString(v["hex"])
		if err != nil {
			t.Fatal(err)
		}
		want := v.int(t, "result")
		for _, c := range ffiBuffers {
			if got := c.f(b); got != want {
				t.Errorf("%s(%x) = %d; want %d", c.name, b, got, want)
			}
		}
	}
	big := make([]byte, FfiBufferSize)
	big[0], big[len(big)-1] = 5, 6
	if got := FfiBuffer(big); got != 11 {
		t.Errorf("FfiBuffer(1 MiB) = %d; want 11", got)
	}
	if got := FfiBuffer(big[1:]); got != 6 {
		t.Errorf("FfiBuffer(big[1:]) = %d; want 6", got)
	}
}

func TestFfiCallbackLoop(t *testing.T) {
	for _, count := range []int64{0, 1, 4, 1000} {
		want := count * (count + 1) / 2 // sum of i+1 for i < count
		got, err := FfiCallbackLoop(count)
		if err != nil || got != want {
			t.Errorf("FfiCallbackLoop(%d) = %d, %v; want %d", count, got, err, want)
		}
		got, err = FfiCallbackLoopC(count)
		if err != nil || got != want {
			t.Errorf("FfiCallbackLoopC(%d) = %d, %v; want %d", count, got, err, want)
		}
	}
	for name, loop := range map[string]func(int64) (int64, error){"FfiCallbackLoop": FfiCallbackLoop, "FfiCallbackLoopC": FfiCallbackLoopC} {
		_, err := loop(-1)
		var e *Error
		if !errors.Is(err, ErrArg) || !errors.As(err, &e) || e.Func != name || e.Arg != "count" {
			t.Errorf("%s(-1) error = %v; want ErrArg from %s naming argument count", name, err, name)
		}
	}
}

func TestBuildInfo(t *testing.T) {
	if BuildInfo() == "" {
		t.Error("BuildInfo() is empty")
	}
}

// BenchmarkCgoCall is a cgo call written the way the Go runtime's own cgo
// benchmarks write one (a plain b.N loop around the call): the reference the
// suite's go-c figure is compared with (make fidelity).
func BenchmarkCgoCall(b *testing.B) {
	var acc int64
	for i := 0; i < b.N; i++ {
		acc += FfiNoop(int64(i))
	}
	sink = acc
}

// A pointer to a local escapes to the heap through a cgo call unless the
// callee is declared both noescape and nocallback (cmd/cgo's
// _Cgo_keepalive); noescape alone does not keep it on the stack.
func TestFfiPointerAllocations(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(int64) int64
		want float64
	}{
		{"FfiNoop", FfiNoop, 0},
		{"FfiNoopOut", FfiNoopOut, 1},
		{"FfiNoopOutNoescape", FfiNoopOutNoescape, 1},
		{"FfiNoopOutNocallback", FfiNoopOutNocallback, 1},
		{"FfiNoopOutBoth", FfiNoopOutBoth, 0},
	} {
		var sum int64
		if got := testing.AllocsPerRun(1000, func() { sum += c.f(41) }); got != c.want {
			t.Errorf("%s: %v allocations a call; want %v", c.name, got, c.want)
		}
		if sum != 42*1001 {
			t.Errorf("%s(41) summed to %d over 1001 calls; want %d", c.name, sum, 42*1001)
		}
	}
}
