/* harness.h: the C side of the measurement protocol (docs/ARCHITECTURE.md), used
 * by every round's runner glue. One process runs one (round, variant, size):
 * it builds inputs, warms up, times the work with CLOCK_MONOTONIC, verifies
 * the result and prints one Go-benchmark-format line. The parent process adds
 * the child's peak RSS and CPU time, which only wait4 can see. */
#ifndef RBC_HARNESS_H
#define RBC_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "roundbench.h"

/* Exit statuses shared by the C, Go and Python child runners
 * (testdata/vectors/protocol.txt, protocol-exit, holds all three to them). */
enum {
    RBC_EXIT_OK = 0,
    RBC_EXIT_USAGE = 2,  /* bad arguments: a message names which */
    RBC_EXIT_WRONG = 3,  /* the work ran but its result is wrong */
    RBC_EXIT_CANNOT = 4, /* this variant cannot run here; stderr says why */
    RBC_EXIT_FAILED = 5  /* the core returned an error */
};

/* The environment variable that asks a child for several values (main.c),
 * and the most it may ask; the Go and Python harnesses read the same. */
#define RBC_VALUES_ENV "ROUNDBENCH_VALUES"
#define RBC_MAX_VALUES 100

/* The environment variables in which the parent names a round's input
 * files, the same for every language's child (protocol.txt, protocol-env). */
#define RBC_ENV_JSONL_FILE "ROUNDBENCH_JSONL_FILE"
#define RBC_ENV_JSONL_WARMUP_FILE "ROUNDBENCH_JSONL_WARMUP_FILE"
#define RBC_ENV_ASPECTS_EPHEMERIS "ROUNDBENCH_ASPECTS_EPHEMERIS"
#define RBC_ENV_ASPECTS_EVENTS "ROUNDBENCH_ASPECTS_EVENTS"
/* The file holding the expected result of a round's input (rbc_expect_path):
 * set empty for the user's own input, which has none. */
#define RBC_ENV_JSONL_EXPECT "ROUNDBENCH_JSONL_EXPECT"
#define RBC_ENV_ASPECTS_EXPECT "ROUNDBENCH_ASPECTS_EXPECT"

#define RBC_MAX_PARAMS 8

/* An optimiser barrier, not an output sink (those are RBC_SINK_*): keeps
 * the compiler from deleting or merging a timed loop's work, and from
 * taking a value as loop-invariant. The value is forced into a register
 * each time, as a result would be, and the asm claims to change it. */
#define RBC_KEEP(v) __asm__ volatile("" : "+r"(v))

/* One variant a round's entry point implements, as the round's file
 * registers it (RBC_ROUND below). */
typedef struct rbc_variant {
    const char *name; /* "c", "c-blas", ... */
    /* The units its result line may carry besides ns/op, space-separated
     * ("" for none). rbc_emit refuses any other, and `--list` prints these,
     * so the list cannot drift from what is printed. NULL marks a tool
     * entry (RBC_TOOL), not a variant. */
    const char *units;
    const void *data; /* the round's own data for this variant, or NULL */
} rbc_variant;

/* An entry point that is no variant of its round (matmul's blas-info prints
 * the BLAS's provenance): it runs, but `--list` leaves it out and it may
 * print no result line. */
#define RBC_TOOL(name)                                                                             \
    {                                                                                              \
        name, NULL, NULL                                                                           \
    }

/* key=value parameters from the command line, in the order given; the order
 * is kept in the benchmark name. */
typedef struct rbc_args {
    const char *round;
    const char *impl;
    const rbc_variant *variant; /* impl's entry in the round's registration */
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

/* Reads string parameter `key`; `def` when absent. */
const char *rbc_str_arg(const rbc_args *a, const char *key, const char *def);

/* The CRC-32 of zlib and PNG (IEEE 802.3, reflected, as zlib.crc32 and Go's
 * hash/crc32.ChecksumIEEE compute it) of n bytes, continuing from `crc`
 * (0 to start): for checking output against its expected checksum. */
uint32_t rbc_crc32(uint32_t crc, const void *p, size_t n);

/* Prints the result line `Benchmark<Round>/impl=<impl>/<k>=<v>... iters
 * ns_per_op ns/op [metrics...]` and flushes it. A metric whose unit the
 * variant did not declare is refused: a message naming the unit and the
 * variant, and exit with RBC_EXIT_USAGE. */
void rbc_emit(const rbc_args *a, int64_t iters, double ns_per_op, const rbc_metric *metrics,
              int nmetrics);

/* Prints `result: <text>`: the value the parent compares across variants. */
void rbc_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where the expected result of the input at `input` is: the file that
 * environment variable `env` names when it is set, else INPUT.expect beside
 * the input (a generated input run by hand). Writes that path into buf
 * (`size` bytes) and returns 1; returns 0, buf untouched, when `env` is set
 * empty: the input is the user's own and has no expected result (print the
 * result with rbc_result_unchecked). A path longer than buf: a message and
 * exit with RBC_EXIT_USAGE. The Go and Python harnesses have the same rule. */
