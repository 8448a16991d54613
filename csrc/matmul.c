/* matmul.c: round matmul, C = A*B for dense row-major n x n float64 matrices:
 * the naive i-k-j loop, the BLAS's dgemm, the seeded inputs and the check.
 *
 * The BLAS is the one the build points at (see docs/rounds/matmul.md, "The BLAS"): by
 * default the OpenBLAS that the scipy-openblas64 package ships, the same
 * library numpy's wheels bundle. Its symbols carry a prefix and a suffix
 * (scipy_cblas_dgemm64_), which the build passes as BLAS_SYMBOL_PREFIX and
 * BLAS_SYMBOL_SUFFIX, the names its own pkg-config file uses, and its
 * integers are 64-bit (BLAS_ILP64); a plain system OpenBLAS builds with
 * none of them.
 *
 * Nothing links the BLAS: it is ~30 MB and OpenBLAS starts its thread pool
 * when it is loaded, which every process that contains the core (the
 * runners, `import roundbench`, every Go program) would pay for although
 * only this round uses it. The first call that needs it dlopen()s it and
 * resolves the five symbols below; see rb_blas_set_library for where the
 * file comes from. */
#define _GNU_SOURCE
#include "roundbench.h"

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
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
#define RB_STR_(x) #x
#define RB_STR(x) RB_STR_(x)
/* "scipy_cblas_dgemm64_": the name dlsym looks up. */
#define RB_BLAS_NAME(name) RB_STR(RB_CAT3(BLAS_SYMBOL_PREFIX, name, BLAS_SYMBOL_SUFFIX))

/* Without a path from the build, the library's own link name, which the
 * loader looks up along the binary's run path (cgo can pass an rpath but
 * not a string define) and its usual search path. */
#ifndef RB_BLAS_DEFAULT_LIB
#define RB_BLAS_DEFAULT_LIB "lib" RB_BLAS_NAME(openblas) ".so"
#endif

/* The CBLAS interface as the library exports it, declared here rather than
 * taken from its cblas.h so that building the core needs no BLAS at all.
 * The enums are ints in the C ABI; 101 and 111 are CblasRowMajor and
 * CblasNoTrans in every CBLAS. */
#ifdef BLAS_ILP64
typedef int64_t blas_int;
#else
typedef int blas_int;
#endif
enum { BLAS_ROW_MAJOR = 101, BLAS_NO_TRANS = 111 };
typedef void (*dgemm_fn)(int, int, int, blas_int, blas_int, blas_int, double, const double *,
                         blas_int, const double *, blas_int, double, double *, blas_int);
typedef char *(*string_fn)(void);
typedef int (*get_int_fn)(void);
typedef void (*set_int_fn)(int);

static struct {
    dgemm_fn dgemm;
    string_fn get_config;
    string_fn get_corename;
    get_int_fn get_num_threads;
    set_int_fn set_num_threads;
} blas;

/* `loaded` is set (release) once every pointer in `blas` is; a reader that
 * sees it (acquire) may use them without the lock. Everything else is under
 * `blas_lock`. A failed load is not remembered: the next call tries again,
 * so a binding can still name another file after a failure. */
static atomic_int blas_loaded;
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static char blas_path[4096]; /* rb_blas_set_library's copy; "" when none */

rb_status rb_blas_set_library(const char *path, rb_error *err)
{
    if (path && strlen(path) >= sizeof blas_path)
        return rb_failf(err, RB_ERR_ARG, "path", -1, "must be at most %zu bytes long, not %zu",
                        sizeof blas_path - 1, strlen(path));
    if (path && !*path)
        return rb_fail(err, RB_ERR_ARG, "path", "must not be empty (NULL clears it)", -1);
    rb_status st = RB_OK;
    pthread_mutex_lock(&blas_lock);
    if (atomic_load_explicit(&blas_loaded, memory_order_relaxed)) {
        /* The loaded library stays: naming the same file again is harmless. */
        if (!path || strcmp(path, blas_path) != 0)
            st = rb_failf(err, RB_ERR_ARG, "path", -1,
                          "cannot change: the BLAS is already loaded from %s", blas_path);
    } else if (path) {
        memcpy(blas_path, path, strlen(path) + 1);
    } else {
        blas_path[0] = '\0';
    }
    pthread_mutex_unlock(&blas_lock);
    return st;
}

/* Resolves one symbol into *slot; on failure the error names it with the
 * loader's own words. */
static rb_status resolve(void *handle, const char *name, void **slot, rb_error *err)
{
    dlerror();
    void *p = dlsym(handle, name);
    if (!p) {
        const char *e = dlerror();
        return rb_failf(err, RB_ERR_IO, NULL, -1, "the BLAS library lacks %s: %s", name,
                        e ? e : "no such symbol");
    }
    *slot = p;
    return RB_OK;
}

