//go:build netlib && cgo && go1.24

package roundbench

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/netlib/blas/netlib"
)

// A build with the tag netlib routes gonum's blas64, which mat.Dense's
// methods call, to a C BLAS through gonum.org/v1/netlib's cgo binding: the
// one line a gonum user who wants OpenBLAS writes at start-up. The binding
// calls the CBLAS interface with C ints (LP64), so the program must link a
// plain CBLAS, the system's OpenBLAS (CGO_LDFLAGS from pkg-config, see the
// Makefile), never the core's scipy-openblas64, whose symbols are renamed
// and whose integers are 64-bit. This file imports no "C" itself: the
// binding's cgo is the netlib package's.
func init() { blas64.Use(netlib.Implementation{}) }

// NetlibMatmul sets c = a*b as a gonum user writes it: mat.Dense's Mul over
// the three slices (wrapped, not copied), with gonum's BLAS routed to the C
// BLAS by gonum.org/v1/netlib (this file's init). It exists only in a build
// with the tag netlib and cgo.
func NetlibMatmul(n int, a, b, c []float64) error {
	if err := checkMatmul("NetlibMatmul", n, a, b, c); err != nil {
		return err
	}
	if n == 0 {
		return nil // mat has no empty matrix: NewDense(0, 0, nil) panics
	}
	mat.NewDense(n, n, c).Mul(mat.NewDense(n, n, a), mat.NewDense(n, n, b))
	return nil
}
