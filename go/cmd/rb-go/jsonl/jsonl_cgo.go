//go:build cgo

package main

import (
	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("jsonl", "go-c", func(a *harness.Args) { runJsonl(a, roundbench.JsonlCountFile) }, jsonlUnits...)
}
