package main

import (
	"errors"
	"testing"

	"roundbench/go"
)

// go-closures passes every chain's value through its tasks, with the hop
// work, and a task driven twice is an error, not a second value.
func TestClosureChainPassesTheValue(t *testing.T) {
	for _, tc := range []struct{ n, k, p int64 }{{1, 0, 1}, {2, 3, 2}, {7, 0, 3}, {1000, 5, 1}} {
		c := newClosureChain(tc.n, tc.k, tc.p)
		got, err := c.Pass()
		if err != nil {
			t.Fatalf("n=%d k=%d p=%d: %v", tc.n, tc.k, tc.p, err)
		}
		want := roundbench.ChainExpected(tc.n, tc.k)
		if int64(len(got)) != tc.p {
			t.Fatalf("n=%d k=%d p=%d: %d values, want %d", tc.n, tc.k, tc.p, len(got), tc.p)
		}
		for i, v := range got {
			if v != want {
				t.Errorf("n=%d k=%d p=%d: chain %d gave %d, want %d", tc.n, tc.k, tc.p, i, v, want)
			}
		}
		c.Close()
	}
}

func TestClosureTaskDrivenTwiceIsAnError(t *testing.T) {
	c := newClosureChain(3, 0, 1)
	task := c.chains[0][1]
	if v, err := task(4); err != nil || v != roundbench.ChainHop(4, 0) {
		t.Fatalf("first drive: %d, %v", v, err)
	}
	if _, err := task(5); !errors.Is(err, errRanTwice) {
		t.Fatalf("second drive: %v, want errRanTwice", err)
	}
	if _, err := c.Pass(); !errors.Is(err, errRanTwice) {
		t.Fatalf("a pass over a task already driven: %v, want errRanTwice", err)
	}
}
