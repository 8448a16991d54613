package main

// The published Go program, as published (variant go-published): N
// goroutines that each sleep 1 s from when they start, a WaitGroup, no
// common start; its overhead is the total wall time, creation included,
// minus the 1 s. Its loop is written as Go before 1.22 has it (no range
// over an integer), so that every toolchain from 1.19 builds it.

import (
	"runtime"
	"sync"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("sleep", "go-published", runSleepPublished, "overhead-ns", "setup-ns", "B/task", "live-tasks", "base-B")
}

// sleepPublished runs the published program with n goroutines and returns
// its total wall time and, sampled between its creation loop and its wait
// (two cheap calls the published program does not make), how long the
// creation took and how many goroutines were alive at its end: the peak,
// since none starts after it, but not necessarily n, since nothing makes
// the first ones wait for the last.
func sleepPublished(n int64, wait time.Duration) (total, created time.Duration, live int64) {
	before := runtime.NumGoroutine()
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := int64(0); i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(wait)
		}()
	}
	created = time.Since(t0)
	live = int64(runtime.NumGoroutine() - before)
	wg.Wait()
	return time.Since(t0), created, live
}

// goroutinesBackTo waits up to a second for the goroutine count to come
// down to want (a goroutine is counted until it has returned, a moment
// after its wg.Done) and returns the last count.
func goroutinesBackTo(want int) int {
	deadline := time.Now().Add(time.Second)
	for {
		got := runtime.NumGoroutine()
		if got <= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(time.Millisecond)
	}
}

func runSleepPublished(a *harness.Args) {
	n := a.Int("n", 100_000, 1, roundbench.SleepMaxN)
	wait := time.Duration(a.Int("wait_ms", 1000, 0, 3_600_000)) * time.Millisecond
	// The same N=1 baseline (and warm-up) as the fair variants.
	sleepPublished(1, time.Millisecond)
	base := peakRSS()
	before := runtime.NumGoroutine()
	total, created, live := sleepPublished(n, wait)
	peak := peakRSS()
	if total < wait {
		harness.Exit(harness.ExitWrong, "wrong result: total wall time %v; want at least the wait, %v", total, wait)
	}
	if live < 1 || live > n {
		harness.Exit(harness.ExitWrong, "wrong result: goroutines alive after the creation loop = %d; want 1 to %d", live, n)
	}
	if left := goroutinesBackTo(before); left != before {
		harness.Exit(harness.ExitWrong, "wrong result: %d goroutines still running after the wait; want 0", left-before)
	}
	harness.Emit(a, 1, float64(total.Nanoseconds()),
		harness.Metric{Value: float64((total - wait).Nanoseconds()), Unit: "overhead-ns"},
		harness.Metric{Value: float64(created.Nanoseconds()), Unit: "setup-ns"},
		harness.Metric{Value: float64(peak-base) / float64(n), Unit: "B/task"},
		harness.Metric{Value: float64(live), Unit: "live-tasks"},
		harness.Metric{Value: float64(base), Unit: "base-B"})
}
