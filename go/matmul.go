package roundbench

import (
	"math"
	"unsafe"
)

// MatmulMaxN is the largest n the matmul round accepts (RB_MATMUL_MAX_N).
const MatmulMaxN = 1_000_000

// checkMatmulSizes validates n and the slices' lengths for every matmul
// function, Go or core, so that they fail alike.
func checkMatmulSizes(fn string, n int, a, b, c []float64) error {
	if n < 0 {
		return argError(fn, "n", ErrArg, "must be >= 0, not %d", n)
	}
	if n > MatmulMaxN {
		return argError(fn, "n", ErrOverflow, "too large: %d > MatmulMaxN (%d)", n, MatmulMaxN)
	}
	for _, s := range []struct {
		name string
		m    []float64
	}{{"a", a}, {"b", b}, {"c", c}} {
		if len(s.m) != n*n {
			return argError(fn, s.name, ErrArg, "has %d elements; want n*n = %d", len(s.m), n*n)
		}
	}
	return nil
}

// uintptrOf is the address of x's first element, for overlap tests only.
// x is not empty (overlaps asks only then).
func uintptrOf(x []float64) uintptr { return uintptr(unsafe.Pointer(&x[0])) }

// overlaps reports whether two non-empty slices share memory.
func overlaps(x, y []float64) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	return uintptrOf(x) < uintptrOf(y)+uintptr(8*len(y)) && uintptrOf(y) < uintptrOf(x)+uintptr(8*len(x))
}

// checkMatmul is checkMatmulSizes plus: c must not overlap a or b (the
// product would read what it has already overwritten).
func checkMatmul(fn string, n int, a, b, c []float64) error {
	if err := checkMatmulSizes(fn, n, a, b, c); err != nil {
		return err
	}
	if overlaps(c, a) || overlaps(c, b) {
		return argError(fn, "c", ErrArg, "must not overlap a or b")
	}
	return nil
}

// PureMatmul sets c = a*b (n x n, row-major) by the naive i-k-j loop in Go
// alone: the loop order that walks b and c contiguously.
func PureMatmul(n int, a, b, c []float64) error {
	if err := checkMatmul("PureMatmul", n, a, b, c); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		crow := c[i*n : i*n+n]
		for j := range crow { // compiled to a memclr, as clear (Go 1.21) is
			crow[j] = 0
		}
		for k, aik := range a[i*n : i*n+n] {
			brow := b[k*n : k*n+n]
			for j, bkj := range brow {
				crow[j] += aik * bkj
			}
		}
	}
	return nil
}

// splitmix64 is the core's generator for the round's inputs and its check
// vector (csrc/matmul.c), so that Go fills and checks with the same numbers.
func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// PureMatmulFill fills a and b (n*n each) with the round's seeded small
// integers in [-4, 4], the values the core's MatmulFill writes, in Go alone.
func PureMatmulFill(n int, seed uint64, a, b []float64) error {
	if err := checkMatmulSizes("PureMatmulFill", n, a, b, a); err != nil {
		return err
	}
	s := seed
	for i := range a {
		a[i] = float64(splitmix64(&s)%9) - 4
	}
	for i := range b {
		b[i] = float64(splitmix64(&s)%9) - 4
	}
	return nil
}

// PureMatmulVerify is MatmulVerify in Go alone: Freivalds' check of c ==
// a*b within the core's rounding bound, then the round's checksum of c. A
// wrong c is an *Error with Arg "c" and Pos the first wrong row. It checks
// results; it is never the round's work.
func PureMatmulVerify(n int, a, b, c []float64) (int64, error) {
	if err := checkMatmulSizes("PureMatmulVerify", n, a, b, c); err != nil {
		return 0, err
	}
	// x, B*x and |B|*|x|, then A*(B*x) and |A|*(|B|*|x|), as in the core.
	x := make([]float64, n)
	s := uint64(0x5EED)
	for j := range x {
		x[j] = float64(1 + splitmix64(&s)%8)
	}
	matvecAbs := func(m []float64, v, va []float64) (y, ya []float64) {
		y, ya = make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			var sum, sumAbs float64
			for j, mij := range m[i*n : i*n+n] {
				sum += mij * v[j]
				sumAbs += math.Abs(mij) * va[j]
			}
			y[i], ya[i] = sum, sumAbs
		}
		return y, ya
	}
	bx, bxa := matvecAbs(b, x, x)
	abx, abxa := matvecAbs(a, bx, bxa)
	tol := 4 * (float64(n) + 2) * 0x1p-52 // DBL_EPSILON
	for i := 0; i < n; i++ {
		var v float64
		for j, cij := range c[i*n : i*n+n] {
			v += cij * x[j]
		}
		// !(<=) also catches a NaN anywhere in the row.
		if !(math.Abs(v-abx[i]) <= tol*abxa[i]) {
			return 0, &Error{Func: "PureMatmulVerify", Arg: "c", Msg: "is not a*b (Freivalds' check failed on this row)", Pos: int64(i), Kind: ErrArg}
		}
	}
	var sum uint64
	for i, cij := range c {
		r := math.RoundToEven(cij)
		var v int64
		if math.Abs(r) < 9.0e18 {
			v = int64(r)
		}
		sum += uint64(v) * (uint64(i) + 1) * 0x9E3779B97F4A7C15
	}
	return int64(sum), nil
}
