//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("sleep", "go-c", func(a *harness.Args) { runSleep(a, roundbench.Sleep) }, sleepUnits...)
}
