// Command rb-go-cores is round cores's Go child runner: `rb-go-cores cores IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-cores --list` lists the variants (go/internal/harness). cores_cgo.go
// adds the variants that call the C core. Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// coresUnits are what a cores result line carries besides ns/op.
var coresUnits = []string{"speedup", "efficiency", "t1-ns"}

func init() {
	harness.Register("cores", "go", func(a *harness.Args) { runCores(a, roundbench.PureLoopParallel) }, coresUnits...)
}

// runCores times the work on 1 worker and then on T in this process and
// reports their ratio: see csrc/runner/run_cores.c for why the pair is
// measured in one child. The runner sets GOMAXPROCS = T for the child, so
// the 1-worker pass runs with T Ps: one goroutine uses one of them.
func runCores(a *harness.Args, parallel func(n, workers int64) (int64, error)) {
	n := a.Int("n", 100_000_000, 0, roundbench.LoopMaxN)
	t := a.Int("workers", 1, 1, roundbench.CoresMaxWorkers)
	_, err := parallel(harness.Min(n, 1<<20), t) // warm-up
	harness.Must(err)
	want := roundbench.LoopExpected(n)
	pass := func(workers int64) time.Duration {
		var sum int64
		d := harness.Timed(func() { sum, err = parallel(n, workers) })
		harness.Must(err)
		harness.Check("sum", sum, want)
		return d
	}
	one := pass(1)
	many := one
	if t > 1 {
		many = pass(t)
	}
	speedup := float64(one) / float64(harness.Max(many, 1))
	harness.Result("sum=%d", want)
	harness.Emit(a, 1, float64(many.Nanoseconds()),
		harness.Metric{Value: speedup, Unit: "speedup"},
		harness.Metric{Value: speedup / float64(t), Unit: "efficiency"},
		harness.Metric{Value: float64(one.Nanoseconds()), Unit: "t1-ns"})
}
