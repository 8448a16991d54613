// Command rb-go-ffi is round ffi's Go child runner: `rb-go-ffi ffi IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-ffi --list` lists the variants (go/internal/harness). ffi_cgo.go
// adds the variants that call the C core, ffi_noescape.go the two whose
// callee is annotated (Go 1.24). Each round's runner is a program
// of its own so that a child maps only its own round's code.
package main

import (
	"runtime"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// ffiUnits are what an ffi result line carries besides ns/op.
var ffiUnits = []string{"ns/call", "allocs/call"}

// allocCalls is how many calls allocsPerCall counts over.
const allocCalls = 10000

func init() {
	harness.Register("ffi", "go", callVariant(roundbench.PureNoop), ffiUnits...)
}

// sink receives every result so that no call can be optimised away.
var sink int64

// emptyLoop is the baseline: the same loop, the same sink, no call.
func emptyLoop(count int64) time.Duration {
	var acc int64
	t0 := time.Now()
	for i := int64(0); i < count; i++ {
		acc += i
	}
	d := time.Since(t0)
	sink += acc
	return d
}

func callVariant(f func(int64) int64) func(*harness.Args) {
	return func(a *harness.Args) {
		harness.Check(a.Impl+" callee(41)", f(41), 42)
		op := func(count int64) time.Duration {
			var acc int64
			t0 := time.Now()
			for i := int64(0); i < count; i++ {
				acc += f(i)
			}
			d := time.Since(t0)
			sink += acc
			return d
		}
		report(a, op, emptyLoop)
	}
}

func bufferVariant(f func([]byte) int64) func(*harness.Args) {
	return func(a *harness.Args) {
		buf := make([]byte, roundbench.FfiBufferSize)
		// Any bytes do (the callee reads the first and the last); not zeros,
		// so that the check below can tell a wrong result.
		for i := range buf {
			buf[i] = byte(i*7 + 3)
		}
		harness.Check(a.Impl+" buffer", f(buf), int64(buf[0])+int64(buf[len(buf)-1]))
		op := func(count int64) time.Duration {
			var acc int64
			t0 := time.Now()
			for i := int64(0); i < count; i++ {
				acc += f(buf)
			}
			d := time.Since(t0)
			sink += acc
			return d
		}
		report(a, op, emptyLoop)
	}
}

func report(a *harness.Args, op, empty func(int64) time.Duration) {
	ns, count := harness.Calibrated(op, empty)
	allocs := allocsPerCall(op)
	harness.Result("%s-ok", a.Impl)
	harness.Emit(a, count, ns, harness.Metric{Value: ns, Unit: "ns/call"},
		harness.Metric{Value: allocs, Unit: "allocs/call"})
}

// allocsPerCall is testing.AllocsPerRun's reckoning without the testing
// package: the heap allocations (runtime.MemStats.Mallocs) that
// allocCalls calls of op make, per call, on one P after a warm-up call, so
// that no other goroutine's allocations are counted. The loop around the
// call allocates nothing itself.
func allocsPerCall(op func(int64) time.Duration) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	op(1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	op(allocCalls)
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / allocCalls
}
