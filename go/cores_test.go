package roundbench

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

// coresImpl is one Go-side implementation of the cores round: its variant
// name and its function's.
type coresImpl struct {
	impl, name string
	f          func(n, workers int64) (int64, error)
}

// coresImpls are the round's Go-side implementations; cores_cgo_test.go
// adds the core's.
var coresImpls = []coresImpl{{"go", "PureLoopParallel", PureLoopParallel}}

func TestCoresVectors(t *testing.T) {
	for _, v := range loadVectors(t, "cores") {
		n, workers, want := v.int(t, "n"), v.int(t, "workers"), v.int(t, "sum")
		for _, c := range coresImpls {
			gs := runtime.NumGoroutine()
			if got, err := c.f(n, workers); err != nil || got != want {
				t.Errorf("%s(%d, %d) = %d, %v; want %d", c.name, n, workers, got, err, want)
			}
			if got := settledGoroutines(gs); got > gs {
				t.Errorf("%s(%d, %d) left %d goroutines; had %d", c.name, n, workers, got, gs)
			}
		}
	}
}

func TestCoresShareVectors(t *testing.T) {
	for _, v := range loadVectors(t, "cores-share") {
		n, workers, w := v.int(t, "n"), v.int(t, "workers"), v.int(t, "w")
		lo, hi := CoresShare(n, workers, w)
		if lo != v.int(t, "lo") || hi != v.int(t, "hi") {
			t.Errorf("CoresShare(%d, %d, %d) = [%d, %d); want [%s, %s)", n, workers, w, lo, hi, v["lo"], v["hi"])
		}
	}
}

func TestCoresErrors(t *testing.T) {
	for _, v := range loadVectors(t, "cores-error") {
		n, workers := v.int(t, "n"), v.int(t, "workers")
		want := v.errKind(t)
		for _, c := range coresImpls {
			var e *Error
			if _, err := c.f(n, workers); !errors.Is(err, want) || !errors.As(err, &e) || e.Arg != v["arg"] {
				t.Errorf("%s(%d, %d) error = %v; want %v naming %s", c.name, n, workers, err, want, v["arg"])
			}
		}
	}
}

// BenchmarkCores runs the cores round's work on 1 worker and on every CPU
// the runtime may use, under Go's own harness; the suite's figures come
// from the runner, which also reports the speed-up.
func BenchmarkCores(b *testing.B) {
	const n = 20_000_000
	for _, c := range coresImpls {
		for _, workers := range []int64{1, int64(runtime.NumCPU())} {
			b.Run(fmt.Sprintf("impl=%s/workers=%d", c.impl, workers), func(b *testing.B) {
				want := LoopExpected(n)
				for b.Loop() {
					if got, err := c.f(n, workers); err != nil || got != want {
						b.Fatalf("%s(%d, %d) = %d, %v; want %d", c.name, n, workers, got, err, want)
					}
				}
			})
		}
	}
}
