/* forkwait.c: fork, exec and wait4 for the launchers (see forkwait.h). */
#define _GNU_SOURCE
#include "forkwait.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t rbc_fork_exec(char *const argv[], int in_fd, int out_fd, const char *who)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if ((in_fd >= 0 && dup2(in_fd, 0) < 0) || (out_fd >= 0 && dup2(out_fd, 1) < 0))
        _exit(126);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
    _exit(127);
}

int rbc_wait(pid_t pid, int *status, struct rusage *ru)
{
    pid_t got;
    do
        got = wait4(pid, status, 0, ru);
    while (got < 0 && errno == EINTR);
    return got < 0 ? -1 : 0;
}

int rbc_fork_exec_wait(char *const argv[], int in_fd, int out_fd, const char *who, int *status,
                       struct rusage *ru)
{
    pid_t pid = rbc_fork_exec(argv, in_fd, out_fd, who);
    return pid < 0 ? -1 : rbc_wait(pid, status, ru);
}
