//go:build !netlib && go1.24

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-gonum: gonum's pure-Go Dgemm, in the plain runner; with the package's
// gonum, only from Go 1.24 (go/matmul_gonum.go).
func init() {
	harness.Register("matmul", "go-gonum", func(a *harness.Args) { runMatmul(a, roundbench.GonumMatmul, nil) }, matmulUnits...)
}
