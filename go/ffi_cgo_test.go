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

// decodeHex is a vector's hex=... field as the bytes it spells.
func decodeHex(t *testing.T, v vector) string {
	t.Helper()
	b, err := hex.DecodeString(v["hex"])
	if err != nil {
		t.Fatalf("vector %v: hex: %v", v, err)
	}
	return string(b)
}

func TestFfiArgs4Vectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "ffi-args4", 12) {
		a, b, c, s := v.int(t, "a"), v.float(t, "b"), v.int(t, "c"), decodeHex(t, v)
		got, err := FfiArgs4(a, b, int32(c), s)
		if want := v.int(t, "result"); err != nil || got != want {
			t.Errorf("FfiArgs4(%d, %g, %d, %q) = %d, %v; want %d", a, b, c, s, got, err, want)
		}
	}
}

// A NUL byte would cut the string short on C's side: it is refused, and
// the error names the argument and where the NUL is.
func TestFfiArgs4RefusesANul(t *testing.T) {
	_, err := FfiArgs4(1, 2, 3, "ab\x00cd")
	var e *Error
	if !errors.Is(err, ErrArg) || !errors.As(err, &e) || e.Func != "FfiArgs4" || e.Arg != "s" ||
		e.Msg != "holds a NUL byte at 2" {
		t.Errorf("FfiArgs4(1, 2, 3, \"ab\\x00cd\") error = %v; want ErrArg from FfiArgs4 naming s and byte 2", err)
	}
}

func TestFfiStrVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "ffi-str", 8) {
		x, want := v.int(t, "x"), decodeHex(t, v)
		if got := FfiStr(x); got != want {
			t.Errorf("FfiStr(%d) = %q; want %q", x, got, want)
		}
	}
}

// Each call makes a new Go string (C.GoString copies), one allocation; the
// empty string needs none.
func TestFfiStrAllocations(t *testing.T) {
	for x, want := range map[int64]float64{0: 0, 1: 1} {
		if got := testing.AllocsPerRun(1000, func() { sink += int64(len(FfiStr(x))) }); got != want {
			t.Errorf("FfiStr(%d): %v allocations a call; want %v", x, got, want)
		}
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

// BenchmarkFfiArgs4 and BenchmarkFfiStr time the rows go-c-args4 and
// go-c-str under go test: the call the suite times, checked inside the loop.
func BenchmarkFfiArgs4(b *testing.B) {
	for b.Loop() {
		if r, err := FfiArgs4(41, 2.5, -2, "hello, world"); err != nil || r != 53 {
			b.Fatalf("FfiArgs4(41, 2.5, -2, \"hello, world\") = %d, %v; want 53", r, err)
		}
	}
}

func BenchmarkFfiStr(b *testing.B) {
	for b.Loop() {
		if s := FfiStr(41); s != "hello, world" {
			b.Fatalf("FfiStr(41) = %q; want \"hello, world\"", s)
		}
	}
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
