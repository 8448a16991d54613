// Command rb-go-ffi is round ffi's Go child runner: `rb-go-ffi ffi IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-ffi --list` lists the variants (go/internal/harness). ffi_cgo.go
// adds the variants that call the C core, ffi_noescape.go the ones whose
// callee is annotated (Go 1.24), ffi_purego.go the ones through purego (Go
// 1.25). Each round's runner is a program of its own so that a child maps
// only its own round's code.
package main

import (
	"fmt"
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

// The call the args4 and str rows time: the first ffi-args4 and ffi-str
// vectors of testdata/vectors.txt, as the Python rows time it. Variables,
// not constants, so that nothing of the call is worked out at build time.
var (
	args4A, args4B, args4C, args4S = int64(41), 2.5, int32(-2), "hello, world"
	strX                           = int64(41)
)

const (
	args4Want = 53
	strWant   = "hello, world"
)

// args4Variant times f(args4A, args4B, args4C, args4S): four arguments of
// four types, the string converted for C on every call.
func args4Variant(f func(a int64, b float64, c int32, s string) (int64, error)) func(*harness.Args) {
	return func(a *harness.Args) {
		got, err := f(args4A, args4B, args4C, args4S)
		harness.Must(err)
		harness.Check(fmt.Sprintf("%s args4(%d, %g, %d, %q)", a.Impl, args4A, args4B, args4C, args4S), got, args4Want)
		op := func(count int64) time.Duration {
			var acc int64
			t0 := time.Now()
			for i := int64(0); i < count; i++ {
				r, err := f(args4A, args4B, args4C, args4S)
				if err != nil {
					harness.Must(err)
				}
				acc += r
			}
			d := time.Since(t0)
			sink += acc
			return d
		}
		report(a, op, emptyLoop)
	}
}

// strVariant times f(strX): a string back from C, converted to a Go string
// on every call.
func strVariant(f func(int64) string) func(*harness.Args) {
	return func(a *harness.Args) {
		harness.CheckString(fmt.Sprintf("%s str(%d)", a.Impl, strX), f(strX), strWant)
		op := func(count int64) time.Duration {
			var acc int64
			t0 := time.Now()
			for i := int64(0); i < count; i++ {
				acc += int64(len(f(strX)))
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

// timedLoop times one call of loop(count), a callback loop, its sum into
// the sink: the callback rows' op and their baseline.
func timedLoop(loop func(int64) (int64, error)) func(int64) time.Duration {
	return func(count int64) time.Duration {
		var s int64
		var err error
		d := harness.Timed(func() { s, err = loop(count) })
		harness.Must(err)
		sink += s
		return d
	}
}
