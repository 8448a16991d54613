/*
 * roundbench.h: the public interface of the roundbench C core.
 *
 * Every round's work is one function here, implemented in csrc/<round>.c.
 * The Python extension (python/roundbench/_core.c) and the Go package
 * (go/cgo.go) call these functions and nothing else.
 *
 * Error contract: the core never prints, exits or aborts on bad input. Each
 * function that can fail returns an rb_status and, when `err` is not NULL,
 * fills it with the code, a constant message and the position (argument
 * index or byte offset) where it applies. `err` may always be NULL.
 *
 * Thread safety: unless a function says otherwise it touches no global state
 * and may be called from any number of threads at once.
 */
#ifndef ROUNDBENCH_H
#define ROUNDBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

/** Status codes. RB_OK is zero; every failure is non-zero. */
typedef enum rb_status {
    RB_OK = 0,
    RB_ERR_ARG = 1,      /**< an argument is out of its domain (maps to ValueError) */
    RB_ERR_OVERFLOW = 2, /**< a result or size would overflow (OverflowError) */
    RB_ERR_NOMEM = 3,    /**< an allocation failed (MemoryError) */
    RB_ERR_IO = 4,       /**< a system call failed; see rb_error.sys_errno (OSError) */
    RB_ERR_TYPE = 5,     /**< an argument has the wrong type or layout (TypeError) */
    RB_ERR_INTERRUPTED = 6 /**< the caller asked the work to stop */
} rb_status;

/** Error record. `msg` points to a constant string owned by the core (never
 *  freed by the caller); `arg` names the argument that was wrong, or is NULL;
 *  `pos` is a byte offset or index where it applies, else -1. */
typedef struct rb_error {
    rb_status code;
    const char *msg;
    const char *arg;
    int64_t pos;
    int sys_errno;
} rb_error;

/** Clears `err` (when not NULL) to RB_OK. */
void rb_error_clear(rb_error *err);

/** A constant, human-readable name of a status code ("argument out of range"
 *  ...). Never returns NULL. */
const char *rb_status_name(rb_status code);

/* ------------------------------------------------------------------------ */
/* Round loop: the sum of i*i % 7 for i in [0, n), 64-bit integers.          */

/** The largest n the loop round accepts: (n-1)^2 must fit in int64_t. */
#define RB_LOOP_MAX_N INT64_C(3037000500)

/** Computes the sum of i*i % 7 for i in [lo, hi) into *out.
 *  @param lo, hi  0 <= lo <= hi <= RB_LOOP_MAX_N, else RB_ERR_ARG (negative
 *                 or lo > hi) or RB_ERR_OVERFLOW (hi too large).
 *  @param out     must not be NULL (RB_ERR_ARG).
 *  @param err     optional error record, may be NULL.
 *  @return RB_OK or a failure code; *out is untouched on failure.
 *  The cores round splits [0, n) into ranges and calls this from each
 *  worker; it is thread-safe. */
rb_status rb_loop_range(int64_t lo, int64_t hi, int64_t *out, rb_error *err);

/** rb_loop_range(0, n, out, err). */
rb_status rb_loop(int64_t n, int64_t *out, rb_error *err);

/** The expected loop sum, by the period-7 closed form. Used only to verify
 *  results; never as the round's work. Requires 0 <= n <= RB_LOOP_MAX_N. */
int64_t rb_loop_expected(int64_t n);

/* ------------------------------------------------------------------------ */
/* Round ffi: the callee every mechanism calls, kept in its own translation  */
/* unit (csrc/ffi.c) and marked noinline so no caller can fold it away.      */

/** The trivial callee: returns x + 1 (wrapping). */
int64_t rb_ffi_noop(int64_t x);

/** The same function under other names, so that Go's per-function
 *  `#cgo noescape` / `#cgo nocallback` directives can be measured on the
 *  very same machine code (they are aliases, not copies). */
int64_t rb_ffi_noop_noescape(int64_t x);
int64_t rb_ffi_noop_nocallback(int64_t x);

/** The callee that receives a buffer: returns p[0] + p[n-1] (0 when n == 0),
 *  so a handed-over buffer is really read but the callee's own cost stays
 *  constant and the cost of getting the bytes to C is what is measured. */
int64_t rb_ffi_buffer(const uint8_t *p, size_t n);

