package roundbench

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// matmulImpl is one Go-side way to compute the product.
type matmulImpl struct {
	name string
	fn   func(n int, a, b, c []float64) error
}

// matmuls, matmulFills and matmulVerifies are every Go-side way to compute
// the product, fill the inputs and check the result, checked alike; the
// pure ones are here, matmul_cgo_test.go adds the core's.
var (
	matmuls        = []matmulImpl{{"PureMatmul", PureMatmul}, {"GonumMatmul", GonumMatmul}}
	matmulFills    = map[string]func(n int, seed uint64, a, b []float64) error{"PureMatmulFill": PureMatmulFill}
	matmulVerifies = map[string]func(n int, a, b, c []float64) (int64, error){"PureMatmulVerify": PureMatmulVerify}
)

func TestMatmulVectors(t *testing.T) {
	for _, v := range loadVectors(t, "matmul") {
		n, seed, want := int(v.int(t, "n")), uint64(v.int(t, "seed")), v.int(t, "checksum")
		for fillName, fill := range matmulFills {
			a, b := make([]float64, n*n), make([]float64, n*n)
			if err := fill(n, seed, a, b); err != nil {
				t.Fatalf("%s(%d): %v", fillName, n, err)
			}
			for _, m := range matmuls {
				c := make([]float64, n*n)
				if err := m.fn(n, a, b, c); err != nil {
					t.Errorf("%s(n=%d): %v", m.name, n, err)
					continue
				}
				for verifyName, verify := range matmulVerifies {
					if got, err := verify(n, a, b, c); err != nil || got != want {
						t.Errorf("%s(%s(n=%d, seed=%d)) checksum = %d, %v; want %d", verifyName, m.name, n, seed, got, err, want)
					}
				}
			}
		}
	}
}

func TestMatmulExplicit(t *testing.T) {
	for _, v := range loadAtLeast(t, "matmul-explicit", 5) {
		a, b, want := v.floats(t, "a"), v.floats(t, "b"), v.floats(t, "c")
		n := int(math.Sqrt(float64(len(a))))
		for _, m := range matmuls {
			c := make([]float64, n*n)
			for i := range c {
				c[i] = math.NaN() // the product must overwrite, not accumulate
			}
			if err := m.fn(n, a, b, c); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			if fmt.Sprint(c) != fmt.Sprint(want) {
				t.Errorf("%s(%v, %v) = %v; want %v", m.name, a, b, c, want)
			}
		}
		// The checksum rounds each entry to nearest, ties to even.
		checksum := v.int(t, "checksum")
		for verifyName, verify := range matmulVerifies {
			if got, err := verify(n, a, b, want); err != nil || got != checksum {
				t.Errorf("%s(c=%v) checksum = %d, %v; want %d", verifyName, want, got, err, checksum)
			}
		}
	}
}

func TestMatmulErrors(t *testing.T) {
	for _, v := range loadVectors(t, "matmul-error") {
		n := int(v.int(t, "n"))
		kind := v.errKind(t)
		for _, m := range matmuls {
			err := m.fn(n, nil, nil, nil)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, kind) || e.Arg != "n" {
				t.Errorf("%s(n=%d) = %v; want %v naming n", m.name, n, err, kind)
			}
		}
	}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		what    string
		a, b, c []float64
		arg     string
	}{
		{"short a", x[:3], x[:4], make([]float64, 4), "a"},
		{"long b", x[:4], x[:5], make([]float64, 4), "b"},
		{"nil c", x[:4], x[4:], nil, "c"},
		{"c is a", x[:4], x[4:], x[:4], "c"},
		{"c is b", x[:4], x[4:], x[4:], "c"},
		{"c overlaps a", x[:4], x[4:], x[2:6], "c"},
	}
	for _, tc := range cases {
		for _, m := range matmuls {
			err := m.fn(2, tc.a, tc.b, tc.c)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrArg) || e.Arg != tc.arg {
				t.Errorf("%s(%s) = %v; want ErrArg naming %s", m.name, tc.what, err, tc.arg)
			}
		}
	}
	// a and b may be the same matrix.
	c := make([]float64, 4)
	for _, m := range matmuls {
		if err := m.fn(2, x[:4], x[:4], c); err != nil || c[0] != 7 || c[3] != 22 {
			t.Errorf("%s(a, a) = %v, %v; want [7 10 15 22]", m.name, c, err)
		}
	}
}

func TestMatmulVerifyCatchesWrongProduct(t *testing.T) {
	const n = 17
	a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	if err := PureMatmulFill(n, 1, a, b); err != nil {
		t.Fatal(err)
	}
	if err := PureMatmul(n, a, b, c); err != nil {
		t.Fatal(err)
	}
	c[5*n+3]++
	for name, verify := range matmulVerifies {
		_, err := verify(n, a, b, c)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrArg) || e.Arg != "c" || e.Pos != 5 {
			t.Errorf("%s(wrong row 5) = %v; want an error naming c at row 5", name, err)
		}
	}
}

func BenchmarkMatmul(b *testing.B) {
	for _, n := range []int{64, 300} {
		x, y, z := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		if err := PureMatmulFill(n, 1, x, y); err != nil {
			b.Fatal(err)
		}
		for _, m := range matmuls {
			b.Run(fmt.Sprintf("impl=%s/n=%d", m.name, n), func(b *testing.B) {
				for b.Loop() {
					if err := m.fn(n, x, y, z); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