int rbc_expect_path(const char *env, const char *input, char *buf, size_t size);

/* rbc_result for an input with no expected result (the user's own): also
 * prints `fact: result <text>`, which the parent keeps in the result file,
 * so that it holds what each variant found (the runner holds the variants
 * to each other; the report shows the reference's). */
void rbc_result_unchecked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports a wrong result (got/want) and exits with RBC_EXIT_WRONG. */
_Noreturn void rbc_wrong(const char *what, long long got, long long want);

/* rbc_wrong(what, got, want) when got != want: Go's harness.Check and
 * Python's harness.check. */
void rbc_check(const char *what, long long got, long long want);

/* Reports a core error and exits with RBC_EXIT_FAILED. */
_Noreturn void rbc_core_failed(const char *call, const rb_error *err);

/* A "Key:   123 kB" line of a /proc file (e.g. "/proc/self/status",
 * "VmHWM"), in bytes; -1 when the file or the key is absent. The rounds that
 * measure memory from inside (sleep, chain) read their baselines with it. */
int64_t rbc_proc_bytes(const char *path, const char *key);

/* Warm-up: calls fn(ctx) until at least RBC_WARMUP_NS have passed (at most
 * RBC_WARMUP_CALLS calls), so that the timed run starts with the code, data
 * and the core's clock speed where a steady state puts them, whatever ran
 * before. The Go and Python harnesses have the same limits (protocol.txt,
 * protocol-limit). */
#define RBC_WARMUP_NS 50000000u
#define RBC_WARMUP_CALLS 1000
void rbc_warm_up(void (*fn)(void *ctx), void *ctx);

/* Times `op(ctx, count)` and `empty(ctx, count)` (each returns elapsed ns),
 * growing `count` until one timing of `op` lasts at least RBC_CALIBRATE_NS
 * (100 ms; protocol.txt, protocol-limit), then takes
 * the best of three of each and returns (op - empty) / count, the cost of one
 * operation with the loop's own cost removed. *count_out gets the count. */
#define RBC_CALIBRATE_NS 100000000u
typedef uint64_t (*rbc_timed)(void *ctx, int64_t count);
double rbc_calibrated(rbc_timed op, rbc_timed empty, void *ctx, int64_t *count_out);

/* Whether `unit` is one of the space-separated words of v->units (never
 * for a tool entry). */
int rbc_unit_declared(const rbc_variant *v, const char *unit);

/* A round's entry point in the C runner: a->variant is one of its own
 * registered variants (main.c checks that before calling it). */
typedef int (*rbc_round_fn)(const rbc_args *a);

typedef struct rbc_round {
    const char *name;
    rbc_round_fn run;
    const rbc_variant *variants; /* ends with a NULL name */
} rbc_round;

/* The C runner's registry is the set of RBC_ROUND lines in the round files:
 * adding a round means adding its csrc/runner/run_<round>.c, and nothing
 * else. Each file registers its entry point, its name and every variant it
 * implements with that variant's units, e.g.
 *
 *   RBC_ROUND("loop", run_loop, {"c", "ns/iter", NULL});
 *
 * (each variant is an rbc_variant: name, units, the round's own data), which
 * declares `static int run_loop(const rbc_args *a)` (the file defines
 * it) and puts a pointer to the entry into the linker section rbc_rounds.
 * GNU ld and gold collect every such pointer of the program into one array
 * and define __start_rbc_rounds and __stop_rbc_rounds around it, for a
 * section whose name is a C identifier (ld manual, "Input Section
 * Example"; "used" keeps the pointer when nothing refers to it). main.c
 * walks that array. A round name `<round>-<role>` (http-serve) is a helper
 * entry point of that round, listed without units. */
#define RBC_ROUND(NAME, RUN, ...)                                                                  \
    static int RUN(const rbc_args *a);                                                             \
    static const rbc_variant RUN##_variants[] = {__VA_ARGS__, {NULL, NULL, NULL}};                 \
    static const rbc_round RUN##_round = {NAME, RUN, RUN##_variants};                              \
    static const rbc_round *const RUN##_entry __attribute__((used, section("rbc_rounds"))) =       \
        &RUN##_round

#endif
