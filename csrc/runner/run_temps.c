/* run_temps.c: the C runner's glue for round temps (variant c: one fused
 * pass over arange(n)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"

/* This process's system CPU time so far, in ns: around the timed work it
 * gives the kernel's share of it (page faults, mapping), which the report
 * puts beside the wall time. */
static double sys_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
}

RBC_ROUND("temps", run_temps, {"c", "ns/elem sys-ns/elem traffic-B", NULL});

static int run_temps(const rbc_args *a)
{
    int64_t n = rbc_int_arg(a, "n", 20000000, 0, RB_LOOP_MAX_N);
    int64_t *arr = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!arr) {
        fprintf(stderr, "temps: cannot run here: no memory for %lld int64\n", (long long)n);
        return RBC_EXIT_CANNOT;
    }
    for (int64_t i = 0; i < n; i++) /* arange(n), untimed; faults the pages in */
        arr[i] = i;
    rb_error err;
    int64_t sum = 0;
    if (rb_temps(arr, n < (1 << 20) ? n : (1 << 20), &sum, &err) != RB_OK) /* warm-up */
        rbc_core_failed("rb_temps", &err);

    double s0 = sys_ns();
    uint64_t t0 = rbc_now_ns();
    rb_status st = rb_temps(arr, n, &sum, &err);
    uint64_t t1 = rbc_now_ns();
    double sys = sys_ns() - s0;
    free(arr);
    if (st != RB_OK)
        rbc_core_failed("rb_temps", &err);
    /* a = arange(n): the loop round's sum, by its closed form. */
    rbc_check("sum", sum, rb_loop_expected(n));
    double ns = (double)(t1 - t0);
    rbc_metric m[] = {{n > 0 ? ns / (double)n : 0.0, "ns/elem"},
                      {n > 0 ? sys / (double)n : 0.0, "sys-ns/elem"},
                      {8.0 * (double)n, "traffic-B"}};
    rbc_result("sum=%lld", (long long)sum);
    rbc_emit(a, 1, ns, m, 3);
    return RBC_EXIT_OK;
}
