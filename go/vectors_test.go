package roundbench

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vector is one line of testdata/vectors.txt or of a round's
// testdata/vectors/<round>.txt, the files the C, Python and Go tests all read.
type vector map[string]string

func (v vector) int(t testing.TB, key string) int64 {
	t.Helper()
	x, err := strconv.ParseInt(v[key], 10, 64)
	if err != nil {
		t.Fatalf("vector %v: %s: %v", v, key, err)
	}
	return x
}

func loadVectors(t testing.TB, kind string) []vector {
	t.Helper()
	rounds, err := filepath.Glob("../testdata/vectors/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []vector
	for _, path := range append([]string{"../testdata/vectors.txt"}, rounds...) {
		out = append(out, readVectors(t, path, kind)...)
	}
	if len(out) == 0 {
		t.Fatalf("no vectors of kind %q", kind)
	}
	return out
}

// readVectors reads the vectors of one kind from one file.
func readVectors(t testing.TB, path, kind string) []vector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") || fields[0] != kind {
			continue
		}
		v := vector{}
		for _, kv := range fields[1:] {
			k, val, _ := strings.Cut(kv, "=")
			v[k] = val
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadAtLeast is loadVectors with a minimum count, so that a kind renamed or
// cut down in the file cannot pass with fewer cases than it was written for.
func loadAtLeast(t testing.TB, kind string, least int) []vector {
	t.Helper()
	out := loadVectors(t, kind)
	if len(out) < least {
		t.Fatalf("%d vectors of kind %q; want at least %d", len(out), kind, least)
	}
	return out
}
