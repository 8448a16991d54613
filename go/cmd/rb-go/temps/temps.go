// Command rb-go-temps is round temps's Go child runner: `rb-go-temps temps IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-temps --list` lists the variants (go/internal/harness). temps_cgo.go
// adds the variants that call the C core. Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"syscall"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// tempsUnits are what a temps result line carries besides ns/op.
var tempsUnits = []string{"ns/elem", "sys-ns/elem", "traffic-B"}

// sysNs is this process's system CPU time so far: around the timed work it
// gives the kernel's share of it (page faults, mapping), which the report
// puts beside the wall time.
func sysNs() float64 {
	var ru syscall.Rusage
	harness.Must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return float64(ru.Stime.Nano())
}

func init() {
	harness.Register("temps", "go", func(a *harness.Args) { runTemps(a, roundbench.PureTemps) }, tempsUnits...)
	// go-pgo, go-v3 and go-pgo-v3: this directory built apart with PGO or
	// GOAMD64=v3 (the build table's GO_BUILD_RUNNERS).
	harness.Twin("temps", "go")
}

func runTemps(a *harness.Args, temps func([]int64) (int64, error)) {
	n := a.Int("n", 20_000_000, 0, roundbench.LoopMaxN)
	arr := make([]int64, n) // arange(n), untimed; faults the pages in
	for i := range arr {
		arr[i] = int64(i)
	}
	_, err := temps(arr[:harness.Min(n, 1<<20)]) // warm-up
	harness.Must(err)
	var sum int64
	s0 := sysNs()
	d := harness.Timed(func() { sum, err = temps(arr) })
	sys := sysNs() - s0
	harness.Must(err)
	// a = arange(n): the loop round's sum, by its closed form.
	harness.Check("sum", sum, roundbench.LoopExpected(n))
	perElem, sysPerElem := 0.0, 0.0
	if n > 0 {
		perElem = float64(d.Nanoseconds()) / float64(n)
		sysPerElem = sys / float64(n)
	}
	harness.Result("sum=%d", sum)
	harness.Emit(a, 1, float64(d.Nanoseconds()),
		harness.Metric{Value: perElem, Unit: "ns/elem"},
		harness.Metric{Value: sysPerElem, Unit: "sys-ns/elem"},
		harness.Metric{Value: float64(8 * n), Unit: "traffic-B"})
}
