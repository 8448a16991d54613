//go:build cgo && go1.24

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-c-noescape and go-c-nocallback: the plain cgo call with the callee
// annotated, which cgo accepts from Go 1.24 (go/cgo_noescape.go); the
// -ptr ones the same with a pointer to a local as an argument, where the
// annotation may save an allocation (allocs/call says).
func init() {
	harness.Register("ffi", "go-c-noescape", callVariant(roundbench.FfiNoopNoescape), ffiUnits...)
	harness.Register("ffi", "go-c-nocallback", callVariant(roundbench.FfiNoopNocallback), ffiUnits...)
	harness.Register("ffi", "go-c-ptr-noescape", callVariant(roundbench.FfiNoopOutNoescape), ffiUnits...)
	harness.Register("ffi", "go-c-ptr-nocallback", callVariant(roundbench.FfiNoopOutNocallback), ffiUnits...)
	harness.Register("ffi", "go-c-ptr-both", callVariant(roundbench.FfiNoopOutBoth), ffiUnits...)
}
