package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
)

// A child program (one per round: go/cmd/rb-go/<round>, built as
// rb-go-<round>) is its registry: its round's files register, from init,
// the variants they implement with the units their result lines may carry,
// and Main runs one of them or lists them all. The listing and the check
// in Emit read the same declaration, so what --list says cannot drift from
// what the program prints.

// entry is one registered (round, impl).
type entry struct {
	run    func(*Args)
	units  []string
	helper bool
}

var registry = map[string]map[string]entry{}

// parentUnits are on every result line without being declared: ns/op from
// the child, the rest added by the parent from wait4.
var parentUnits = []string{"ns/op", "peak-B", "user-ns/op", "sys-ns/op"}

func add(round, impl string, e entry) {
	if round == "" || impl == "" || strings.ContainsAny(round+impl, " \t\n") {
		panic(fmt.Sprintf("harness: bad round or variant name %q %q", round, impl))
	}
	for _, u := range e.units {
		if u == "" || strings.ContainsAny(u, " \t\n") || contains(parentUnits, u) {
			panic(fmt.Sprintf("harness: %s %s: bad unit %q (every line has %s already)", round, impl, u, strings.Join(parentUnits, ", ")))
		}
	}
	if registry[round] == nil {
		registry[round] = map[string]entry{}
	}
	if _, dup := registry[round][impl]; dup {
		panic(fmt.Sprintf("harness: %s %s registered twice", round, impl))
	}
	registry[round][impl] = e
}

// Register adds variant impl of round. units are the units its result line
// may carry besides ns/op (and peak-B, user-ns/op and sys-ns/op, which the
// parent adds); Emit refuses any other. Call it from a round file's init.
func Register(round, impl string, run func(*Args), units ...string) {
	add(round, impl, entry{run: run, units: units})
}

// RegisterHelper adds an entry point of a round that is not a variant and
// prints no result line: a server that the round's driver starts and
// loads, or a report on the machine. One named `<round>-<role>` (http-serve)
// is listed with no units, as the children's --list contract says; one
// filed under a round's own name (matmul blas-info) is not listed, since
// its line would read as a variant the round does not declare.
func RegisterHelper(round, impl string, run func(*Args)) {
	add(round, impl, entry{run: run, helper: true})
}

// List writes one line per listed entry, `ROUND VARIANT UNIT...`, sorted by
// round and then variant.
func List(w io.Writer) {
	for _, round := range sortedKeys(registry) {
		for _, impl := range sortedKeys(registry[round]) {
			e := registry[round][impl]
			if e.helper && !strings.Contains(round, "-") {
				continue
			}
			fmt.Fprintln(w, strings.Join(append([]string{round, impl}, e.units...), " "))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// contains reports whether s holds x (slices.Contains, which is Go 1.21's:
// the runners build with Go 1.19 and later).
func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// withCgo reports whether this program was built with cgo, from the build
// settings the go command records in it.
func withCgo() bool {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "CGO_ENABLED" {
				return s.Value == "1"
			}
		}
	}
	return true
}

// callsCore reports whether a variant's name says it crosses into the C
// core (go-c, go-c-slice, c-go-callback): such variants need cgo.
func callsCore(impl string) bool {
	return strings.HasPrefix(impl, "go-c") || strings.HasPrefix(impl, "c-go")
}

// Main is a child program's main: `PROGRAM --list`, or `PROGRAM ROUND IMPL
// [key=value...]`, which runs one registered entry once. Messages name the
// program as it was started, so a round's runner needs no name of its own
// in its source.
func Main() {
	program := filepath.Base(os.Args[0])
	argv := os.Args[1:]
	why := forBuild(thisBuild())
	if len(argv) > 0 && argv[0] == "--list" {
		if len(argv) > 1 {
			Exit(ExitUsage, "%s: --list takes no other argument (got %q)", program, argv[1:])
		}
		List(os.Stdout)
		return
	}
	a, err := Parse(program, argv)
	if err != nil {
		Exit(ExitUsage, "%v", err)
	}
	if why != "" {
		Exit(ExitCannot, "%s: %s", program, why)
	}
	impls, ok := registry[a.Round]
	if !ok {
		Exit(ExitUsage, "%s: unknown round %q (rounds: %s)", program, a.Round, strings.Join(sortedKeys(registry), ", "))
	}
	e, ok := impls[a.Impl]
	if !ok {
		have := strings.Join(sortedKeys(impls), ", ")
		if !withCgo() && callsCore(a.Impl) {
			Exit(ExitCannot, "%s: %s: variant %q calls the C core, and this %s was built without cgo (CGO_ENABLED=0): it has %s",
				program, a.Round, a.Impl, program, have)
		}
		if base, ok := twinOf(a.Round, a.Impl); ok {
			Exit(ExitCannot, "%s: %s: variant %q is a build twin of %s, which runs only in a program built with -tags %s whose build information shows its options (this %s has %s)",
				program, a.Round, a.Impl, base, TwinTag, program, have)
		}
		Exit(ExitUsage, "%s: %s: no variant %q (it has: %s)", program, a.Round, a.Impl, have)
	}
	a.units = e.units
	values, err := valuesWanted()
	if err != nil {
		Exit(ExitUsage, "%s: %v", program, err)
	}
	// Several values from one process (docs/measurement.md, "Values per
	// process"): the variant runs again, inputs, warm-up and check included.
	profiled(program, func() {
		for i := 0; i < values; i++ { // not range-over-int: older toolchains build this too
			e.run(a)
		}
	})
}
