//go:build cgo

package main

import (
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("ffi", "go-c", callVariant(roundbench.FfiNoop), ffiUnits...)
	harness.Register("ffi", "go-c-ptr", callVariant(roundbench.FfiNoopOut), ffiUnits...)
	harness.Register("ffi", "c-go-callback", runCallback, ffiUnits...)
	harness.Register("ffi", "go-c-slice", bufferVariant(roundbench.FfiBuffer), ffiUnits...)
	harness.Register("ffi", "go-c-copy", bufferVariant(roundbench.FfiBufferCopy), ffiUnits...)
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
