// Package jsonlvec reads round jsonl's shared test vectors,
// testdata/jsonl_vectors.txt (the C, Python and Go tests read the same
// file; its header says the format), for the tests of the roundbench
// package and of the jsonl runner's library variants.
package jsonlvec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"roundbench/go/internal/vectors"
)

// Vector is one vector: its kind ("line" or "doc"), what it expects (a
// status, "blank", a reason, or L/B/V/I for a doc), the payload as written
// and as bytes.
type Vector struct {
	Kind, Expect, Text string
	Payload            []byte
}

// Path is the vectors file of this checkout, found from this source file.
func Path() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "jsonl_vectors.txt")
}

var repeat = regexp.MustCompile(`%\{(\d+)\*([^}]*)\}`)

// Decode expands a payload's escapes: %XX is the byte 0xXX, %{N*TEXT} is
// TEXT N times.
func Decode(s string) ([]byte, error) {
	s = repeat.ReplaceAllStringFunc(s, func(m string) string {
		g := repeat.FindStringSubmatch(m)
		n, _ := strconv.Atoi(g[1])
		return strings.Repeat(g[2], n)
	})
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad escape in %q", s)
			}
			out = append(out, byte(b))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out, nil
}

// Load returns the vectors of one kind from the file at path; none is an
// error, so that a renamed kind cannot pass silently.
func Load(path, kind string) ([]Vector, error) {
	lines, err := vectors.Lines(path, kind)
	if err != nil {
		return nil, err
	}
	var out []Vector
	for _, line := range lines {
		expect, text, _ := strings.Cut(line, " ")
		payload, err := Decode(text)
		if err != nil {
			return nil, err
		}
		out = append(out, Vector{kind, expect, text, payload})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no %s vectors", path, kind)
	}
	return out, nil
}

// Read is Load of this checkout's file for a test, which it ends when the
// file cannot be read or holds no vector of the kind.
func Read(t testing.TB, kind string) []Vector {
	t.Helper()
	v, err := Load(Path(), kind)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Short is a payload's text cut for a test message.
func Short(s string) string {
	if len(s) > 50 {
		return s[:50] + "..."
	}
	return s
}
