/* spawn.c: rb-spawn, the runner's launcher.
 *
 *   rb-spawn FD PROGRAM [ARGS...]
 *
 * Runs PROGRAM as a child, waits for it with wait4 and writes one line
 *
 *   status=<wait status> maxrss_kb=<n> utime_ns=<n> stime_ns=<n>
 *
 * to file descriptor FD, then exits 0 (or 127 if PROGRAM could not start).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forkwait.h"

static long long tv_ns(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rb-spawn FD PROGRAM [ARGS...]\n");
        return 2;
    }
    char *end;
    long fd = strtol(argv[1], &end, 10);
    if (*end || fd < 0 || fcntl((int)fd, F_GETFD) < 0) {
        fprintf(stderr, "rb-spawn: %s is not an open file descriptor\n", argv[1]);
        return 2;
    }
    /* The program must not inherit the report descriptor. */
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    int status = 0;
    struct rusage ru;
    if (rbc_fork_exec_wait(argv + 2, -1, -1, "rb-spawn", &status, &ru) < 0) {
        fprintf(stderr, "rb-spawn: fork or wait4: %s\n", strerror(errno));
        return 127;
    }
    dprintf((int)fd, "status=%d maxrss_kb=%ld utime_ns=%lld stime_ns=%lld\n", status, ru.ru_maxrss,
            tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
    return 0;
}
