/* run_startup.c: the C runner's glue for round startup: what it costs to
 * start a program, measured from outside.
 *
 * How it fits the one-child-per-run protocol: the runner's child for one
 * startup run is this runner (statically linked: build/rb-c-static), which
 * starts the target program `starts` times (20 by default) after an
 * untimed warm-up (50 ms of starts, at least one), each by fork, exec and
 * wait4 with its stdout on a memfd (the launcher: launch.c), and reports
 * the median start-to-exit time as ns/op, the interquartile range as the
 * spread, the median of each start's own peak RSS and CPU time (user +
 * system) from wait4, and what 1,000 starts cost. The CPU time is the
 * figure a busy machine disturbs least: wall time includes waiting for a
 * core. Every start is checked: exit status 0 and exactly the
 * expected output on stdout, or the run fails with exit status 3.
 *
 * Why from here and statically linked: Linux carries the pre-exec RSS high
 * water mark across exec (getrusage(2); fs/exec.c, exec_mmap), and a forked
 * child starts with its parent's anonymous pages mapped, so a target forked
 * from the Python runner would report at least the runner's 15-20 MiB of
 * heap. This launcher's anonymous memory (a few hundred KiB; static linking
 * leaves no relocated libraries) is the most any start's peak RSS can owe
 * to it; it is reported as launcher-anon-B.
 *
 * The targets: hello-c, hello-c-static, hello-go (CGO_ENABLED=0),
 * hello-go-cgo, hello-go-c, and the Python hello-world compiled by Nuitka,
 * hello-py-nuitka (standalone) and hello-py-nuitka-onefile, each at the
 * path its own environment variable holds (RB_STARTUP_HELLO_C for
 * hello-c, and so on), which the parent sets from where it finds the
 * program (python/roundbench/rounds/startup.py): an installed package
 * keeps this runner and the C programs in one folder and builds the Go
 * ones into a cache, and Nuitka's are built per interpreter into the build
 * folder, so no folder holds them all. The Python variants run
 * $RB_STARTUP_PYTHON (the runner sets it to its own interpreter; python3
 * from PATH otherwise). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "launch.h"

#define MAX_STARTS 10000
#define SUM_N 1000 /* the core call of go-c and py-c: rb_loop(1000) */

/* What one variant starts: the data of its registration below. */
typedef struct target {
    const char
        *path_env;       /* the variable holding the program's path; NULL: the Python interpreter */
    const char *args[4]; /* the interpreter's arguments */
    int prints_sum;      /* stdout is "sum=<rb_loop(SUM_N)>\n", else as below */
    int prints_hello;    /* stdout is "hello, world\n"; neither: nothing */
} target;

/* The programs the variants start. */
static const target hello_c = {"RB_STARTUP_HELLO_C", {NULL}, 0, 1};
static const target hello_c_static = {"RB_STARTUP_HELLO_C_STATIC", {NULL}, 0, 1};
static const target hello_go = {"RB_STARTUP_HELLO_GO", {NULL}, 0, 1};
static const target hello_go_cgo = {"RB_STARTUP_HELLO_GO_CGO", {NULL}, 0, 1};
static const target hello_go_c = {"RB_STARTUP_HELLO_GO_C", {NULL}, 1, 0};
static const target hello_py_nuitka = {"RB_STARTUP_HELLO_PY_NUITKA", {NULL}, 0, 1};
static const target hello_py_nuitka_onefile = {"RB_STARTUP_HELLO_PY_NUITKA_ONEFILE", {NULL}, 0, 1};
static const target py_plain = {NULL, {"-c", "pass"}, 0, 0};
static const target py_S = {NULL, {"-S", "-c", "pass"}, 0, 0};
static const target py_I = {NULL, {"-I", "-c", "pass"}, 0, 0};
static const target py_numpy = {NULL, {"-c", "import numpy"}, 0, 0};
static const target py_roundbench = {NULL, {"-c", "import roundbench"}, 0, 0};
static const target py_c = {
    NULL, {"-c", "import roundbench; print(f'sum={roundbench.loop(1000)}')"}, 1, 0};
static const target py_pandas = {NULL, {"-c", "import pandas"}, 0, 0};

