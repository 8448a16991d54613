package roundbench

import (
	"encoding/hex"
	"testing"
)

func TestFfiNoopVectors(t *testing.T) {
	funcs := map[string]func(int64) int64{
		"PureNoop": PureNoop, "FfiNoop": FfiNoop,
		"FfiNoopNoescape": FfiNoopNoescape, "FfiNoopNocallback": FfiNoopNocallback,
	}
	for _, v := range loadVectors(t, "ffi") {
		x, want := v.int(t, "x"), v.int(t, "noop")
		for name, f := range funcs {
			if got := f(x); got != want {
				t.Errorf("%s(%d) = %d; want %d", name, x, got, want)
			}
		}
	}
}

func TestFfiBufferVectors(t *testing.T) {
	for _, v := range loadVectors(t, "ffi-buffer") {
		b, err := hex.DecodeString(v["hex"])
		if err != nil {
			t.Fatal(err)
		}
		want := v.int(t, "result")
		if got := FfiBuffer(b); got != want {
			t.Errorf("FfiBuffer(%x) = %d; want %d", b, got, want)
		}
		if got := FfiBufferCopy(b); got != want {
			t.Errorf("FfiBufferCopy(%x) = %d; want %d", b, got, want)
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
	if _, err := FfiCallbackLoop(-1); err == nil {
		t.Error("FfiCallbackLoop(-1) succeeded; want an error naming count")
	}
}

func TestBuildInfo(t *testing.T) {
	if BuildInfo() == "" {
		t.Error("BuildInfo() is empty")
	}
}

var sink int64

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

// BenchmarkFfi gives each Go-side mechanism of the ffi round under go test.
func BenchmarkFfi(b *testing.B) {
	calls := []struct {
		name string
		f    func(int64) int64
	}{{"go", PureNoop}, {"go-c", FfiNoop}, {"go-c-noescape", FfiNoopNoescape}, {"go-c-nocallback", FfiNoopNocallback}}
	for _, c := range calls {
		b.Run("impl="+c.name, func(b *testing.B) {
			var acc int64
			for i := int64(0); b.Loop(); i++ {
				acc += c.f(i)
			}
			sink = acc
		})
	}
	buf := make([]byte, FfiBufferSize)
	for name, f := range map[string]func([]byte) int64{"go-c-slice": FfiBuffer, "go-c-copy": FfiBufferCopy} {
		b.Run("impl="+name, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if f(buf) != 0 {
					b.Fatal("wrong buffer result")
				}
			}
		})
	}
}
