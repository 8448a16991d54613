package roundbench

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
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
	for _, v := range loadAtLeast(t, "loop-range", 8) {
		lo, hi, want := v.int(t, "lo"), v.int(t, "hi"), v.int(t, "sum")
		if got, err := LoopRange(lo, hi); err != nil || got != want {
			t.Errorf("LoopRange(%d, %d) = %d, %v; want %d", lo, hi, got, err, want)
		}
	}
}

// TestLoopRangeErrors checks rb_loop_range's own bounds, which Loop's
// vectors cannot reach: Loop checks n before it calls the range form.
func TestLoopRangeErrors(t *testing.T) {
	for _, v := range loadAtLeast(t, "loop-range-error", 6) {
		lo, hi, arg := v.int(t, "lo"), v.int(t, "hi"), v["arg"]
		want, value := ErrArg, lo
		if v["error"] == "overflow" {
			want = ErrOverflow
		}
		if arg == "hi" {
			value = hi
		}
		got, err := LoopRange(lo, hi)
		var e *Error
		if !errors.Is(err, want) || !errors.As(err, &e) || e.Arg != arg {
			t.Errorf("LoopRange(%d, %d) = %d, %v; want %v naming %s", lo, hi, got, err, want, arg)
			continue
		}
		if s := fmt.Sprintf("argument %s: ", arg); !strings.Contains(err.Error(), s) ||
			!strings.HasSuffix(err.Error(), fmt.Sprintf(", not %d", value)) {
			t.Errorf("LoopRange(%d, %d) error %q; want %q and the value %d", lo, hi, err, s, value)
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
	// The core's own words, through the one mapper.
	const want = "roundbench.Loop: argument n: must be >= 0, not -1"
	if _, err := Loop(-1); err == nil || err.Error() != want {
		t.Errorf("Loop(-1) error = %v; want %q", err, want)
	}
}

func TestCoreErrorKinds(t *testing.T) {
	for code, want := range map[int]error{1: ErrArg, 2: ErrOverflow, 3: ErrNoMem, 4: ErrIO,
		5: ErrType, 6: ErrInterrupted, 7: ErrCore, 99: ErrCore, -1: ErrCore} {
		err := statusError("F", code, "x", "went wrong")
		if !errors.Is(err, want) || (want != ErrInterrupted && errors.Is(err, ErrInterrupted)) ||
			err.Error() != "roundbench.F: argument x: went wrong" {
			t.Errorf("status %d: error %v; want %v", code, err, want)
		}
	}
	if err := statusError("F", 99, "", ""); err.Error() != "roundbench.F: unknown status (status 99)" {
		t.Errorf("status 99 without a message: %q", err)
	}
	// A failed system call carries its errno: errors.Is reaches it.
	_, err := JsonlCountFile("/nonexistent/roundbench-test.jsonl")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) ||
		e.Errno != syscall.ENOENT || !strings.Contains(err.Error(), "/nonexistent/roundbench-test.jsonl") {
		t.Errorf("JsonlCountFile(missing) error = %#v; want ErrIO and fs.ErrNotExist naming the file", err)
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
