/* launch.c: start a program with its stdout on a sink, time it, check
 * what it printed (see launch.h). */
#define _GNU_SOURCE
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "forkwait.h"
#include "harness.h"

/* The most warm-up rounds, whatever their time (the harnesses' rule). */
#define WARMUP_MAX 1000

int rbc_sink_open(rbc_sink *s, const char *name)
{
    s->fd = -1;
    if (!name) {
        s->kind = RBC_SINK_MEMORY;
        s->fd = memfd_create("rb-launch-out", MFD_CLOEXEC);
    } else if (strcmp(name, "pipe") == 0) {
        s->kind = RBC_SINK_PIPE;
        return 0;
    } else if (strcmp(name, "pty") == 0) {
        s->kind = RBC_SINK_PTY;
        return 0;
    } else if (strcmp(name, "devnull") == 0) {
        s->kind = RBC_SINK_DEVNULL;
        s->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    } else if (strcmp(name, "file") == 0) {
        s->kind = RBC_SINK_FILE;
        const char *dir = getenv("TMPDIR");
        char path[4096];
        if (snprintf(path, sizeof path, "%s/rb-launch-out-XXXXXX", dir && *dir ? dir : "/tmp") >=
            (int)sizeof path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        s->fd = mkostemp(path, O_CLOEXEC);
        if (s->fd >= 0)
            unlink(path);
    } else {
        errno = EINVAL;
        return -1;
    }
    return s->fd < 0 ? -1 : 0;
}

void rbc_sink_close(rbc_sink *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

const char *rbc_sink_name(const rbc_sink *s)
{
    static const char *const names[] = {"pipe", "file", "devnull", "pty", "memory"};
    return names[s->kind];
}

/* Takes n more bytes of output into o. */
static void take(rbc_output *o, const char *p, size_t n)
{
    if (o->len < sizeof o->head - 1) {
        size_t k = sizeof o->head - 1 - (size_t)o->len;
        if (k > n)
            k = n;
        memcpy(o->head + o->len, p, k);
        o->head[o->len + k] = '\0';
    }
    o->crc = rbc_crc32(o->crc, p, n);
    o->len += n;
}

/* Reads fd to its end into o. A pty's master reads EIO once no process
 * holds the terminal open any more (pty(7)): the end, as EOF is a pipe's. */
static int read_to_end(int fd, rbc_output *o)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0)
            take(o, buf, (size_t)n);
        else if (n == 0 || errno == EIO)
            return 0;
        else if (errno != EINTR)
            return -1;
    }
}

/* Reads back a file's whole content, from its start. */
static int read_back(int fd, rbc_output *o)
{
    char buf[65536];
    for (off_t at = 0;;) {
        ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n > 0) {
            take(o, buf, (size_t)n);
            at += n;
        } else if (n == 0) {
            return 0;
        } else if (errno != EINTR) {
            return -1;
        }
    }
}

/* A new pseudo-terminal: *master to read, *slave (raw mode) for the
 * program's stdout. Both close on exec; the program gets the slave as its
 * fd 1 through dup2, which clears that. */
static int open_pty(int *master, int *slave)
{
    *slave = -1;
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0)
        return -1;
    char name[128];
    struct termios t;
    if (grantpt(*master) != 0 || unlockpt(*master) != 0 ||
        ptsname_r(*master, name, sizeof name) != 0)
        goto fail;
    *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave < 0 || tcgetattr(*slave, &t) != 0)
        goto fail;
    cfmakeraw(&t);
    if (tcsetattr(*slave, TCSANOW, &t) != 0)
        goto fail;
    return 0;
fail:;
    int saved = errno;
    if (*slave >= 0)
        close(*slave);
    close(*master);
    errno = saved;
    return -1;
}

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

int rbc_launch(const rbc_sink *s, char *const argv[], int in_fd, rbc_start *st)
{
    memset(st, 0, sizeof *st);
    int out_fd = s->fd, read_fd = -1; /* read_fd: a pipe's or a pty's reading end */
    int fds[2];
    if (s->kind == RBC_SINK_PIPE) {
        if (pipe2(fds, O_CLOEXEC) != 0)
            return -1;
        read_fd = fds[0];
        out_fd = fds[1];
    } else if (s->kind == RBC_SINK_PTY) {
        if (open_pty(&read_fd, &out_fd) != 0)
            return -1;
    } else if (s->kind != RBC_SINK_DEVNULL) {
        if (ftruncate(s->fd, 0) != 0 || lseek(s->fd, 0, SEEK_SET) != 0)
            return -1;
    }

    struct rusage ru;
    int rc = 0, saved = 0;
    uint64_t t0 = rbc_now_ns();
    pid_t pid = rbc_fork_exec(argv, in_fd, out_fd, "launch");
    if (pid < 0)
        saved = errno;
    if (read_fd >= 0) {
        /* Only the program may hold the writing end: its exit ends the
         * reading. On a failed read the reading end is closed before the
         * wait, so that a program blocked on a full pipe gets EPIPE. */
        close(out_fd);
        if (pid >= 0 && read_to_end(read_fd, &st->out) != 0) {
            saved = errno;
            rc = -1;
        }
        close(read_fd);
        st->out.read = 1;
    }
    if (pid >= 0 && rbc_wait(pid, &st->status, &ru) != 0) {
        saved = errno;
        rc = -1;
    }
    st->ns = rbc_now_ns() - t0;
    if (pid < 0)
        rc = -1;
    if (s->fd >= 0 && s->kind != RBC_SINK_DEVNULL && rc == 0) {
        rc = read_back(s->fd, &st->out);
        saved = errno;
        st->out.read = 1;
    }
    if (rc == 0) {
        st->maxrss_kb = ru.ru_maxrss;
        st->cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
    }
    errno = saved;
    return rc;
}

