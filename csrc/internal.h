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

/* Round aspects' pieces (csrc/aspects.c), reachable by the tests. The
 * arithmetic without libm, which they compare with libm's and printf's:
 * sin and cos of x degrees; atan2(y, x) in degrees; x printed as "%.2f"
 * into out (at least 32 bytes), NUL-terminated, returning the length. The
 * steps of an event, which they check against the shared vectors: a
 * body's longitude f into a day from its two rows; RAMC, MC and Asc; the
 * Porphyry cusps; the aspect of two points (0 .. 180, or -1 for none) with
 * their folded separation and its orb (meaningless for none). */
void rb_aspects_sincosd(double x, double *s, double *c);
double rb_aspects_atan2d(double y, double x);
size_t rb_aspects_format2(char *out, double x);
double rb_aspects_interpolate(double l0, double l1, double f);
void rb_aspects_house_angles(int64_t seconds, double lat, double lon, double *ramc, double *mc,
                             double *asc);
void rb_aspects_porphyry(double asc, double mc, double cusps[12]);
int rb_aspects_pair(double a, double b, double *sep, double *orb);

#endif
