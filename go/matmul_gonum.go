//go:build go1.24

// gonum declares go 1.24 in its go.mod, so a toolchain older than that
// builds this package without gonum, and without go-gonum
// (roundbench.runtimes.gotoolchains builds the runners with older toolchains).

package roundbench

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

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
