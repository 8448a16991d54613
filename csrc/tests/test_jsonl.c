/* test_jsonl.c: round jsonl against the shared vectors
 * (testdata/jsonl_vectors.txt), through the buffer and the file entry
 * points, and its bad input. */
#include <stdint.h>
#include <unistd.h>

#include "roundbench.h"
#include "vectors.h"

typedef struct {
    uint8_t *p;
    size_t len, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static int hexdigit(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Decodes a payload: %XX bytes and %{N*TEXT} repetitions. */
static void decode(const char *s, bytes *out)
{
    out->len = 0;
    while (*s) {
        if (s[0] == '%' && s[1] == '{') {
            char *star;
            long n = strtol(s + 2, &star, 10);
            const char *close = strchr(star, '}');
            for (long i = 0; i < n; i++)
                put(out, star + 1, (size_t)(close - star - 1));
            s = close + 1;
        } else if (s[0] == '%') {
            uint8_t c = (uint8_t)(hexdigit(s[1]) * 16 + hexdigit(s[2]));
            put(out, &c, 1);
            s += 3;
        } else {
            put(out, s, 1);
            s++;
        }
    }
}

/* Counts b from a copy of exactly its size, so that AddressSanitizer sees
 * any read past the end (the scanner's SIMD loads and 8-byte key load). */
static int count(const bytes *b, rb_jsonl_result *res)
{
    rb_jsonl_result_init(res);
    rb_error err;
    uint8_t *exact = malloc(b->len ? b->len : 1);
    if (!exact) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (b->len)
        memcpy(exact, b->p, b->len);
    rb_status st = rb_jsonl_count_buffer(b->len ? exact : NULL, b->len, res, &err);
    free(exact);
    CHECK(st == RB_OK, "rb_jsonl_count_buffer status %d", st);
    return st == RB_OK;
}

/* Random JSON-ish documents of every length up to 300 bytes, each in a
 * buffer of exactly its size: no crash, no read out of bounds, and the
 * counts always add up. Deterministic (a fixed xorshift seed). */
static void fuzz(void)
{
    static const char alphabet[] =
        "{}[]:,\"\\ \t\r\n0123456789.-+eEtrufalsnu\x01\x7f\x80\xbf\xc3\xe2\xed\xf0\xf4\xff";
    static const char *pieces[] = {"{\"status\":", "200", "\"status\"", "\"a\":\"",
                                   "\\u00e9",      "[[",  "]]",         "}\n"};
    uint64_t x = 0x9E3779B97F4A7C15u;
    bytes doc = {0};
    for (int i = 0; i < 20000; i++) {
        doc.len = 0;
        size_t n = (size_t)(i % 300);
        while (doc.len < n) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (x % 4 == 0) {
                const char *piece = pieces[(x >> 8) % 8];
                put(&doc, piece, strlen(piece));
            } else {
                put(&doc, &alphabet[(x >> 8) % (sizeof alphabet - 1)], 1);
            }
        }
        rb_jsonl_result res;
        if (count(&doc, &res)) {
            int64_t sum = 0;
            for (size_t k = 0; k < res.nstatuses; k++)
                sum += res.statuses[k].count;
            CHECK(res.lines == res.blank + res.valid + res.invalid && sum == res.valid &&
                      res.bytes == (int64_t)doc.len,
                  "fuzz %d: counts do not add up", i);
            rb_jsonl_result_free(&res);
        }
    }
    free(doc.p);
}

static void check_line(const char *expect, const char *payload, const bytes *doc,
                       const char *framing)
{
    rb_jsonl_result res;
    if (!count(doc, &res))
        return;
    if (doc->len == 0) { /* an empty payload alone: an empty file */
        CHECK(res.lines == 0, "%s %s: %lld lines; want 0", framing, payload, (long long)res.lines);
        rb_jsonl_result_free(&res);
        return;
    }
    CHECK(res.lines == 1, "[%s] %.60s: %lld lines; want 1", framing, payload, (long long)res.lines);
    CHECK(res.bytes == (int64_t)doc->len, "[%s] %.60s: bytes %lld", framing, payload,
          (long long)res.bytes);
    if (strcmp(expect, "blank") == 0) {
        CHECK(res.blank == 1 && res.valid == 0 && res.invalid == 0,
              "[%s] %.60s: blank %lld valid %lld invalid %lld; want blank", framing, payload,
              (long long)res.blank, (long long)res.valid, (long long)res.invalid);
    } else if (expect[0] == '-' || (expect[0] >= '0' && expect[0] <= '9')) {
        long long want = strtoll(expect, NULL, 10);
        CHECK(res.valid == 1 && res.nstatuses == 1 && res.statuses[0].status == want &&
                  res.statuses[0].count == 1,
              "[%s] %.60s: valid %lld, status %lld; want status %lld", framing, payload,
              (long long)res.valid, res.nstatuses ? (long long)res.statuses[0].status : -1LL, want);
    } else {
        const char *got = res.nreported ? rb_jsonl_reason_name(res.reported[0].reason) : "valid";
        CHECK(res.invalid == 1 && res.nreported == 1 && res.reported[0].line == 1 &&
                  strcmp(got, expect) == 0,
              "[%s] %.60s: invalid %lld, reason %s; want %s", framing, payload,
              (long long)res.invalid, got, expect);
    }
    rb_jsonl_result_free(&res);
}

/* The vector file's lines can be long (1 MiB payloads are repetitions, so
 * the text is short); rbt_each splits on spaces, so this reads it itself. */
static void each_vector(const char *path, bytes *all, int64_t *all_invalid, int64_t *all_lines)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    char line[8192];
    bytes doc = {0}, framed = {0};
    int nline = 0, ndoc = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        char *kind = line, *expect = strchr(line, ' ');
        if (!expect)
            continue;
        *expect++ = '\0';
        char *payload = strchr(expect, ' ');
        if (payload)
            *payload++ = '\0';
        else
            payload = expect + strlen(expect);
        decode(payload, &doc);
        if (strcmp(kind, "line") == 0) {
            nline++;
            static const char *suffix[] = {"\n", "\r\n", ""};
            static const char *names[] = {"LF", "CRLF", "no newline"};
            for (int i = 0; i < 3; i++) {
                framed.len = 0;
                put(&framed, doc.p ? doc.p : (uint8_t *)"", doc.len);
                put(&framed, suffix[i], strlen(suffix[i]));
                check_line(expect, payload, &framed, names[i]);
            }
            put(all, doc.p ? doc.p : (uint8_t *)"", doc.len);
            put(all, "\n", 1);
            (*all_lines)++;
            if (strcmp(expect, "invalid-json") == 0 || strcmp(expect, "not-object") == 0 ||
                strcmp(expect, "no-status") == 0)
                (*all_invalid)++;
        } else if (strcmp(kind, "doc") == 0) {
            ndoc++;
            long long l, b, v, i;
            if (sscanf(expect, "%lld/%lld/%lld/%lld", &l, &b, &v, &i) != 4) {
                fprintf(stderr, "bad doc vector %s\n", expect);
                exit(2);
            }
            rb_jsonl_result res;
            if (count(&doc, &res)) {
                CHECK(res.lines == l && res.blank == b && res.valid == v && res.invalid == i,
                      "doc %s: got %lld/%lld/%lld/%lld; want %s", payload, (long long)res.lines,
                      (long long)res.blank, (long long)res.valid, (long long)res.invalid, expect);
                rb_jsonl_result_free(&res);
            }
        }
    }
    fclose(f);
    free(doc.p);
    free(framed.p);
    CHECK(nline >= 100, "too few line vectors: %d", nline);
    CHECK(ndoc >= 8, "too few doc vectors: %d", ndoc);
}

