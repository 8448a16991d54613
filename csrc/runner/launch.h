/* launch.h: the launcher of round startup and of round aspects' launch
 * modes. It starts a program again and again, each start timed from fork
 * to the end of wait4, with the program's stdout on a chosen sink, and
 * checks every start: exit status 0 and, where the sink can be read, the
 * exact bytes (their length and CRC-32).
 *
 * The sinks are where a user's program prints: a pipe (`prog | consumer`),
 * a file (`prog > out`), /dev/null, and a terminal. A pipe and a terminal
 * are read by the launcher while the program runs, as a consumer or a
 * console must, so their reading is part of the time; a file is read back
 * after the program exits, untimed; /dev/null cannot be read back at all.
 * The terminal is a pseudo-terminal in raw mode: a terminal's default
 * output processing turns each "\n" into "\r\n" (termios(3), OPOST and
 * ONLCR), which would change the bytes; raw mode keeps them, and the
 * program still sees a terminal (isatty), so it buffers its output as it
 * does on a console (C's stdio and Python flush each line there). */
#ifndef RBC_LAUNCH_H
#define RBC_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

/* Where a started program's stdout goes. */
typedef enum rbc_sink_kind {
    RBC_SINK_PIPE,    /* a pipe, read while the program runs */
    RBC_SINK_FILE,    /* a temporary file (unlinked), read back after the program exits */
    RBC_SINK_DEVNULL, /* /dev/null: nothing can be read back */
    RBC_SINK_PTY,     /* a pseudo-terminal in raw mode, read while the program runs */
    RBC_SINK_MEMORY   /* a memfd, read back after the program exits: round startup's */
} rbc_sink_kind;

/* The names a launch cell's `sink=` parameter takes, for messages. */
#define RBC_SINK_NAMES "pipe, file, devnull, pty"

typedef struct rbc_sink {
    rbc_sink_kind kind;
    int fd; /* the file, memfd or /dev/null; -1 for a pipe or a pty (one per start) */
} rbc_sink;

/* Opens the sink named `name` (pipe, file, devnull, pty) or, for NULL,
 * round startup's memfd. The file is made in $TMPDIR (else /tmp) and
 * unlinked at once. Returns 0, or -1 with errno set (EINVAL for an
 * unknown name). */
int rbc_sink_open(rbc_sink *s, const char *name);

/* Closes what rbc_sink_open opened; s may be closed twice. */
void rbc_sink_close(rbc_sink *s);

/* The sink's name, as rbc_sink_open takes it ("memory" for the memfd). */
const char *rbc_sink_name(const rbc_sink *s);

/* What one start printed. */
typedef struct rbc_output {
    int read;      /* 1 when the sink could be read (all but /dev/null) */
    uint64_t len;  /* the bytes on stdout */
    uint32_t crc;  /* their CRC-32 (rbc_crc32) */
    char head[64]; /* their beginning, NUL-terminated, for messages */
} rbc_output;

/* One start. */
typedef struct rbc_start {
    uint64_t ns;     /* fork to the end of wait4, the reading of a pipe or pty included */
    int status;      /* the wait status */
    long maxrss_kb;  /* wait4: the program's peak RSS (and its children's, if larger) */
    uint64_t cpu_ns; /* wait4: user + system CPU of the program and the children it waited for */
    rbc_output out;
} rbc_start;

/* Starts argv with stdin on in_fd (-1: the launcher's) and stdout on the
 * sink, waits for it and reads what it printed. Returns 0 (whatever the
 * program's status), or -1 with errno set when the launcher itself failed
 * (pipe, pty, fork, read or wait4). */
int rbc_launch(const rbc_sink *s, char *const argv[], int in_fd, rbc_start *st);

/* One program a series starts, and what it must print. */
typedef struct rbc_command {
    char *const *argv;
    const char *what; /* how messages name it (e.g. "test 2"); NULL: argv[0] */
    uint64_t want_len;
    uint32_t want_crc;
    const char *want_text; /* the expected text, quoted in messages; NULL to quote sizes */
    /* Filled in by rbc_launch_series, one entry per timed start. */
    uint64_t *ns;
    long *maxrss_kb;
    uint64_t *cpu_ns;
} rbc_command;

/* A series: every command started `starts` times, interleaved (the
 * commands in order on even rounds, in reverse on odd ones, so that
 * neither always runs first), after the warm-up rule of every timed run
 * (starts, the commands in turn, until 50 ms have passed: at least one, at
 * most 1000) unless warm_up is 0: a start that is a first start by design
 * (a cold build cache) has no steady state to warm up to. */
typedef struct rbc_series {
    const char *who; /* the round, for messages */
    const rbc_sink *sink;
    int in_fd;
    int starts;
    int warm_up;
    /* Called around every start (warm-up included), untimed; NULL for
     * none. before returns 0, or -1 after printing why it failed. */
    int (*before)(void *ctx);
    void (*after)(void *ctx);
    void *ctx;
    int64_t launcher_anon_b; /* out: this process's RssAnon after the warm-up (-1: unknown) */
} rbc_series;

/* Runs the series. Every start must exit 0 and, where the sink can be
 * read, print exactly its command's bytes: otherwise this prints "wrong
 * result: ..." and exits with RBC_EXIT_WRONG; a failure of the launcher
 * itself exits with RBC_EXIT_FAILED. The commands' arrays must hold
 * `starts` entries. */
void rbc_launch_series(rbc_series *s, rbc_command *cmds, int ncmds);

/* The q-quantile of sorted v[0..n) with linear interpolation between order
 * statistics (the default of R and numpy); n > 0. */
double rbc_quantile_u64(const uint64_t *v, int n, double q);

/* Summary of one command's starts (its arrays are sorted in place). */
typedef struct rbc_launch_summary {
    double median_ns;
    double iqr_ns; /* the interquartile range */
    double cpu_median_ns;
    long maxrss_median_kb;
} rbc_launch_summary;

void rbc_launch_summarize(rbc_command *c, int starts, rbc_launch_summary *out);

#endif
