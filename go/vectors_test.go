package roundbench

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"roundbench/go/internal/vectors"
)

// vector is one line of testdata/vectors.txt or of a round's
// testdata/vectors/<round>.txt, the files the C, Python and Go tests all
// read (go/internal/vectors reads them).
type vector map[string]string

func (v vector) int(t testing.TB, key string) int64 {
	t.Helper()
	return vectors.Vector(v).Int(t, key)
}

func (v vector) float(t testing.TB, key string) float64 {
	t.Helper()
	return vectors.Vector(v).Float(t, key)
}

// errKind is the error that the vector's error=KIND names: ErrArg (arg) or
// ErrOverflow (overflow).
func (v vector) errKind(t testing.TB) error {
	t.Helper()
	switch k := vectors.Vector(v).Str(t, "error"); k {
	case "arg":
		return ErrArg
	case "overflow":
		return ErrOverflow
	default:
		t.Fatalf("vector %v: error=%s is neither arg nor overflow", v, k)
		return nil
	}
}

// list is the comma-separated values of key, each read by parse ("-" is
// none).
func list[T any](t testing.TB, v vector, key string, parse func(string) (T, error)) []T {
	t.Helper()
	s := vectors.Vector(v).Str(t, key)
	if s == "-" {
		return nil
	}
	var out []T
	for _, f := range strings.Split(s, ",") {
		x, err := parse(f)
		if err != nil {
			t.Fatalf("vector %v: %s: %v", v, key, err)
		}
		out = append(out, x)
	}
	return out
}

func (v vector) floats(t testing.TB, key string) []float64 {
	t.Helper()
	return list(t, v, key, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

func (v vector) int64s(t testing.TB, key string) []int64 {
	t.Helper()
	return list(t, v, key, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
}

// pairs is the comma-separated A:B pairs of key ("-" is none).
func (v vector) pairs(t testing.TB, key string) [][2]string {
	t.Helper()
	return list(t, v, key, func(s string) ([2]string, error) {
		a, b, ok := strings.Cut(s, ":")
		if !ok {
			return [2]string{}, fmt.Errorf("%q is no A:B", s)
		}
		return [2]string{a, b}, nil
	})
}

func loadVectors(t testing.TB, kind string) []vector {
	t.Helper()
	return loadAtLeast(t, kind, 1)
}

// loadAtLeast is loadVectors with a minimum count, so that a kind renamed or
// cut down in the file cannot pass with fewer cases than it was written for.
func loadAtLeast(t testing.TB, kind string, least int) []vector {
	t.Helper()
	var out []vector
	for _, v := range vectors.AtLeast(t, kind, least) {
		out = append(out, vector(v))
	}
	return out
}
