/* temps.c: round temps, the sum of a[i]*a[i] % 7 over an int64 array in one
 * fused pass: each element is read once and nothing is written, where
 * numpy's `(a*a % 7).sum()` writes and rereads two full-size temporaries. */
#include "roundbench.h"

#include "internal.h"

rb_status rb_temps(const int64_t *a, int64_t n, int64_t *out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (n < 0)
        return rb_fail(err, RB_ERR_ARG, "n", "must be >= 0", n);
    if (n > 0 && !a)
        return rb_fail(err, RB_ERR_ARG, "a", "must not be NULL", -1);
    uint64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = a[i];
        /* One unsigned compare tests -MAX <= x <= MAX, so x*x cannot
         * overflow (undefined behaviour in C) and is never negative: C's %
         * then agrees with numpy's and Python's. */
        if ((uint64_t)x + (uint64_t)RB_TEMPS_MAX_ABS > 2 * (uint64_t)RB_TEMPS_MAX_ABS)
            return rb_fail(err, RB_ERR_OVERFLOW, "a",
                           "a[i]*a[i] would overflow int64 (|a[i]| <= 3037000499)", i);
        sum += (uint64_t)(x * x) % 7;
    }
    *out = (int64_t)sum;
    return RB_OK;
}
