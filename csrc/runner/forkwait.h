/* forkwait.h: start a program and collect it with wait4, the one way the
 * project's launchers measure a child from outside: rb-spawn
 * (csrc/tools/spawn.c), which starts every run of the suite, and round
 * startup (run_startup.c), which starts a program many times. wait4 is the
 * point: it gives the child's own peak RSS and CPU time (RUSAGE_CHILDREN
 * would add up every child ever waited for). */
#ifndef RBC_FORKWAIT_H
#define RBC_FORKWAIT_H

#include <sys/resource.h>

/* Forks, points the child's stdin and stdout at in_fd and out_fd (-1
 * leaves one as it is), execs argv[0] (looked up in PATH when it has no
 * '/') with argv, and waits for it with wait4, retrying on EINTR.
 * *status gets the wait status and *ru the child's own resource use.
 * A child that cannot exec prints "<who>: cannot run <program>: <why>" on
 * stderr and exits 127 (126 when a redirection fails): that is the child's
 * status, not a failure here.
 * Returns 0, or -1 with errno set when fork or wait4 fails. */
int rbc_fork_exec_wait(char *const argv[], int in_fd, int out_fd, const char *who, int *status,
                       struct rusage *ru);

#endif
