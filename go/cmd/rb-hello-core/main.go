//go:build cgo

// Command rb-hello-core is variant go-c of round startup: a Go program that
// calls the C core once (roundbench.Loop(1000)) and prints the sum, so its
// start includes what linking the core through cgo costs.
package main

import (
	"fmt"
	"os"

	roundbench "roundbench/go"
)

func main() {
	sum, err := roundbench.Loop(1000)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(5)
	}
	fmt.Printf("sum=%d\n", sum)
}