/* Counts the same bytes through a file: the read loop, long lines across
 * its 256 KiB buffer (the 1 MiB vector grows it), a last line without a newline. */
static void check_file(const bytes *b, const rb_jsonl_result *want)
{
    char path[] = "/tmp/rb-test-jsonl-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    CHECK(write(fd, b->p, b->len) == (ssize_t)b->len, "write");
    close(fd);
    rb_jsonl_result got;
    rb_jsonl_result_init(&got);
    rb_error err;
    CHECK(rb_jsonl_count_file(path, &got, &err) == RB_OK, "rb_jsonl_count_file");
    CHECK(got.lines == want->lines && got.valid == want->valid && got.invalid == want->invalid &&
              got.blank == want->blank && got.bytes == want->bytes &&
              got.nstatuses == want->nstatuses && got.nreported == want->nreported,
          "file and buffer counts differ");
    for (size_t i = 0; i < got.nstatuses && i < want->nstatuses; i++)
        CHECK(got.statuses[i].status == want->statuses[i].status &&
                  got.statuses[i].count == want->statuses[i].count,
              "status %zu differs", i);
    for (size_t i = 0; i < got.nreported && i < want->nreported; i++)
        CHECK(got.reported[i].line == want->reported[i].line &&
                  got.reported[i].reason == want->reported[i].reason,
              "reported %zu differs", i);
    rb_jsonl_result_free(&got);
    unlink(path);
}

