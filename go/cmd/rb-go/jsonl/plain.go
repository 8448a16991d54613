//go:build !goexperiment.jsonv2 || go1.27

// With Go 1.25 and 1.26 the jsonv2 experiment reimplements encoding/json on
// v2, so the variants on encoding/json's own implementation stay out of the
// experiment's binary (rb-go-jsonl-v2). From Go 1.27 the v2 implementation
// is encoding/json's in every build (the experiment is the default): there
// is no other to keep apart, and every binary has every variant.

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	register("go", roundbench.PureJsonlCountFile)
	// go-pgo, go-v3 and go-pgo-v3: this directory built apart with PGO or
	// GOAMD64=v3 (the build table's GO_BUILD_RUNNERS).
	harness.Twin("jsonl", "go")
}
