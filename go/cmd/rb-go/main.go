// Command rb-go is the Go child runner: `rb-go ROUND IMPL [key=value...]`
// runs one Go variant once and prints its result line (see
// go/internal/harness). The roundbench runner starts one per run.
package main

import (
	"os"
	"sort"
	"strings"

	"roundbench/go/internal/harness"
)

// variant runs one variant of a round.
type variant func(a *harness.Args)

// rounds maps round -> impl -> variant; each round's file adds its own.
var rounds = map[string]map[string]variant{}

func main() {
	a, err := harness.Parse(os.Args[1:])
	if err != nil {
		harness.Exit(harness.ExitUsage, "%v", err)
	}
	impls, ok := rounds[a.Round]
	if !ok {
		harness.Exit(harness.ExitUsage, "unknown round %q (rounds: %s)", a.Round, keys(rounds))
	}
	run, ok := impls[a.Impl]
	if !ok {
		harness.Exit(harness.ExitUsage, "%s: the Go runner has no variant %q (it has: %s)", a.Round, a.Impl, keys(impls))
	}
	run(a)
}

func keys[V any](m map[string]V) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
