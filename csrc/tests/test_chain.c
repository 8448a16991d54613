/* test_chain.c: round chain against the shared vectors, with both switches
 * (the core's own and swapcontext) and several chains at once; run under
 * ASan and UBSan by `make test-c`, which also checks that nothing leaks
 * (a chain freed without passing included). */
#include "roundbench.h"
#include "vectors.h"

static const rb_chain_switch hows[] = {RB_CHAIN_ASM, RB_CHAIN_UCONTEXT};

static void chain_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), k = rbt_int(v, "hop-work"), want = rbt_int(v, "value");
    int64_t expected = -1;
    CHECK(rb_chain_expected(n, k, &expected, NULL) == RB_OK && expected == want,
          "rb_chain_expected(%lld, %lld) = %lld; want %lld", n, k, (long long)expected, want);
    for (int h = 0; h < 2; h++) {
        for (int64_t p = 1; p <= 3; p += 2) {
            rb_chain *c = NULL;
            rb_error err;
            rb_status st = rb_chain_new(n, k, p, hows[h], &c, &err);
            CHECK(st == RB_OK, "rb_chain_new(%lld, %lld, %lld, %d) status %d", n, k, (long long)p,
                  h, st);
            if (st != RB_OK)
                continue;
            CHECK(rb_chain_n(c) == n && rb_chain_parallel(c) == p, "rb_chain_n/parallel");
            int64_t out[3] = {-1, -1, -1};
            st = rb_chain_pass(c, out, &err);
            CHECK(st == RB_OK, "rb_chain_pass(n=%lld) status %d", n, st);
            for (int64_t i = 0; i < p; i++)
                CHECK(out[i] == want,
                      "chain n=%lld hop-work=%lld how=%d parallel=%lld: chain %lld "
                      "= %lld; want %lld",
                      n, k, h, (long long)p, (long long)i, (long long)out[i], want);
            /* A chain passes once. */
            CHECK(rb_chain_pass(c, out, &err) == RB_ERR_ARG && strcmp(err.arg, "chain") == 0,
                  "a second pass must be RB_ERR_ARG naming chain");
            rb_chain_free(c);
        }
    }
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), k = rbt_int(v, "hop-work"), p = rbt_int(v, "parallel");
    rb_status want = rbt_status(v);
    rb_chain *c = (rb_chain *)&c; /* must stay untouched */
    rb_error err;
    rb_status st = rb_chain_new(n, k, p, RB_CHAIN_ASM, &c, &err);
    CHECK(st == want, "rb_chain_new(%lld, %lld, %lld) status %d; want %d", n, k, p, st, want);
    CHECK(err.arg && *err.msg, "rb_chain_new(%lld, %lld, %lld) names no argument", n, k, p);
    CHECK(c == (rb_chain *)&c, "rb_chain_new wrote its output on failure");
    CHECK(rb_chain_new(n, k, p, RB_CHAIN_ASM, &c, NULL) == want, "err=NULL status");
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "chain", chain_vector, NULL) >= 8, "too few chain vectors");
    CHECK(rbt_each(path, "chain-error", error_vector, NULL) >= 5, "too few chain-error vectors");

    rb_error err;
    rb_chain *c = NULL;
    CHECK(rb_chain_new(1, 0, 1, RB_CHAIN_ASM, NULL, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "out") == 0,
          "NULL out must be RB_ERR_ARG naming out");
    CHECK(rb_chain_new(1, 0, 1, (rb_chain_switch)7, &c, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "how") == 0,
          "an unknown switch must be RB_ERR_ARG naming how");
    CHECK(rb_chain_pass(NULL, &(int64_t){0}, &err) == RB_ERR_ARG, "NULL chain must fail");
    /* The closed form checks what rb_chain_new checks of n and hop_work
     * (n = 0 is a fine closed form, though no chain). */
    int64_t x = -7;
    CHECK(rb_chain_expected(0, 5, &x, &err) == RB_OK && x == 0, "expected(0, 5)");
    CHECK(rb_chain_expected(-1, 0, &x, &err) == RB_ERR_ARG && strcmp(err.arg, "n") == 0,
          "expected(-1, 0) must name n");
    CHECK(rb_chain_expected(1, -1, &x, &err) == RB_ERR_ARG && strcmp(err.arg, "hop_work") == 0,
          "expected(1, -1) must name hop_work");
    CHECK(rb_chain_expected(1000, INT64_C(2000000000000000), &x, &err) == RB_ERR_OVERFLOW &&
              strcmp(err.arg, "hop_work") == 0 && x == 0,
          "expected(1000, 2e15) must overflow naming hop_work, output untouched");
    CHECK(rb_chain_expected(1, 0, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "out") == 0,
          "expected with NULL out");
    /* A chain freed before it passed: its suspended tasks must not leak. */
    for (int h = 0; h < 2; h++) {
        c = NULL;
        CHECK(rb_chain_new(5000, 3, 2, hows[h], &c, &err) == RB_OK, "rb_chain_new(5000)");
        rb_chain_free(c);
    }
    rb_chain_free(NULL);
    /* A longer chain: many arena chunks and deep runs of the scheduler. */
    for (int h = 0; h < 2; h++) {
        c = NULL;
        int64_t out = 0;
        CHECK(rb_chain_new(30000, 0, 1, hows[h], &c, &err) == RB_OK, "rb_chain_new(30000)");
        CHECK(rb_chain_pass(c, &out, &err) == RB_OK && out == 30000, "chain of 30000 = %lld",
              (long long)out);
        rb_chain_free(c);
    }
    CHECK(rb_chain_hop(0, 0) == 1 && rb_chain_hop(6, 1) == 8 && rb_chain_hop(1, 2) == 7,
          "rb_chain_hop");
    return rbt_done("test_chain");
}