static const char *const kernels[] = {"scan", "sse2", "avx2", "avx512"};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

/* Whether two results are the same in every field a caller sees. */
static int same_result(const rb_jsonl_result *a, const rb_jsonl_result *b)
{
    if (a->lines != b->lines || a->blank != b->blank || a->valid != b->valid ||
        a->invalid != b->invalid || a->bytes != b->bytes || a->nstatuses != b->nstatuses ||
        a->nreported != b->nreported)
        return 0;
    for (size_t i = 0; i < a->nstatuses; i++)
        if (a->statuses[i].status != b->statuses[i].status ||
            a->statuses[i].count != b->statuses[i].count)
            return 0;
    for (size_t i = 0; i < a->nreported; i++)
        if (a->reported[i].line != b->reported[i].line ||
            a->reported[i].reason != b->reported[i].reason)
            return 0;
    return 1;
}

/* Counts b with scan into *want (freed by the caller when this returns
 * 1), then with every other kernel this CPU runs: each must agree with it
 * exactly. `what` names b in a failure. */
static int kernels_agree(const bytes *b, rb_jsonl_result *want, const char *what)
{
    CHECK(rb_jsonl_set_kernel("scan", NULL) == RB_OK, "scan kernel");
    int ok = count(b, want);
    for (size_t k = 1; ok && k < NKERNELS; k++) {
        rb_jsonl_result got;
        if (rb_jsonl_set_kernel(kernels[k], NULL) != RB_OK)
            continue;
        if (count(b, &got)) {
            CHECK(same_result(want, &got), "%s: kernel %s disagrees with scan", what, kernels[k]);
            rb_jsonl_result_free(&got);
        }
    }
    rb_jsonl_set_kernel(NULL, NULL);
    return ok;
}

static uint64_t rng = 0x2545F4914F6CDD1Du;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
#define PICK(array) (array)[next_random() % (sizeof(array) / sizeof((array)[0]))]

/* A line shaped like a log record, the shape the block index accepts
 * whole, with the edges of its rules mixed in, then maybe a byte or two
 * mutated: whichever way the index goes, its verdict must be the scanner's. */
