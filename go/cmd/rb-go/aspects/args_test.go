package main

import (
	"testing"

	"roundbench/go/internal/argsweep"
)

// Every wrong argument is refused before any work (go/internal/argsweep).
func TestMain(m *testing.M) { argsweep.Main(m, main) }

func TestWrongArguments(t *testing.T) { argsweep.Run(t) }
