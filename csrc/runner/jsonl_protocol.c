/* jsonl_protocol.c: round jsonl's side of the C measurement protocol
 * (jsonl_protocol.h), shared by every C program with a jsonl variant.
 *
 * The log is generated once by the Python side (roundbench.rounds.jsonl.genlog, cached
 * in the build directory) and named by $ROUNDBENCH_JSONL_FILE; the expected
 * result, which the generator knows line by line, is in the file
 * $ROUNDBENCH_JSONL_EXPECT names (FILE.expect beside it when unset). A
 * user's own log (`roundbench run jsonl --param file=PATH`) has none: the
 * variable is set empty and the result is printed unchecked, for the
 * parent to hold the variants to each other. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_protocol.h"

char *rbc_jsonl_result_text(const rb_jsonl_result *r)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (size_t i = 0; i < r->nreported; i++) {
        char item[64];
        int n = snprintf(item, sizeof item, "%" PRId64 ":%s\n", r->reported[i].line,
                         rb_jsonl_reason_name(r->reported[i].reason));
        for (int k = 0; k < n; k++)
            h = (h ^ (uint8_t)item[k]) * UINT64_C(0x100000001B3);
    }
    size_t cap = 256 + r->nstatuses * 48;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t len = (size_t)snprintf(s, cap,
                                  "lines=%" PRId64 " blank=%" PRId64 " valid=%" PRId64
                                  " invalid=%" PRId64 " statuses=",
                                  r->lines, r->blank, r->valid, r->invalid);
    for (size_t i = 0; i < r->nstatuses; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%" PRId64 ":%" PRId64, i ? "," : "",
                                r->statuses[i].status, r->statuses[i].count);
    snprintf(s + len, cap - len, " reported=%zu:%016" PRIx64, r->nreported, h);
    return s;
}

/* Reads the first line of the file at expect_path into want, as
 * rbc_jsonl_expected does. */
static int read_expected(const char *who, const char *expect_path, char *want, size_t size)
{
    FILE *f = fopen(expect_path, "r");
    int ok = f && fgets(want, (int)size, f);
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: cannot read the expected result %s\n", who, expect_path);
        return -1;
    }
    want[strcspn(want, "\n")] = '\0';
    return 0;
}

int rbc_jsonl_expected(const char *who, const char *path, char *want, size_t size)
{
    char expect_path[4096];
    snprintf(expect_path, sizeof expect_path, "%s.expect", path);
    return read_expected(who, expect_path, want, size);
}

int rbc_jsonl_protocol(const rbc_args *a, rbc_jsonl_counter count, const char *what)
{
    /* Names the log only (the parent generates it at this size), but is
     * checked as every child checks its parameters. */
    rbc_int_arg(a, "lines", RBC_JSONL_DEFAULT_LINES, 0, RBC_JSONL_MAX_LINES);
    const char *path = getenv(RBC_ENV_JSONL_FILE);
    if (!path || !*path) {
        fprintf(stderr, "jsonl: " RBC_ENV_JSONL_FILE " names no log (run it through `roundbench "
                        "run jsonl`, which generates the log)\n");
        return RBC_EXIT_USAGE;
    }
    char expect_path[4096], want[8192];
    int checked = rbc_expect_path(RBC_ENV_JSONL_EXPECT, path, expect_path, sizeof expect_path);
    if (checked && read_expected("jsonl", expect_path, want, sizeof want) != 0)
        return RBC_EXIT_USAGE;

    /* Warm-up, as in every runner: one untimed count of the small log
     * ($ROUNDBENCH_JSONL_WARMUP_FILE, checked against its own .expect),
     * then the real file into the page cache, so that the timed count
     * starts with warm code and data and the CPU columns compare counts. */
    const char *warm_path = getenv(RBC_ENV_JSONL_WARMUP_FILE);
    if (warm_path && *warm_path) {
        char warm_want[8192];
        if (rbc_jsonl_expected("jsonl (warm-up)", warm_path, warm_want, sizeof warm_want) != 0)
            return RBC_EXIT_USAGE;
        rb_error werr;
        rb_jsonl_result wres;
        rb_jsonl_result_init(&wres);
        if (count(warm_path, &wres, &werr) != RB_OK)
            rbc_core_failed(what, &werr);
        char *wgot = rbc_jsonl_result_text(&wres);
        if (!wgot || strcmp(wgot, warm_want) != 0) {
            fprintf(stderr, "wrong result: warm-up %s; want %s\n", wgot ? wgot : "(no memory)",
                    warm_want);
            free(wgot);
            return RBC_EXIT_WRONG;
        }
        free(wgot);
        rb_jsonl_result_free(&wres);
    }
    FILE *warm = fopen(path, "rb");
    if (!warm) {
        fprintf(stderr, "jsonl: cannot open %s\n", path);
        return RBC_EXIT_FAILED;
    }
    static char chunk[1 << 16];
    while (fread(chunk, 1, sizeof chunk, warm) == sizeof chunk)
        ;
    fclose(warm);

    rb_error err;
    rb_jsonl_result res;
    rb_jsonl_result_init(&res);
    uint64_t t0 = rbc_now_ns();
    rb_status st = count(path, &res, &err);
    uint64_t t1 = rbc_now_ns();
    if (st != RB_OK)
        rbc_core_failed(what, &err);

    char *got = rbc_jsonl_result_text(&res);
    if (!got) {
        fprintf(stderr, "jsonl: out of memory\n");
        return RBC_EXIT_FAILED;
    }
    if (checked && strcmp(got, want) != 0) {
        fprintf(stderr, "wrong result: %s; want %s\n", got, want);
        free(got);
        return RBC_EXIT_WRONG;
    }
    double ns = (double)(t1 - t0);
    rbc_metric m[] = {{ns > 0 ? (double)res.bytes / ns * 1e3 : 0.0, "MB/s"},
                      {(double)res.invalid, "invalid-lines"}};
    if (checked)
        rbc_result("%s", got);
    else
        rbc_result_unchecked("%s", got);
    rbc_emit(a, 1, ns, m, 2);
    free(got);
    rb_jsonl_result_free(&res);
    return RBC_EXIT_OK;
}
