package main

import (
	"errors"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-closures: the chain as tasks the caller drives once each, in turn, the
// way a Go programmer writes them: a slice of closures, each made at setup
// with its own state, called with the value and returning the next one
// (x = task(x)). It is Go's stackless counterpart of py-generators: no
// channel, no scheduler, no stack of its own per task; a task is a function
// value and the few bytes it captures. The model is caller-driven, not the
// published one (tasks joined by channels: go), and the round scores it
// only against its own model.
func init() {
	harness.Register("chain", "go-closures", func(a *harness.Args) {
		runChain(a, func(n, k, p int64) (chainRunner, error) { return newClosureChain(n, k, p), nil })
	}, chainUnits...)
}

// closureTask is one task: it passes its input on after its hop work, once.
type closureTask func(x int64) (int64, error)

type closureChain struct {
	chains [][]closureTask
}

// errRanTwice: a task was driven a second time (each passes one value).
var errRanTwice = errors.New("chain: a task was driven twice")

// newClosureChain makes n x parallel tasks, each a closure over its own
// state (whether it has run), so that every task is a heap object of its
// own as a suspended generator is; runChain has checked n, hopWork and
// parallel.
func newClosureChain(n, hopWork, parallel int64) *closureChain {
	c := &closureChain{chains: make([][]closureTask, parallel)}
	for j := range c.chains {
		tasks := make([]closureTask, n)
		for i := range tasks {
			ran := false
			tasks[i] = func(x int64) (int64, error) {
				if ran {
					return 0, errRanTwice
				}
				ran = true
				return roundbench.ChainHop(x, hopWork), nil
			}
		}
		c.chains[j] = tasks
	}
	return c
}

// Pass drives every chain's value through its tasks, one chain after
// another, each task dropped once it has passed its value on.
func (c *closureChain) Pass() ([]int64, error) {
	out := make([]int64, len(c.chains))
	for j, tasks := range c.chains {
		x := int64(0)
		for i, task := range tasks {
			v, err := task(x)
			if err != nil {
				return nil, err
			}
			x = v
			tasks[i] = nil
		}
		out[j] = x
	}
	c.chains = nil
	return out, nil
}

// Close drops the tasks of a chain that has not passed. Idempotent.
func (c *closureChain) Close() { c.chains = nil }