static void near_valid_line(bytes *b)
{
    static const char *keys[] = {"status", "status",       "status",  "status",  "status", "ts",
                                 "s",      "st",           "statu",   "statuss", "Status", "",
                                 "path",   "sta\\u0074us", "status ", "ms"};
    static const char *values[] = {"200",  "404",     "0",    "7",  "0.25",  "1.5",     "\"x\"",
                                   "\"\"", "\"200\"", "2000", "20", "200.0", "\"a b\"", "\"}\""};
    static const char *edges[] = {"00",
                                  "01",
                                  "-1",
                                  "-0",
                                  "1.",
                                  ".5",
                                  "1.2.3",
                                  "1..2",
                                  "1e3",
                                  "1E+2",
                                  "12345678901234567890",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "-9223372036854775808",
                                  "true",
                                  "null",
                                  "false",
                                  "{}",
                                  "[1]",
                                  "{\"status\":1}",
                                  "\"\\\"\"",
                                  "\"caf\xc3\xa9\"",
                                  "\"\\u00e9\"",
                                  "\"status\":",
                                  "\":\"",
                                  "\",\"",
                                  "0.0.0"};
    static const char seps[] = ":,{}[]\" \t\r\n\\0123456789.-se\x80\xc3\x01";
    size_t start = b->len;
    put(b, "{", 1);
    int fields = (int)(next_random() % 7) + (next_random() % 8 != 0);
    for (int f = 0; f < fields; f++) {
        if (f)
            put(b, ",", 1);
        const char *k = PICK(keys);
        put(b, "\"", 1);
        put(b, k, strlen(k));
        put(b, "\":", 2);
        if (next_random() % 8 == 0) { /* a long string: lines across blocks */
            put(b, "\"", 1);
            for (int i = (int)(next_random() % 200); i > 0; i--)
                put(b, "abcdefgh/ -_.:,{}[]" + next_random() % 19, 1);
            put(b, "\"", 1);
        } else {
            const char *v = next_random() % 6 ? PICK(values) : PICK(edges);
            put(b, v, strlen(v));
        }
    }
    put(b, "}", 1);
    for (int m = (int)(next_random() % 5) - 2; m > 0; m--) {
        size_t len = b->len - start, at = start + next_random() % (len + 1);
        char c = seps[next_random() % (sizeof seps - 1)];
        switch (next_random() % 3) {
        case 0: /* delete */
            if (at < b->len) {
                memmove(b->p + at, b->p + at + 1, b->len - at - 1);
                b->len--;
            }
            break;
        case 1: /* insert */
            put(b, " ", 1);
            memmove(b->p + at + 1, b->p + at, b->len - at - 1);
            b->p[at] = (uint8_t)c;
            break;
        default: /* replace */
            if (at < b->len)
                b->p[at] = (uint8_t)c;
        }
    }
    if (next_random() % 16)
        put(b, "\n", 1);
    else
        put(b, "\r\n", 2);
}

/* Documents of such lines at every alignment, each counted by every
 * kernel this CPU runs, whole and line by line: all must agree with the
 * scanner exactly (the index only ever accepts; this is where a rule it
 * lacks would show). */
static void differential(void)
{
    bytes doc = {0}, one = {0};
    int accepted = 0;
    for (int d = 0; d < 400; d++) {
        doc.len = 0;
        for (int i = (int)(next_random() % 64); i > 0; i--) /* alignment */
            put(&doc, " ", 1);
        put(&doc, "\n", 1);
        size_t first = doc.len;
        for (int l = 0; l < 40; l++)
            near_valid_line(&doc);
        if (d % 2)
            doc.len--; /* no final newline */
        rb_jsonl_result want;
        char what[64];
        snprintf(what, sizeof what, "differential doc %d", d);
        if (!kernels_agree(&doc, &want, what))
            continue;
        /* Lines that are objects: valid or without an integer status
         * (every invalid line of a 40-line document is reported). */
        accepted += (int)want.valid;
        for (size_t i = 0; i < want.nreported; i++)
            accepted += want.reported[i].reason == RB_JSONL_NO_STATUS;
        rb_jsonl_result_free(&want);
        /* Line by line, so a disagreement names its line. */
        for (size_t p = first; p < doc.len && d < 40;) {
            const uint8_t *nl = memchr(doc.p + p, '\n', doc.len - p);
            size_t e = nl ? (size_t)(nl - doc.p) + 1 : doc.len;
            one.len = 0;
            put(&one, doc.p + p, e - p);
            char line[160];
            snprintf(line, sizeof line, "line %.*s", (int)(e - p < 120 ? e - p : 120),
                     (const char *)one.p);
            if (kernels_agree(&one, &want, line))
                rb_jsonl_result_free(&want);
            p = e;
        }
    }
    /* The generator must make lines the index accepts, or this tests nothing. */
    CHECK(accepted > 400 * 40 / 2, "only %d of %d near-valid lines are objects", accepted,
          400 * 40);
    free(doc.p);
    free(one.p);
}

