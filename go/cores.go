package roundbench

import "sync"

// CoresMaxWorkers is the most workers the cores round accepts
// (RB_CORES_MAX_WORKERS).
const CoresMaxWorkers = 4096

// CoresShare returns worker w's range [lo, hi) of [0, n) split among
// workers: equal contiguous ranges, the first n % workers one longer (the
// core's rb_cores_share).
func CoresShare(n, workers, w int64) (lo, hi int64) {
	base, rem := n/workers, n%workers
	longer := rem // the longer ranges before w's: min(w, rem)
	if w < rem {
		longer = w
	}
	lo = w*base + longer
	hi = lo + base
	if w < rem {
		hi++
	}
	return lo, hi
}

func checkCoresArgs(fn string, n, workers int64) error {
	if err := checkLoopN(fn, n); err != nil {
		return err
	}
	if workers < 1 || workers > CoresMaxWorkers {
		return argError(fn, "workers", ErrArg, "must be in [1, %d], not %d", CoresMaxWorkers, workers)
	}
	return nil
}

// onGoroutines runs work on each worker's share in its own goroutine and
// sums the results; the first error wins.
func onGoroutines(n, workers int64, work func(lo, hi int64) (int64, error)) (int64, error) {
	parts := make([]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := int64(0); w < workers; w++ {
		w := w // one per goroutine under any Go's loop variables
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w], errs[w] = work(CoresShare(n, workers, w))
		}()
	}
	wg.Wait()
	var sum int64
	for w := int64(0); w < workers; w++ {
		if errs[w] != nil {
			return 0, errs[w]
		}
		sum += parts[w]
	}
	return sum, nil
}

func pureLoopRange(lo, hi int64) (int64, error) {
	var sum int64
	for i := lo; i < hi; i++ {
		sum += i * i % 7
	}
	return sum, nil
}

// PureLoopParallel is the loop round's sum over [0, n) on `workers`
// goroutines in pure Go. How many run at once is GOMAXPROCS's to decide.
func PureLoopParallel(n, workers int64) (int64, error) {
	if err := checkCoresArgs("PureLoopParallel", n, workers); err != nil {
		return 0, err
	}
	return onGoroutines(n, workers, pureLoopRange)
}
