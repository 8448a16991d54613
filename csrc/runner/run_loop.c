/* run_loop.c: the C runner's glue for round loop (variant c). */
#include <stdio.h>
#include <string.h>

#include "harness.h"

RBC_ROUND("loop", run_loop, {"c", "ns/iter", NULL});

/* One warm-up pass: at most 2^20 iterations. */
static void warm_loop(void *ctx)
{
    int64_t n = *(const int64_t *)ctx, sum;
    rb_loop(n < (1 << 20) ? n : (1 << 20), &sum, NULL);
    __asm__ volatile("" : : "r"(sum));
}

static int run_loop(const rbc_args *a)
{
    int64_t n = rbc_int_arg(a, "n", 20000000, 0, RB_LOOP_MAX_N);
    rb_error err;
    int64_t sum = 0;

    rbc_warm_up(warm_loop, &n);

    uint64_t t0 = rbc_now_ns();
    rb_status st = rb_loop(n, &sum, &err);
    uint64_t t1 = rbc_now_ns();
    if (st != RB_OK)
        rbc_core_failed("rb_loop", &err);
    rbc_check("sum", sum, rb_loop_expected(n));
    double ns = (double)(t1 - t0);
    rbc_metric m[] = {{n > 0 ? ns / (double)n : 0.0, "ns/iter"}};
    rbc_result("sum=%lld", (long long)sum);
    rbc_emit(a, 1, ns, m, 1);
    return RBC_EXIT_OK;
}