/* One start of command c, checked; exits the launcher when it failed. */
static void start_checked(rbc_series *s, const rbc_command *c, rbc_start *st)
{
    const char *what = c->what ? c->what : c->argv[0];
    if (s->before && s->before(s->ctx) != 0)
        exit(RBC_EXIT_FAILED);
    if (rbc_launch(s->sink, c->argv, s->in_fd, st) != 0) {
        fprintf(stderr, "%s: starting %s with stdout on a %s: %s\n", s->who, what,
                rbc_sink_name(s->sink), strerror(errno));
        exit(RBC_EXIT_FAILED);
    }
    if (s->after)
        s->after(s->ctx);
    if (!WIFEXITED(st->status) || WEXITSTATUS(st->status) != 0) {
        if (WIFSIGNALED(st->status))
            fprintf(stderr, "wrong result: %s was killed by signal %d\n", what,
                    WTERMSIG(st->status));
        else
            fprintf(stderr, "wrong result: %s exited with status %d; want 0\n", what,
                    WEXITSTATUS(st->status));
        exit(RBC_EXIT_WRONG);
    }
    if (!st->out.read || (st->out.len == c->want_len && st->out.crc == c->want_crc))
        return;
    if (c->want_text)
        fprintf(stderr, "wrong result: %s printed \"%s\"; want \"%s\"\n", what, st->out.head,
                c->want_text);
    else
        fprintf(stderr,
                "wrong result: %s printed %llu bytes with CRC-32 %08x to a %s; want %llu bytes "
                "with CRC-32 %08x\n",
                what, (unsigned long long)st->out.len, (unsigned)st->out.crc,
                rbc_sink_name(s->sink), (unsigned long long)c->want_len, (unsigned)c->want_crc);
    exit(RBC_EXIT_WRONG);
}

void rbc_launch_series(rbc_series *s, rbc_command *cmds, int ncmds)
{
    rbc_start st;
    if (s->warm_up) {
        /* Untimed: the programs' files in the page cache and the clock
         * speed where a steady state puts them. One start of a program
         * that runs longer than the rule's 50 ms is the whole warm-up. */
        uint64_t w0 = rbc_now_ns();
        for (int i = 0; i < WARMUP_MAX && (i == 0 || rbc_now_ns() - w0 < RBC_WARMUP_NS); i++)
            start_checked(s, &cmds[i % ncmds], &st);
    }
    /* The most a start's peak RSS can owe to this process: a forked child
     * starts with its parent's anonymous pages. */
    s->launcher_anon_b = rbc_proc_bytes("/proc/self/status", "RssAnon");
    for (int i = 0; i < s->starts; i++) {
        for (int j = 0; j < ncmds; j++) {
            rbc_command *c = &cmds[i % 2 ? ncmds - 1 - j : j];
            start_checked(s, c, &st);
            c->ns[i] = st.ns;
            c->maxrss_kb[i] = st.maxrss_kb;
            c->cpu_ns[i] = st.cpu_ns;
        }
    }
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

double rbc_quantile_u64(const uint64_t *v, int n, double q)
{
    double pos = q * (double)(n - 1);
    int i = (int)pos;
    if (i >= n - 1)
        return (double)v[n - 1];
    return (double)v[i] + (pos - (double)i) * ((double)v[i + 1] - (double)v[i]);
}

void rbc_launch_summarize(rbc_command *c, int starts, rbc_launch_summary *out)
{
    qsort(c->ns, (size_t)starts, sizeof *c->ns, cmp_u64);
    qsort(c->maxrss_kb, (size_t)starts, sizeof *c->maxrss_kb, cmp_long);
    qsort(c->cpu_ns, (size_t)starts, sizeof *c->cpu_ns, cmp_u64);
    out->median_ns = rbc_quantile_u64(c->ns, starts, 0.5);
    out->iqr_ns = rbc_quantile_u64(c->ns, starts, 0.75) - rbc_quantile_u64(c->ns, starts, 0.25);
    out->cpu_median_ns = rbc_quantile_u64(c->cpu_ns, starts, 0.5);
    out->maxrss_median_kb = c->maxrss_kb[starts / 2];
}
