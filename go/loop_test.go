package roundbench

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestLoopVectors(t *testing.T) {
	for _, v := range loadVectors(t, "loop") {
		n, want := v.int(t, "n"), v.int(t, "sum")
		if got, err := Loop(n); err != nil || got != want {
			t.Errorf("Loop(%d) = %d, %v; want %d", n, got, err, want)
		}
		if got := LoopExpected(n); got != want {
			t.Errorf("LoopExpected(%d) = %d; want %d", n, got, want)
		}
		if testing.Short() && n > 1_000_000 {
			continue
		}
		if got, err := PureLoop(n); err != nil || got != want {
			t.Errorf("PureLoop(%d) = %d, %v; want %d", n, got, err, want)
		}
	}
}

func TestLoopRangeVectors(t *testing.T) {
	for _, v := range loadVectors(t, "loop-range") {
		lo, hi, want := v.int(t, "lo"), v.int(t, "hi"), v.int(t, "sum")
		if got, err := LoopRange(lo, hi); err != nil || got != want {
			t.Errorf("LoopRange(%d, %d) = %d, %v; want %d", lo, hi, got, err, want)
		}
	}
}

func TestLoopErrors(t *testing.T) {
	for _, v := range loadVectors(t, "loop-error") {
		n := v.int(t, "n")
		want := ErrArg
		if v["error"] == "overflow" {
			want = ErrOverflow
		}
		for name, f := range map[string]func(int64) (int64, error){"Loop": Loop, "PureLoop": PureLoop} {
			_, err := f(n)
			if !errors.Is(err, want) {
				t.Errorf("%s(%d) error = %v; want %v", name, n, err, want)
				continue
			}
			var e *Error
			if !errors.As(err, &e) || e.Arg != "n" || !strings.Contains(err.Error(), "argument n") {
				t.Errorf("%s(%d) error %q does not name argument n", name, n, err)
			}
		}
	}
	// Errors found by the core itself come back as *Error too.
	if _, err := LoopRange(5, 1); !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), "hi") {
		t.Errorf("LoopRange(5, 1) error = %v; want ErrArg naming hi", err)
	}
	if _, err := LoopRange(0, LoopMaxN+1); !errors.Is(err, ErrOverflow) {
		t.Errorf("LoopRange(0, LoopMaxN+1) error = %v; want ErrOverflow", err)
	}
}

func TestLoopConcurrent(t *testing.T) {
	// The core keeps no global state: concurrent calls agree.
	const workers = 8
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			n := int64(100_000 + w)
			got, err := Loop(n)
			if err == nil && got != LoopExpected(n) {
				err = fmt.Errorf("Loop(%d) = %d; want %d", n, got, LoopExpected(n))
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

var loopSizes = []int64{1000, 1_000_000}

// BenchmarkLoop runs the loop round's Go variants under go test -bench; the
// suite's own numbers come from `roundbench run loop` (one process per run).
func BenchmarkLoop(b *testing.B) {
	impls := []struct {
		name string
		f    func(int64) (int64, error)
	}{{"go", PureLoop}, {"go-c", Loop}}
	for _, impl := range impls {
		for _, n := range loopSizes {
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl.name, n), func(b *testing.B) {
				want := LoopExpected(n)
				for b.Loop() {
					got, err := impl.f(n)
					if err != nil || got != want {
						b.Fatalf("%s(%d) = %d, %v; want %d", impl.name, n, got, err, want)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/iter")
			})
		}
	}
}
