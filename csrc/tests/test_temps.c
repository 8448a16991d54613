/* test_temps.c: round temps against the shared vectors, and its bad input. */
#include "roundbench.h"
#include "vectors.h"

/* Parses "v,v,..." ("-" is empty) into at most max int64 values. */
static int parse_list(const char *s, int64_t *out, int max)
{
    int k = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    while (*s && k < max) {
        char *end;
        out[k++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
    }
    return k;
}

static void arange_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n"), want = rbt_int(v, "sum");
    int64_t *a = malloc((size_t)(n + 1) * sizeof *a);
    for (long long i = 0; i < n; i++)
        a[i] = i;
    int64_t got = -1;
    CHECK(rb_temps(a, n, &got, NULL) == RB_OK && got == want,
          "rb_temps(arange(%lld)) = %lld; want %lld", n, (long long)got, want);
    free(a);
}

static void array_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    int64_t a[32];
    int k = parse_list(rbt_get(v, "a"), a, 32);
    long long want = rbt_int(v, "sum");
    int64_t got = -1;
    CHECK(rb_temps(k ? a : NULL, k, &got, NULL) == RB_OK && got == want,
          "rb_temps(%s) = %lld; want %lld", rbt_get(v, "a"), (long long)got, want);
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    int64_t a[32];
    int k = parse_list(rbt_get(v, "a"), a, 32);
    long long pos = rbt_int(v, "pos");
    int64_t got = 12345;
    rb_error err;
    CHECK(rb_temps(a, k, &got, &err) == RB_ERR_OVERFLOW && strcmp(err.arg, "a") == 0 &&
              err.pos == pos && got == 12345,
          "rb_temps(%s): status %d pos %lld; want overflow at %lld", rbt_get(v, "a"), err.code,
          (long long)err.pos, pos);
    char where[32];
    snprintf(where, sizeof where, "has a[%lld] = %lld,", pos, (long long)a[pos]);
    CHECK(strncmp(err.msg, where, strlen(where)) == 0, "rb_temps(%s) message '%s'; want '%s...'",
          rbt_get(v, "a"), err.msg, where);
    /* The range form counts indices from a, wherever the range starts. */
    CHECK(rb_temps_range(a, pos, k, &got, &err) == RB_ERR_OVERFLOW && err.pos == pos &&
              strncmp(err.msg, where, strlen(where)) == 0,
          "rb_temps_range(%s, %lld, %d): pos %lld", rbt_get(v, "a"), pos, k, (long long)err.pos);
    CHECK(rb_temps_range(a, 0, pos, &got, &err) == RB_OK, "rb_temps_range up to the bad element");
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "temps", arange_vector, NULL) >= 5, "too few temps vectors");
    CHECK(rbt_each(path, "temps-array", array_vector, NULL) >= 3, "too few temps-array");
    CHECK(rbt_each(path, "temps-error", error_vector, NULL) >= 2, "too few temps-error");
    rb_error err;
    int64_t out, one = 3;
    CHECK(rb_temps(NULL, 1, &out, &err) == RB_ERR_ARG && strcmp(err.arg, "a") == 0, "NULL a");
    CHECK(rb_temps(&one, -1, &out, &err) == RB_ERR_ARG && strcmp(err.arg, "n") == 0, "n < 0");
    CHECK(rb_temps(&one, 1, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "out") == 0, "NULL out");
    CHECK(rb_temps(NULL, 0, &out, NULL) == RB_OK && out == 0, "empty");
    CHECK(rb_temps_range(&one, 1, 0, &out, &err) == RB_ERR_ARG && strcmp(err.arg, "hi") == 0,
          "hi < lo");
    CHECK(rb_temps_range(&one, -1, 1, &out, &err) == RB_ERR_ARG && strcmp(err.arg, "lo") == 0,
          "lo < 0");
    return rbt_done("test_temps");
}