#define UNITS "ms spread-ms start-peak-B s/1000-starts cpu-ms launcher-anon-B"
RBC_ROUND("startup", run_startup, {"c", UNITS, &hello_c}, {"c-static", UNITS, &hello_c_static},
          {"go", UNITS, &hello_go}, {"go-cgo", UNITS, &hello_go_cgo}, {"go-c", UNITS, &hello_go_c},
          {"py", UNITS, &py_plain}, {"py-S", UNITS, &py_S}, {"py-I", UNITS, &py_I},
          {"py-numpy", UNITS, &py_numpy}, {"py-roundbench", UNITS, &py_roundbench},
          {"py-c", UNITS, &py_c}, {"py-pandas", UNITS, &py_pandas},
          {"py-nuitka", UNITS, &hello_py_nuitka},
          {"py-nuitka-onefile", UNITS, &hello_py_nuitka_onefile});

static int run_startup(const rbc_args *a)
{
    const target *t = a->variant->data;
    int starts = (int)rbc_int_arg(a, "starts", 20, 1, MAX_STARTS);

    /* The command line of one start. */
    char *argv[6] = {NULL};
    if (t->path_env) {
        char *path = getenv(t->path_env);
        if (!path || !*path) {
            fprintf(stderr,
                    "cannot run here: %s is not set (the roundbench runner sets it to the "
                    "program's path)\n",
                    t->path_env);
            return RBC_EXIT_CANNOT;
        }
        if (access(path, X_OK) != 0) {
            fprintf(stderr, "cannot run here: %s=%s: %s\n", t->path_env, path, strerror(errno));
            return RBC_EXIT_CANNOT;
        }
        argv[0] = path;
    } else {
        const char *py = getenv("RB_STARTUP_PYTHON");
        argv[0] = (char *)(py && *py ? py : "python3");
        for (int i = 0; i < 4 && t->args[i]; i++)
            argv[i + 1] = (char *)t->args[i];
    }

    char expect[64] = "";
    if (t->prints_sum)
        snprintf(expect, sizeof expect, "sum=%lld\n", (long long)rb_loop_expected(SUM_N));
    else if (t->prints_hello)
        snprintf(expect, sizeof expect, "hello, world\n");
    rbc_sink sink;
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (rbc_sink_open(&sink, NULL) != 0 || null_fd < 0) {
        fprintf(stderr, "startup: memfd_create or /dev/null: %s\n", strerror(errno));
        return RBC_EXIT_FAILED;
    }
    rbc_command c = {
        .argv = argv,
        .want_len = strlen(expect),
        .want_crc = rbc_crc32(0, expect, strlen(expect)),
        .want_text = expect,
        .ns = malloc(sizeof *c.ns * (size_t)starts),
        .maxrss_kb = malloc(sizeof *c.maxrss_kb * (size_t)starts),
        .cpu_ns = malloc(sizeof *c.cpu_ns * (size_t)starts),
    };
    if (!c.ns || !c.maxrss_kb || !c.cpu_ns) {
        fprintf(stderr, "startup: out of memory\n");
        return RBC_EXIT_FAILED;
    }
    /* Warm-up, untimed, by the harnesses' rule, then the timed starts,
     * the output on a memfd. */
    rbc_series series = {
        .who = "startup", .sink = &sink, .in_fd = null_fd, .starts = starts, .warm_up = 1};
    rbc_launch_series(&series, &c, 1);

    rbc_launch_summary sum;
    rbc_launch_summarize(&c, starts, &sum);
    rbc_metric m[] = {
        {sum.median_ns / 1e6, "ms"},
        {sum.iqr_ns / 1e6, "spread-ms"},
        {(double)sum.maxrss_median_kb * 1024.0, "start-peak-B"},
        {sum.median_ns * 1000.0 / 1e9, "s/1000-starts"},
        {sum.cpu_median_ns / 1e6, "cpu-ms"},
        {(double)series.launcher_anon_b, "launcher-anon-B"},
    };
    rbc_result("%s-ok", a->impl);
    rbc_emit(a, starts, sum.median_ns, m, (int)(sizeof m / sizeof m[0]));
    free(c.ns);
    free(c.maxrss_kb);
    free(c.cpu_ns);
    rbc_sink_close(&sink);
    close(null_fd);
    return RBC_EXIT_OK;
}
