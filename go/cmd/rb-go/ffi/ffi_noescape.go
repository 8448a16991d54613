//go:build cgo && go1.24

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-c-noescape and go-c-nocallback: the plain cgo call with the callee
// annotated, which cgo accepts from Go 1.24 (go/cgo_noescape.go).
func init() {
	harness.Register("ffi", "go-c-noescape", callVariant(roundbench.FfiNoopNoescape), ffiUnits...)
	harness.Register("ffi", "go-c-nocallback", callVariant(roundbench.FfiNoopNocallback), ffiUnits...)
}
