/* run_cores.c: the C runner's glue for round cores (variant c-threads). */
#include <stdio.h>
#include <string.h>

#include "harness.h"

RBC_ROUND("cores", run_cores, {"c-threads", "speedup efficiency t1-ns", NULL});

/* A child at T workers times the same work on 1 worker first and then on T,
 * and reports the speed-up of that pair. Measuring both in one process,
 * rather than dividing by the T=1 cell in the report, keeps drift on a
 * shared machine out of the ratio and gives every run its own speed-up (the
 * report shows its median and spread). ns/op is the T-worker time; t1-ns the
 * 1-worker time. The Python and Go runners do the same. */
static int run_cores(const rbc_args *a)
{
    int64_t n = rbc_int_arg(a, "n", 100000000, 0, RB_LOOP_MAX_N);
    int64_t t = rbc_int_arg(a, "workers", 1, 1, RB_CORES_MAX_WORKERS);
    rb_error err;
    int64_t sum = 0, want = rb_loop_expected(n);

    if (rb_loop_parallel(n < (1 << 20) ? n : (1 << 20), t, &sum, &err) != RB_OK) /* warm-up */
        rbc_core_failed("rb_loop_parallel", &err);
    uint64_t took[2] = {0, 0};
    int64_t counts[2] = {1, t};
    int passes = t == 1 ? 1 : 2;
    for (int k = 0; k < passes; k++) {
        uint64_t t0 = rbc_now_ns();
        rb_status st = rb_loop_parallel(n, counts[k], &sum, &err);
        uint64_t t1 = rbc_now_ns();
        if (st != RB_OK)
            rbc_core_failed("rb_loop_parallel", &err);
        rbc_check("sum", sum, want);
        took[k] = t1 - t0;
    }
    double one = (double)took[0], many = (double)took[passes - 1];
    double speedup = many > 0 ? one / many : 1.0;
    rbc_metric m[] = {
        {speedup, "speedup"},
        {speedup / (double)t, "efficiency"},
        {one, "t1-ns"},
    };
    rbc_result("sum=%lld", (long long)sum);
    rbc_emit(a, 1, many, m, 3);
    return RBC_EXIT_OK;
}
