// Command rb-go-chain is round chain's Go child runner: `rb-go-chain chain IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-chain --list` lists the variants (go/internal/harness). chain_cgo.go
// adds the variants that call the C core. Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// chainRunner is one variant's setup; the value it returns passes and
// closes. Both the pure and the core chains fit.
type chainRunner interface {
	Pass() ([]int64, error)
	Close()
}

// chainUnits are what a chain result line carries besides ns/op.
var chainUnits = []string{"setup-ns", "pass-ns", "teardown-ns", "ns/hop", "B/task", "sys-ns/hop", "cpu-ns/hop"}

func init() {
	harness.Register("chain", "go", func(a *harness.Args) {
		runChain(a, func(n, k, p int64) (chainRunner, error) { return roundbench.NewPureChain(n, k, p) })
	}, chainUnits...)
}

// chainCalibrationN is the calibration chain's length (as in the C and
// Python runners).
const chainCalibrationN = 2000

// cpuNs returns this process's (system, user + system) CPU time so far.
func cpuNs() (sys, total int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Stime.Nano(), ru.Stime.Nano() + ru.Utime.Nano()
}

// runChain is the protocol every chain variant shares: baseline RSS, a
// calibration chain for the memory guard (and warm-up), then setup, pass
// and teardown timed apart. Teardown includes runtime.GC(): Go frees the
// goroutines' stacks and channels only by collecting them.
func runChain(a *harness.Args, build func(n, k, p int64) (chainRunner, error)) {
	n := a.Int("n", 100_000, 1, roundbench.ChainMaxN)
	k := a.Int("hop-work", 0, 0, 1<<63-1)
	p := a.Int("parallel", 1, 1, roundbench.ChainMaxParallel)
	if k > ((1<<63-1)/n-1)/6 {
		harness.Exit(harness.ExitUsage, "chain: hop-work=%d is too large for n=%d: the value would overflow int64", k, n)
	}
	base := harness.ProcBytes("/proc/self/status", "VmRSS")

	m := harness.Min(n, chainCalibrationN)
	ch, err := build(m, 0, 1)
	harness.Must(err)
	grown := harness.ProcBytes("/proc/self/status", "VmRSS") - base
	got, err := ch.Pass()
	harness.Must(err)
	ch.Close()
	harness.Check("calibration chain", got[0], m)
	memoryGuard(n, p, m, grown)

	var values []int64
	setup := harness.Timed(func() { ch, err = build(n, k, p) })
	harness.Must(err)
	sys0, cpu0 := cpuNs()
	pass := harness.Timed(func() { values, err = ch.Pass() })
	sys1, cpu1 := cpuNs()
	harness.Must(err)
	peak := harness.ProcBytes("/proc/self/status", "VmHWM")
	teardown := harness.Timed(func() {
		ch.Close()
		ch = nil
		// scan: allow forced-gc: teardown is timed, and Go frees only when it collects (Python's refcounts free at del)
		runtime.GC()
	})

	want := roundbench.ChainExpected(n, k)
	for i, v := range values {
		harness.Check(fmt.Sprintf("value of chain %d", i), v, want)
	}
	hops := float64(n * p)
	s, ps, t := float64(setup.Nanoseconds()), float64(pass.Nanoseconds()), float64(teardown.Nanoseconds())
	harness.Result("value=%d chains=%d", want, p)
	harness.Emit(a, 1, s+ps+t,
		harness.Metric{Value: s, Unit: "setup-ns"},
		harness.Metric{Value: ps, Unit: "pass-ns"},
		harness.Metric{Value: t, Unit: "teardown-ns"},
		harness.Metric{Value: ps / hops, Unit: "ns/hop"},
		harness.Metric{Value: float64(harness.Max(peak-base, 0)) / hops, Unit: "B/task"},
		harness.Metric{Value: float64(sys1-sys0) / hops, Unit: "sys-ns/hop"},
		harness.Metric{Value: float64(cpu1-cpu0) / hops, Unit: "cpu-ns/hop"},
	)
}

// memoryGuard ends the child with ExitCannot, naming the numbers, when n x p
// tasks would not fit in MemAvailable at the bytes per task that a
// calibration chain of m tasks grew the resident set by (grown), +10%: a
// refusal instead of minutes of swapping.
func memoryGuard(n, p, m, grown int64) {
	perTask := float64(harness.Max(grown, 0)) / float64(m)
	need := perTask * float64(n) * float64(p) * 1.1
	if avail := harness.ProcBytes("/proc/meminfo", "MemAvailable"); avail > 0 && need > float64(avail) {
		fmt.Fprintf(os.Stderr, "not possible here: memory: n=%d x parallel=%d needs about %.0f MiB "+
			"(%.0f B/task measured on a calibration chain of %d tasks, +10%%) but MemAvailable is %.0f MiB\n",
			n, p, need/(1<<20), perTask, m, float64(avail)/(1<<20))
		os.Exit(harness.ExitCannot)
	}
}
