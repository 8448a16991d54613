package main

import (
	"testing"

	"roundbench/go/internal/vectors"
)

// The child's lines parameter, as testdata/vectors/protocol.txt has it for
// the C, Go and Python children alike.
func TestProtocolLines(t *testing.T) {
	vectors.Named(t, "protocol-limit", "value", map[string]any{
		"jsonl-lines-default": defaultLines,
		"jsonl-lines-max":     maxLines,
	})
}
