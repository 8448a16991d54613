//go:build netlib && cgo && go1.24

package main

// go-gonum-netlib's program, rb-go-matmul-netlib: gonum's mat.Dense.Mul with
// gonum's BLAS routed to the system's OpenBLAS by gonum.org/v1/netlib
// (roundbench.NetlibMatmul), and the library's own knobs, which the CBLAS
// interface lacks: its thread count, set as the core sets its BLAS's for
// c-blas and go-c, and what it is, for the provenance (blas-info).

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

// OpenBLAS's own entry points, beside the CBLAS that the netlib binding
// calls; its cblas.h declares them too, but only the library, on the link
// line (CGO_LDFLAGS), is needed this way.
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
int openblas_get_parallel(void);
char *openblas_get_config(void);
char *openblas_get_corename(void);

// The file the library was loaded from: the object that holds the buffer
// openblas_get_config returns. A function's address would not do: in a
// program that is not position-independent it can be the program's own
// PLT entry.
static const char *rb_openblas_file(void) {
	Dl_info info;
	if (dladdr(openblas_get_config(), &info) && info.dli_fname != NULL)
		return info.dli_fname;
	return NULL;
}
*/
import "C"

import (
	"fmt"
	"strings"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("matmul", "go-gonum-netlib", func(a *harness.Args) {
		runMatmul(a, roundbench.NetlibMatmul, setOpenblasThreads)
	}, matmulUnits...)
	harness.RegisterHelper("matmul", "blas-info", netlibBlasInfo)
}

// setOpenblasThreads gives OpenBLAS the cell's thread count (the runner
// sets OPENBLAS_NUM_THREADS too, which it reads when it is loaded) and
// checks that it took it: a library that runs another count (a build with
// fewer MAX_THREADS) cannot run the cell as asked.
func setOpenblasThreads(n int) {
	C.openblas_set_num_threads(C.int(n))
	if got := int(C.openblas_get_num_threads()); got != n {
		harness.Exit(harness.ExitCannot, "matmul go-gonum-netlib: cannot run here: OpenBLAS runs %d thread(s) where %d were asked for (%s)",
			got, n, openblasConfig())
	}
}

func openblasConfig() string { return strings.TrimSpace(C.GoString(C.openblas_get_config())) }

// openblasFlavour names the threading OpenBLAS was built with
// (openblas_get_parallel: Debian ships all three as libopenblas0-pthread,
// -openmp and -serial).
func openblasFlavour() string {
	switch p := C.openblas_get_parallel(); p {
	case 0:
		return "serial"
	case 1:
		return "pthreads"
	case 2:
		return "openmp"
	default:
		return fmt.Sprintf("unknown (openblas_get_parallel() = %d)", p)
	}
}

// netlibBlasInfo prints what go-gonum-netlib's BLAS is in this process, in
// the lines of go-c's blas-info (matmul_cgo.go), and its flavour.
func netlibBlasInfo(a *harness.Args) {
	if t := int(a.Int("threads", 0, 0, 4096)); t > 0 {
		setOpenblasThreads(t)
	}
	file := "unknown (dladdr found no file)"
	if f := C.rb_openblas_file(); f != nil {
		file = C.GoString(f)
	}
	fmt.Printf("library=%s\nconfig=%s\ncorename=%s\nthreads=%d\nflavour=%s\n",
		file, openblasConfig(), C.GoString(C.openblas_get_corename()), int(C.openblas_get_num_threads()), openblasFlavour())
}
