//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("temps", "go-c", func(a *harness.Args) { runTemps(a, roundbench.Temps) }, tempsUnits...)
}
