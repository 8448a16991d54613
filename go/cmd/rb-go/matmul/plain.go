//go:build !netlib

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go: Go alone, in the plain runner.
func init() {
	harness.Register("matmul", "go", func(a *harness.Args) { runMatmul(a, roundbench.PureMatmul, nil) }, matmulUnits...)
}
