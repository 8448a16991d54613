/* test_loop.c: round loop against the shared vectors, and its bad input
 * (the range form's own bounds included). */
#include "roundbench.h"
#include "vectors.h"

static void loop_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), want = rbt_int(v, "sum");
    int64_t got = -1;
    rb_error err;
    rb_status st = rb_loop(n, &got, &err);
    CHECK(st == RB_OK, "rb_loop(%lld) status %d", n, st);
    CHECK(got == want, "rb_loop(%lld) = %lld; want %lld", n, (long long)got, want);
    CHECK(rb_loop_expected(n) == want, "rb_loop_expected(%lld) = %lld; want %lld", n,
          (long long)rb_loop_expected(n), want);
}

static void range_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long lo = rbt_int(v, "lo"), hi = rbt_int(v, "hi"), want = rbt_int(v, "sum");
    int64_t got = -1;
    rb_error err;
    CHECK(rb_loop_range(lo, hi, &got, &err) == RB_OK, "rb_loop_range(%lld, %lld) failed: %s", lo,
          hi, err.msg);
    CHECK(got == want, "rb_loop_range(%lld, %lld) = %lld; want %lld", lo, hi, (long long)got, want);
    CHECK(rb_loop_range_check(lo, hi, &err) == RB_OK, "rb_loop_range_check(%lld, %lld)", lo, hi);
}

/* rb_loop_range's own checks, not rb_loop's: its bounds are what a worker
 * of the cores round and a binding that slices a call rely on. */
static void range_error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long lo = rbt_int(v, "lo"), hi = rbt_int(v, "hi");
    const char *arg = rbt_get(v, "arg");
    rb_status want = rbt_status(v);
    int64_t got = 12345;
    rb_error err;
    rb_status st = rb_loop_range(lo, hi, &got, &err);
    CHECK(st == want, "rb_loop_range(%lld, %lld) status %d; want %d", lo, hi, st, want);
    CHECK(err.code == want && err.arg && strcmp(err.arg, arg) == 0,
          "rb_loop_range(%lld, %lld) names argument %s; want %s", lo, hi,
          err.arg ? err.arg : "(null)", arg);
    /* The message carries the value that was wrong. */
    char value[32];
    snprintf(value, sizeof value, "not %lld", strcmp(arg, "lo") == 0 ? lo : hi);
    CHECK(strstr(err.msg, value) != NULL, "rb_loop_range(%lld, %lld) message '%s' lacks '%s'", lo,
          hi, err.msg, value);
    CHECK(got == 12345, "rb_loop_range(%lld, %lld) wrote its output on failure", lo, hi);
    CHECK(rb_loop_range(lo, hi, &got, NULL) == want, "rb_loop_range(%lld, %lld, err=NULL)", lo, hi);
    CHECK(rb_loop_range_check(lo, hi, &err) == want && strcmp(err.arg, arg) == 0,
          "rb_loop_range_check(%lld, %lld) must fail as rb_loop_range does", lo, hi);
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n");
    rb_status want = rbt_status(v);
    int64_t got = 12345;
    rb_error err;
    rb_status st = rb_loop(n, &got, &err);
    CHECK(st == want, "rb_loop(%lld) status %d; want %d", n, st, want);
    CHECK(err.code == want, "rb_loop(%lld) err.code %d; want %d", n, err.code, want);
    CHECK(err.arg && strcmp(err.arg, "n") == 0, "rb_loop(%lld) names argument %s; want n", n,
          err.arg ? err.arg : "(null)");
    char value[32];
    snprintf(value, sizeof value, "not %lld", n);
    CHECK(strstr(err.msg, value) != NULL, "rb_loop(%lld) message '%s' lacks '%s'", n, err.msg,
          value);
    CHECK(rb_loop_check(n, &err) == want && strcmp(err.arg, "n") == 0,
          "rb_loop_check(%lld) must fail as rb_loop does", n);
    CHECK(got == 12345, "rb_loop(%lld) wrote its output on failure", n);
    /* A NULL error record is allowed. */
    CHECK(rb_loop(n, &got, NULL) == want, "rb_loop(%lld, err=NULL) status", n);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "loop", loop_vector, NULL) >= 7, "too few loop vectors");
    CHECK(rbt_each(path, "loop-range", range_vector, NULL) >= 8, "too few loop-range vectors");
    CHECK(rbt_each(path, "loop-range-error", range_error_vector, NULL) >= 6,
          "too few loop-range-error vectors");
    CHECK(rbt_each(path, "loop-error", error_vector, NULL) >= 3, "too few loop-error vectors");

    rb_error err;
    CHECK(rb_loop(5, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "out") == 0,
          "NULL out must be RB_ERR_ARG naming out");
    CHECK(rb_loop(-1, &(int64_t){0}, &err) == RB_ERR_ARG &&
              strcmp(err.msg, "must be >= 0, not -1") == 0,
          "the message reads after the argument's name: '%s'", err.msg);
    CHECK(strcmp(rb_status_name(RB_ERR_OVERFLOW), "overflow") == 0, "status names");
    CHECK(strlen(rb_build_info()) > 0, "build info");
    rb_error_clear(&err);
    CHECK(err.code == RB_OK && err.arg == NULL && err.msg[0] == '\0' && err.pos == -1 &&
              err.sys_errno == 0,
          "rb_error_clear");
    rb_error_clear(NULL);
    return rbt_done("test_loop");
}
