package roundbench

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// loopImpl is one Go-side implementation of the loop round: its variant
// name and its function's.
type loopImpl struct {
	impl, name string
	f          func(int64) (int64, error)
}

// loopImpls and loopRanges are the round's Go-side implementations, of the
// whole sum and of a range of it (the cores round's share); loop_cgo_test.go
// adds the core's.
var (
	loopImpls  = []loopImpl{{"go", "PureLoop", PureLoop}}
	loopRanges = map[string]func(lo, hi int64) (int64, error){"pureLoopRange": pureLoopRange}
)

func TestLoopVectors(t *testing.T) {
	for _, v := range loadVectors(t, "loop") {
		n, want := v.int(t, "n"), v.int(t, "sum")
		if got := LoopExpected(n); got != want {
			t.Errorf("LoopExpected(%d) = %d; want %d", n, got, want)
		}
		for _, c := range loopImpls {
			if testing.Short() && n > 1_000_000 && c.impl == "go" {
				continue
			}
			if got, err := c.f(n); err != nil || got != want {
				t.Errorf("%s(%d) = %d, %v; want %d", c.name, n, got, err, want)
			}
		}
	}
}

func TestLoopRangeVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "loop-range", 8) {
		lo, hi, want := v.int(t, "lo"), v.int(t, "hi"), v.int(t, "sum")
		for name, f := range loopRanges {
			if got, err := f(lo, hi); err != nil || got != want {
				t.Errorf("%s(%d, %d) = %d, %v; want %d", name, lo, hi, got, err, want)
			}
		}
	}
}

func TestLoopErrors(t *testing.T) {
	for _, v := range loadVectors(t, "loop-error") {
		n := v.int(t, "n")
		want := v.errKind(t)
		for _, c := range loopImpls {
			_, err := c.f(n)
			if !errors.Is(err, want) {
				t.Errorf("%s(%d) error = %v; want %v", c.name, n, err, want)
				continue
			}
			var e *Error
			if !errors.As(err, &e) || e.Arg != "n" || !strings.Contains(err.Error(), "argument n") {
				t.Errorf("%s(%d) error %q does not name argument n", c.name, n, err)
			}
		}
	}
}

var loopSizes = []int64{1000, 1_000_000}

// BenchmarkLoop runs the loop round's Go variants under go test -bench; the
// suite's own numbers come from `roundbench run loop` (one process per run).
func BenchmarkLoop(b *testing.B) {
	for _, c := range loopImpls {
		for _, n := range loopSizes {
			b.Run(fmt.Sprintf("impl=%s/n=%d", c.impl, n), func(b *testing.B) {
				want := LoopExpected(n)
				for b.Loop() {
					got, err := c.f(n)
					if err != nil || got != want {
						b.Fatalf("%s(%d) = %d, %v; want %d", c.name, n, got, err, want)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/iter")
			})
		}
	}
}
