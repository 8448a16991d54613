/* test_matmul.c: round matmul against the shared vectors (both products,
 * the seeded inputs, the check and its checksum), and its bad input. */
#include <math.h>
#include <pthread.h>

#include "roundbench.h"
#include "vectors.h"

/* Parses "v,v,..." into at most max doubles; returns the count. */
static int parse_list(const char *s, double *out, int max)
{
    int k = 0;
    while (*s && k < max) {
        char *end;
        out[k++] = strtod(s, &end);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return k;
}

static void seeded_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), seed = rbt_int(v, "seed"), want = rbt_int(v, "checksum");
    size_t count = (size_t)n * (size_t)n;
    double *m = malloc((4 * count + 1) * sizeof(double));
    double *a = m, *b = m + count, *c1 = m + 2 * count, *c2 = m + 3 * count;
    rb_error err;
    CHECK(rb_matmul_fill(n, (uint64_t)seed, a, b, &err) == RB_OK, "fill(%lld) failed", n);
    CHECK(rb_matmul_naive(n, a, b, c1, &err) == RB_OK, "naive(%lld) failed", n);
    CHECK(rb_matmul_blas(n, a, b, c2, &err) == RB_OK, "blas(%lld) failed", n);
    int64_t s1 = 0, s2 = 0;
    CHECK(rb_matmul_verify(n, a, b, c1, &s1, &err) == RB_OK, "verify(naive, %lld) failed", n);
    CHECK(rb_matmul_verify(n, a, b, c2, &s2, &err) == RB_OK, "verify(blas, %lld) failed", n);
    CHECK(s1 == want, "naive n=%lld checksum = %lld; want %lld", n, (long long)s1, want);
    CHECK(s2 == want, "blas n=%lld checksum = %lld; want %lld", n, (long long)s2, want);
    /* Integer inputs: the two products are bit-identical. */
    CHECK(count == 0 || memcmp(c1, c2, count * sizeof(double)) == 0, "n=%lld: naive != blas", n);
    /* A single wrong entry is caught, and names c and its row. */
    if (n > 0) {
        size_t at = count / 2;
        c2[at] += 1.0;
        CHECK(rb_matmul_verify(n, a, b, c2, NULL, &err) == RB_ERR_ARG &&
                  strcmp(err.arg, "c") == 0 && err.pos == (int64_t)(at / (size_t)n),
              "n=%lld: a wrong entry passed the check (pos %lld)", n, (long long)err.pos);
        c2[at] = NAN;
        CHECK(rb_matmul_verify(n, a, b, c2, NULL, &err) == RB_ERR_ARG, "n=%lld: NaN passed", n);
    }
    free(m);
}

static void explicit_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    double a[64], b[64], want[64], c[64];
    int k = parse_list(rbt_get(v, "a"), a, 64);
    CHECK(parse_list(rbt_get(v, "b"), b, 64) == k && parse_list(rbt_get(v, "c"), want, 64) == k,
          "bad explicit vector");
    int64_t n = (int64_t)sqrt((double)k);
    CHECK(n * n == k, "explicit vector of %d values is not square", k);
    long long checksum = rbt_int(v, "checksum");
    for (int pass = 0; pass < 2; pass++) {
        memset(c, 0xff, sizeof c);
        rb_status st = pass ? rb_matmul_blas(n, a, b, c, NULL) : rb_matmul_naive(n, a, b, c, NULL);
        CHECK(st == RB_OK, "explicit n=%lld pass %d failed", (long long)n, pass);
        for (int i = 0; i < k; i++)
            CHECK(c[i] == want[i], "explicit n=%lld pass %d: c[%d] = %g; want %g", (long long)n,
                  pass, i, c[i], want[i]);
        int64_t got = 0;
        CHECK(rb_matmul_verify(n, a, b, c, &got, NULL) == RB_OK, "verify explicit");
        CHECK(got == checksum, "explicit n=%lld pass %d: checksum = %lld; want %lld", (long long)n,
              pass, (long long)got, checksum);
    }
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n");
    rb_status want = rbt_status(v);
    double x[4] = {0}, y[4] = {0}, z[4] = {0};
    rb_error err;
    CHECK(rb_matmul_naive(n, x, y, z, &err) == want && strcmp(err.arg, "n") == 0, "naive n=%lld",
          n);
    CHECK(rb_matmul_blas(n, x, y, z, &err) == want && strcmp(err.arg, "n") == 0, "blas n=%lld", n);
    CHECK(rb_matmul_fill(n, 1, x, y, &err) == want, "fill n=%lld", n);
    CHECK(rb_matmul_verify(n, x, y, z, NULL, &err) == want, "verify n=%lld", n);
    CHECK(rb_matmul_blas(n, x, y, z, NULL) == want, "err=NULL n=%lld", n);
    CHECK(rb_matmul_check(n, &err) == want && strcmp(err.arg, "n") == 0, "check n=%lld", n);
}

/* The BLAS is loaded on first use, from the file named by
 * rb_blas_set_library, else ROUNDBENCH_BLAS_LIB, else the build's default;
 * until a load succeeds a bad file is an RB_ERR_IO with the loader's words
 * and another can still be named. Runs before anything else loads it. */
/* m[8..11] = m[0..3] x m[4..7] by the BLAS; m[8] stays NaN on failure. */
static void *first_product(void *arg)
{
    double *m = arg;
    m[8] = NAN;
    if (rb_matmul_blas(2, m, m + 4, m + 8, NULL) != RB_OK)
        m[8] = NAN;
    return NULL;
}

