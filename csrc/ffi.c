/* ffi.c: round ffi. The callees are alone in this translation unit and
 * marked noinline, so neither the compiler nor a caller elsewhere can fold
 * them away: every mechanism pays for a real call to the same machine code. */
#include <string.h>

#include "roundbench.h"

#include "internal.h"

RB_NOINLINE int64_t rb_ffi_noop(int64_t x)
{
    /* Unsigned arithmetic: x + 1 wraps instead of being undefined. */
    return (int64_t)((uint64_t)x + 1u);
}

/* Aliases: one body, several symbols (see roundbench.h). */
int64_t rb_ffi_noop_noescape(int64_t x) __attribute__((alias("rb_ffi_noop")));
int64_t rb_ffi_noop_nocallback(int64_t x) __attribute__((alias("rb_ffi_noop")));

RB_NOINLINE int64_t rb_ffi_buffer(const uint8_t *p, size_t n)
{
    if (!p || n == 0)
        return 0;
    return (int64_t)p[0] + (int64_t)p[n - 1];
}

RB_NOINLINE void rb_ffi_noop_out(int64_t x, int64_t *out)
{
    *out = rb_ffi_noop(x);
}

void rb_ffi_noop_out_noescape(int64_t x, int64_t *out) __attribute__((alias("rb_ffi_noop_out")));
void rb_ffi_noop_out_nocallback(int64_t x, int64_t *out) __attribute__((alias("rb_ffi_noop_out")));
void rb_ffi_noop_out_both(int64_t x, int64_t *out) __attribute__((alias("rb_ffi_noop_out")));

int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result)
{
    (void)ctx;
    *result = rb_ffi_noop(x);
    return 0;
}

rb_status rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sum,
                               rb_error *err)
{
    if (!cb)
        return rb_fail(err, RB_ERR_ARG, "cb", "must not be NULL", -1);
    if (count < 0)
        return rb_failf(err, RB_ERR_ARG, "count", count, "must be >= 0, not %lld",
                        (long long)count);
    if (!sum)
        return rb_fail(err, RB_ERR_ARG, "sum", "must not be NULL", -1);
    uint64_t acc = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t r = 0;
        if (cb(ctx, i, &r) != 0) {
            *sum = (int64_t)acc;
            return rb_failf(err, RB_ERR_INTERRUPTED, "cb", i, "the callback failed on call %lld",
                            (long long)i);
        }
        acc += (uint64_t)r;
    }
    *sum = (int64_t)acc;
    return RB_OK;
}

RB_NOINLINE int64_t rb_ffi_args4(int64_t a, double b, int32_t c, const char *s)
{
    /* -2^63 and 2^63 are exact doubles: b converts to int64_t without
     * undefined behaviour inside them, and NaN fails both comparisons. */
    int64_t whole = b >= -9223372036854775808.0 && b < 9223372036854775808.0 ? (int64_t)b : 0;
    uint64_t acc = (uint64_t)a + (uint64_t)whole + (uint64_t)(int64_t)c;
    return (int64_t)(acc + (s ? strlen(s) : 0));
}

/* The strings rb_ffi_str chooses from: the empty one, ASCII with a space,
 * and one whose UTF-8 holds two-byte characters, so that a binding that
 * decoded anything but UTF-8 would get them wrong. */
static const char *const ffi_strings[RB_FFI_STR_COUNT] = {
    "",
    "hello, world",
    "x + 1",
    "na\xc3\xafve caf\xc3\xa9",
};

RB_NOINLINE const char *rb_ffi_str(int64_t x)
{
    return ffi_strings[(uint64_t)x % RB_FFI_STR_COUNT];
}
