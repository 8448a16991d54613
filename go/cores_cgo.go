//go:build cgo

package roundbench

// LoopParallel is the cores round's sum over [0, n) on `workers`
// goroutines, each calling the core's rb_loop_range through cgo (a cgo call
// holds its OS thread, so the goroutines run in parallel up to GOMAXPROCS).
func LoopParallel(n, workers int64) (int64, error) {
	if err := checkCoresArgs("LoopParallel", n, workers); err != nil {
		return 0, err
	}
	return onGoroutines(n, workers, LoopRange)
}
