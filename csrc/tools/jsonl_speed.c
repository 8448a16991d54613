/* jsonl_speed.c: rb-jsonl-speed, the jsonl core's throughput from memory,
 * kernel by kernel.
 *
 *   rb-jsonl-speed FILE [REPS [KERNEL...]]
 *
 * Reads FILE (a log from `roundbench gen-log`, with FILE.expect beside it)
 * into memory once, then counts it with rb_jsonl_count_buffer REPS times
 * (default 15) with each KERNEL (default: every kernel this CPU runs),
 * the kernels taking turns within each repetition so that a machine
 * shared with other work slows them alike. Every count is checked against
 * FILE.expect: a kernel that miscounts ends the run (exit 3). Prints, per
 * kernel, the median, lowest and highest throughput in GB/s (10^9 bytes
 * per second of wall time). The file's reading is not timed: this is the
 * core's speed on bytes already in memory, which the round's c variant
 * (read(2) from the page cache) approaches but does not reach.
 *
 * Exits 0, 2 on bad arguments or an unreadable file, 3 on a wrong count. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_protocol.h"
#include "roundbench.h"

#define MAX_KERNELS 8

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads all of path into a 64-byte-aligned buffer; NULL on failure. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = aligned_alloc(64, ((size_t)n + 64) & ~(size_t)63)) != NULL &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* Counts buf with the kernel in force and checks the result against want;
 * returns the nanoseconds it took, or 0 (after saying why) when wrong. */
static uint64_t timed_count(const uint8_t *buf, size_t len, const char *want, const char *kernel)
{
    rb_jsonl_result res;
    rb_error err;
    rb_jsonl_result_init(&res);
    uint64_t t0 = rbc_now_ns();
    rb_status st = rb_jsonl_count_buffer(buf, len, &res, &err);
    uint64_t t1 = rbc_now_ns();
    if (st != RB_OK) {
        fprintf(stderr, "rb-jsonl-speed: kernel %s: %s\n", kernel, err.msg);
        return 0;
    }
    char *got = rbc_jsonl_result_text(&res);
    rb_jsonl_result_free(&res);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "rb-jsonl-speed: kernel %s: wrong result: %s; want %s\n", kernel,
                got ? got : "(no memory)", want);
        free(got);
        return 0;
    }
    free(got);
    return t1 > t0 ? t1 - t0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rb-jsonl-speed FILE [REPS [KERNEL...]]\n");
        return 2;
    }
    const char *path = argv[1];
    long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 15;
    if (reps < 1 || reps > 100000) {
        fprintf(stderr, "rb-jsonl-speed: REPS must be 1..100000, not '%s'\n", argv[2]);
        return 2;
    }
    static const char *const all[] = {"scan", "sse2", "avx2", "avx512"};
    const char *kernels[MAX_KERNELS];
    int nk = 0;
    if (argc > 3) {
        for (int i = 3; i < argc && nk < MAX_KERNELS; i++) {
            rb_error err;
            if (rb_jsonl_set_kernel(argv[i], &err) != RB_OK) {
                fprintf(stderr, "rb-jsonl-speed: kernel '%s': %s\n", argv[i], err.msg);
                return 2;
            }
            kernels[nk++] = argv[i];
        }
    } else {
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            if (rb_jsonl_set_kernel(all[i], NULL) == RB_OK)
                kernels[nk++] = all[i];
    }

    char want[8192];
    if (rbc_jsonl_expected("rb-jsonl-speed", path, want, sizeof want) != 0)
        return 2;
    size_t len = 0;
    uint8_t *buf = slurp(path, &len);
    if (!buf) {
        fprintf(stderr, "rb-jsonl-speed: cannot read %s\n", path);
        return 2;
    }

    double *gbps = calloc((size_t)(nk * reps), sizeof *gbps);
    if (!gbps)
        return 2;
    /* One untimed count per kernel first (code, caches, the allocator). */
    for (long r = -1; r < reps; r++) {
        for (int k = 0; k < nk; k++) {
            rb_jsonl_set_kernel(kernels[k], NULL);
            uint64_t ns = timed_count(buf, len, want, kernels[k]);
            if (!ns)
                return 3;
            if (r >= 0)
                gbps[k * reps + r] = (double)len / (double)ns;
        }
    }
    rb_jsonl_set_kernel(NULL, NULL);
    const char *chosen = rb_jsonl_kernel(NULL);
    printf("%s: %zu bytes, %ld repetitions, each count checked against %s.expect; auto runs %s\n",
           path, len, reps, path, chosen ? chosen : "none");
    printf("%-8s %11s %11s %11s\n", "kernel", "median", "min", "max");
    for (int k = 0; k < nk; k++) {
        double *g = gbps + k * reps;
        qsort(g, (size_t)reps, sizeof *g, by_value);
        double med = reps % 2 ? g[reps / 2] : (g[reps / 2 - 1] + g[reps / 2]) / 2;
        printf("%-8s %6.2f GB/s %6.2f GB/s %6.2f GB/s\n", kernels[k], med, g[0], g[reps - 1]);
    }
    free(gbps);
    free(buf);
    return 0;
}