/* Stretches of nested lines (the index hands them all to the scanner,
 * which then runs alone for a while) between stretches of flat ones, with
 * bad lines in both, lines of every length: every kernel agrees with scan,
 * and the counts are the ones written. */
static void mixed_shapes(void)
{
    bytes doc = {0};
    int64_t want_valid = 0, want_invalid = 0, want_lines = 0;
    for (int part = 0; part < 5; part++) {
        for (int i = 0; i < 3000; i++) {
            char line[160];
            /* Bad lines: a trailing comma; in the flat stretches, every
             * line but every tenth lacks its '{' (where the scanner hands back to
             * the index, the first line must be judged from its start). */
            int bad = i % 97 == 5 || (part % 2 && i % 10);
            int n = i % 97 == 5 ? snprintf(line, sizeof line, "{\"status\":%d,\"x\":[1,}\n", i)
                    : bad       ? snprintf(line, sizeof line, ",\"status\":%d}\n", 200 + i % 5)
                    : part % 2
                        ? snprintf(line, sizeof line,
                                   "{\"ts\":%d,\"path\":\"/%.*s\",\"status\":%d}\n", i, i % 60,
                                   "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij",
                                   200 + i % 5)
                        : snprintf(line, sizeof line,
                                   "{\"ts\":%d,\"req\":{\"v\":[%d]},\"status\":%d}\n", i, i % 7,
                                   200 + i % 5);
            put(&doc, line, (size_t)n);
            want_lines++;
            if (bad)
                want_invalid++;
            else
                want_valid++;
        }
    }
    rb_jsonl_result want;
    if (kernels_agree(&doc, &want, "mixed")) {
        CHECK(want.lines == want_lines && want.valid == want_valid && want.invalid == want_invalid,
              "mixed: scan counts %lld/%lld/%lld", (long long)want.lines, (long long)want.valid,
              (long long)want.invalid);
        rb_jsonl_result_free(&want);
    }
    free(doc.p);
}

#if defined(__x86_64__)
/* Whether /proc/cpuinfo lists every one of the flags (NULL-terminated):
 * 1 yes, 0 no, -1 when it cannot say (no such file: not Linux). */
static int cpu_has(const char *const *flags)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[8192];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        found = 1;
        for (const char *const *fl = flags; *fl; fl++) {
            size_t n = strlen(*fl);
            const char *at = line + 5;
            while ((at = strstr(at, *fl)) && !(at[-1] == ' ' && (at[n] == ' ' || at[n] == '\n')))
                at += n;
            if (!at)
                found = 0;
        }
    }
    fclose(f);
    return found;
}
#endif

