//go:build !netlib

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go and go-gonum: Go alone and gonum's pure-Go Dgemm, in the plain runner.
func init() {
	harness.Register("matmul", "go", func(a *harness.Args) { runMatmul(a, roundbench.PureMatmul, nil) }, matmulUnits...)
	harness.Register("matmul", "go-gonum", func(a *harness.Args) { runMatmul(a, roundbench.GonumMatmul, nil) }, matmulUnits...)
}
