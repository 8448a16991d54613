// Package vectors reads the shared test vectors, testdata/vectors.txt and
// every testdata/vectors/<name>.txt (the first file's header says the
// format), for the tests of every Go package; the C and Python tests read
// the same files.
package vectors

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Vector is one vector's key=value fields.
type Vector map[string]string

// Paths are this checkout's vector files, found from this source file:
// testdata/vectors.txt, then testdata/vectors/*.txt in name order.
func Paths() ([]string, error) {
	_, here, _, _ := runtime.Caller(0)
	testdata := filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata")
	more, err := filepath.Glob(filepath.Join(testdata, "vectors", "*.txt"))
	return append([]string{filepath.Join(testdata, "vectors.txt")}, more...), err
}

// Load returns the vectors of one kind from every file, in order; none is
// an error, so that a renamed kind cannot pass silently.
func Load(kind string) ([]Vector, error) {
	paths, err := Paths()
	if err != nil {
		return nil, err
	}
	var out []Vector
	for _, path := range paths {
		vs, err := read(path, kind)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no vectors of kind %q", kind)
	}
	return out, nil
}

// read returns the vectors of one kind in one file.
func read(path, kind string) ([]Vector, error) {
	lines, err := Lines(path, kind)
	var out []Vector
	for _, line := range lines {
		v := Vector{}
		for _, kv := range strings.Fields(line) {
			k, val, _ := strings.Cut(kv, "=")
			v[k] = val
		}
		out = append(out, v)
	}
	return out, err
}

// Lines returns, in order, what follows `KIND ` on each line of the file at
// path that starts so: the vector files' lines, and those of
// testdata/jsonl_vectors.txt (go/internal/jsonlvec), whose payloads are raw
// bytes. A comment (#) or blank line is no vector's.
func Lines(path, kind string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, rest, _ := strings.Cut(sc.Text(), " "); k == kind {
			out = append(out, rest)
		}
	}
	return out, sc.Err()
}

// AtLeast is Load for a test, which it ends when the files cannot be read
// or hold fewer than least vectors of the kind: a kind cut down in the file
// cannot pass with fewer cases than it was written for.
func AtLeast(t testing.TB, kind string, least int) []Vector {
	t.Helper()
	out, err := Load(kind)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < least {
		t.Fatalf("%d vectors of kind %q; want at least %d", len(out), kind, least)
	}
	return out
}

// Str is the value of key; a vector without it ends the test.
func (v Vector) Str(t testing.TB, key string) string {
	t.Helper()
	s, ok := v[key]
	if !ok {
		t.Fatalf("vector %v lacks %s", v, key)
	}
	return s
}

// Int is the value of key as an int64; a vector without one ends the test.
func (v Vector) Int(t testing.TB, key string) int64 {
	t.Helper()
	x, err := strconv.ParseInt(v.Str(t, key), 10, 64)
	if err != nil {
		t.Fatalf("vector %v: %s: %v", v, key, err)
	}
	return x
}

// Float is the value of key as a float64; a vector without one ends the
// test.
func (v Vector) Float(t testing.TB, key string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(v.Str(t, key), 64)
	if err != nil {
		t.Fatalf("vector %v: %s: %v", v, key, err)
	}
	return x
}

// Named holds a package's constants of one kind to the vectors `KIND
// name=NAME KEY=VALUE` that name them: each must be in the files exactly
// once, with its value as fmt.Sprint prints it. It returns the names of the
// kind's other vectors, which a caller that has every constant of the kind
// reports and one that has some of them leaves to the packages with the
// rest.
func Named(t testing.TB, kind, key string, have map[string]any) (others []string) {
	t.Helper()
	seen := map[string]int{}
	for _, v := range AtLeast(t, kind, 1) {
		name := v.Str(t, "name")
		c, ok := have[name]
		if !ok {
			others = append(others, name)
			continue
		}
		seen[name]++
		if got, want := fmt.Sprint(c), v.Str(t, key); got != want {
			t.Errorf("%s %s = %s; want %s", kind, name, got, want)
		}
	}
	for name := range have {
		if seen[name] != 1 {
			t.Errorf("%s %s is in the vectors %d times; want once", kind, name, seen[name])
		}
	}
	return others
}
