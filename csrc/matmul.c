/* matmul.c: round matmul, C = A*B for dense row-major n x n float64 matrices:
 * the naive i-k-j loop, the BLAS's dgemm, the seeded inputs and the check.
 *
 * The BLAS is the one the build points at (see README, "The BLAS"): by
 * default the OpenBLAS that the scipy-openblas64 package ships, the same
 * library numpy's wheels bundle. Its symbols carry a prefix and a suffix
 * (scipy_cblas_dgemm64_), which the build passes as BLAS_SYMBOL_PREFIX and
 * BLAS_SYMBOL_SUFFIX, the names its own pkg-config file uses; a plain
 * system OpenBLAS builds with neither. */
#define _GNU_SOURCE
#include "roundbench.h"

#include <cblas.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifndef BLAS_SYMBOL_PREFIX
#define BLAS_SYMBOL_PREFIX
#endif
#ifndef BLAS_SYMBOL_SUFFIX
#define BLAS_SYMBOL_SUFFIX
#endif
#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)
#define RB_BLAS(name) RB_CAT3(BLAS_SYMBOL_PREFIX, name, BLAS_SYMBOL_SUFFIX)

static int overlaps(const double *p, const double *q, size_t count)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q, len = count * sizeof(double);
    return a < b + len && b < a + len;
}

/* The argument checks every matmul entry point shares. */
static rb_status check_args(int64_t n, const double *a, const double *b, const double *c,
                            int c_is_output, rb_error *err)
{
    if (n < 0)
        return rb_fail(err, RB_ERR_ARG, "n", "must be >= 0", n);
    if (n > RB_MATMUL_MAX_N)
        return rb_fail(err, RB_ERR_OVERFLOW, "n", "is too large (n <= 1000000)", n);
    if (n == 0)
        return RB_OK;
    if (!a)
        return rb_fail(err, RB_ERR_ARG, "a", "must not be NULL", -1);
    if (!b)
        return rb_fail(err, RB_ERR_ARG, "b", "must not be NULL", -1);
    if (!c)
        return rb_fail(err, RB_ERR_ARG, "c", "must not be NULL", -1);
    size_t count = (size_t)n * (size_t)n;
    if (c_is_output && (overlaps(c, a, count) || overlaps(c, b, count)))
        return rb_fail(err, RB_ERR_ARG, "c", "must not overlap a or b", -1);
    return RB_OK;
}

rb_status rb_matmul_naive(int64_t n, const double *a, const double *b, double *c, rb_error *err)
{
    rb_status st = check_args(n, a, b, c, 1, err);
    if (st != RB_OK || n == 0)
        return st;
    const size_t m = (size_t)n;
    for (size_t i = 0; i < m; i++) {
        double *restrict crow = c + i * m;
        const double *restrict arow = a + i * m;
        for (size_t j = 0; j < m; j++)
            crow[j] = 0.0;
        for (size_t k = 0; k < m; k++) {
            const double aik = arow[k];
            const double *restrict brow = b + k * m;
            for (size_t j = 0; j < m; j++)
                crow[j] += aik * brow[j];
        }
    }
    return RB_OK;
}

rb_status rb_matmul_blas(int64_t n, const double *a, const double *b, double *c, rb_error *err)
{
    rb_status st = check_args(n, a, b, c, 1, err);
    /* n == 0 must not reach dgemm: lda = 0 is invalid and the reference
     * BLAS error handler (xerbla) would print. */
    if (st != RB_OK || n == 0)
        return st;
    RB_BLAS(cblas_dgemm)(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0,
                         c, n);
    return RB_OK;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

rb_status rb_matmul_fill(int64_t n, uint64_t seed, double *a, double *b, rb_error *err)
{
    double dummy;
    rb_status st = check_args(n, a, b, &dummy, 0, err);
    if (st != RB_OK)
        return st;
    size_t count = (size_t)n * (size_t)n;
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++)
        a[i] = (double)(int)(splitmix64(&s) % 9) - 4.0;
    for (size_t i = 0; i < count; i++)
        b[i] = (double)(int)(splitmix64(&s) % 9) - 4.0;
    return RB_OK;
}

rb_status rb_matmul_verify(int64_t n, const double *a, const double *b, const double *c,
                           int64_t *checksum, rb_error *err)
{
    rb_status st = check_args(n, a, b, c, 0, err);
    if (st != RB_OK)
        return st;
    const size_t m = (size_t)n;
    uint64_t sum = 0;
    if (m == 0)
        goto done;
    /* x, B*x, |B|*|x|, A*(B*x), |A|*(|B|*|x|) */
    double *x = malloc(5 * m * sizeof(double));
    if (!x)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the check's vectors", -1);
    double *bx = x + m, *bxa = x + 2 * m, *abx = x + 3 * m, *abxa = x + 4 * m;
    uint64_t s = UINT64_C(0x5EED);
    for (size_t j = 0; j < m; j++)
        x[j] = (double)(1 + splitmix64(&s) % 8);
    for (size_t i = 0; i < m; i++) {
        double v = 0, va = 0;
        for (size_t j = 0; j < m; j++) {
            v += b[i * m + j] * x[j];
            va += fabs(b[i * m + j]) * x[j];
        }
        bx[i] = v;
        bxa[i] = va;
    }
    for (size_t i = 0; i < m; i++) {
        double v = 0, va = 0;
        for (size_t k = 0; k < m; k++) {
            v += a[i * m + k] * bx[k];
            va += fabs(a[i * m + k]) * bxa[k];
        }
        abx[i] = v;
        abxa[i] = va;
    }
    const double tol = 4.0 * ((double)m + 2.0) * DBL_EPSILON;
    for (size_t i = 0; i < m; i++) {
        double v = 0;
        for (size_t j = 0; j < m; j++)
            v += c[i * m + j] * x[j];
        /* !(<=) also catches a NaN anywhere in the row. */
        if (!(fabs(v - abx[i]) <= tol * abxa[i])) {
            free(x);
            return rb_fail(err, RB_ERR_ARG, "c", "is not a*b (Freivalds' check failed on this row)",
                           (int64_t)i);
        }
    }
    free(x);
    for (size_t i = 0; i < m * m; i++) {
        double r = nearbyint(c[i]);
        int64_t v = fabs(r) < 9.0e18 ? (int64_t)r : 0;
        sum += (uint64_t)v * ((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    }
done:
    if (checksum)
        *checksum = (int64_t)sum;
    return RB_OK;
}

void rb_blas_get_info(rb_blas_info *info)
{
    Dl_info dl;
    void *fn = (void *)&RB_BLAS(cblas_dgemm);
    info->library = dladdr(fn, &dl) && dl.dli_fname ? dl.dli_fname : "unknown";
    info->config = RB_BLAS(openblas_get_config)();
    info->corename = RB_BLAS(openblas_get_corename)();
    info->threads = RB_BLAS(openblas_get_num_threads)();
}

rb_status rb_blas_set_threads(int n, rb_error *err)
{
    if (n < 1)
        return rb_fail(err, RB_ERR_ARG, "n", "must be >= 1", n);
    RB_BLAS(openblas_set_num_threads)(n);
    return RB_OK;
}
