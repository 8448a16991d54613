/* run_startup.c: the C runner's glue for round startup: what it costs to
 * start a program, measured from outside.
 *
 * How it fits the one-child-per-run protocol: the runner's child for one
 * startup run is this runner (statically linked: build/rb-c-static), which
 * starts the target program `starts` times (20 by default) after an
 * untimed warm-up (50 ms of starts, at least one), each by fork, exec and
 * wait4, and reports the median start-to-exit time as ns/op, the interquartile range as the
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
 * hello-go-cgo and hello-go-c, each at the path its own environment
 * variable holds (RB_STARTUP_HELLO_C for hello-c, and so on), which the
 * parent sets from where it finds the program (python/roundbench/rounds/
 * startup.py): an installed package keeps this runner and the C programs
 * in one folder and builds the Go ones into a cache, so no folder holds
 * them all. The Python variants run $RB_STARTUP_PYTHON (the runner sets it
 * to its own interpreter; python3 from PATH otherwise). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forkwait.h"
#include "harness.h"

#define MAX_STARTS 10000
#define SUM_N 1000          /* the core call of go-c and py-c: rb_loop(1000) */
#define WARMUP_NS 50000000u /* the warm-up rule of every timed run: 50 ms */

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
          {"py-c", UNITS, &py_c}, {"py-pandas", UNITS, &py_pandas});

typedef struct start_ctx {
    char *const *argv;
    int out_fd;  /* a memfd: the target's stdout, checked after each start */
    int null_fd; /* /dev/null: the target's stdin */
    char expect[64];
} start_ctx;

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* One start: fork, exec, wait4 (forkwait.h). Returns the elapsed ns, the
 * start's own peak RSS in KiB and its user + system CPU ns; exits the
 * runner on a start that fails or misprints. */
static uint64_t start_once(const start_ctx *c, long *maxrss_kb, uint64_t *cpu_ns)
{
    if (ftruncate(c->out_fd, 0) != 0 || lseek(c->out_fd, 0, SEEK_SET) != 0) {
        fprintf(stderr, "startup: cannot reset the output file: %s\n", strerror(errno));
        exit(RBC_EXIT_FAILED);
    }
    int status = 0;
    struct rusage ru;
    uint64_t t0 = rbc_now_ns();
    int rc = rbc_fork_exec_wait(c->argv, c->null_fd, c->out_fd, "startup", &status, &ru);
    uint64_t t1 = rbc_now_ns();
    if (rc < 0) {
        fprintf(stderr, "startup: fork or wait4: %s\n", strerror(errno));
        exit(RBC_EXIT_FAILED);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "wrong result: %s was killed by signal %d\n", c->argv[0],
                    WTERMSIG(status));
        else
            fprintf(stderr, "wrong result: %s exited with status %d; want 0\n", c->argv[0],
                    WEXITSTATUS(status));
        exit(RBC_EXIT_WRONG);
    }
    char out[sizeof c->expect + 1];
    ssize_t n = pread(c->out_fd, out, sizeof out - 1, 0);
    if (n < 0)
        n = 0;
    out[n] = '\0';
    if (strcmp(out, c->expect) != 0) {
        fprintf(stderr, "wrong result: %s printed \"%s\"; want \"%s\"\n", c->argv[0], out,
                c->expect);
        exit(RBC_EXIT_WRONG);
    }
    *maxrss_kb = ru.ru_maxrss;
    *cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
    return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) with linear interpolation between order
 * statistics (the default of R and numpy). */
static double quantile(const uint64_t *v, int n, double q)
{
    double pos = q * (double)(n - 1);
    int i = (int)pos;
    if (i >= n - 1)
        return (double)v[n - 1];
    return (double)v[i] + (pos - (double)i) * ((double)v[i + 1] - (double)v[i]);
}

/* RssAnon from /proc/self/status, in KiB (-1 where it cannot be read). */
static long rss_anon_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

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

    start_ctx c = {.argv = argv};
    if (t->prints_sum)
        snprintf(c.expect, sizeof c.expect, "sum=%lld\n", (long long)rb_loop_expected(SUM_N));
    else if (t->prints_hello)
        snprintf(c.expect, sizeof c.expect, "hello, world\n");
    c.out_fd = memfd_create("rb-startup-out", MFD_CLOEXEC);
    c.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (c.out_fd < 0 || c.null_fd < 0) {
        fprintf(stderr, "startup: memfd_create or /dev/null: %s\n", strerror(errno));
        return RBC_EXIT_FAILED;
    }

    uint64_t *ns = malloc(sizeof *ns * (size_t)starts);
    long *rss = malloc(sizeof *rss * (size_t)starts);
    uint64_t *cpu = malloc(sizeof *cpu * (size_t)starts);
    if (!ns || !rss || !cpu) {
        fprintf(stderr, "startup: out of memory\n");
        return RBC_EXIT_FAILED;
    }
    /* Warm-up, untimed, by the harnesses' rule (starts until 50 ms have
     * passed, at most 1000): the target's files in the page cache and the
     * clock speed where a steady state puts them. */
    long warm_rss;
    uint64_t warm_cpu;
    uint64_t w0 = rbc_now_ns();
    for (int i = 0; i < 1000 && rbc_now_ns() - w0 < WARMUP_NS; i++)
        (void)start_once(&c, &warm_rss, &warm_cpu);
    /* The most a start's peak can owe to this process: its anonymous pages. */
    long anon_kb = rss_anon_kb();
    for (int i = 0; i < starts; i++)
        ns[i] = start_once(&c, &rss[i], &cpu[i]);

    qsort(ns, (size_t)starts, sizeof *ns, cmp_u64);
    qsort(rss, (size_t)starts, sizeof *rss, cmp_long);
    qsort(cpu, (size_t)starts, sizeof *cpu, cmp_u64);
    double median = quantile(ns, starts, 0.5);
    double iqr = quantile(ns, starts, 0.75) - quantile(ns, starts, 0.25);
    long rss_median = rss[starts / 2];
    rbc_metric m[] = {
        {median / 1e6, "ms"},
        {iqr / 1e6, "spread-ms"},
        {(double)rss_median * 1024.0, "start-peak-B"},
        {median * 1000.0 / 1e9, "s/1000-starts"},
        {quantile(cpu, starts, 0.5) / 1e6, "cpu-ms"},
        {(double)anon_kb * 1024.0, "launcher-anon-B"},
    };
    rbc_result("%s-ok", a->impl);
    rbc_emit(a, starts, median, m, (int)(sizeof m / sizeof m[0]));
    free(ns);
    free(rss);
    free(cpu);
    close(c.out_fd);
    close(c.null_fd);
    return RBC_EXIT_OK;
}
