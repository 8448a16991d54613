//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("loop", "go-c", func(a *harness.Args) { runLoop(a, roundbench.Loop) }, loopUnits...)
}