static void lazy_loading(void)
{
    rb_error err;
    rb_blas_info info;
    double m[12] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(rb_blas_set_library("", &err) == RB_ERR_ARG && strcmp(err.arg, "path") == 0,
          "empty path");
    /* The explicit call wins over the environment... */
    CHECK(setenv("ROUNDBENCH_BLAS_LIB", RB_BLAS_DEFAULT_LIB, 1) == 0, "setenv");
    CHECK(rb_blas_set_library("/nonexistent/libnoblas.so", &err) == RB_OK, "set_library");
    /* The record carries the loader's own words: which file, and why. */
    CHECK(rb_matmul_blas(2, m, m + 4, m + 8, &err) == RB_ERR_IO && strstr(err.msg, "cannot load") &&
              strstr(err.msg, "libnoblas") && err.sys_errno == 0,
          "a missing file must be RB_ERR_IO naming it (%d: %s)", err.code, err.msg);
    /* ...and the environment over the default. */
    CHECK(rb_blas_set_library(NULL, &err) == RB_OK, "set_library(NULL)");
    CHECK(setenv("ROUNDBENCH_BLAS_LIB", "/nonexistent/libenvblas.so", 1) == 0, "setenv");
    CHECK(rb_blas_get_info(&info, &err) == RB_ERR_IO && strstr(err.msg, "libenvblas"),
          "get_info with a missing file: %s", err.msg);
    /* A real library without the BLAS's symbols. */
    CHECK(setenv("ROUNDBENCH_BLAS_LIB", "libm.so.6", 1) == 0, "setenv");
    CHECK(rb_blas_set_threads(1, &err) == RB_ERR_IO && strstr(err.msg, "lacks") &&
              strstr(err.msg, "dgemm"),
          "libm must lack the BLAS's dgemm (%d: %s)", err.code, err.msg);
    CHECK(rb_blas_get_info(NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "info") == 0, "info NULL");
    /* The default loads, once, whichever of several threads gets there
     * first; then the file cannot change. */
    CHECK(unsetenv("ROUNDBENCH_BLAS_LIB") == 0, "unsetenv");
    pthread_t th[4];
    double ms[4][12];
    for (int i = 0; i < 4; i++) {
        memcpy(ms[i], m, sizeof m);
        CHECK(pthread_create(&th[i], NULL, first_product, ms[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < 4; i++) {
        CHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
        CHECK(ms[i][8] == 19 && ms[i][9] == 22 && ms[i][10] == 43 && ms[i][11] == 50,
              "the default BLAS, thread %d: [%g %g %g %g]", i, ms[i][8], ms[i][9], ms[i][10],
              ms[i][11]);
    }
    CHECK(rb_blas_load(&err) == RB_OK, "load after load");
    CHECK(rb_blas_set_library("/nonexistent/libnoblas.so", &err) == RB_ERR_ARG, "set after load");
    CHECK(rb_blas_set_library(RB_BLAS_DEFAULT_LIB, &err) == RB_OK, "the same file again");
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    lazy_loading();
    CHECK(rbt_each(path, "matmul", seeded_vector, NULL) >= 7, "too few matmul vectors");
    CHECK(rbt_each(path, "matmul-explicit", explicit_vector, NULL) >= 5, "too few explicit");
    CHECK(rbt_each(path, "matmul-error", error_vector, NULL) >= 2, "too few matmul-error");

    rb_error err;
    double m[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    /* Aliasing: c over a, c over b, c partly over a; a == b is fine. */
    CHECK(rb_matmul_naive(2, m, m + 4, m, &err) == RB_ERR_ARG && strcmp(err.arg, "c") == 0,
          "c == a must be refused");
    CHECK(rb_matmul_blas(2, m, m + 4, m + 4, &err) == RB_ERR_ARG && strcmp(err.arg, "c") == 0,
          "c == b must be refused");
    CHECK(rb_matmul_blas(2, m, m + 8, m + 2, &err) == RB_ERR_ARG, "c half over a must be refused");
    CHECK(rb_matmul_naive(2, m, m, m + 4, &err) == RB_OK && m[4] == 7 && m[7] == 22,
          "a == b must work (got %g %g)", m[4], m[7]);
    /* NULL pointers, named. */
    CHECK(rb_matmul_blas(2, NULL, m, m + 4, &err) == RB_ERR_ARG && strcmp(err.arg, "a") == 0,
          "a NULL");
    CHECK(rb_matmul_blas(2, m, NULL, m + 4, &err) == RB_ERR_ARG && strcmp(err.arg, "b") == 0,
          "b NULL");
    CHECK(rb_matmul_naive(2, m, m, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "c") == 0,
          "c NULL");
    CHECK(rb_matmul_blas(0, NULL, NULL, NULL, &err) == RB_OK, "n = 0 with NULLs is fine");
    /* The BLAS is there and says what it is. */
    rb_blas_info info;
    CHECK(rb_blas_get_info(&info, &err) == RB_OK, "get_info");
    CHECK(info.config && strstr(info.config, "OpenBLAS"), "blas config: %s", info.config);
    CHECK(info.corename && *info.corename, "no corename");
    CHECK(rb_blas_set_threads(1, &err) == RB_OK, "set_threads(1)");
    CHECK(rb_blas_get_info(&info, &err) == RB_OK, "get_info");
    CHECK(info.threads == 1, "threads = %d after set_threads(1)", info.threads);
    CHECK(rb_blas_set_threads(0, &err) == RB_ERR_ARG && strcmp(err.arg, "n") == 0 &&
              strcmp(err.msg, "must be in [1, 1048576], not 0") == 0,
          "set_threads(0): %s", err.msg);
    CHECK(rb_blas_set_threads(RB_BLAS_MAX_THREADS + INT64_C(1) + UINT32_MAX, &err) == RB_ERR_ARG,
          "a thread count past int must fail, not wrap");
    return rbt_done("test_matmul");
}
