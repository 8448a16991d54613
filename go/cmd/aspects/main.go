// Command aspects is round aspects as a whole program, in Go:
//
//	aspects EPHEMERIS EVENTS [--print] [--combo C]
//
// searches the events for the combination C (default
// Moon-120-Jupiter,Asc-90-Mars) and writes test 1's output to stdout, or
// test 2's with --print (every event's angles, cusps and 20 most exact
// aspects first). It is the go variant's search (a slice of structs),
// the same program whether built (build/aspects-go) or started with
// `go run ./go/cmd/aspects`: the round's launch modes time both from process
// start to exit. Build it with CGO_ENABLED=0: it is pure Go, and with cgo
// the package would compile and link the C core too. Exit status: 0, 1
// when a file is bad (the message names the file and line) or stdout
// fails, 2 for bad usage.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"roundbench/go"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// message is an error's own words, without the roundbench.Func prefix
// that a library caller wants and a program's user does not.
func message(err error) string {
	var e *roundbench.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

func run(args []string) int {
	prog := filepath.Base(os.Args[0])
	// Bad usage: one line naming what was wrong, then what to type.
	usage := func(why string) int {
		fmt.Fprintf(os.Stderr, "%s: %s (usage: %s EPHEMERIS EVENTS [--print] [--combo C])\n", prog, why, prog)
		return 2
	}
	var paths []string
	test, combo := 1, roundbench.AspectsDefaultCombo
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--print":
			test = 2
		case arg == "--combo" && i+1 < len(args):
			i++
			combo = args[i]
		case strings.HasPrefix(arg, "--combo="):
			combo = strings.TrimPrefix(arg, "--combo=")
		case len(arg) > 1 && arg[0] == '-':
			return usage("unknown option " + arg)
		case len(paths) < 2:
			paths = append(paths, arg)
		default:
			return usage("too many arguments: " + arg)
		}
	}
	if len(paths) != 2 {
		return usage("EPHEMERIS and EVENTS are required")
	}
	terms, err := roundbench.AspectsParseCombo(combo)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: --combo %s\n", prog, message(err))
		return 2
	}
	eph, err := roundbench.AspectsLoadEphemeris(paths[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", prog, message(err))
		return 1
	}
	events, err := roundbench.AspectsLoadEvents(paths[1], eph)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", prog, message(err))
		return 1
	}
	out, _, err := roundbench.PureAspectsSearch(eph, events, terms, test, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", prog, message(err))
		return 1
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintf(os.Stderr, "%s: writing the output: %v\n", prog, err)
		return 1
	}
	return 0
}