static rb_status load_locked(rb_error *err)
{
    const char *path = blas_path;
    if (!*path)
        path = getenv("ROUNDBENCH_BLAS_LIB");
    if (!path || !*path)
        path = RB_BLAS_DEFAULT_LIB;
    /* RTLD_LOCAL: the BLAS's symbols stay out of the global namespace, so
     * another BLAS in the process (numpy's) cannot be interposed by it or
     * on it. RTLD_NOW: a broken file fails here, not in the middle of a
     * product. */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        /* dlerror's text names the file first, then why. */
        const char *e = dlerror();
        return rb_failf(err, RB_ERR_IO, NULL, -1, "cannot load the BLAS library: %s", e ? e : path);
    }
    void *p[5];
    static const char *const names[5] = {
        RB_BLAS_NAME(cblas_dgemm), RB_BLAS_NAME(openblas_get_config),
        RB_BLAS_NAME(openblas_get_corename), RB_BLAS_NAME(openblas_get_num_threads),
        RB_BLAS_NAME(openblas_set_num_threads)};
    for (int i = 0; i < 5; i++) {
        rb_status st = resolve(handle, names[i], &p[i], err);
        if (st != RB_OK) {
            dlclose(handle);
            return st;
        }
    }
    /* Object pointers to function pointers: POSIX guarantees dlsym's
     * results convert. */
    blas.dgemm = (dgemm_fn)p[0];
    blas.get_config = (string_fn)p[1];
    blas.get_corename = (string_fn)p[2];
    blas.get_num_threads = (get_int_fn)p[3];
    blas.set_num_threads = (set_int_fn)p[4];
    if (path != blas_path)
        snprintf(blas_path, sizeof blas_path, "%s", path);
    atomic_store_explicit(&blas_loaded, 1, memory_order_release);
    return RB_OK;
}

rb_status rb_blas_load(rb_error *err)
{
    if (atomic_load_explicit(&blas_loaded, memory_order_acquire))
        return RB_OK;
    pthread_mutex_lock(&blas_lock);
    rb_status st =
        atomic_load_explicit(&blas_loaded, memory_order_relaxed) ? RB_OK : load_locked(err);
    pthread_mutex_unlock(&blas_lock);
    return st;
}

static int overlaps(const double *p, const double *q, size_t count)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q, len = count * sizeof(double);
    return a < b + len && b < a + len;
}

rb_status rb_matmul_check(int64_t n, rb_error *err)
{
    if (n < 0)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 0, not %lld", (long long)n);
    if (n > RB_MATMUL_MAX_N)
        return rb_failf(err, RB_ERR_OVERFLOW, "n", n, "must be <= %lld, not %lld",
                        (long long)RB_MATMUL_MAX_N, (long long)n);
    return RB_OK;
}

/* The argument checks every matmul entry point shares. */
static rb_status check_args(int64_t n, const double *a, const double *b, const double *c,
                            int c_is_output, rb_error *err)
{
    rb_status st = rb_matmul_check(n, err);
    if (st != RB_OK || n == 0)
        return st;
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
    if ((st = rb_blas_load(err)) != RB_OK)
        return st;
    const blas_int m = (blas_int)n;
    blas.dgemm(BLAS_ROW_MAJOR, BLAS_NO_TRANS, BLAS_NO_TRANS, m, m, m, 1.0, a, m, b, m, 0.0, c, m);
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

/* nearbyint(x) in the default rounding mode (to nearest, ties to even),
 * for the checksum, without libm: nearbyint was the core's only libm
 * function, and linking libm for it alone adds 0.3 MiB to the peak RSS of
 * every Go child, which links the whole core. Below 2^52, |x| + 2^52 has no
 * bits left for a fraction, so the addition rounds |x| to an integer and
 * subtracting 2^52 again is exact; from 2^52 up every double is an integer,
 * and a NaN stays a NaN. The sum is volatile so that it is rounded to a
 * double even where the FPU computes in extended precision (x87). */
static double round_even(double x)
{
    const double two52 = 4503599627370496.0;
    double a = fabs(x);
    if (a < two52) {
        volatile double sum = a + two52;
        a = sum - two52;
    }
    return x < 0 ? -a : a;
}

/* y = M*v and ya = |M|*va for a row-major m x m matrix: one step of the
 * check's product and of its rounding bound. */
static void matvec_abs(size_t m, const double *mat, const double *v, const double *va, double *y,
                       double *ya)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0, sa = 0;
        for (size_t j = 0; j < m; j++) {
            s += mat[i * m + j] * v[j];
            sa += fabs(mat[i * m + j]) * va[j];
        }
        y[i] = s;
        ya[i] = sa;
    }
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
    matvec_abs(m, b, x, x, bx, bxa);
    matvec_abs(m, a, bx, bxa, abx, abxa);
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
        double r = round_even(c[i]);
        int64_t v = fabs(r) < 9.0e18 ? (int64_t)r : 0;
        sum += (uint64_t)v * ((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    }
done:
    if (checksum)
        *checksum = (int64_t)sum;
    return RB_OK;
}

rb_status rb_blas_get_info(rb_blas_info *info, rb_error *err)
{
    if (!info)
        return rb_fail(err, RB_ERR_ARG, "info", "must not be NULL", -1);
    rb_status st = rb_blas_load(err);
    if (st != RB_OK)
        return st;
    /* The file the loader really mapped, which for a bare name or a link
     * says more than the path that was asked for. */
    Dl_info dl;
    info->library = dladdr((void *)blas.dgemm, &dl) && dl.dli_fname ? dl.dli_fname : "unknown";
    info->config = blas.get_config();
    info->corename = blas.get_corename();
    info->threads = blas.get_num_threads();
    return RB_OK;
}

rb_status rb_blas_set_threads(int64_t n, rb_error *err)
{
    if (n < 1 || n > RB_BLAS_MAX_THREADS)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be in [1, %d], not %lld",
                        RB_BLAS_MAX_THREADS, (long long)n);
    rb_status st = rb_blas_load(err);
    if (st != RB_OK)
        return st;
    blas.set_num_threads((int)n);
    return RB_OK;
}
