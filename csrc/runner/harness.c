/* harness.c: timing, argument checking and result printing for the C runner. */
#define _GNU_SOURCE
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t rbc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t rbc_int_arg(const rbc_args *a, const char *key, int64_t def, int64_t min, int64_t max)
{
    for (int i = 0; i < a->count; i++) {
        if (strcmp(a->keys[i], key) != 0)
            continue;
        const char *s = a->values[i];
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (!*s || *end || errno == ERANGE) {
            fprintf(stderr, "%s: %s=%s is not an integer\n", a->round, key, s);
            exit(RBC_EXIT_USAGE);
        }
        if (v < min || v > max) {
            fprintf(stderr, "%s: %s=%lld is out of range [%lld, %lld]\n", a->round, key, v,
                    (long long)min, (long long)max);
            exit(RBC_EXIT_USAGE);
        }
        return v;
    }
    return def;
}

const char *rbc_str_arg(const rbc_args *a, const char *key, const char *def)
{
    for (int i = 0; i < a->count; i++)
        if (strcmp(a->keys[i], key) == 0)
            return a->values[i];
    return def;
}

/* Slicing by eight: table[k][b] is the CRC of byte b followed by k zero
 * bytes, so eight bytes take eight lookups and no loop over bits. */
uint32_t rbc_crc32(uint32_t crc, const void *p, size_t n)
{
    static uint32_t table[8][256];
    static int ready;
    if (!ready) {
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t c = b;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            table[0][b] = c;
        }
        for (int k = 1; k < 8; k++)
            for (int b = 0; b < 256; b++)
                table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
        ready = 1;
    }
    const unsigned char *s = p;
    crc = ~crc;
    for (; n >= 8; n -= 8, s += 8) {
        uint32_t lo = crc ^ ((uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
                             (uint32_t)s[3] << 24);
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
              table[4][lo >> 24] ^ table[3][s[4]] ^ table[2][s[5]] ^ table[1][s[6]] ^
              table[0][s[7]];
    }
    while (n--)
        crc = (crc >> 8) ^ table[0][(crc ^ *s++) & 0xff];
    return ~crc;
}

/* Large values in plain digits, the rest with 6 significant digits, as the
 * Go and Python harnesses print them (protocol.txt, protocol-number). */
static void print_value(FILE *f, double x)
{
    if (x >= 1e5 || x <= -1e5)
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.6g", x);
}

int rbc_unit_declared(const rbc_variant *v, const char *unit)
{
    size_t len = strlen(unit);
    for (const char *p = v->units; p && *p;) {
        p += strspn(p, " ");
        size_t k = strcspn(p, " ");
        if (k == len && strncmp(p, unit, len) == 0)
            return 1;
        p += k;
    }
    return 0;
}

/* Writes the result line (protocol.txt, protocol-line) to f; rbc_emit checks
 * its units first. */
static void print_line(FILE *f, const rbc_args *a, int64_t iters, double ns_per_op,
                       const rbc_metric *metrics, int nmetrics)
{
    fprintf(f, "Benchmark%c%s/impl=%s", toupper((unsigned char)a->round[0]), a->round + 1, a->impl);
    for (int i = 0; i < a->count; i++)
        fprintf(f, "/%s=%s", a->keys[i], a->values[i]);
    fprintf(f, " %lld ", (long long)iters);
    print_value(f, ns_per_op);
    fputs(" ns/op", f);
    for (int i = 0; i < nmetrics; i++) {
        fputc(' ', f);
        print_value(f, metrics[i].value);
        fprintf(f, " %s", metrics[i].unit);
    }
    fputc('\n', f);
}

void rbc_emit(const rbc_args *a, int64_t iters, double ns_per_op, const rbc_metric *metrics,
              int nmetrics)
{
    /* Checked before anything is printed: a refused line is not half out. */
    for (int i = 0; i < nmetrics; i++) {
        if (!rbc_unit_declared(a->variant, metrics[i].unit)) {
            fprintf(stderr,
                    "%s %s: unit '%s' is not declared for this variant (it declares: '%s'; "
                    "see its RBC_ROUND)\n",
                    a->round, a->impl, metrics[i].unit, a->variant->units ? a->variant->units : "");
            exit(RBC_EXIT_USAGE);
        }
    }
    print_line(stdout, a, iters, ns_per_op, metrics, nmetrics);
    fflush(stdout);
}

void rbc_result(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("result: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

void rbc_result_unchecked(const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "out of memory printing the result\n");
        exit(RBC_EXIT_FAILED);
    }
    printf("result: %s\nfact: result %s\n", text, text);
    fflush(stdout);
    free(text);
}

int rbc_expect_path(const char *env, const char *input, char *buf, size_t size)
{
    const char *named = getenv(env);
    if (named && !*named)
        return 0;
    int n = named ? snprintf(buf, size, "%s", named) : snprintf(buf, size, "%s.expect", input);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "the expected result's path is too long (%s)\n", named ? env : input);
        exit(RBC_EXIT_USAGE);
    }
    return 1;
}

void rbc_wrong(const char *what, long long got, long long want)
{
    fprintf(stderr, "wrong result: %s = %lld; want %lld\n", what, got, want);
    exit(RBC_EXIT_WRONG);
}

void rbc_check(const char *what, long long got, long long want)
{
    if (got != want)
        rbc_wrong(what, got, want);
}

void rbc_core_failed(const char *call, const rb_error *err)
{
    fprintf(stderr, "%s failed: %s: %s%s%s", call, rb_status_name(err->code),
            err->arg ? "argument " : "", err->arg ? err->arg : "", err->arg ? ": " : "");
    fprintf(stderr, "%s", err->msg);
    if (err->sys_errno)
        fprintf(stderr, ": %s", strerror(err->sys_errno));
    fprintf(stderr, " (pos %lld)\n", (long long)err->pos);
    exit(RBC_EXIT_FAILED);
}

int64_t rbc_proc_bytes(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[256];
    size_t klen = strlen(key);
    int64_t v = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtoll(line + klen + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

void rbc_warm_up(void (*fn)(void *ctx), void *ctx)
{
    uint64_t t0 = rbc_now_ns();
    for (int i = 0; i < RBC_WARMUP_CALLS && rbc_now_ns() - t0 < RBC_WARMUP_NS; i++)
        fn(ctx);
}

double rbc_calibrated(rbc_timed op, rbc_timed empty, void *ctx, int64_t *count_out)
{
    const uint64_t target = RBC_CALIBRATE_NS;
    int64_t count = 1000;
    for (;;) {
        uint64_t t = op(ctx, count);
        if (t >= target)
            break;
        /* Aim 20% past the target, at most 100x per step. */
        double grow = t > 0 ? 1.2 * (double)target / (double)t : 100.0;
        if (grow > 100.0)
            grow = 100.0;
        if (grow < 1.5)
            grow = 1.5;
        count = (int64_t)((double)count * grow);
    }
    uint64_t best_op = UINT64_MAX, best_empty = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t t = op(ctx, count);
        if (t < best_op)
            best_op = t;
        t = empty(ctx, count);
        if (t < best_empty)
            best_empty = t;
    }
    *count_out = count;
    return ((double)best_op - (double)best_empty) / (double)count;
}
