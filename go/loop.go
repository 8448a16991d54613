package roundbench

// LoopMaxN is the largest n the loop round accepts: (n-1)^2 must fit in an
// int64. The core has the same bound (RB_LOOP_MAX_N).
const LoopMaxN = 3037000500

// checkLoopN validates n for Loop and PureLoop alike.
func checkLoopN(fn string, n int64) error {
	if n < 0 {
		return argError(fn, "n", ErrArg, "must be >= 0, not %d", n)
	}
	if n > LoopMaxN {
		return argError(fn, "n", ErrOverflow, "too large: %d > LoopMaxN (%d)", n, int64(LoopMaxN))
	}
	return nil
}

// PureLoop returns the sum of i*i % 7 for i in [0, n), in Go alone.
func PureLoop(n int64) (int64, error) {
	if err := checkLoopN("PureLoop", n); err != nil {
		return 0, err
	}
	var sum int64
	for i := int64(0); i < n; i++ {
		sum += i * i % 7
	}
	return sum, nil
}

// LoopExpected is the loop's sum by the period-7 closed form. It verifies
// results; it is never the round's work.
func LoopExpected(n int64) int64 {
	prefix := [7]int64{0, 0, 1, 5, 7, 9, 13}
	if n <= 0 {
		return 0
	}
	return n/7*14 + prefix[n%7]
}
