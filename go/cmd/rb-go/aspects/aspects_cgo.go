//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("aspects", "go-c", func(a *harness.Args) { runAspects(a, loadCore) }, aspectsUnits...)
}

// loadCore has the C core load both files; its search is one cgo call.
func loadCore(ephemeris, events, combo string, test int) (searcher, int, error) {
	data, err := roundbench.AspectsLoad(ephemeris, events)
	if err != nil {
		return nil, 0, err
	}
	return func(n int, dst []byte) ([]byte, int, error) {
		return data.Search(0, n, combo, test, dst)
	}, data.Events(), nil
}
