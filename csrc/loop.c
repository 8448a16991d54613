/* loop.c: round loop, the sum of i*i % 7 over [0, n) in 64-bit integers. */
#include "roundbench.h"

#include "internal.h"

rb_status rb_loop_range_check(int64_t lo, int64_t hi, rb_error *err)
{
    if (lo < 0)
        return rb_failf(err, RB_ERR_ARG, "lo", lo, "must be >= 0, not %lld", (long long)lo);
    if (hi < lo)
        return rb_failf(err, RB_ERR_ARG, "hi", hi, "must be >= lo (%lld), not %lld", (long long)lo,
                        (long long)hi);
    if (hi > RB_LOOP_MAX_N)
        return rb_failf(err, RB_ERR_OVERFLOW, "hi", hi,
                        "must be <= %lld (i*i must fit in int64), not %lld",
                        (long long)RB_LOOP_MAX_N, (long long)hi);
    return RB_OK;
}

rb_status rb_loop_check(int64_t n, rb_error *err)
{
    if (n < 0)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 0, not %lld", (long long)n);
    if (n > RB_LOOP_MAX_N)
        return rb_failf(err, RB_ERR_OVERFLOW, "n", n,
                        "must be <= %lld (i*i must fit in int64), not %lld",
                        (long long)RB_LOOP_MAX_N, (long long)n);
    return RB_OK;
}

rb_status rb_loop_range(int64_t lo, int64_t hi, int64_t *out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    rb_status st = rb_loop_range_check(lo, hi, err);
    if (st != RB_OK)
        return st;

    int64_t sum = 0;
    for (int64_t i = lo; i < hi; i++)
        sum += i * i % 7;
    *out = sum;
    return RB_OK;
}

rb_status rb_loop(int64_t n, int64_t *out, rb_error *err)
{
    rb_status st = rb_loop_check(n, err);
    if (st != RB_OK)
        return st;
    return rb_loop_range(0, n, out, err);
}

int64_t rb_loop_expected(int64_t n)
{
    /* i*i % 7 depends only on i % 7: 0 1 4 2 2 4 1, which sums to 14. */
    static const int64_t prefix[7] = {0, 0, 1, 5, 7, 9, 13};
    if (n <= 0)
        return 0;
    return n / 7 * 14 + prefix[n % 7];
}
