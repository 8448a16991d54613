//go:build netlib && cgo && go1.24

package roundbench

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// The netlib build's product is held to the same vectors, edges and bad
// input as every other (TestMatmulVectors, TestMatmulExplicit,
// TestMatmulErrors).
func init() { matmuls = append(matmuls, matmulImpl{"NetlibMatmul", NetlibMatmul}) }

// Without the route to C, NetlibMatmul would still be right, through
// gonum's pure-Go BLAS: the vectors cannot tell, this can.
func TestNetlibRoutesGonumToC(t *testing.T) {
	if impl := blas64.Implementation(); impl != (netlib.Implementation{}) {
		t.Errorf("blas64.Implementation() = %T; want netlib.Implementation", impl)
	}
}