/** A callback as the core sees it: `ctx` is passed through untouched. It
 *  returns non-zero to stop the loop early (for example when a Python
 *  callback raised). */
typedef int (*rb_ffi_callback)(void *ctx, int64_t x, int64_t *result);

/** Calls `cb(ctx, i, &r)` for i in [0, count) and returns the wrapped sum of
 *  the results in *sink. Stops at the first non-zero return of `cb` and
 *  reports RB_ERR_INTERRUPTED with pos = the index of that call.
 *  @param cb    must not be NULL (RB_ERR_ARG).
 *  @param count >= 0 (RB_ERR_ARG). */
rb_status rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sink,
                               rb_error *err);

/** A callback that does what rb_ffi_noop does; the empty baseline for the
 *  callback mechanisms (the cost of the loop and an indirect C call). */
int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result);

/* ------------------------------------------------------------------------ */
/* Round matmul: C = A*B for dense row-major n x n float64 matrices.         */
/* (issue 3; csrc/matmul.c)                                                  */

/** The largest n the matmul round accepts: n*n*8 bytes must stay far from
 *  overflowing size_t and int64_t. */
#define RB_MATMUL_MAX_N INT64_C(1000000)

/** C = A*B by the naive i-k-j triple loop (the loop order that walks B and C
 *  contiguously), compiled with the core's own flags.
 *  @param n        0 <= n <= RB_MATMUL_MAX_N (RB_ERR_ARG / RB_ERR_OVERFLOW).
 *  @param a, b, c  n*n doubles each, row-major; may be NULL only when n == 0
 *                  (RB_ERR_ARG naming the argument). `c` must not overlap
 *                  `a` or `b` (RB_ERR_ARG naming c); `a` and `b` may alias.
 *  @return RB_OK, or a failure code with `c` untouched. Thread-safe. */
rb_status rb_matmul_naive(int64_t n, const double *a, const double *b, double *c, rb_error *err);

/** C = A*B by the BLAS (cblas_dgemm, row-major, alpha 1, beta 0), loaded
 *  on first use (rb_blas_load). Same arguments and errors as
 *  rb_matmul_naive, plus rb_blas_load's RB_ERR_IO; a bad argument or n == 0
 *  returns before the BLAS is loaded. The BLAS picks its own thread count
 *  (OPENBLAS_NUM_THREADS at load, or rb_blas_set_threads); see
 *  rb_blas_get_info. */
rb_status rb_matmul_blas(int64_t n, const double *a, const double *b, double *c, rb_error *err);

/** Fills a and b (n*n doubles each) from a seeded generator (splitmix64)
 *  with small integers in [-4, 4]. Integer inputs make every product exact
 *  whatever the summation order (|partial sums| <= 16n < 2^53), so every
 *  variant, BLAS or naive, computes bit-identical C and the checksums agree.
 *  @return RB_ERR_ARG for n out of range or NULL a/b with n > 0. */
rb_status rb_matmul_fill(int64_t n, uint64_t seed, double *a, double *b, rb_error *err);

/** Verifies C = A*B without recomputing it: Freivalds' test with a fixed
 *  vector x of integers in [1, 8]: C*x must equal A*(B*x) within
 *  4*(n+2)*DBL_EPSILON * (|A|*(|B|*|x|)) per row, the textbook bound on the
 *  rounding of a product computed in any order (and zero for the round's
 *  integer inputs). Also computes the checksum that the runner compares
 *  across variants: the wrapping sum of round(c[i][j]) * (i*n+j+1) * 2^64/phi.
 *  O(n^2) time, O(n) memory.
 *  @param checksum  may be NULL.
 *  @return RB_OK when C is the product; RB_ERR_ARG naming "c" with pos = the
 *          first wrong row when it is not; RB_ERR_NOMEM; argument errors as
 *          rb_matmul_naive. */
rb_status rb_matmul_verify(int64_t n, const double *a, const double *b, const double *c,
                           int64_t *checksum, rb_error *err);

