//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("cores", "go-c", func(a *harness.Args) { runCores(a, roundbench.LoopParallel) }, coresUnits...)
}
