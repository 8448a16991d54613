/* internal.h: helpers shared by the core's .c files; not part of the API. */
#ifndef ROUNDBENCH_INTERNAL_H
#define ROUNDBENCH_INTERNAL_H

#include "roundbench.h"

/* Fills `err` (when not NULL) and returns `code`: the one way a core
 * function reports a failure. `arg` must be a constant string (or NULL);
 * `msg` is copied (see rb_error for how to phrase it). */
rb_status rb_fail(rb_error *err, rb_status code, const char *arg, const char *msg, int64_t pos);

/* rb_fail with a printf-formatted message, for the specifics: the value out
 * of range ("must be >= 0, not %lld"), a path, a library's own words. */
rb_status rb_failf(rb_error *err, rb_status code, const char *arg, int64_t pos, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));

/* An RB_ERR_IO failure of a system call that set `sys_errno` (pass errno,
 * or a pthread function's result), with a formatted message. */
rb_status rb_fail_sys(rb_error *err, int sys_errno, const char *arg, int64_t pos, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));

#define RB_NOINLINE __attribute__((noinline))

#endif
