//go:build cgo

package roundbench

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func init() {
	loopImpls = append(loopImpls, loopImpl{"go-c", "Loop", Loop})
	loopRanges["LoopRange"] = LoopRange
}

// TestLoopRangeErrors checks rb_loop_range's own bounds, which Loop's
// vectors cannot reach: Loop checks n before it calls the range form.
func TestLoopRangeErrors(t *testing.T) {
	for _, v := range loadAtLeast(t, "loop-range-error", 6) {
		lo, hi, arg := v.int(t, "lo"), v.int(t, "hi"), v["arg"]
		want, value := v.errKind(t), lo
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

func TestLoopCoreMessage(t *testing.T) {
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
