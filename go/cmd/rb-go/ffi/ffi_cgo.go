//go:build cgo

package main

import (
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("ffi", "go-c", callVariant(roundbench.FfiNoop), ffiUnits...)
	harness.Register("ffi", "c-go-callback", runCallback, ffiUnits...)
	harness.Register("ffi", "go-c-slice", bufferVariant(roundbench.FfiBuffer), ffiUnits...)
	harness.Register("ffi", "go-c-copy", bufferVariant(roundbench.FfiBufferCopy), ffiUnits...)
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