/* The BLAS is linked into nothing: the first function below that needs it
 * (rb_matmul_blas, rb_blas_get_info, rb_blas_set_threads, rb_blas_load)
 * dlopen()s it (RTLD_NOW | RTLD_LOCAL) and resolves its symbols, once per
 * process, so that a process that never multiplies never maps it nor starts
 * its threads. The file, first that applies:
 *   1. the path given to rb_blas_set_library;
 *   2. the environment variable ROUNDBENCH_BLAS_LIB;
 *   3. the build's default, RB_BLAS_DEFAULT_LIB (the Makefile passes its
 *      build/blas/lib/ file); without one, the library's own name
 *      ("libscipy_openblas64_.so" as the build's symbol prefix and suffix
 *      make it), looked up along the binary's run path (cgo's rpath) and
 *      the loader's usual paths.
 * A bare name is looked up by the loader; a name with a '/' is a file. */

/** Chooses the BLAS file before it is loaded. The core copies `path` (the
 *  caller keeps ownership, and may free it at once); NULL clears an
 *  earlier choice, so the environment and the default apply again.
 *  Thread-safe; meant for a binding, once, before the first BLAS call.
 *  @return RB_OK; RB_ERR_ARG naming "path" when it is empty or longer than
 *          4095 bytes, or once the BLAS is loaded, unless `path` is the
 *          very string it was loaded from (then RB_OK, a no-op). */
rb_status rb_blas_set_library(const char *path, rb_error *err);

/** Loads the BLAS now if it is not loaded yet. A failed load is not
 *  remembered: the next call tries again (so rb_blas_set_library can still
 *  fix it). Thread-safe; after the first success it costs one atomic load.
 *  @return RB_OK; RB_ERR_IO when the file cannot be loaded or lacks one of
 *          the symbols the core needs (the message says which of the two;
 *          rb_blas_load_error gives the loader's text). */
rb_status rb_blas_load(rb_error *err);

/** Copies the loader's text for the last failed load (dlerror(): the file
 *  and why, or the missing symbol) into buf, NUL-terminated and truncated
 *  to size - 1 bytes; "" after a success. buf may be NULL when size is 0.
 *  @return the text's full length. Thread-safe. */
size_t rb_blas_load_error(char *buf, size_t size);

/** What the BLAS is, as it runs in this process. The strings are owned by
 *  the BLAS or the loader and live as long as the process (never freed by
 *  the caller). */
typedef struct rb_blas_info {
    const char *library; /**< the shared object's path (dladdr), or "unknown" */
    const char *config;  /**< openblas_get_config(): version and build options */
    const char *corename; /**< the kernel chosen at run time (openblas_get_corename) */
    int threads;          /**< the thread count dgemm will use now */
} rb_blas_info;

/** Fills *info, loading the BLAS first if need be. Safe to call from any
 *  thread. @return RB_OK; RB_ERR_ARG for a NULL info; rb_blas_load's
 *  RB_ERR_IO (*info untouched). */
rb_status rb_blas_get_info(rb_blas_info *info, rb_error *err);

/** Sets the BLAS's thread count for the whole process (n >= 1), as
 *  openblas_set_num_threads does, loading the BLAS first if need be. Not
 *  thread-safe with a running dgemm. @return RB_OK; RB_ERR_ARG naming "n";
 *  rb_blas_load's RB_ERR_IO. */
rb_status rb_blas_set_threads(int n, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round temps: the sum of a[i]*a[i] % 7 over an int64 array, one fused pass. */
/* (issue 3; csrc/temps.c)                                                   */

/** The largest |a[i]| rb_temps accepts: a[i]*a[i] must fit in int64_t. */
#define RB_TEMPS_MAX_ABS INT64_C(3037000499)

/** Computes the sum of a[i]*a[i] % 7 for i in [0, n) in one pass over `a`.
 *  @param a    n int64 values; may be NULL only when n == 0 (RB_ERR_ARG).
 *  @param n    >= 0 (RB_ERR_ARG).
 *  @param out  must not be NULL (RB_ERR_ARG).
 *  @return RB_OK; RB_ERR_OVERFLOW naming "a" with pos = the index of the
 *          first |a[i]| > RB_TEMPS_MAX_ABS. Thread-safe. */
rb_status rb_temps(const int64_t *a, int64_t n, int64_t *out, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Build information                                                         */

/** The compiler and flags the core was built with (constant string). */
const char *rb_build_info(void);

#ifdef __cplusplus
}
#endif
#endif /* ROUNDBENCH_H */
