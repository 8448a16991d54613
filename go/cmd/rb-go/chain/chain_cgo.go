//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("chain", "go-c", func(a *harness.Args) {
		runChain(a, func(n, k, p int64) (chainRunner, error) { return roundbench.NewChain(n, k, p, false) })
	}, chainUnits...)
}
