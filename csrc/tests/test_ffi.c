/* test_ffi.c: round ffi's callees against the shared vectors. */
#include "roundbench.h"
#include "vectors.h"

static void noop_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long x = rbt_int(v, "x"), want = rbt_int(v, "noop");
    CHECK(rb_ffi_noop(x) == want, "rb_ffi_noop(%lld) = %lld; want %lld", x,
          (long long)rb_ffi_noop(x), want);
    CHECK(rb_ffi_noop_noescape(x) == want, "rb_ffi_noop_noescape(%lld)", x);
    CHECK(rb_ffi_noop_nocallback(x) == want, "rb_ffi_noop_nocallback(%lld)", x);
}

static void buffer_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    const char *hex = rbt_get(v, "hex");
    long long want = rbt_int(v, "result");
    uint8_t buf[128];
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++)
        sscanf(hex + 2 * i, "%2hhx", &buf[i]);
    CHECK(rb_ffi_buffer(n ? buf : NULL, n) == want, "rb_ffi_buffer(%s) = %lld; want %lld", hex,
          (long long)rb_ffi_buffer(buf, n), want);
}

static int count_calls(void *ctx, int64_t x, int64_t *result)
{
    (*(int64_t *)ctx)++;
    *result = x * 2;
    return 0;
}

static int stop_at_three(void *ctx, int64_t x, int64_t *result)
{
    (void)ctx;
    *result = 1;
    return x == 3;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "ffi", noop_vector, NULL) >= 3, "too few ffi vectors");
    CHECK(rbt_each(path, "ffi-buffer", buffer_vector, NULL) >= 3, "too few ffi-buffer vectors");

    int64_t calls = 0, sum = -1;
    CHECK(rb_ffi_callback_loop(count_calls, &calls, 100, &sum, NULL) == RB_OK, "callback loop");
    CHECK(calls == 100 && sum == 9900, "callback loop: %lld calls, sum %lld; want 100, 9900",
          (long long)calls, (long long)sum);
    CHECK(rb_ffi_callback_loop(rb_ffi_noop_callback, NULL, 0, &sum, NULL) == RB_OK && sum == 0,
          "zero calls");
    CHECK(rb_ffi_callback_loop(rb_ffi_noop_callback, NULL, 4, &sum, NULL) == RB_OK &&
              sum == 1 + 2 + 3 + 4,
          "noop callback sums x+1");

    rb_error err;
    CHECK(rb_ffi_callback_loop(stop_at_three, NULL, 10, &sum, &err) == RB_ERR_INTERRUPTED,
          "a failing callback stops the loop");
    CHECK(err.pos == 3 && sum == 3, "stopped at call %lld with sum %lld; want 3, 3",
          (long long)err.pos, (long long)sum);
    CHECK(rb_ffi_callback_loop(NULL, NULL, 1, &sum, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "cb") == 0,
          "NULL callback");
    CHECK(rb_ffi_callback_loop(rb_ffi_noop_callback, NULL, -1, &sum, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "count") == 0,
          "negative count");
    return rbt_done("test_ffi");
}