static void kernel_choice(void)
{
    rb_error err;
    CHECK(rb_jsonl_set_kernel("bogus", &err) == RB_ERR_ARG && strcmp(err.arg, "name") == 0,
          "an unknown kernel is RB_ERR_ARG naming name");
    for (size_t k = 0; k < NKERNELS; k++)
        CHECK(strstr(err.msg, kernels[k]), "the message lists every kernel, %s too: %s", kernels[k],
              err.msg);
    /* A kernel is refused only where the CPU lacks what it needs, and says so. */
    if (rb_jsonl_set_kernel("avx512", &err) != RB_OK) {
        CHECK(strstr(err.msg, "needs") && strstr(err.msg, "AVX-512BW"),
              "a refused kernel says what it needs: %s", err.msg);
#if defined(__x86_64__)
        static const char *const avx512[] = {"avx512f", "avx512bw", "bmi1", "bmi2", NULL};
        CHECK(cpu_has(avx512) != 1, "this CPU has AVX-512F, AVX-512BW, BMI1 and BMI2, yet: %s",
              err.msg);
#endif
    }
    /* auto takes the fastest this CPU runs: the last in the list. */
    const char *fastest = "scan";
    for (size_t k = 0; k < NKERNELS; k++)
        if (rb_jsonl_set_kernel(kernels[k], NULL) == RB_OK)
            fastest = kernels[k];
    CHECK(rb_jsonl_set_kernel(NULL, &err) == RB_OK, "NULL is auto");
    const char *k = rb_jsonl_kernel(&err);
    CHECK(k && strcmp(k, fastest) == 0, "auto resolves to %s, got %s", fastest, k ? k : "NULL");
    CHECK(rb_jsonl_set_kernel("scan", &err) == RB_OK && strcmp(rb_jsonl_kernel(NULL), "scan") == 0,
          "scan runs everywhere");
    /* Under auto the environment decides, and a bad name fails every count. */
    rb_jsonl_set_kernel("auto", NULL);
    setenv("ROUNDBENCH_JSONL_KERNEL", "scan", 1);
    CHECK(strcmp(rb_jsonl_kernel(NULL), "scan") == 0, "the environment picks scan");
    setenv("ROUNDBENCH_JSONL_KERNEL", "bogus", 1);
    rb_jsonl_result r;
    rb_jsonl_result_init(&r);
    CHECK(rb_jsonl_kernel(&err) == NULL && err.code == RB_ERR_ARG && err.arg == NULL &&
              strstr(err.msg, "$ROUNDBENCH_JSONL_KERNEL") && strstr(err.msg, "'bogus'"),
          "a bad environment kernel names the variable and its value: %s", err.msg);
    CHECK(rb_jsonl_count_buffer((const uint8_t *)"{}\n", 3, &r, &err) == RB_ERR_ARG && r.lines == 0,
          "a bad environment kernel fails the count before it starts");
    CHECK(rb_jsonl_count_file("/dev/null", &r, &err) == RB_ERR_ARG, "and the file count");
    unsetenv("ROUNDBENCH_JSONL_KERNEL");
    rb_jsonl_result_free(&r);
}

