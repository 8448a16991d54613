package main

import (
	"crypto/rand"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	rounds["ffi"] = map[string]variant{
		"go":              callVariant(roundbench.PureNoop),
		"go-c":            callVariant(roundbench.FfiNoop),
		"go-c-noescape":   callVariant(roundbench.FfiNoopNoescape),
		"go-c-nocallback": callVariant(roundbench.FfiNoopNocallback),
		"c-go-callback":   runCallback,
		"go-c-slice":      bufferVariant(roundbench.FfiBuffer),
		"go-c-copy":       bufferVariant(roundbench.FfiBufferCopy),
	}
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

func callVariant(f func(int64) int64) variant {
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

func bufferVariant(f func([]byte) int64) variant {
	return func(a *harness.Args) {
		buf := make([]byte, roundbench.FfiBufferSize)
		_, _ = rand.Read(buf)
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

func runCallback(a *harness.Args) {
	got, err := roundbench.FfiCallbackLoop(10)
	harness.Must(err)
	want, err := roundbench.FfiCallbackLoopC(10)
	harness.Must(err)
	harness.Check("callback loop sum", got, want)
	timedLoop := func(loop func(int64) (int64, error)) func(int64) time.Duration {
		return func(count int64) time.Duration {
			var s int64
			d := harness.Timed(func() { s, err = loop(count) })
			harness.Must(err)
			sink += s
			return d
		}
	}
	report(a, timedLoop(roundbench.FfiCallbackLoop), timedLoop(roundbench.FfiCallbackLoopC))
}

func report(a *harness.Args, op, empty func(int64) time.Duration) {
	ns, count := harness.Calibrated(op, empty)
	harness.Result("%s-ok", a.Impl)
	harness.Emit(a, count, ns, harness.Metric{Value: ns, Unit: "ns/call"})
}
