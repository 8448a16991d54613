//go:build cgo && !netlib

package main

import (
	"errors"
	"fmt"
	"strings"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("matmul", "go-c", func(a *harness.Args) {
		runMatmul(a, roundbench.MatmulBlas, func(threads int) { mustBlas(roundbench.BlasSetThreads(threads)) })
	}, matmulUnits...)
	// The runner's provenance: what the core's BLAS is in this process.
	harness.RegisterHelper("matmul", "blas-info", matmulBlasInfo)
}

// mustBlas: the core loads the BLAS on first use; a machine without it
// cannot run the BLAS variants, which is not a failure of the work.
func mustBlas(err error) {
	if errors.Is(err, roundbench.ErrIO) {
		harness.Exit(harness.ExitCannot, "matmul: cannot run here: %v", err)
	}
	harness.Must(err)
}

func matmulBlasInfo(a *harness.Args) {
	if t := int(a.Int("threads", 0, 0, 4096)); t > 0 {
		mustBlas(roundbench.BlasSetThreads(t))
	}
	info, err := roundbench.BlasGetInfo()
	mustBlas(err)
	fmt.Printf("library=%s\nconfig=%s\ncorename=%s\nthreads=%d\n", info.Library, strings.TrimSpace(info.Config), info.CoreName, info.Threads)
}
