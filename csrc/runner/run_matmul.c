/* run_matmul.c: the C runner's glue for round matmul (variants c: the naive
 * i-k-j loop, c-blas: the BLAS's dgemm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

RBC_ROUND("matmul", run_matmul, {"c", "GFLOP/s", NULL}, {"c-blas", "GFLOP/s", NULL},
          RBC_TOOL("blas-info"));

typedef rb_status (*matmul_fn)(int64_t, const double *, const double *, double *, rb_error *);

/* A product shorter than this is repeated and the mean taken, so that the
 * clock's resolution and one-off stalls do not dominate small n; the same
 * rule is in the Go and Python glue. */
#define MIN_TIMED_NS 200000000.0

static void run_product(matmul_fn fn, int64_t n, const double *a, const double *b, double *c)
{
    rb_error err;
    if (fn(n, a, b, c, &err) != RB_OK)
        rbc_core_failed("matmul", &err);
}

/* The BLAS is loaded on first use; a machine without it cannot run the
 * BLAS variants, which is not a failure of the core. */
static int blas_missing(void)
{
    rb_error err;
    if (rb_blas_load(&err) == RB_OK)
        return 0;
    fprintf(stderr, "matmul: cannot run here: %s\n", err.msg);
    return 1;
}

/* `rb-c matmul blas-info` prints what the BLAS is and does in this process
 * (threads as OPENBLAS_NUM_THREADS and threads=T leave it): the runner's
 * provenance for c-blas. */
static int blas_info(const rbc_args *a)
{
    int64_t threads = rbc_int_arg(a, "threads", 0, 0, 1024);
    if (blas_missing())
        return RBC_EXIT_CANNOT;
    if (threads > 0)
        rb_blas_set_threads(threads, NULL);
    rb_blas_info info;
    rb_error err;
    if (rb_blas_get_info(&info, &err) != RB_OK)
        rbc_core_failed("rb_blas_get_info", &err);
    printf("library=%s\nconfig=%s\ncorename=%s\nthreads=%d\n", info.library, info.config,
           info.corename, info.threads);
    return RBC_EXIT_OK;
}

static int run_matmul(const rbc_args *a)
{
    if (strcmp(a->impl, "blas-info") == 0)
        return blas_info(a);
    matmul_fn fn = strcmp(a->impl, "c-blas") == 0 ? rb_matmul_blas : rb_matmul_naive;
    int64_t n = rbc_int_arg(a, "n", 300, 0, 20000);
    int64_t threads = rbc_int_arg(a, "threads", 1, 1, 1024);
    rb_error err;
    if (fn == rb_matmul_blas && blas_missing())
        return RBC_EXIT_CANNOT;
    if (fn == rb_matmul_blas && rb_blas_set_threads(threads, &err) != RB_OK)
        rbc_core_failed("rb_blas_set_threads", &err);

    size_t count = (size_t)n * (size_t)n;
    double *m = malloc((3 * count + 1) * sizeof(double));
    if (!m) {
        fprintf(stderr, "matmul: cannot run here: no memory for 3 %lldx%lld matrices\n",
                (long long)n, (long long)n);
        return RBC_EXIT_CANNOT;
    }
    double *A = m, *B = m + count, *C = m + 2 * count;
    if (rb_matmul_fill(n, 1, A, B, &err) != RB_OK)
        rbc_core_failed("rb_matmul_fill", &err);
    memset(C, 0, count * sizeof(double)); /* fault C's pages in, untimed */

    /* Warm-up on a small product: code, and the BLAS's buffers. */
    int64_t w = n < 256 ? n : 256;
    run_product(fn, w, A, B, C);

    uint64_t t0 = rbc_now_ns();
    run_product(fn, n, A, B, C);
    double ns = (double)(rbc_now_ns() - t0);
    int64_t reps = 1;
    if (ns < MIN_TIMED_NS) {
        reps = (int64_t)(MIN_TIMED_NS / (ns > 1000.0 ? ns : 1000.0)) + 1;
        t0 = rbc_now_ns();
        for (int64_t r = 0; r < reps; r++)
            run_product(fn, n, A, B, C);
        ns = (double)(rbc_now_ns() - t0) / (double)reps;
    }

    int64_t checksum = 0;
    rb_status st = rb_matmul_verify(n, A, B, C, &checksum, &err);
    if (st == RB_ERR_ARG && err.arg && strcmp(err.arg, "c") == 0) {
        fprintf(stderr, "wrong result: C is not A*B (row %lld)\n", (long long)err.pos);
        free(m);
        return RBC_EXIT_WRONG;
    }
    if (st != RB_OK)
        rbc_core_failed("rb_matmul_verify", &err);
    free(m);
    double flops = 2.0 * (double)n * (double)n * (double)n;
    rbc_metric metric[] = {{ns > 0 ? flops / ns : 0.0, "GFLOP/s"}};
    rbc_result("checksum=%lld", (long long)checksum);
    rbc_emit(a, reps, ns, metric, 1);
    return RBC_EXIT_OK;
}
