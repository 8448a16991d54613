package roundbench

import "sync"

// The chain round: N tasks in a line joined by channels; the first receives
// 0, each adds 1 (after its hop work) and passes the value on, the last
// yields N. PureChain is the Go version (goroutines and unbuffered
// channels); Chain (cgo.go) drives the C core's coroutines.

// ChainMaxN and ChainMaxParallel bound n and parallel, as in the core
// (RB_CHAIN_MAX_N, RB_CHAIN_MAX_PARALLEL).
const (
	ChainMaxN        = 1 << 32
	ChainMaxParallel = 4096
)

// checkChain validates the arguments of NewChain and NewPureChain alike.
func checkChain(fn string, n, hopWork, parallel int64) error {
	switch {
	case n < 1:
		return argError(fn, "n", ErrArg, "must be >= 1, not %d", n)
	case n > ChainMaxN:
		return argError(fn, "n", ErrOverflow, "too large: %d > ChainMaxN (%d)", n, int64(ChainMaxN))
	case hopWork < 0:
		return argError(fn, "hopWork", ErrArg, "must be >= 0, not %d", hopWork)
	case hopWork > ((1<<63-1)/n-1)/6:
		return argError(fn, "hopWork", ErrOverflow, "n * (1 + 6 * hopWork) would overflow int64 (hopWork=%d)", hopWork)
	case parallel < 1 || parallel > ChainMaxParallel:
		return argError(fn, "parallel", ErrArg, "must be in [1, %d], not %d", ChainMaxParallel, parallel)
	}
	return nil
}

// ChainHop is one hop: x + 1 + the sum of ((x+i) % 7)^2 % 7 for i in
// [0, hopWork), the same work as the core's rb_chain_hop.
func ChainHop(x, hopWork int64) int64 {
	var s int64
	for i := int64(0); i < hopWork; i++ {
		t := (x + i) % 7
		s += t * t % 7
	}
	return x + 1 + s
}

// ChainExpected is what the last of n tasks yields, with the hop work in
// closed form per hop (t*t % 7 repeats every 7 steps). It verifies
// results; it is never the round's work.
func ChainExpected(n, hopWork int64) int64 {
	sq := [7]int64{0, 1, 4, 2, 2, 4, 1}
	var add [7]int64
	for r := int64(0); r < 7; r++ {
		w := hopWork / 7 * 14
		for j := int64(0); j < hopWork%7; j++ {
			w += sq[(r+j)%7]
		}
		add[r] = 1 + w
	}
	var x int64
	for i := int64(0); i < n; i++ {
		x += add[x%7]
	}
	return x
}

// PureChain is `parallel` chains of n goroutines joined by unbuffered
// channels. NewPureChain is the setup, Pass the pass, Close the teardown.
// Not safe for concurrent use.
type PureChain struct {
	first, last []chan int64
	passed      bool
}

// NewPureChain starts the goroutines and returns once every one of them
// is running (each then waits on its channel), so that all n * parallel
// tasks exist when setup ends.
func NewPureChain(n, hopWork, parallel int64) (*PureChain, error) {
	if err := checkChain("NewPureChain", n, hopWork, parallel); err != nil {
		return nil, err
	}
	c := &PureChain{}
	var ready sync.WaitGroup
	ready.Add(int(n * parallel))
	for p := int64(0); p < parallel; p++ {
		first := make(chan int64)
		in := first
		for i := int64(0); i < n; i++ {
			out := make(chan int64)
			go func(in <-chan int64, out chan<- int64) {
				ready.Done()
				x, ok := <-in
				if !ok { // Close before the pass: end the chain.
					close(out)
					return
				}
				out <- ChainHop(x, hopWork)
			}(in, out)
			in = out
		}
		c.first = append(c.first, first)
		c.last = append(c.last, in)
	}
	ready.Wait()
	return c, nil
}

// Pass sends 0 into every chain, the chains running at once, and returns
// what each chain's last goroutine yields. A chain passes once.
func (c *PureChain) Pass() ([]int64, error) {
	if c.passed || c.first == nil {
		return nil, argError("PureChain.Pass", "chain", ErrArg, "this chain has already passed or was closed")
	}
	c.passed = true
	out := make([]int64, len(c.first))
	if len(c.first) == 1 {
		c.first[0] <- 0
		out[0] = <-c.last[0]
		return out, nil
	}
	var wg sync.WaitGroup
	for p := range c.first {
		p := p // one per goroutine under any Go's loop variables
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.first[p] <- 0
			out[p] = <-c.last[p]
		}()
	}
	wg.Wait()
	return out, nil
}

// Close ends the goroutines of a chain that has not passed (closing its
// channels, which each goroutine passes on) and drops the channels.
// Idempotent.
func (c *PureChain) Close() {
	if !c.passed && c.first != nil {
		for p := range c.first {
			close(c.first[p])
			<-c.last[p] // closed once every goroutine of the chain has seen it
		}
	}
	c.first, c.last = nil, nil
}
