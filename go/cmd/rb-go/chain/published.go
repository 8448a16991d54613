package main

// The published Go program, as published (variant go-published): a chain
// of n goroutines joined by unbuffered channels, each receiving a value,
// adding 1 and passing it on, built and passed in one timing, and run twice
// in one process. The second run is much faster than the first: the first
// run's goroutines have exited, and the runtime reuses their descriptors
// and stacks instead of allocating new ones. parallel=P runs P such chains
// at once, each in its own goroutine. Its loops are written as Go before
// 1.22 has them (no range over an integer, the loop variable copied for
// its goroutine), so that every toolchain from 1.19 builds the same
// program.

import (
	"fmt"
	"sync"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("chain", "go-published", runChainPublished, "ns/hop", "B/task", "first-ns", "second-ns")
}

// publishedChain builds the chain and passes 0 along it; it returns what
// comes out of the last goroutine, n.
func publishedChain(n int64) int64 {
	first := make(chan int64)
	in := first
	for i := int64(0); i < n; i++ {
		out := make(chan int64)
		go func(in <-chan int64, out chan<- int64) { out <- 1 + <-in }(in, out)
		in = out
	}
	first <- 0
	return <-in
}

// publishedChains runs p chains of n at once and returns each one's value.
func publishedChains(n, p int64) []int64 {
	values := make([]int64, p)
	if p == 1 {
		values[0] = publishedChain(n)
		return values
	}
	var wg sync.WaitGroup
	for i := range values {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			values[i] = publishedChain(n)
		}()
	}
	wg.Wait()
	return values
}

func runChainPublished(a *harness.Args) {
	n := a.Int("n", 100_000, 1, roundbench.ChainMaxN)
	k := a.Int("hop-work", 0, 0, 1<<63-1)
	p := a.Int("parallel", 1, 1, roundbench.ChainMaxParallel)
	if k != 0 {
		harness.Exit(harness.ExitCannot, "cannot run here: the published program has no hop work (hop-work=%d)", k)
	}
	base := harness.ProcBytes("/proc/self/status", "VmRSS")
	// The memory guard, as in every variant: a calibration chain of the
	// published program's own (its 2,000 goroutines are the only ones the
	// first timed run can reuse).
	m := harness.Min(n, chainCalibrationN)
	got := publishedChain(m)
	grown := harness.ProcBytes("/proc/self/status", "VmRSS") - base
	harness.Check("calibration chain", got, m)
	memoryGuard(n, p, m, grown)

	var values [2][]int64
	first := harness.Timed(func() { values[0] = publishedChains(n, p) })
	second := harness.Timed(func() { values[1] = publishedChains(n, p) })
	peak := harness.ProcBytes("/proc/self/status", "VmHWM")

	want := roundbench.ChainExpected(n, 0)
	for r, vs := range values {
		for i, v := range vs {
			harness.Check(fmt.Sprintf("value of chain %d, run %d", i, r+1), v, want)
		}
	}
	hops := float64(n * p)
	f, s := float64(first.Nanoseconds()), float64(second.Nanoseconds())
	harness.Result("value=%d chains=%d", want, p)
	harness.Emit(a, 1, f,
		harness.Metric{Value: f / hops, Unit: "ns/hop"},
		harness.Metric{Value: float64(harness.Max(peak-base, 0)) / hops, Unit: "B/task"},
		harness.Metric{Value: f, Unit: "first-ns"},
		harness.Metric{Value: s, Unit: "second-ns"},
	)
}
