//go:build cgo

package roundbench

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func init() {
	loopImpls = append(loopImpls, loopImpl{"go-c", "Loop", Loop})
	loopRanges["LoopRange"] = LoopRange
}

// Errors found by the core itself come back as *Error too.
func TestLoopRangeErrors(t *testing.T) {
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
