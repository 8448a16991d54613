/* run_sleep.c: the C runner's glue for round sleep (variants c and
 * c-threads). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SLEEP_UNITS "overhead-ns setup-ns B/task live-tasks base-B"
RBC_ROUND("sleep", run_sleep, {"c", SLEEP_UNITS, NULL}, {"c-threads", SLEEP_UNITS, NULL});

/* This process's peak resident set (VmHWM), in bytes; -1 if unknown: the
 * same figure wait4 reports at exit, read mid-run for the N=1 baseline. */
static int64_t peak_rss(void)
{
    return rbc_proc_bytes("/proc/self/status", "VmHWM");
}

/* The resident part of one thread's stack and descriptor, for the limit
 * estimate: a few pages of the stack are ever touched by a sleeping thread. */
#define THREAD_TOUCHED_BYTES 8192

typedef rb_status (*sleep_fn)(int64_t n, int64_t wait_ns, rb_sleep_stats *s, rb_error *err);

static rb_status on_loop(int64_t n, int64_t wait_ns, rb_sleep_stats *s, rb_error *err)
{
    return rb_sleep(n, wait_ns, s, err);
}

static rb_status on_threads(int64_t n, int64_t wait_ns, rb_sleep_stats *s, rb_error *err)
{
    return rb_sleep_threads(n, wait_ns, 0, s, err);
}

static int run_sleep(const rbc_args *a)
{
    int threads = strcmp(a->impl, "c-threads") == 0;
    int64_t n = rbc_int_arg(a, "n", 100000, 1, RB_SLEEP_MAX_N);
    int64_t wait_ms = rbc_int_arg(a, "wait_ms", 1000, 0, 3600000);
    int64_t fit = rbc_int_arg(a, "fit", 0, 0, 1);
    sleep_fn run = threads ? on_threads : on_loop;
    rb_error err;
    rb_sleep_stats s;

    /* The variant's own N=1 baseline, in this process: one whole run with
     * one task (a 1 ms wait), after which VmHWM holds everything but the
     * per-task memory. It is also the warm-up. */
    if (run(1, 1000000, &s, &err) != RB_OK)
        rbc_core_failed(threads ? "rb_sleep_threads" : "rb_sleep", &err);
    int64_t base = peak_rss();

    int64_t want = n;
    if (threads) {
        rb_thread_limit lim;
        if (rb_thread_limit_now(THREAD_TOUCHED_BYTES, 0, &lim, &err) != RB_OK)
            rbc_core_failed("rb_thread_limit_now", &err);
        if (n > lim.max_threads) {
            if (!fit) {
                fprintf(stderr,
                        "cannot run here: n=%lld is not possible here: %s = %lld allows about "
                        "%lld more threads (fit=1 runs at the largest n that fits)\n",
                        (long long)n, lim.name, (long long)lim.value, (long long)lim.max_threads);
                return RBC_EXIT_CANNOT;
            }
            /* Leave 5% for whatever else starts meanwhile. */
            n = lim.max_threads - lim.max_threads / 20;
            fprintf(stderr, "sleep: %s = %lld: running at n=%lld instead of %lld\n", lim.name,
                    (long long)lim.value, (long long)n, (long long)want);
            if (n < 1) {
                fprintf(stderr, "cannot run here: %s leaves no room for a thread\n", lim.name);
                return RBC_EXIT_CANNOT;
            }
        }
    }
    rb_status st = run(n, wait_ms * 1000000, &s, &err);
    if (st == RB_ERR_IO && threads) {
        fprintf(stderr, "cannot run here: n=%lld is not possible here: %s (%s)\n", (long long)n,
                err.msg, strerror(err.sys_errno));
        return RBC_EXIT_CANNOT;
    }
    if (st != RB_OK)
        rbc_core_failed(threads ? "rb_sleep_threads" : "rb_sleep", &err);
    int64_t peak = peak_rss();
    if (s.completed != n)
        rbc_wrong("completed", s.completed, n);
    if (s.peak_live != n)
        rbc_wrong("peak live tasks", s.peak_live, n);
    if (s.early != 0)
        rbc_wrong("tasks that woke early", s.early, 0);
    /* A run at a reduced n prints no result: it is not comparable with the
     * other variants of its cell. */
    if (n == want)
        rbc_result("tasks=%lld peak=%lld completed=%lld", (long long)n, (long long)s.peak_live,
                   (long long)s.completed);
    rbc_metric m[] = {
        {(double)s.overhead_ns, "overhead-ns"},
        {(double)s.setup_ns, "setup-ns"},
        {(double)(peak - base) / (double)n, "B/task"},
        {(double)s.peak_live, "live-tasks"},
        {(double)base, "base-B"},
    };
    rbc_emit(a, 1, (double)(s.setup_ns + s.run_ns), m, 5);
    return RBC_EXIT_OK;
}
