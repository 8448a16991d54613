package roundbench

// TempsMaxAbs is the largest |a[i]| the temps round accepts: a[i]*a[i] must
// fit in an int64 (RB_TEMPS_MAX_ABS).
const TempsMaxAbs = 3037000499

// PureTemps returns the sum of a[i]*a[i] % 7 over a in one fused pass, in Go
// alone. An |a[i]| > TempsMaxAbs is an *Error matching ErrOverflow with
// Pos i, as in the core.
func PureTemps(a []int64) (int64, error) {
	var sum uint64
	for i, x := range a {
		// One unsigned compare tests -TempsMaxAbs <= x <= TempsMaxAbs.
		if uint64(x)+TempsMaxAbs > 2*TempsMaxAbs {
			return 0, &Error{Func: "PureTemps", Arg: "a", Msg: "a[i]*a[i] would overflow int64 (|a[i]| <= 3037000499)", Pos: int64(i), Kind: ErrOverflow}
		}
		sum += uint64(x*x) % 7
	}
	return int64(sum), nil
}
