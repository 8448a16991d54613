/* test_loop.c: round loop against the shared vectors, and its bad input. */
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
    CHECK(rb_loop_range(lo, hi, &got, NULL) == RB_OK, "rb_loop_range(%lld, %lld) failed", lo, hi);
    CHECK(got == want, "rb_loop_range(%lld, %lld) = %lld; want %lld", lo, hi, (long long)got, want);
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n");
    const char *kind = rbt_get(v, "error");
    rb_status want = strcmp(kind, "overflow") == 0 ? RB_ERR_OVERFLOW : RB_ERR_ARG;
    int64_t got = 12345;
    rb_error err;
    rb_status st = rb_loop(n, &got, &err);
    CHECK(st == want, "rb_loop(%lld) status %d; want %d", n, st, want);
    CHECK(err.code == want, "rb_loop(%lld) err.code %d; want %d", n, err.code, want);
    CHECK(err.arg && strcmp(err.arg, "n") == 0, "rb_loop(%lld) names argument %s; want n", n,
          err.arg ? err.arg : "(null)");
    CHECK(err.msg && *err.msg, "rb_loop(%lld) has no message", n);
    CHECK(got == 12345, "rb_loop(%lld) wrote its output on failure", n);
    /* A NULL error record is allowed. */
    CHECK(rb_loop(n, &got, NULL) == want, "rb_loop(%lld, err=NULL) status", n);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "loop", loop_vector, NULL) >= 7, "too few loop vectors");
    CHECK(rbt_each(path, "loop-range", range_vector, NULL) >= 3, "too few loop-range vectors");
    CHECK(rbt_each(path, "loop-error", error_vector, NULL) >= 3, "too few loop-error vectors");

    rb_error err;
    CHECK(rb_loop(5, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "out") == 0,
          "NULL out must be RB_ERR_ARG naming out");
    CHECK(rb_loop_range(10, 5, &(int64_t){0}, &err) == RB_ERR_ARG && strcmp(err.arg, "hi") == 0,
          "hi < lo must be RB_ERR_ARG naming hi");
    CHECK(rb_loop_range(-3, 5, &(int64_t){0}, &err) == RB_ERR_ARG, "lo < 0 must fail");
    /* The largest n: run only its last few iterations through the range
     * form, where i*i is closest to INT64_MAX (UBSan checks the overflow). */
    int64_t top = 0;
    CHECK(rb_loop_range(RB_LOOP_MAX_N - 7, RB_LOOP_MAX_N, &top, NULL) == RB_OK,
          "the last range below RB_LOOP_MAX_N must run");
    CHECK(top == 14, "a full period sums to 14, got %lld", (long long)top);
    CHECK(strcmp(rb_status_name(RB_ERR_OVERFLOW), "overflow") == 0, "status names");
    CHECK(strlen(rb_build_info()) > 0, "build info");
    rb_error_clear(&err);
    CHECK(err.code == RB_OK && err.msg == NULL && err.pos == -1, "rb_error_clear");
    rb_error_clear(NULL);
    return rbt_done("test_loop");
}
