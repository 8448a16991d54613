// Command rb-go is the Go child runner: `rb-go ROUND IMPL [key=value...]`
// runs one Go variant once and prints its result line, and `rb-go --list`
// lists the variants with their units (see go/internal/harness). The
// roundbench runner starts one per run.
//
// Each round's file registers the round's pure Go variants; its _cgo.go
// file registers those that call the C core. Built with CGO_ENABLED=0,
// rb-go runs the pure variants alone. The http round's servers are a
// program of their own (go/cmd/rb-go-http): net/http linked here would be
// mapped by every Go child, and weigh on every peak-RSS figure.
package main

import "roundbench/go/internal/harness"

func main() { harness.Main("rb-go") }
