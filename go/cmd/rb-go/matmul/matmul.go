// Command rb-go-matmul is round matmul's Go child runner: `rb-go-matmul matmul IMPL
// [key=value...]` runs one variant once and prints its result line, and
// `rb-go-matmul --list` lists the variants (go/internal/harness). Each
// round's runner is a program of its own so that a child maps only its own
// round's code.
//
// The variants, by file: go (plain.go), go-gonum (gonum.go), go-c
// (matmul_cgo.go, the C core). go-gonum-netlib (netlib.go) is built from
// the same directory with the tag netlib, against the system's OpenBLAS,
// into a program of its own, rb-go-matmul-netlib: that program links
// OpenBLAS, which starts its threads when it is loaded, so no other
// variant's child may carry it. The build tags keep each program to its
// own variants, and leave gonum's two out of a build with a Go older than
// gonum needs (1.24).
package main

import (
	"errors"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// minTimed: a product shorter than this is repeated and the mean taken (the
// same rule as csrc/runner/run_matmul.c and rounds/matmul.py).
const minTimed = 200 * time.Millisecond

// matmulUnits are what a matmul result line carries besides ns/op.
var matmulUnits = []string{"GFLOP/s"}

type matmulFn func(n int, a, b, c []float64) error

// runMatmul times product on the round's inputs and checks the result
// (both in Go: PureMatmulFill and PureMatmulVerify, whatever the product).
// setThreads, when not nil, gives the product its thread count first.
func runMatmul(a *harness.Args, product matmulFn, setThreads func(int)) {
	n := int(a.Int("n", 300, 0, 20_000))
	threads := int(a.Int("threads", 1, 1, 4096))
	if setThreads != nil {
		setThreads(threads)
	}
	A, B, C := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	harness.Must(roundbench.PureMatmulFill(n, 1, A, B))
	// Fault the product's pages in, untimed, as the C runner does: the
	// runtime hands out fresh, untouched memory for a large slice, and its
	// page faults would otherwise be timed inside the product (about 4% of
	// dgemm's time at n = 2000: the gap go-c showed against c-blas).
	for i := range C {
		C[i] = 0
	}

	// Warm-up on a small product (the leading w x w block, copied).
	w := harness.Min(n, 256)
	aw, bw, cw := make([]float64, w*w), make([]float64, w*w), make([]float64, w*w)
	for i := 0; i < w; i++ {
		copy(aw[i*w:(i+1)*w], A[i*n:i*n+w])
		copy(bw[i*w:(i+1)*w], B[i*n:i*n+w])
	}
	harness.Must(product(w, aw, bw, cw))

	var err error
	d := harness.Timed(func() { err = product(n, A, B, C) })
	harness.Must(err)
	reps := int64(1)
	ns := float64(d.Nanoseconds())
	if d < minTimed {
		reps = int64(minTimed/harness.Max(d, time.Microsecond)) + 1
		d = harness.Timed(func() {
			for r := int64(0); r < reps && err == nil; r++ {
				err = product(n, A, B, C)
			}
		})
		harness.Must(err)
		ns = float64(d.Nanoseconds()) / float64(reps)
	}

	sum, err := roundbench.PureMatmulVerify(n, A, B, C)
	var re *roundbench.Error
	if errors.As(err, &re) && re.Arg == "c" {
		harness.Exit(harness.ExitWrong, "wrong result: C is not A*B (row %d)", re.Pos)
	}
	harness.Must(err)
	gflops := 0.0
	if ns > 0 {
		gflops = 2 * float64(n) * float64(n) * float64(n) / ns
	}
	harness.Result("checksum=%d", sum)
	harness.Emit(a, reps, ns, harness.Metric{Value: gflops, Unit: "GFLOP/s"})
}
