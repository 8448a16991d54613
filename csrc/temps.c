/* temps.c: round temps, the sum of a[i]*a[i] % 7 over an int64 array in one
 * fused pass: each element is read once and nothing is written, where
 * numpy's `(a*a % 7).sum()` writes and rereads two full-size temporaries. */
#include "roundbench.h"

#include "internal.h"

rb_status rb_temps_range(const int64_t *a, int64_t lo, int64_t hi, int64_t *out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (lo < 0)
        return rb_failf(err, RB_ERR_ARG, "lo", lo, "must be >= 0, not %lld", (long long)lo);
    if (hi < lo)
        return rb_failf(err, RB_ERR_ARG, "hi", hi, "must be >= lo (%lld), not %lld", (long long)lo,
                        (long long)hi);
    if (hi > lo && !a)
        return rb_fail(err, RB_ERR_ARG, "a", "must not be NULL", -1);
    uint64_t sum = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t x = a[i];
        /* One unsigned compare tests -MAX <= x <= MAX, so x*x cannot
         * overflow (undefined behaviour in C) and is never negative: C's %
         * then agrees with numpy's and Python's. */
        if ((uint64_t)x + (uint64_t)RB_TEMPS_MAX_ABS > 2 * (uint64_t)RB_TEMPS_MAX_ABS)
            return rb_failf(err, RB_ERR_OVERFLOW, "a", i,
                            "has a[%lld] = %lld, whose square would overflow int64 (|a[i]| must "
                            "be <= %lld)",
                            (long long)i, (long long)x, (long long)RB_TEMPS_MAX_ABS);
        sum += (uint64_t)(x * x) % 7;
    }
    *out = (int64_t)sum;
    return RB_OK;
}

rb_status rb_temps(const int64_t *a, int64_t n, int64_t *out, rb_error *err)
{
    if (n < 0)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 0, not %lld", (long long)n);
    return rb_temps_range(a, 0, n, out, err);
}
