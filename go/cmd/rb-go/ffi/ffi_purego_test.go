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

// go-purego-args4 and go-purego-str reach the callees go-c-args4 and
// go-c-str do: the shared vectors hold.
func TestPuregoArgs4AndStrVectors(t *testing.T) {
	c := builtCore(t)
	for _, v := range vectors.AtLeast(t, "ffi-args4", 12) {
		a, b, x, s := v.Int(t, "a"), v.Float(t, "b"), v.Int(t, "c"), unhex(t, v)
		if got, want := c.args4(a, b, int32(x), s), v.Int(t, "result"); got != want {
			t.Errorf("purego rb_ffi_args4(%d, %g, %d, %q) = %d; want %d", a, b, x, s, got, want)
		}
	}
	for _, v := range vectors.AtLeast(t, "ffi-str", 8) {
		x, want := v.Int(t, "x"), unhex(t, v)
		if got := c.str(x); got != want {
			t.Errorf("purego rb_ffi_str(%d) = %q; want %q", x, got, want)
		}
	}
}

func unhex(t *testing.T, v vectors.Vector) string {
	t.Helper()
	b, err := hex.DecodeString(v.Str(t, "hex"))
	if err != nil {
		t.Fatalf("vector %v: hex: %v", v, err)
	}
	return string(b)
}

// go-purego-callback's loop calls the Go callee count times, its baseline
// the core's C callback as often: both sum i + 1 over i < count, and a bad
// count is an error naming the core's status.
func TestPuregoCallbackLoop(t *testing.T) {
	c := builtCore(t)
	for _, count := range []int64{0, 1, 4, 1000} {
		want := count * (count + 1) / 2
		if got, err := c.CallbackLoop(count); err != nil || got != want {
			t.Errorf("purego CallbackLoop(%d) = %d, %v; want %d", count, got, err, want)
		}
		if got, err := c.CallbackLoopC(count); err != nil || got != want {
			t.Errorf("purego CallbackLoopC(%d) = %d, %v; want %d", count, got, err, want)
		}
	}
	if _, err := c.CallbackLoop(-1); err == nil || !strings.Contains(err.Error(), "argument out of range (status 1)") {
		t.Errorf("purego CallbackLoop(-1) error = %v; want the core's RB_ERR_ARG named", err)
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
