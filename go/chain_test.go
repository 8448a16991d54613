package roundbench

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// chainer is what NewPureChain and NewChain return.
type chainer interface {
	Pass() ([]int64, error)
	Close()
}

// chainBuilders are the chain's Go-side implementations, by name; each
// returns a nil interface with its error. chain_cgo_test.go adds the
// core's.
var chainBuilders = map[string]func(n, k, p int64) (chainer, error){
	"NewPureChain": func(n, k, p int64) (chainer, error) {
		if c, err := NewPureChain(n, k, p); err == nil {
			return c, nil
		} else {
			return nil, err
		}
	},
}

func TestChainVectors(t *testing.T) {
	for _, v := range loadVectors(t, "chain") {
		n, k, want := v.int(t, "n"), v.int(t, "hop-work"), v.int(t, "value")
		if got := ChainExpected(n, k); got != want {
			t.Errorf("ChainExpected(%d, %d) = %d; want %d", n, k, got, want)
		}
		for name, build := range chainBuilders {
			for _, p := range []int64{1, 3} {
				c, err := build(n, k, p)
				if err != nil {
					t.Errorf("%s(%d, %d, %d): %v", name, n, k, p, err)
					continue
				}
				got, err := c.Pass()
				if err != nil || len(got) != int(p) {
					t.Errorf("%s(%d, %d, %d).Pass() = %v, %v", name, n, k, p, got, err)
				}
				for i, g := range got {
					if g != want {
						t.Errorf("%s(%d, %d, %d): chain %d = %d; want %d", name, n, k, p, i, g, want)
					}
				}
				if _, err := c.Pass(); !errors.Is(err, ErrArg) {
					t.Errorf("%s: a second Pass() error = %v; want ErrArg", name, err)
				}
				c.Close()
				c.Close() // idempotent
			}
		}
	}
}

func TestChainErrors(t *testing.T) {
	for _, v := range loadVectors(t, "chain-error") {
		n, k, p := v.int(t, "n"), v.int(t, "hop-work"), v.int(t, "parallel")
		want := v.errKind(t)
		for name, build := range chainBuilders {
			c, err := build(n, k, p)
			var e *Error
			if !errors.Is(err, want) || !errors.As(err, &e) || e.Arg == "" || !strings.Contains(err.Error(), "argument") {
				t.Errorf("%s(%d, %d, %d) error = %v; want %v naming its argument", name, n, k, p, err, want)
			}
			if c != nil {
				t.Errorf("%s(%d, %d, %d) returned a chain with its error", name, n, k, p)
			}
		}
	}
}

func countDir(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestChainNoLeaks: after chains have passed or been closed unpassed, no
// goroutine, thread or file descriptor is left behind.
func TestChainNoLeaks(t *testing.T) {
	run := func() {
		for name, build := range chainBuilders {
			c, err := build(200, 2, 4)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := c.Pass(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			c.Close()
			c, err = build(200, 0, 2) // closed without passing
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			c.Close()
		}
	}
	run() // warm-up: the runtime starts the threads it keeps
	goroutines, threads, fds := runtime.NumGoroutine(), countDir(t, "/proc/self/task"), countDir(t, "/proc/self/fd")
	for range 5 {
		run()
	}
	// A goroutine that has closed its channel may not have returned yet.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("goroutines: %d after, %d before", g, goroutines)
	}
	// The core starts and joins parallel-1 threads per pass (15 in all
	// here); the Go runtime may start one or two of its own meanwhile. A
	// joined thread can stay listed for a moment while the kernel ends it.
	for countDir(t, "/proc/self/task") > threads+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if th := countDir(t, "/proc/self/task"); th > threads+2 {
		t.Errorf("threads: %d after, %d before", th, threads)
	}
	if f := countDir(t, "/proc/self/fd"); f != fds {
		t.Errorf("file descriptors: %d after, %d before", f, fds)
	}
}

func BenchmarkChain(b *testing.B) {
	for name, build := range chainBuilders {
		b.Run(name, func(b *testing.B) {
			const n = 10_000
			for b.Loop() {
				c, err := build(n, 0, 1)
				if err != nil {
					b.Fatal(err)
				}
				got, err := c.Pass()
				if err != nil || got[0] != n {
					b.Fatalf("%s: %v, %v", name, got, err)
				}
				c.Close()
			}
		})
	}
}
