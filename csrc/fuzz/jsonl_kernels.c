/* jsonl_kernels.c: libFuzzer target of round jsonl's kernels against one
 * another: "sse2", "avx2" and "avx512" (the block index) must give the
 * result of "scan" (the line scanner) on every byte sequence.
 *
 * Input: byte 0 the alignment (0..63 bytes past a 64-byte boundary, so
 * that blocks and groups of eight blocks fall everywhere in the log),
 * byte 1 the number of pieces (1..4) and, seeded by it, where the log is
 * cut (after a newline: a piece that ends inside a line would end that
 * line); the rest is the log. "scan" counts the whole log at once, from an
 * aligned copy; each kernel the CPU runs counts the pieces, each from a
 * heap block that ends where the piece does (a read past it is an
 * AddressSanitizer report), adding up into one result, which must equal
 * scan's in every field: lines, blank, valid, invalid, bytes, each status
 * and its count, the reported lines and their reasons. A kernel this CPU
 * lacks is named on stderr when the target starts, and the others run. */
#include <string.h>

#include "fuzz.h"
#include "jsonl_kernels_list.h"
#include "roundbench.h"

static const char *kernels[ALL_KERNELS];
static int nkernels;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    nkernels = kernels_here(kernels, "jsonl_kernels");
    return 0;
}

static void set_kernel(const char *name)
{
    rb_error err;
    FUZZ_CHECK(rb_jsonl_set_kernel(name, &err) == RB_OK, "kernel %s: %s", name, err.msg);
}

/* Counts log[0, n) in the pieces cut at cuts[0..ncuts) into res. */
static void count_pieces(const uint8_t *log, size_t n, const size_t *cuts, int ncuts, size_t align,
                         rb_jsonl_result *res, const char *kernel)
{
    size_t from = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        if (to <= from && i < ncuts)
            continue;
        /* A block on a 64-byte boundary: the piece starts align bytes
         * in and ends at the block's end (posix_memalign takes any size,
         * and AddressSanitizer poisons from the exact end). */
        size_t len = to - from;
        void *mem = NULL;
        if (posix_memalign(&mem, 64, align + len ? align + len : 1) != 0)
            abort();
        uint8_t *block = mem;
        memcpy(block + align, log + from, len);
        rb_error err;
        rb_status st = rb_jsonl_count_buffer(block + align, len, res, &err);
        FUZZ_CHECK(st == RB_OK, "kernel %s, piece %d: status %d: %s", kernel, i, st, err.msg);
        free(block);
        from = to;
    }
}

static void same(const rb_jsonl_result *a, const rb_jsonl_result *b, const char *kernel)
{
    FUZZ_CHECK(a->lines == b->lines && a->blank == b->blank && a->valid == b->valid &&
                   a->invalid == b->invalid && a->bytes == b->bytes,
               "kernel %s: lines/blank/valid/invalid/bytes %lld/%lld/%lld/%lld/%lld; scan "
               "%lld/%lld/%lld/%lld/%lld",
               kernel, (long long)a->lines, (long long)a->blank, (long long)a->valid,
               (long long)a->invalid, (long long)a->bytes, (long long)b->lines, (long long)b->blank,
               (long long)b->valid, (long long)b->invalid, (long long)b->bytes);
    FUZZ_CHECK(a->nstatuses == b->nstatuses, "kernel %s: %zu statuses; scan %zu", kernel,
               a->nstatuses, b->nstatuses);
    for (size_t i = 0; i < a->nstatuses; i++)
        FUZZ_CHECK(a->statuses[i].status == b->statuses[i].status &&
                       a->statuses[i].count == b->statuses[i].count,
                   "kernel %s: status %lld x%lld; scan %lld x%lld", kernel,
                   (long long)a->statuses[i].status, (long long)a->statuses[i].count,
                   (long long)b->statuses[i].status, (long long)b->statuses[i].count);
    FUZZ_CHECK(a->nreported == b->nreported, "kernel %s: %zu reported; scan %zu", kernel,
               a->nreported, b->nreported);
    for (size_t i = 0; i < a->nreported; i++)
        FUZZ_CHECK(a->reported[i].line == b->reported[i].line &&
                       a->reported[i].reason == b->reported[i].reason,
                   "kernel %s: reported line %lld %s; scan line %lld %s", kernel,
                   (long long)a->reported[i].line, rb_jsonl_reason_name(a->reported[i].reason),
                   (long long)b->reported[i].line, rb_jsonl_reason_name(b->reported[i].reason));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t align = data[0] & 63;
    uint64_t seed = data[1];
    int pieces = 1 + (data[1] & 3);
    const uint8_t *log = data + 2;
    size_t n = size - 2;

    /* Cut points: after newlines chosen by the seed, in order. */
    size_t cuts[4];
    int ncuts = 0;
    size_t newlines = 0;
    for (size_t i = 0; i < n; i++)
        newlines += log[i] == '\n';
    for (int i = 0; i + 1 < pieces && newlines; i++) {
        size_t pick = (size_t)(fuzz_next(&seed) % newlines), seen = 0;
        for (size_t j = 0; j < n; j++)
            if (log[j] == '\n' && seen++ == pick) {
                cuts[ncuts++] = j + 1;
                break;
            }
    }
    for (int i = 1; i < ncuts; i++)
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }

    rb_jsonl_result want;
    rb_jsonl_result_init(&want);
    set_kernel("scan");
    count_pieces(log, n, NULL, 0, 0, &want, "scan");
    FUZZ_CHECK(want.lines == want.blank + want.valid + want.invalid, "scan: counts do not add up");
    int64_t counted = 0;
    for (size_t i = 0; i < want.nstatuses; i++)
        counted += want.statuses[i].count;
    FUZZ_CHECK(counted == want.valid, "scan: %lld statuses counted, %lld valid lines",
               (long long)counted, (long long)want.valid);
    for (int k = 0; k < nkernels; k++) {
        rb_jsonl_result got;
        rb_jsonl_result_init(&got);
        set_kernel(kernels[k]);
        count_pieces(log, n, cuts, ncuts, align, &got, kernels[k]);
        same(&got, &want, kernels[k]);
        rb_jsonl_result_free(&got);
    }
    rb_jsonl_result_free(&want);
    return 0;
}
