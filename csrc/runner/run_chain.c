/* run_chain.c: the C runner's glue for round chain (variants c and
 * c-ucontext: the core's coroutines with its own switch or swapcontext).
 *
 * One run: a calibration chain (also the warm-up) measures the bytes per
 * task; the memory guard refuses a configuration whose estimate exceeds
 * MemAvailable; then setup, pass and teardown are timed apart. B/task is
 * (peak RSS after the pass - RSS before the calibration) / (n * parallel):
 * the baseline is the runner's resident set once started, before any chain
 * exists; the calibration chain is never larger than the measured one, so
 * the peak is the measured chain's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"

#define CHAIN_UNITS "setup-ns pass-ns teardown-ns ns/hop B/task sys-ns/hop cpu-ns/hop"
static const rb_chain_switch on_asm = RB_CHAIN_ASM, on_ucontext = RB_CHAIN_UCONTEXT;
RBC_ROUND("chain", run_chain, {"c", CHAIN_UNITS, &on_asm},
          {"c-ucontext", CHAIN_UNITS, &on_ucontext});

/* The calibration chain's length: enough tasks for the RSS growth to be
 * many pages, few enough to cost a millisecond. */
#define CALIBRATION_N 2000

static uint64_t cpu_ns(const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static int run_chain(const rbc_args *a)
{
    rb_chain_switch how = *(const rb_chain_switch *)a->variant->data;
    int64_t n = rbc_int_arg(a, "n", 100000, 1, RB_CHAIN_MAX_N);
    int64_t k = rbc_int_arg(a, "hop-work", 0, 0, INT64_MAX);
    int64_t p = rbc_int_arg(a, "parallel", 1, 1, RB_CHAIN_MAX_PARALLEL);
    rb_error err;
    int64_t base = rbc_proc_bytes("/proc/self/status", "VmRSS");

    /* Calibration and warm-up: one short chain (without hop work: memory
     * does not depend on it). */
    int64_t m = n < CALIBRATION_N ? n : CALIBRATION_N, got = 0;
    rb_chain *c = NULL;
    if (rb_chain_new(m, 0, 1, how, &c, &err) != RB_OK)
        rbc_core_failed("rb_chain_new", &err);
    int64_t grown = rbc_proc_bytes("/proc/self/status", "VmRSS") - base;
    if (rb_chain_pass(c, &got, &err) != RB_OK)
        rbc_core_failed("rb_chain_pass", &err);
    rb_chain_free(c);
    rbc_check("calibration chain", got, m);
    double per_task = grown > 0 ? (double)grown / (double)m : 0.0;
    double need = per_task * (double)n * (double)p * 1.1; /* 10% margin */
    int64_t avail = rbc_proc_bytes("/proc/meminfo", "MemAvailable");
    if (avail > 0 && need > (double)avail) {
        fprintf(stderr,
                "not possible here: memory: n=%lld x parallel=%lld needs about %.0f MiB "
                "(%.0f B/task measured on a calibration chain of %lld tasks, +10%%) but "
                "MemAvailable is %.0f MiB\n",
                (long long)n, (long long)p, need / 1048576.0, per_task, (long long)m,
                (double)avail / 1048576.0);
        return RBC_EXIT_CANNOT;
    }

    int64_t *out = calloc((size_t)p, sizeof *out);
    if (!out) {
        fprintf(stderr, "chain: cannot allocate %lld results\n", (long long)p);
        return RBC_EXIT_FAILED;
    }
    c = NULL;
    struct rusage ru0, ru1;
    uint64_t t0 = rbc_now_ns();
    rb_status st = rb_chain_new(n, k, p, how, &c, &err);
    uint64_t t1 = rbc_now_ns();
    if (st != RB_OK)
        rbc_core_failed("rb_chain_new", &err);
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t t2 = rbc_now_ns();
    st = rb_chain_pass(c, out, &err);
    uint64_t t3 = rbc_now_ns();
    getrusage(RUSAGE_SELF, &ru1);
    if (st != RB_OK)
        rbc_core_failed("rb_chain_pass", &err);
    int64_t peak = rbc_proc_bytes("/proc/self/status", "VmHWM");
    uint64_t t4 = rbc_now_ns();
    rb_chain_free(c);
    uint64_t t5 = rbc_now_ns();

    int64_t want = 0;
    if (rb_chain_expected(n, k, &want, &err) != RB_OK)
        rbc_core_failed("rb_chain_expected", &err);
    for (int64_t i = 0; i < p; i++)
        rbc_check("value", out[i], want);
    free(out);
    double hops = (double)n * (double)p;
    double setup = (double)(t1 - t0), pass = (double)(t3 - t2), teardown = (double)(t5 - t4);
    double sys = (double)(cpu_ns(&ru1.ru_stime) - cpu_ns(&ru0.ru_stime));
    double cpu = sys + (double)(cpu_ns(&ru1.ru_utime) - cpu_ns(&ru0.ru_utime));
    double bpt = peak > base ? (double)(peak - base) / hops : 0.0;
    rbc_metric mt[] = {
        {setup, "setup-ns"},        {pass, "pass-ns"}, {teardown, "teardown-ns"},
        {pass / hops, "ns/hop"},    {bpt, "B/task"},   {sys / hops, "sys-ns/hop"},
        {cpu / hops, "cpu-ns/hop"},
    };
    rbc_result("value=%lld chains=%lld", (long long)want, (long long)p);
    rbc_emit(a, 1, setup + pass + teardown, mt, 7);
    return RBC_EXIT_OK;
}
