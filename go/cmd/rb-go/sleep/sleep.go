// Command rb-go-sleep is round sleep's Go child runner: `rb-go-sleep sleep IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-sleep --list` lists the variants (go/internal/harness). sleep_cgo.go
// adds the variants that call the C core. Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// sleepUnits are what a sleep result line carries besides ns/op.
var sleepUnits = []string{"overhead-ns", "setup-ns", "B/task", "live-tasks", "base-B"}

func init() {
	harness.Register("sleep", "go", func(a *harness.Args) { runSleep(a, roundbench.PureSleep) }, sleepUnits...)
}

// peakRSS is this process's peak resident set (VmHWM) in bytes: what wait4
// reports at exit, read mid-run for the N=1 baseline.
func peakRSS() int64 {
	peak := harness.ProcBytes("/proc/self/status", "VmHWM")
	if peak < 0 {
		harness.Exit(harness.ExitFailed, "no VmHWM in /proc/self/status")
	}
	return peak
}

func runSleep(a *harness.Args, sleep func(int64, time.Duration) (roundbench.SleepStats, error)) {
	n := a.Int("n", 100_000, 1, roundbench.SleepMaxN)
	wait := time.Duration(a.Int("wait_ms", 1000, 0, 3_600_000)) * time.Millisecond
	// The variant's own N=1 baseline in this process (also the warm-up):
	// after one whole run with one task, VmHWM holds the runtime and one
	// task; the rest of the peak is what the n tasks cost.
	_, err := sleep(1, time.Millisecond)
	harness.Must(err)
	base := peakRSS()
	s, err := sleep(n, wait)
	harness.Must(err)
	peak := peakRSS()
	harness.Check("completed", s.Completed, n)
	harness.Check("peak live tasks", s.PeakLive, n)
	harness.Check("tasks that woke early", s.Early, 0)
	harness.Result("tasks=%d peak=%d completed=%d", n, s.PeakLive, s.Completed)
	harness.Emit(a, 1, float64(s.SetupNs+s.RunNs),
		harness.Metric{Value: float64(s.OverheadNs), Unit: "overhead-ns"},
		harness.Metric{Value: float64(s.SetupNs), Unit: "setup-ns"},
		harness.Metric{Value: float64(peak-base) / float64(n), Unit: "B/task"},
		harness.Metric{Value: float64(s.PeakLive), Unit: "live-tasks"},
		harness.Metric{Value: float64(base), Unit: "base-B"})
}
