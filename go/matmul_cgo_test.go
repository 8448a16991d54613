//go:build cgo

package roundbench

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func init() {
	matmuls = append(matmuls, matmulImpl{"MatmulBlas", MatmulBlas}, matmulImpl{"MatmulNaive", MatmulNaive})
	matmulFills["MatmulFill"] = MatmulFill
	matmulVerifies["MatmulVerify"] = MatmulVerify
}

// The core and Go fill the same inputs, bit for bit, so that the Go
// variants and go-c multiply the same matrices.
func TestMatmulFillsAgree(t *testing.T) {
	for _, v := range loadVectors(t, "matmul") {
		n, seed := int(v.int(t, "n")), uint64(v.int(t, "seed"))
		a, b := make([]float64, n*n), make([]float64, n*n)
		pa, pb := make([]float64, n*n), make([]float64, n*n)
		if err := MatmulFill(n, seed, a, b); err != nil {
			t.Fatal(err)
		}
		if err := PureMatmulFill(n, seed, pa, pb); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, pa) || !slices.Equal(b, pb) {
			t.Errorf("PureMatmulFill(n=%d, seed=%d) differs from MatmulFill", n, seed)
		}
	}
}

func TestBlasInfo(t *testing.T) {
	info, err := BlasGetInfo()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info.Config, "OpenBLAS") || info.CoreName == "" || info.Library == "" {
		t.Errorf("BlasGetInfo() = %+v; want an OpenBLAS with a kernel and a file", info)
	}
	if err := BlasSetThreads(1); err != nil {
		t.Fatal(err)
	}
	if info, err = BlasGetInfo(); err != nil || info.Threads != 1 {
		t.Errorf("after BlasSetThreads(1), BlasGetInfo() = %+v, %v; want 1 thread", info, err)
	}
	if err := BlasSetThreads(0); !errors.Is(err, ErrArg) {
		t.Errorf("BlasSetThreads(0) = %v; want ErrArg", err)
	}
	// Loaded: another file cannot take its place.
	if err := BlasSetLibrary("/nonexistent/libother.so"); !errors.Is(err, ErrArg) {
		t.Errorf("BlasSetLibrary after the load = %v; want ErrArg", err)
	}
}
