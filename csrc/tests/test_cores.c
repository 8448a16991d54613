/* test_cores.c: round cores: the parallel loop and the split into shares,
 * against the shared vectors; bad input. Under ASan, UBSan (make test-c). */
#include "roundbench.h"
#include "vectors.h"

static void cores_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), t = rbt_int(v, "workers"), want = rbt_int(v, "sum");
    int64_t got = -1;
    rb_error err;
    rb_status st = rb_loop_parallel(n, t, &got, &err);
    CHECK(st == RB_OK, "rb_loop_parallel(%lld, %lld) status %d", n, t, st);
    CHECK(got == want, "rb_loop_parallel(%lld, %lld) = %lld; want %lld", n, t, (long long)got,
          want);
}

static void share_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), t = rbt_int(v, "workers"), w = rbt_int(v, "w");
    int64_t lo, hi;
    rb_cores_share(n, t, w, &lo, &hi);
    CHECK(lo == rbt_int(v, "lo") && hi == rbt_int(v, "hi"),
          "rb_cores_share(%lld, %lld, %lld) = [%lld, %lld); want [%lld, %lld)", n, t, w,
          (long long)lo, (long long)hi, rbt_int(v, "lo"), rbt_int(v, "hi"));
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), t = rbt_int(v, "workers");
    rb_status want = rbt_status(v);
    int64_t got = 777;
    rb_error err;
    CHECK(rb_loop_parallel(n, t, &got, &err) == want, "rb_loop_parallel(%lld, %lld) status", n, t);
    CHECK(err.arg && strcmp(err.arg, rbt_get(v, "arg")) == 0,
          "rb_loop_parallel(%lld, %lld) names %s; want %s", n, t, err.arg ? err.arg : "(null)",
          rbt_get(v, "arg"));
    CHECK(got == 777, "output written on failure");
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "cores", cores_vector, NULL) >= 8, "too few cores vectors");
    CHECK(rbt_each(path, "cores-share", share_vector, NULL) >= 10, "too few cores-share vectors");
    CHECK(rbt_each(path, "cores-error", error_vector, NULL) >= 4, "too few cores-error vectors");
    CHECK(rb_loop_parallel(5, 2, NULL, NULL) == RB_ERR_ARG, "NULL out");
    /* Shares tile [0, n) exactly, for every worker count up to 64. */
    for (int64_t t = 1; t <= 64; t++) {
        int64_t next = 0;
        for (int64_t w = 0; w < t; w++) {
            int64_t lo, hi;
            rb_cores_share(1001, t, w, &lo, &hi);
            CHECK(lo == next && hi >= lo && hi - lo <= 1001 / t + 1, "share %lld of %lld",
                  (long long)w, (long long)t);
            next = hi;
        }
        CHECK(next == 1001, "the shares of %lld workers end at %lld", (long long)t,
              (long long)next);
    }
    return rbt_done("test_cores");
}