int main(int argc, char **argv)
{
    const char *vpath = argc > 1 ? argv[1] : "testdata/vectors.txt";
    (void)rbt_each; /* vectors.h's vectors.txt reader: these vectors need bytes */
    (void)rbt_int;
    /* The jsonl vectors sit beside vectors.txt. */
    char path[4096];
    const char *slash = strrchr(vpath, '/');
    snprintf(path, sizeof path, "%.*sjsonl_vectors.txt", slash ? (int)(slash - vpath + 1) : 0,
             vpath);

    kernel_choice();
    differential();
    mixed_shapes();
    /* Every kernel this CPU runs, through everything below. */
    for (size_t k = 0; k < NKERNELS; k++) {
        rb_error err;
        if (rb_jsonl_set_kernel(kernels[k], &err) != RB_OK) {
            printf("test_jsonl: kernel %s: skipped: %s\n", kernels[k], err.msg);
            continue;
        }
        fuzz();
        bytes all = {0};
        int64_t all_invalid = 0, all_lines = 0;
        each_vector(path, &all, &all_invalid, &all_lines);

        /* Every line vector in one document: the counts add up, and only the
         * first 100 invalid lines are reported, in order. */
        rb_jsonl_result res;
        if (count(&all, &res)) {
            CHECK(res.lines == all_lines, "all: %lld lines; want %lld", (long long)res.lines,
                  (long long)all_lines);
            CHECK(res.invalid == all_invalid, "all: %lld invalid; want %lld",
                  (long long)res.invalid, (long long)all_invalid);
            CHECK(res.nreported == (all_invalid < 100 ? (size_t)all_invalid : 100),
                  "all: %zu reported", res.nreported);
            for (size_t i = 1; i < res.nreported; i++)
                CHECK(res.reported[i].line > res.reported[i - 1].line, "reported out of order");
            int64_t sum = 0;
            for (size_t i = 0; i < res.nstatuses; i++) {
                sum += res.statuses[i].count;
                if (i)
                    CHECK(res.statuses[i].status > res.statuses[i - 1].status, "statuses unsorted");
            }
            CHECK(sum == res.valid, "status counts sum to %lld; want %lld", (long long)sum,
                  (long long)res.valid);
            check_file(&all, &res);
            /* Counting in two calls goes on with the line numbers. */
            rb_jsonl_result two;
            rb_jsonl_result_init(&two);
            CHECK(rb_jsonl_count_buffer(all.p, all.len, &two, NULL) == RB_OK, "first half");
            CHECK(rb_jsonl_count_buffer(all.p, all.len, &two, NULL) == RB_OK, "second half");
            CHECK(two.lines == 2 * res.lines && two.invalid == 2 * res.invalid, "two calls add up");
            rb_jsonl_result_free(&two);
            rb_jsonl_result_free(&res);
        }
        free(all.p);
    }
    rb_jsonl_set_kernel(NULL, NULL);

    /* Bad input and edges. */
    rb_error err;
    rb_jsonl_result r;
    rb_jsonl_result_init(&r);
    CHECK(rb_jsonl_count_file("/nonexistent/rb-jsonl", &r, &err) == RB_ERR_IO &&
              err.sys_errno == ENOENT && strcmp(err.arg, "path") == 0 &&
              strcmp(err.msg, "cannot open /nonexistent/rb-jsonl") == 0,
          "a missing file is RB_ERR_IO with ENOENT naming path and the file: %s", err.msg);
    /* The record's text is cut to its buffer, never overrun. */
    char long_path[3 * RB_ERROR_MSG_MAX];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    CHECK(rb_jsonl_count_file(long_path, &r, &err) == RB_ERR_IO &&
              strlen(err.msg) == RB_ERROR_MSG_MAX - 1 &&
              strncmp(err.msg, "cannot open /x", 14) == 0,
          "a long message is cut to RB_ERROR_MSG_MAX - 1 bytes (%zu)", strlen(err.msg));
    CHECK(rb_jsonl_count_file("/", &r, &err) == RB_ERR_IO && err.sys_errno == EISDIR,
          "reading a directory is RB_ERR_IO (EISDIR), got errno %d", err.sys_errno);
    CHECK(rb_jsonl_count_file(NULL, &r, &err) == RB_ERR_ARG, "NULL path");
    CHECK(rb_jsonl_count_file("/dev/null", NULL, &err) == RB_ERR_ARG, "NULL result");
    CHECK(rb_jsonl_count_buffer(NULL, 3, &r, &err) == RB_ERR_ARG && strcmp(err.arg, "buf") == 0,
          "NULL buffer with a length");
    CHECK(rb_jsonl_count_buffer(NULL, 0, &r, NULL) == RB_OK && r.lines == 0, "empty buffer");
    CHECK(rb_jsonl_count_file("/dev/null", &r, NULL) == RB_OK && r.lines == 0, "empty file");
    rb_jsonl_result_free(&r);
    rb_jsonl_result_free(&r); /* idempotent */
    rb_jsonl_result_free(NULL);
    CHECK(strcmp(rb_jsonl_reason_name(RB_JSONL_NO_STATUS), "no-status") == 0, "reason names");

    /* A counter outside the core adds its statuses to the core's result:
     * kept sorted, merged with what a count added, zero counts left out. */
    CHECK(rb_jsonl_count_buffer((const uint8_t *)"{\"status\":404}\n", 15, &r, NULL) == RB_OK,
          "a count");
    CHECK(rb_jsonl_add_status(&r, 200, 3, &err) == RB_OK &&
              rb_jsonl_add_status(&r, 404, 2, &err) == RB_OK &&
              rb_jsonl_add_status(&r, -1, 1, &err) == RB_OK &&
              rb_jsonl_add_status(&r, 500, 0, &err) == RB_OK,
          "rb_jsonl_add_status");
    CHECK(r.nstatuses == 3 && r.statuses[0].status == -1 && r.statuses[0].count == 1 &&
              r.statuses[1].status == 200 && r.statuses[1].count == 3 &&
              r.statuses[2].status == 404 && r.statuses[2].count == 3 && r.lines == 1,
          "added statuses sorted and merged, other counts untouched");
    CHECK(rb_jsonl_add_status(&r, 1, -1, &err) == RB_ERR_ARG && strcmp(err.arg, "count") == 0,
          "a negative count is RB_ERR_ARG naming count");
    CHECK(rb_jsonl_add_status(NULL, 1, 1, &err) == RB_ERR_ARG, "NULL result");
    rb_jsonl_result_free(&r);
    return rbt_done("test_jsonl");
}
