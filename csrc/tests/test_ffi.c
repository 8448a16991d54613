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

/* Decodes the vector's hex=... into buf (NUL-terminated); its length. */
static size_t unhex(const rbt_vector *v, char *buf, size_t cap)
{
    const char *hex = rbt_str(v, "hex");
    size_t n = strlen(hex) / 2;
    CHECK(n < cap && strlen(hex) % 2 == 0, "%s: hex=%s is too long or odd", v->kind, hex);
    for (size_t i = 0; i < n && i < cap - 1; i++)
        sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&buf[i]);
    buf[n < cap ? n : cap - 1] = '\0';
    return n;
}

static void args4_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char s[128];
    unhex(v, s, sizeof s);
    long long a = rbt_int(v, "a"), c = rbt_int(v, "c"), want = rbt_int(v, "result");
    double b = rbt_num(v, "b");
    long long got = rb_ffi_args4(a, b, (int32_t)c, s);
    CHECK(got == want, "rb_ffi_args4(%lld, %s, %lld, \"%s\") = %lld; want %lld", a, rbt_str(v, "b"),
          c, s, got, want);
}

static void str_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char want[128];
    unhex(v, want, sizeof want);
    long long x = rbt_int(v, "x");
    const char *got = rb_ffi_str(x);
    CHECK(got && strcmp(got, want) == 0, "rb_ffi_str(%lld) = \"%s\"; want \"%s\"", x,
          got ? got : "(null)", want);
}

/* rb_ffi_str's contract beyond the vectors: every x chooses a string, the
 * same pointer as x mod RB_FFI_STR_COUNT does, so the table is static and
 * no call makes one. */
static void str_contract(void)
{
    const int64_t xs[] = {INT64_MIN, INT64_MIN + 1, -5,       -4, -1, 0, 1, 3, 4, 7,
                          1000003,   INT64_MAX - 1, INT64_MAX};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        const char *got = rb_ffi_str(xs[i]);
        uint64_t k = (uint64_t)xs[i] % RB_FFI_STR_COUNT;
        CHECK(got != NULL, "rb_ffi_str(%lld) is NULL", (long long)xs[i]);
        CHECK(got == rb_ffi_str((int64_t)k), "rb_ffi_str(%lld) is not entry %llu", (long long)xs[i],
              (unsigned long long)k);
        CHECK(got == rb_ffi_str(xs[i]), "rb_ffi_str(%lld) moved between calls", (long long)xs[i]);
    }
    for (int64_t k = 0; k < RB_FFI_STR_COUNT; k++)
        for (int64_t j = 0; j < k; j++)
            CHECK(strcmp(rb_ffi_str(k), rb_ffi_str(j)) != 0, "entries %lld and %lld are equal",
                  (long long)j, (long long)k);
}

/* rb_ffi_args4 beyond the vectors: NULL counts as "", and the string is
 * read up to its first NUL. */
static void args4_contract(void)
{
    CHECK(rb_ffi_args4(1, 2.0, 3, NULL) == 6, "rb_ffi_args4(1, 2.0, 3, NULL) = %lld; want 6",
          (long long)rb_ffi_args4(1, 2.0, 3, NULL));
    CHECK(rb_ffi_args4(0, 0.0, 0, "ab\0cd") == 2, "rb_ffi_args4 reads past the first NUL");
    CHECK(rb_ffi_args4(0, -1.0, 0, "") == -1, "trunc(-1.0) is -1");
    CHECK(rb_ffi_args4(0, 0.9999, 0, "") == 0 && rb_ffi_args4(0, -0.9999, 0, "") == 0,
          "trunc rounds toward zero");
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
    CHECK(rbt_each(path, "ffi-args4", args4_vector, NULL) >= 12, "too few ffi-args4 vectors");
    CHECK(rbt_each(path, "ffi-str", str_vector, NULL) >= 8, "too few ffi-str vectors");
    args4_contract();
    str_contract();

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
