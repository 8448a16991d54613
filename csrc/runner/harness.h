/* harness.h: the C side of the measurement protocol (shared/DESIGN.md), used
 * by every round's runner glue. One process runs one (round, variant, size):
 * it builds inputs, warms up, times the work with CLOCK_MONOTONIC, verifies
 * the result and prints one Go-benchmark-format line. The parent process adds
 * the child's peak RSS and CPU time, which only wait4 can see. */
#ifndef RBC_HARNESS_H
#define RBC_HARNESS_H

#include <stdint.h>

#include "roundbench.h"

/* Exit statuses shared by the C, Go and Python child runners. */
enum {
    RBC_EXIT_OK = 0,
    RBC_EXIT_USAGE = 2,  /* bad arguments: a message names which */
    RBC_EXIT_WRONG = 3,  /* the work ran but its result is wrong */
    RBC_EXIT_CANNOT = 4, /* this variant cannot run here; stderr says why */
    RBC_EXIT_FAILED = 5  /* the core returned an error */
};

#define RBC_MAX_PARAMS 8

/* key=value parameters from the command line, in the order given; the order
 * is kept in the benchmark name. */
typedef struct rbc_args {
    const char *round;
    const char *impl;
    int count;
    const char *keys[RBC_MAX_PARAMS];
    const char *values[RBC_MAX_PARAMS];
} rbc_args;

/* One metric of a result line: value and unit, e.g. {1.16, "ns/iter"}. */
typedef struct rbc_metric {
    double value;
    const char *unit;
} rbc_metric;

/* Monotonic time in nanoseconds. */
uint64_t rbc_now_ns(void);

/* Reads integer parameter `key` (default `def` when absent) and checks that
 * it lies in [min, max]; on a bad value prints a message naming the key and
 * exits with RBC_EXIT_USAGE: a runner's argument errors end the child, which
 * the parent then records as a failed run. */
int64_t rbc_int_arg(const rbc_args *a, const char *key, int64_t def, int64_t min, int64_t max);

/* Prints the result line `Benchmark<Round>/impl=<impl>/<k>=<v>... iters
 * ns_per_op ns/op [metrics...]` and flushes it. */
void rbc_emit(const rbc_args *a, int64_t iters, double ns_per_op, const rbc_metric *metrics,
              int nmetrics);

/* Prints `result: <text>`: the value the parent compares across variants. */
void rbc_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports a wrong result (got/want) and exits with RBC_EXIT_WRONG. */
_Noreturn void rbc_wrong(const char *what, long long got, long long want);

/* Reports a core error and exits with RBC_EXIT_FAILED. */
_Noreturn void rbc_core_failed(const char *call, const rb_error *err);

/* A "Key:   123 kB" line of a /proc file (e.g. "/proc/self/status",
 * "VmHWM"), in bytes; -1 when the file or the key is absent. The rounds that
 * measure memory from inside (sleep, chain) read their baselines with it. */
int64_t rbc_proc_bytes(const char *path, const char *key);

/* Warm-up: calls fn(ctx) until at least 50 ms have passed (at most 1000
 * calls), so that the timed run starts with the code, data and the core's
 * clock speed where a steady state puts them, whatever ran before. */
#define RBC_WARMUP_NS 50000000u
void rbc_warm_up(void (*fn)(void *ctx), void *ctx);

/* Times `op(ctx, count)` and `empty(ctx, count)` (each returns elapsed ns),
 * growing `count` until one timing of `op` lasts at least 100 ms, then takes
 * the best of three of each and returns (op - empty) / count, the cost of one
 * operation with the loop's own cost removed. *count_out gets the count. */
typedef uint64_t (*rbc_timed)(void *ctx, int64_t count);
double rbc_calibrated(rbc_timed op, rbc_timed empty, void *ctx, int64_t *count_out);

/* A round's entry point in the C runner. */
typedef int (*rbc_round_fn)(const rbc_args *a);

typedef struct rbc_round {
    const char *name;
    rbc_round_fn run;
} rbc_round;

#endif
