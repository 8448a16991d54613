/* spawn.c: rb-spawn, the runner's launcher.
 *
 *   rb-spawn [--cpus LIST] [--fixed-layout] FD PROGRAM [ARGS...]
 *
 * Runs PROGRAM as a child, waits for it with wait4 and writes one line
 *
 *   status=<wait status> maxrss_kb=<n> utime_ns=<n> stime_ns=<n>
 *
 * to file descriptor FD, then exits 0 (or 127 if PROGRAM could not start).
 * --cpus LIST pins the child to those CPUs (the kernel's list format,
 * "1" or "0-3,6"): the runner's placement. --fixed-layout turns address-space
 * randomisation off for the child (personality ADDR_NO_RANDOMIZE, what
 * setarch -R does), so every run of a variant gets the same layout. Both
 * are set here, before the fork, and the child inherits them.
 *
 * Why it exists: on Linux a child's ru_maxrss starts from the RSS of the
 * process it was forked from (exec records the old address space's high
 * water mark; see getrusage(2) and fs/exec.c setup_new_exec). Forked from
 * the Python runner, every child would report at least the runner's own
 * 15-20 MiB. Forked from this small program, a child's peak is its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>

#include "forkwait.h"

static long long tv_ns(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

/* Parses a CPU list ("1", "0-3,6") into set; 0, or -1 when malformed. */
static int parse_cpus(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || lo >= CPU_SETSIZE)
            return -1;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo || hi >= CPU_SETSIZE)
                return -1;
            p = end;
        }
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return CPU_COUNT(set) > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: rb-spawn [--cpus LIST] [--fixed-layout] FD PROGRAM [ARGS...]\n";
    int i = 1;
    while (i < argc && strncmp(argv[i], "--", 2) == 0) {
        if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) {
            cpu_set_t set;
            if (parse_cpus(argv[i + 1], &set) < 0) {
                fprintf(stderr, "rb-spawn: --cpus %s: want a CPU list such as 1 or 0-3,6\n",
                        argv[i + 1]);
                return 2;
            }
            if (sched_setaffinity(0, sizeof set, &set) < 0) {
                fprintf(stderr, "rb-spawn: --cpus %s: %s\n", argv[i + 1], strerror(errno));
                return 2;
            }
            i += 2;
        } else if (strcmp(argv[i], "--fixed-layout") == 0) {
            int old = personality(0xffffffff);
            if (old < 0 || personality((unsigned long)old | ADDR_NO_RANDOMIZE) < 0) {
                fprintf(stderr, "rb-spawn: --fixed-layout: %s\n", strerror(errno));
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "rb-spawn: unknown option %s\n%s", argv[i], usage);
            return 2;
        }
    }
    if (argc - i < 2) {
        fputs(usage, stderr);
        return 2;
    }
    char *end;
    long fd = strtol(argv[i], &end, 10);
    if (*end || fd < 0 || fcntl((int)fd, F_GETFD) < 0) {
        fprintf(stderr, "rb-spawn: %s is not an open file descriptor\n", argv[i]);
        return 2;
    }
    /* The program must not inherit the report descriptor. */
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    int status = 0;
    struct rusage ru;
    if (rbc_fork_exec_wait(argv + i + 1, -1, -1, "rb-spawn", &status, &ru) < 0) {
        fprintf(stderr, "rb-spawn: fork or wait4: %s\n", strerror(errno));
        return 127;
    }
    dprintf((int)fd, "status=%d maxrss_kb=%ld utime_ns=%lld stime_ns=%lld\n", status, ru.ru_maxrss,
            tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
    return 0;
}
