/* forkwait.h: start a program and collect it with wait4, the one way the
 * project's launchers measure a child from outside: rb-spawn
 * (csrc/tools/spawn.c), which starts every run of the suite, and the
 * launcher of round startup and of round aspects' launch modes (launch.c),
 * which starts a program many times. wait4 is the point: it gives the
 * child's own peak RSS and CPU time (RUSAGE_CHILDREN would add up every
 * child ever waited for). */
#ifndef RBC_FORKWAIT_H
#define RBC_FORKWAIT_H

#include <sys/resource.h>
#include <sys/types.h>

/* Forks, points the child's stdin and stdout at in_fd and out_fd (-1
 * leaves one as it is) and execs argv[0] (looked up in PATH when it has no
 * '/') with argv. A child that cannot exec prints "<who>: cannot run
 * <program>: <why>" on stderr and exits 127 (126 when a redirection
 * fails): that is the child's status, not a failure here.
 * Returns the child's pid, or -1 with errno set when fork fails. */
pid_t rbc_fork_exec(char *const argv[], int in_fd, int out_fd, const char *who);

/* Waits for child pid with wait4, retrying on EINTR. *status gets the wait
 * status and *ru the child's resource use (its own and that of the
 * children it waited for). Returns 0, or -1 with errno set. */
int rbc_wait(pid_t pid, int *status, struct rusage *ru);

/* rbc_fork_exec, then rbc_wait: for a child whose output needs no reading
 * while it runs. Returns 0, or -1 with errno set when fork or wait4 fails. */
int rbc_fork_exec_wait(char *const argv[], int in_fd, int out_fd, const char *who, int *status,
                       struct rusage *ru);

#endif
