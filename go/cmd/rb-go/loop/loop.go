// Command rb-go-loop is round loop's Go child runner: `rb-go-loop loop IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-loop --list` lists the variants (go/internal/harness). loop_cgo.go
// adds the variants that call the C core. Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// loopUnits are what a loop result line carries besides ns/op.
var loopUnits = []string{"ns/iter"}

func init() {
	harness.Register("loop", "go", func(a *harness.Args) { runLoop(a, roundbench.PureLoop) }, loopUnits...)
	// go-pgo, go-v3 and go-pgo-v3: this directory built apart with PGO or
	// GOAMD64=v3 (the build table's GO_BUILD_RUNNERS).
	harness.Twin("loop", "go")
}

func runLoop(a *harness.Args, loop func(int64) (int64, error)) {
	n := a.Int("n", 20_000_000, 0, roundbench.LoopMaxN)
	var err error
	harness.WarmUp(func() {
		_, err = loop(harness.Min(n, 1<<20))
		harness.Must(err)
	})
	var sum int64
	d := harness.Timed(func() { sum, err = loop(n) })
	harness.Must(err)
	harness.Check("sum", sum, roundbench.LoopExpected(n))
	perIter := 0.0
	if n > 0 {
		perIter = float64(d.Nanoseconds()) / float64(n)
	}
	harness.Result("sum=%d", sum)
	harness.Emit(a, 1, float64(d.Nanoseconds()), harness.Metric{Value: perIter, Unit: "ns/iter"})
}
