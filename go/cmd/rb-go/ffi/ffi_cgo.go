//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("ffi", "go-c", callVariant(roundbench.FfiNoop), ffiUnits...)
	harness.Register("ffi", "go-c-ptr", callVariant(roundbench.FfiNoopOut), ffiUnits...)
	harness.Register("ffi", "c-go-callback", runCallback, ffiUnits...)
	harness.Register("ffi", "go-c-slice", bufferVariant(roundbench.FfiBuffer), ffiUnits...)
	harness.Register("ffi", "go-c-copy", bufferVariant(roundbench.FfiBufferCopy), ffiUnits...)
	harness.Register("ffi", "go-c-args4", args4Variant(roundbench.FfiArgs4), ffiUnits...)
	harness.Register("ffi", "go-c-str", strVariant(roundbench.FfiStr), ffiUnits...)
}

func runCallback(a *harness.Args) {
	got, err := roundbench.FfiCallbackLoop(10)
	harness.Must(err)
	want, err := roundbench.FfiCallbackLoopC(10)
	harness.Must(err)
	harness.Check("callback loop sum", got, want)
	report(a, timedLoop(roundbench.FfiCallbackLoop), timedLoop(roundbench.FfiCallbackLoopC))
}
