//go:build (linux || darwin || freebsd || netbsd) && go1.25

package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"roundbench/go/internal/vectors"
)

// builtCore is the core's shared library as make builds it (build/ at the
// repository's root, four levels up from this package), or a skip where
// it is not built.
func builtCore(t *testing.T) *puregoCore {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "build", "libroundbench.so"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the core's shared library is not built (make c): %v", err)
	}
	c, err := openPurego(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// go-purego reaches the same callee as go-c: the shared vectors hold.
func TestPuregoVectors(t *testing.T) {
	c := builtCore(t)
	for _, v := range vectors.AtLeast(t, "ffi", 4) {
		x, want := v.Int(t, "x"), v.Int(t, "noop")
		if got := c.noop(x); got != want {
			t.Errorf("purego rb_ffi_noop(%d) = %d; want %d", x, got, want)
		}
	}
	for _, v := range vectors.AtLeast(t, "ffi-buffer", 4) {
		b, err := hex.DecodeString(v.Str(t, "hex"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Buffer(b), v.Int(t, "result"); got != want {
			t.Errorf("purego rb_ffi_buffer(%x) = %d; want %d", b, got, want)
		}
	}
}

// A missing library is an error that names it, which the variant turns
// into a skip (harness.ExitCannot).
func TestPuregoMissingLibrary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libroundbench.so")
	_, err := openPurego(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "make c") {
		t.Fatalf("openPurego(%s) = %v; want an error naming it and make c", missing, err)
	}
}
