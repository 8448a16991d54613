package roundbench

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
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
func uintptrOf(x []float64) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(x))) }

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
		clear(crow)
		for k, aik := range a[i*n : i*n+n] {
			brow := b[k*n : k*n+n]
			for j, bkj := range brow {
				crow[j] += aik * bkj
			}
		}
	}
	return nil
}

// GonumMatmul sets c = a*b with gonum's pure-Go Dgemm (blas/gonum), which
// splits the work over GOMAXPROCS goroutines.
func GonumMatmul(n int, a, b, c []float64) error {
	if err := checkMatmul("GonumMatmul", n, a, b, c); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
	return nil
}
