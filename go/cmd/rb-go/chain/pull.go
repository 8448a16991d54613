//go:build go1.23

package main

import (
	"errors"
	"iter"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-iter-pull (Go 1.23 and later, where package iter is): the chain as
// coroutines from the standard library's iter.Pull, Go's counterpart of Python's generators (py-generators). Each
// task is a pull iterator started at setup and suspended until pulled; the
// caller is the scheduler: it puts a task's input where the task reads it
// and pulls its value out, task after task. A pull switches coroutines
// directly (the runtime's coroswitch), with no channel and no scheduler
// queue, which is the handoff a generator makes.
func init() {
	harness.Register("chain", "go-iter-pull", func(a *harness.Args) {
		runChain(a, func(n, k, p int64) (chainRunner, error) { return newPullChain(n, k, p) })
	}, chainUnits...)
}

type pullTask struct {
	next func() (int64, bool)
	stop func()
}

type pullChain struct {
	chains [][]pullTask
	in     int64 // the value the task being pulled reads
}

// errPulledDry: a task gave no value (it cannot: each yields once).
var errPulledDry = errors.New("chain: a task ended without giving its value")

// newPullChain starts n x parallel pull iterators, each suspended before
// its body runs; runChain has checked n, hopWork and parallel.
func newPullChain(n, hopWork, parallel int64) (*pullChain, error) {
	c := &pullChain{chains: make([][]pullTask, parallel)}
	for j := range c.chains {
		tasks := make([]pullTask, n)
		for i := range tasks {
			next, stop := iter.Pull(func(yield func(int64) bool) {
				yield(roundbench.ChainHop(c.in, hopWork))
			})
			tasks[i] = pullTask{next, stop}
		}
		c.chains[j] = tasks
	}
	return c, nil
}

// Pass pulls every chain's value through its tasks, one chain after
// another, each task ending once it has given its value.
func (c *pullChain) Pass() ([]int64, error) {
	out := make([]int64, len(c.chains))
	for j, tasks := range c.chains {
		x := int64(0)
		for i := range tasks {
			c.in = x
			v, ok := tasks[i].next()
			if !ok {
				return nil, errPulledDry
			}
			x = v
			tasks[i].stop()
			tasks[i] = pullTask{}
		}
		out[j] = x
	}
	c.chains = nil
	return out, nil
}

// Close stops the tasks of a chain that has not passed. Idempotent.
func (c *pullChain) Close() {
	for _, tasks := range c.chains {
		for _, t := range tasks {
			if t.stop != nil {
				t.stop()
			}
		}
	}
	c.chains = nil
}
