/* internal.h: helpers shared by the core's .c files; not part of the API. */
#ifndef ROUNDBENCH_INTERNAL_H
#define ROUNDBENCH_INTERNAL_H

#include "roundbench.h"

/* Fills `err` (when not NULL) and returns `code`: the one way a core
 * function reports a failure. `msg` and `arg` must be constant strings. */
rb_status rb_fail(rb_error *err, rb_status code, const char *arg, const char *msg, int64_t pos);

#define RB_NOINLINE __attribute__((noinline))

#endif
