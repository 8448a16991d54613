/* jsonl.c: round jsonl, counting the top-level "status" of every line of a
 * JSON Lines log while validating each line as RFC 8259 JSON.
 *
 * The rules (what is valid, blank, which status counts) are in
 * docs/rounds/jsonl.md; testdata/jsonl_vectors.txt encodes them for every language.
 *
 * Two ways, the kernels (roundbench.h): the line scanner below ("scan"),
 * and the block index further down ("sse2", "avx2", "avx512"), which validates the
 * lines a log mostly holds, flat compact objects, 64 bytes at a time with
 * bit masks and hands every other line to the scanner.
 *
 * The scanner: a line is scanned once, left to right, by a parser with
 * no recursion (the open containers are a bit stack, one bit per level), and
 * every line the parser sees ends with '\n'. That byte can end no token (it
 * is a control character inside strings, no digit, no letter of a literal),
 * so the parser never needs a bounds check except before a SIMD load: it
 * stops at the newline by itself. With SSE2 (the x86-64 baseline, so the
 * portable build has it) the scanner keeps two bit masks of the 64 bytes
 * ahead: the bytes a string body cannot hold as they are ('"', '\\',
 * control characters, non-ASCII, which is then validated strictly as
 * UTF-8) and the non-digits; the end of a string or a number is a shift
 * and a count of trailing zeros. (Measured on the default log, CPU time:
 * about 5% faster than 16-byte compares per token; mmap instead of read(2)
 * was no faster, the page mapping costs what the copy does.)
 */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "roundbench.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Statuses in [0, SMALL_STATUS) are tallied in a flat array while scanning
 * and merged into the sorted result at the end; others go straight in. */
#define SMALL_STATUS 1000
/* Small enough that the copy read(2) makes stays in L2 for the scan. */
#ifndef READ_CHUNK
#define READ_CHUNK (1u << 18)
#endif

typedef struct tally {
    rb_jsonl_result *res;
    /* The kernel: counts [p, end), which ends with '\n'. */
    rb_status (*region)(const uint8_t *p, const uint8_t *end, struct tally *t, rb_error *err);
    int64_t small[SMALL_STATUS];
} tally;

void rb_jsonl_result_init(rb_jsonl_result *res)
{
    memset(res, 0, sizeof *res);
}

void rb_jsonl_result_free(rb_jsonl_result *res)
{
    if (res) {
        free(res->statuses);
        memset(res, 0, sizeof *res);
    }
}

const char *rb_jsonl_reason_name(rb_jsonl_reason reason)
{
    switch (reason) {
    case RB_JSONL_VALID: return "valid";
    case RB_JSONL_INVALID_JSON: return "invalid-json";
    case RB_JSONL_NOT_OBJECT: return "not-object";
    case RB_JSONL_NO_STATUS: return "no-status";
    }
    return "unknown";
}

/* Adds `count` lines of `status` to the sorted array; -1 when out of memory. */
static int add_status(rb_jsonl_result *res, int64_t status, int64_t count)
{
    size_t lo = 0, hi = res->nstatuses;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (res->statuses[mid].status < status)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < res->nstatuses && res->statuses[lo].status == status) {
        res->statuses[lo].count += count;
        return 0;
    }
    if (res->nstatuses == res->cap_) {
        size_t cap = res->cap_ ? res->cap_ * 2 : 16;
        rb_jsonl_count *p = realloc(res->statuses, cap * sizeof *p);
        if (!p)
            return -1;
        res->statuses = p;
        res->cap_ = cap;
    }
    memmove(&res->statuses[lo + 1], &res->statuses[lo],
            (res->nstatuses - lo) * sizeof res->statuses[0]);
    res->statuses[lo].status = status;
    res->statuses[lo].count = count;
    res->nstatuses++;
    return 0;
}

rb_status rb_jsonl_add_status(rb_jsonl_result *res, int64_t status, int64_t count, rb_error *err)
{
    if (!res)
        return rb_fail(err, RB_ERR_ARG, "res", "must not be NULL", -1);
    if (count < 0)
        return rb_fail(err, RB_ERR_ARG, "count", "must be >= 0", -1);
    if (count > 0 && add_status(res, status, count) < 0)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the status table", -1);
    return RB_OK;
}

static int merge_small(tally *t)
{
    for (int64_t s = 0; s < SMALL_STATUS; s++) {
        if (t->small[s]) {
            if (add_status(t->res, s, t->small[s]) < 0)
                return -1;
            t->small[s] = 0;
        }
    }
    return 0;
}

/* ---- the line scanner ---------------------------------------------------- */

/* Bytes a string body may hold as they are: printable ASCII but '"', '\\'. */
static const uint8_t plain[256] = {
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
    R16(0), R16(0), /* control characters */
    1,      1,      0,      1,      1,      1,      1,      1,      1,      1,
    1,      1,      1,      1,      1,      1, /* 0x22 '"' */
    R16(1), R16(1), 1,      1,      1,      1,      1,      1,      1,      1,
    1,      1,      1,      1,      0,      1,      1,      1,                      /* 0x5c '\\' */
    R16(1), R16(1), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), /* non-ASCII */
#undef R16
};

#define IS_WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\r')
#define IS_DIGIT(c) ((uint8_t)((c) - '0') < 10)
#define INLINE static inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

INLINE const uint8_t *skip_ws(const uint8_t *p)
{
    /* Every token starts above ' ' and logs are mostly compact: one
     * compare settles the common case. */
    if (LIKELY(*p > ' '))
        return p;
    while (IS_WS(*p))
        p++;
    return p;
}

/* The scanner's view of the bytes: the region's end, and where SSE2 is
 * there, bit masks of the 64 bytes from `base` computed in one go. The
 * masks are what make it fast: finding the end of a string or a number is
 * a shift and a count of trailing zeros on a mask computed ahead, instead
 * of a chain of load, compare, movemask and count per token, each waiting
 * for the previous token's end. (simdjson's idea, in the small: no
 * structural index, only the two masks a JSON Lines scan needs.) */
typedef struct scanner {
    const uint8_t *end; /* loads stay below it; the region ends with '\n' */
#if defined(__SSE2__)
    uintptr_t base;    /* the window's first byte */
    uint64_t special;  /* bit i: base[i] is '"', '\\', a control byte or non-ASCII */
    uint64_t nondigit; /* bit i: base[i] is not '0'..'9' */
#endif
} scanner;

#if defined(__SSE2__)
/* Computes the masks of the 64 bytes from p; needs 64 bytes before end.
 * Not inlined: once per 64 bytes, while inlined at each string and number
 * site its SSE2 constants were reloaded at every token (seen in the
 * instruction counts). */
static __attribute__((noinline)) void window(scanner *s, const uint8_t *p)
{
    /* One signed compare finds three kinds at once: with bit 1 flipped,
     * '"' (0x22) becomes 0x20 and control characters stay below 0x20, all
     * below 0x21, while ' ', '!' and '#' land on 0x22, 0x23 and 0x21;
     * bytes >= 0x80 are negative. */
    const __m128i flip = _mm_set1_epi8(0x02), bslash = _mm_set1_epi8('\\'),
                  limit = _mm_set1_epi8(0x21), zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8('9');
    __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
#define SPECIAL(v)                                                                                 \
    (uint64_t)(unsigned) _mm_movemask_epi8(                                                        \
        _mm_or_si128(_mm_cmplt_epi8(_mm_xor_si128(v, flip), limit), _mm_cmpeq_epi8(v, bslash)))
#define NONDIGIT(v)                                                                                \
    (uint64_t)(unsigned)                                                                           \
        _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, zero), _mm_cmpgt_epi8(v, nine)))
    uint64_t special = SPECIAL(v0) | SPECIAL(v1) << 16 | SPECIAL(v2) << 32 | SPECIAL(v3) << 48;
    uint64_t nondigit = NONDIGIT(v0) | NONDIGIT(v1) << 16 | NONDIGIT(v2) << 32 | NONDIGIT(v3) << 48;
#undef SPECIAL
#undef NONDIGIT
    s->base = (uintptr_t)p;
    s->special = special;
    s->nondigit = nondigit;
}
#endif

/* The first byte at or after p that a string body cannot hold as it is:
 * '"', '\\', a control byte or non-ASCII. The region's final '\n' is one,
 * so the scalar tail stops in bounds. */
INLINE const uint8_t *next_special(scanner *s, const uint8_t *p)
{
#if defined(__SSE2__)
    for (;;) {
        /* Unsigned: a window ahead of p (a new region) wraps to far away. */
        uintptr_t off = (uintptr_t)p - s->base;
        if (off < 64) {
            uint64_t m = s->special >> off;
            if (m)
                return p + __builtin_ctzll(m);
            p = (const uint8_t *)(s->base + 64);
        }
        if (s->end - p < 64)
            break;
        window(s, p);
    }
#endif
    while (plain[*p])
        p++;
    return p;
}

/* The end of a run of digits starting at p. */
INLINE const uint8_t *skip_digits(scanner *s, const uint8_t *p)
{
#if defined(__SSE2__)
    uintptr_t off = (uintptr_t)p - s->base;
    if (off >= 64 && s->end - p >= 64) {
        window(s, p);
        off = 0;
    }
    if (off < 64) {
        uint64_t m = s->nondigit >> off;
        if (m)
            return p + __builtin_ctzll(m);
        p = (const uint8_t *)(s->base + 64); /* a run past the window: rare */
    }
#endif
    while (IS_DIGIT(*p))
        p++;
    return p;
}

static inline int hexval(uint8_t c)
{
    if (IS_DIGIT(c))
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* One UTF-8 sequence starting with a byte >= 0x80, strictly (Unicode 15,
 * table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
 * Every check reads one byte further only after the previous one passed,
 * so the terminating '\n' (no continuation byte) stops it in bounds. */
INLINE const uint8_t *utf8_seq(const uint8_t *p)
{
    uint8_t c = p[0];
    if (c >= 0xC2 && c <= 0xDF)
        return (p[1] & 0xC0) == 0x80 ? p + 2 : NULL;
    if (c >= 0xE0 && c <= 0xEF) {
        uint8_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80)
            return NULL;
        return p + 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        uint8_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return NULL;
        return p + 4;
    }
    return NULL;
}

/* Scans a string body from just after its opening quote; returns the byte
 * after the closing quote, or NULL if the string is invalid. *escaped is
 * set when it holds a backslash. */
INLINE const uint8_t *scan_string(scanner *s, const uint8_t *p, int *escaped)
{
    for (;;) {
        p = next_special(s, p);
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            *escaped = 1;
            switch (p[1]) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't': p += 2; continue;
            case 'u':
                /* Any four hex digits: RFC 8259's grammar admits lone
                 * surrogate escapes, and so do the rules. */
                if (hexval(p[2]) < 0 || hexval(p[3]) < 0 || hexval(p[4]) < 0 || hexval(p[5]) < 0)
                    return NULL;
                p += 6;
                continue;
            default: return NULL;
            }
        }
        if (*p < 0x20)
            return NULL;
        p = utf8_seq(p);
        if (!p)
            return NULL;
    }
}

/* Scans a number from its first byte ('-' or a digit); returns the byte
 * after it, or NULL. *integer is set when it has no fraction or exponent. */
INLINE const uint8_t *scan_number(scanner *s, const uint8_t *p, int *integer)
{
    *integer = 1;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (IS_DIGIT(*p))
        p = skip_digits(s, p + 1);
    else
        return NULL;
    /* Most numbers end here: one test for "no fraction, no exponent". */
    if (LIKELY(*p != '.' && (*p | 0x20) != 'e'))
        return p;
    if (*p == '.') {
        p++;
        if (!IS_DIGIT(*p))
            return NULL;
        p = skip_digits(s, p + 1);
        *integer = 0;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!IS_DIGIT(*p))
            return NULL;
        while (IS_DIGIT(*p))
            p++;
        *integer = 0;
    }
    return p;
}

/* The value of a scanned integer [p, end) if it fits in int64_t. */
static int parse_int64(const uint8_t *p, const uint8_t *end, int64_t *out)
{
    int neg = *p == '-';
    p += neg;
    if (end - p > 19)
        return 0;
    if (end - p == 3) { /* the usual HTTP status */
        *out = (neg ? -1 : 1) * ((p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0'));
        return 1;
    }
    /* 19 digits fit in a uint64_t (< 1e19 < 2^64): no overflow check. */
    uint64_t v = 0;
    for (; p < end; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return 0;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return 0;
        *out = (int64_t)v;
    }
    return 1;
}

/* Whether a key's raw body [p, end) with escapes decodes to "status". */
static int key_is_status_escaped(const uint8_t *p, const uint8_t *end)
{
    static const char want[] = "status";
    size_t i = 0;
    while (p < end) {
        unsigned c = *p++;
        if (c == '\\') {
            unsigned e = *p++;
            switch (e) {
            case 'u':
                c = (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 |
                               hexval(p[3]));
                p += 4;
                break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            default: c = e; break; /* '"', '\\', '/' */
            }
        }
        if (i == 6 || c != (unsigned char)want[i])
            return 0;
        i++;
    }
    return i == 6;
}

#define STACK_WORDS (RB_JSONL_MAX_DEPTH / 64)
/* "status" and its closing quote as a little-endian word. */
#define STATUS_KEY UINT64_C(0x22737574617473)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "jsonl.c reads the key \"status\" as a little-endian word"
#endif

/* Scans one line, which ends with '\n' at or before end[-1]. Returns its
 * class; *next gets the start of the next line; *status the status of a
 * valid line; *blank whether the line is blank. */
static rb_jsonl_reason scan_line(scanner *sc, const uint8_t *p, const uint8_t **next,
                                 int64_t *status, int *blank)
{
    uint64_t objects[STACK_WORDS]; /* bit d: the container at depth d is an object */
    int depth = 0, have_status = 0, escaped, integer;
    int in_object = 0; /* the innermost open container is an object */
    int64_t value = 0;
    const uint8_t *mark;

    *blank = 0;
    p = skip_ws(p);
    if (*p == '\n') {
        *blank = 1;
        *next = p + 1;
        return RB_JSONL_VALID;
    }
    const int root_object = *p == '{';

value:
    /* Strings and numbers first: two tests settle most values before the
     * jump table (fewer instructions per value, measured). */
    if (*p == '"') {
        escaped = 0;
        mark = scan_string(sc, p + 1, &escaped);
        if (!mark)
            goto bad;
        p = mark;
        goto after;
    }
    if (IS_DIGIT(*p)) {
        mark = scan_number(sc, p, &integer);
        if (!mark)
            goto bad;
        p = mark;
        goto after;
    }
    switch (*p) {
    case '{':
        if (depth == RB_JSONL_MAX_DEPTH)
            goto bad;
        p = skip_ws(p + 1);
        if (*p == '}') {
            p++;
            goto after;
        }
        objects[depth >> 6] |= UINT64_C(1) << (depth & 63);
        depth++;
        in_object = 1;
        goto key;
    case '[':
        if (depth == RB_JSONL_MAX_DEPTH)
            goto bad;
        p = skip_ws(p + 1);
        if (*p == ']') {
            p++;
            goto after;
        }
        objects[depth >> 6] &= ~(UINT64_C(1) << (depth & 63));
        depth++;
        in_object = 0;
        goto value;
    case '"':
        escaped = 0;
        mark = scan_string(sc, p + 1, &escaped);
        if (!mark)
            goto bad;
        p = mark;
        goto after;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        mark = scan_number(sc, p, &integer);
        if (!mark)
            goto bad;
        p = mark;
        goto after;
    case 't':
        if (p[1] != 'r' || p[2] != 'u' || p[3] != 'e')
            goto bad;
        p += 4;
        goto after;
    case 'f':
        if (p[1] != 'a' || p[2] != 'l' || p[3] != 's' || p[4] != 'e')
            goto bad;
        p += 5;
        goto after;
    case 'n':
        if (p[1] != 'u' || p[2] != 'l' || p[3] != 'l')
            goto bad;
        p += 4;
        goto after;
    default: goto bad;
    }

key:
    if (*p != '"')
        goto bad;
    {
        const uint8_t *k = p + 1;
        escaped = 0;
        mark = scan_string(sc, k, &escaped);
        if (!mark)
            goto bad;
        p = mark;
        int is_status = 0;
        if (depth == 1) {
            /* When the closing quote is at k[6], the line's '\n' comes at
             * k[7] or later: eight bytes from k are in bounds. */
            if (p == k + 7) {
                uint64_t word;
                memcpy(&word, k, 8);
                is_status = (word & UINT64_C(0x00FFFFFFFFFFFFFF)) == STATUS_KEY;
            } else if (escaped) {
                is_status = key_is_status_escaped(k, p - 1);
            }
        }
        if (*p != ':') {
            p = skip_ws(p);
            if (*p != ':')
                goto bad;
        }
        p = skip_ws(p + 1);
        if (is_status) {
            /* The last "status" wins, so each one sets or clears it. */
            have_status = 0;
            if (*p == '-' || IS_DIGIT(*p)) {
                mark = scan_number(sc, p, &integer);
                if (!mark)
                    goto bad;
                have_status = integer && parse_int64(p, mark, &value);
                p = mark;
                goto after;
            }
        }
    }
    goto value;

after:
    /* Compact logs have no whitespace: test for the expected bytes first. */
    if (*p == ',' && depth) {
        p++;
        if (in_object) {
            if (*p != '"')
                p = skip_ws(p);
            goto key;
        }
        p = skip_ws(p);
        goto value;
    }
    if (*p == (in_object ? '}' : ']') && depth) {
        depth--;
        p++;
        if (depth)
            in_object = (int)(objects[(depth - 1) >> 6] >> ((depth - 1) & 63)) & 1;
        goto after;
    }
    if (IS_WS(*p)) {
        p = skip_ws(p);
        goto after;
    }
    if (depth == 0 && *p == '\n') {
        *next = p + 1;
        if (!root_object)
            return RB_JSONL_NOT_OBJECT;
        if (!have_status)
            return RB_JSONL_NO_STATUS;
        *status = value;
        return RB_JSONL_VALID;
    }

bad:
    /* p is at or before the line's '\n' (nothing passes it), which is the
     * line's first newline. */
    *next = (const uint8_t *)memchr(p, '\n', (size_t)(sc->end - p)) + 1;
    return RB_JSONL_INVALID_JSON;
}

/* The running counts of a region. The caller keeps them in locals: stores
 * through res would alias the int64_t tally and keep them in memory, one
 * round trip per line. */
typedef struct counts {
    int64_t lines, blank, valid;
} counts;

/* Tallies one line; -1 when out of memory. */
INLINE int count_line(tally *t, counts *c, rb_jsonl_reason r, int64_t status, int blank)
{
    c->lines++;
    if (LIKELY(r == RB_JSONL_VALID)) {
        if (blank) {
            c->blank++;
            return 0;
        }
        c->valid++;
        if (LIKELY((uint64_t)status < SMALL_STATUS)) {
            t->small[status]++;
            return 0;
        }
        return add_status(t->res, status, 1);
    }
    rb_jsonl_result *res = t->res;
    res->invalid++;
    if (res->nreported < RB_JSONL_MAX_REPORTED) {
        res->reported[res->nreported].line = c->lines;
        res->reported[res->nreported].reason = r;
        res->nreported++;
    }
    return 0;
}

INLINE scanner scanner_at(const uint8_t *end)
{
    scanner sc = {.end = end};
#if defined(__SSE2__)
    sc.base = (uintptr_t)end; /* no window yet: every p is "behind" it */
#endif
    return sc;
}

static rb_status out_of_memory(rb_error *err)
{
    return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the status table", -1);
}

/* Kernel "scan": counts the lines of [p, end), which ends with '\n'. */
static rb_status scan_region(const uint8_t *p, const uint8_t *end, tally *t, rb_error *err)
{
    rb_jsonl_result *res = t->res;
    rb_status st = RB_OK;
    scanner sc = scanner_at(end);
    counts c = {res->lines, res->blank, res->valid};
    while (p < end) {
        int64_t status = 0;
        int blank;
        rb_jsonl_reason r = scan_line(&sc, p, &p, &status, &blank);
        if (count_line(t, &c, r, status, blank) < 0) {
            st = out_of_memory(err);
            break;
        }
    }
    res->lines = c.lines;
    res->blank = c.blank;
    res->valid = c.valid;
    return st;
}

/* ---- kernels "sse2", "avx2" and "avx512": the block index -----------------
 *
 * Stage one classifies 64 bytes at a time into bit masks (bit i: byte i)
 * and combines them, with a few dozen branch-free bit operations and no
 * per-token work, into one mask of violations: every byte where a line
 * stops being a flat compact object of plain strings and numbers, that is
 *
 *     '{' key ':' value (',' key ':' value)* '}' '\n'
 *
 * with keys and values strings of printable ASCII without a backslash,
 * values also numbers -?(0|[1-9][0-9]*)(.[0-9]+)? without the '-', and
 * nothing between tokens. Stage two walks the newlines: a line with no
 * violation is valid as it is (every key is top level, and the raw bytes
 * are the key), so only its last "status": key is read; any other line
 * (whitespace, nesting, escapes, UTF-8, literals, exponents, blank, bad)
 * goes to the line scanner, which decides it. The index only ever accepts:
 * it never rejects a line by itself, so the scanner's rules are the only
 * rules, and a line the index has no mask for is merely slower.
 *
 * Strings are found as simdjson does, by a prefix XOR of the quotes (no
 * escape handling is needed: a backslash is a violation). A line with an
 * odd number of quotes would leave the parity wrong for the lines after
 * it, so a newline inside a "string" flips the parity back, and marks its
 * line. Which strings are keys: a string opened right after '{' or ','.
 * Its closing quote is found by adding its opening bit to the mask of
 * string bytes: the carry runs along the string and lands on the closing
 * quote. The same addition finds where the digits after a '.' end (a
 * second '.' there is a violation). Masks carry across blocks by one bit
 * (the last byte of the previous block) and the two additions by their
 * carry. Every rule is written "byte i given byte i-1", so the violation
 * lands in the line it is about. */

#if defined(__x86_64__) && defined(__SSE2__)
#define HAVE_INDEX 1
#include <immintrin.h>

/* One 64-byte block, one bit per byte. */
typedef struct bytemasks {
    uint64_t quote, bslash, nl, ctl /* < 0x20 or >= 0x80, '\n' included */, digit, zero, colon,
        comma, lbrace, rbrace, dot, s;
} bytemasks;

/* The twelve masks of a block, the same for every vector width: each
 * classifier defines MASK64(EXPR) (EXPR evaluated on each vector x, the
 * movemasks gathered into 64 bits), EQ(c), BELOW(c) (signed: bytes >= 0x80
 * count as below) and DIGIT, then expands this. */
#define CLASSIFY_INTO(m)                                                                           \
    do {                                                                                           \
        (m)->quote = MASK64(EQ('"'));                                                              \
        (m)->bslash = MASK64(EQ('\\'));                                                            \
        (m)->nl = MASK64(EQ('\n'));                                                                \
        (m)->ctl = MASK64(BELOW(0x20));                                                            \
        (m)->digit = MASK64(DIGIT);                                                                \
        (m)->zero = MASK64(EQ('0'));                                                               \
        (m)->colon = MASK64(EQ(':'));                                                              \
        (m)->comma = MASK64(EQ(','));                                                              \
        (m)->lbrace = MASK64(EQ('{'));                                                             \
        (m)->rbrace = MASK64(EQ('}'));                                                             \
        (m)->dot = MASK64(EQ('.'));                                                                \
        (m)->s = MASK64(EQ('s'));                                                                  \
    } while (0)

INLINE void classify_sse2(const uint8_t *p, bytemasks *m)
{
    __m128i v[4];
    for (int i = 0; i < 4; i++)
        v[i] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
#define MASK64(EXPR)                                                                               \
    ({                                                                                             \
        uint64_t r_ = 0;                                                                           \
        for (int i_ = 0; i_ < 4; i_++) {                                                           \
            __m128i x = v[i_];                                                                     \
            r_ |= (uint64_t)(unsigned)_mm_movemask_epi8(EXPR) << (16 * i_);                        \
        }                                                                                          \
        r_;                                                                                        \
    })
#define EQ(c) _mm_cmpeq_epi8(x, _mm_set1_epi8(c))
#define BELOW(c) _mm_cmplt_epi8(x, _mm_set1_epi8(c))
/* x - '0' is a digit when it is at most 9, unsigned. */
#define DIGIT                                                                                      \
    _mm_cmpeq_epi8(_mm_min_epu8(_mm_sub_epi8(x, _mm_set1_epi8('0')), _mm_set1_epi8(9)),            \
                   _mm_sub_epi8(x, _mm_set1_epi8('0')))
    CLASSIFY_INTO(m);
#undef DIGIT
#undef BELOW
#undef EQ
#undef MASK64
}

#define AVX2 __attribute__((target("avx2")))

AVX2 INLINE void classify_avx2(const uint8_t *p, bytemasks *m)
{
    __m256i v[2];
    for (int i = 0; i < 2; i++)
        v[i] = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
#define MASK64(EXPR)                                                                               \
    ({                                                                                             \
        uint64_t r_ = 0;                                                                           \
        for (int i_ = 0; i_ < 2; i_++) {                                                           \
            __m256i x = v[i_];                                                                     \
            r_ |= (uint64_t)(uint32_t)_mm256_movemask_epi8(EXPR) << (32 * i_);                     \
        }                                                                                          \
        r_;                                                                                        \
    })
#define EQ(c) _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c))
#define BELOW(c) _mm256_cmpgt_epi8(_mm256_set1_epi8(c), x)
#define DIGIT                                                                                      \
    _mm256_cmpeq_epi8(                                                                             \
        _mm256_min_epu8(_mm256_sub_epi8(x, _mm256_set1_epi8('0')), _mm256_set1_epi8(9)),           \
        _mm256_sub_epi8(x, _mm256_set1_epi8('0')))
    CLASSIFY_INTO(m);
#undef DIGIT
#undef BELOW
#undef EQ
#undef MASK64
}

#define AVX512 __attribute__((target("avx512f,avx512bw,bmi,bmi2")))

/* AVX-512BW compares write a mask register, one bit per byte: a block is
 * one register, each mask one compare, with no movemask and no gathering
 * of halves. */
AVX512 INLINE void classify_avx512(const uint8_t *p, bytemasks *m)
{
    const __m512i v = _mm512_loadu_si512((const void *)p);
#define MASK64(EXPR)                                                                               \
    ({                                                                                             \
        __m512i x = v;                                                                             \
        (uint64_t) _cvtmask64_u64(EXPR);                                                           \
    })
#define EQ(c) _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c))
#define BELOW(c) _mm512_cmplt_epi8_mask(x, _mm512_set1_epi8(c))
#define DIGIT _mm512_cmple_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('0')), _mm512_set1_epi8(9))
    CLASSIFY_INTO(m);
#undef DIGIT
#undef BELOW
#undef EQ
#undef MASK64
}
#undef CLASSIFY_INTO

/* What one block hands the next: the masks whose last bit the next
 * block's "previous byte" rules read, and the three additions' carries. */
typedef struct index_state {
    uint64_t instr; /* all ones when the last block ended inside a string */
    uint64_t key_carry, frac_carry, bad_carry;
    uint64_t quote, nl, rbrace, key_before, keyclose, valclose, colon, numb, zero, dot;
} index_state;

/* x shifted one byte on, with the previous block's last bit of it. */
INLINE uint64_t prev1(uint64_t x, uint64_t *last)
{
    uint64_t r = x << 1 | *last >> 63;
    *last = x;
    return r;
}

INLINE uint64_t add_carry(uint64_t a, uint64_t b, uint64_t *carry)
{
    uint64_t sum;
    uint64_t c = __builtin_add_overflow(a, b, &sum);
    c |= __builtin_add_overflow(sum, *carry, &sum);
    *carry = c;
    return sum;
}

/* Flips the string parity back at each newline inside a "string", and
 * marks those newlines: out of line, as it is rare. */
static __attribute__((noinline)) uint64_t reparity(uint64_t instr, uint64_t nl, uint64_t *v)
{
    for (uint64_t inside = nl & instr; inside; inside = nl & instr) {
        uint64_t b = inside & -inside;
        *v |= b;
        instr ^= -b; /* the newline and everything after it flip: outside again */
    }
    return instr;
}

/* Stage one for a block: its violations, and the bytes that may start a
 * "status": key (an 's' right after a quote: in a line without violations
 * that quote opens a key).
 *
 * The rules below are the fewest that pin the grammar down; each one left
 * out is implied by the others (for example "a number starts after ':'":
 * what else could precede its first byte is ruled out by the rules for
 * '{', ',', '}', the two kinds of closing quote and the line start). */
INLINE uint64_t index_block(const bytemasks *m, index_state *s, uint64_t *cand)
{
    uint64_t q = m->quote, nl = m->nl;
    uint64_t instr = q; /* bit i: byte i is in a string (its opening quote included) */
    instr ^= instr << 1;
    instr ^= instr << 2;
    instr ^= instr << 4;
    instr ^= instr << 8;
    instr ^= instr << 16;
    instr ^= instr << 32;
    instr ^= s->instr;
    uint64_t v = 0;
    if (UNLIKELY(nl & instr)) /* only after a line with an odd number of quotes */
        instr = reparity(instr, nl, &v);
    s->instr = (uint64_t)((int64_t)instr >> 63);

    uint64_t out = ~instr & ~q; /* outside strings, quotes excluded */
    uint64_t rbo = m->rbrace & out, co = m->colon & out, cm = m->comma & out, dg = m->digit & out,
             dt = m->dot & out, numb = dg | dt;

    /* Each rule says what may follow one kind of byte; by induction from
     * the '{' at the line start that pins the line down: no rule needs to
     * say which bytes may stand outside strings, what ':' or ',' follow or
     * what ends the line. */
    v |= (m->ctl & ~nl) | m->bslash;     /* no '\\', nothing < 0x20 or > 0x7e but '\n' */
    v |= prev1(nl, &s->nl) & ~m->lbrace; /* a line starts with '{' */
    v |= prev1(rbo, &s->rbrace) & ~nl;   /* and ends at its '}' */
    /* After '{' and ',' a key, whose closing quote is where the carry of
     * its opening bit through the string lands; after it ':'. */
    uint64_t after_kb = prev1((m->lbrace & out) | cm, &s->key_before);
    v |= after_kb & ~q;
    uint64_t keyclose = add_carry(instr, q & after_kb, &s->key_carry) & ~instr;
    v |= prev1(keyclose, &s->keyclose) & ~m->colon;
    /* After ':' a string or a number; after either ',' or '}'. */
    uint64_t after_colon = prev1(co, &s->colon);
    v |= after_colon & ~(q | dg);
    uint64_t after_str = prev1(q & ~instr & ~keyclose, &s->valclose);
    uint64_t after_num = prev1(numb, &s->numb);
    v |= (after_str | (after_num & ~numb)) & ~(cm | rbo);
    /* Numbers: no leading zero, a '.' has digits after it, and the digits
     * after a '.' are not followed by another. */
    v |= prev1(m->zero & after_colon, &s->zero) & dg;
    uint64_t after_dot = prev1(dt, &s->dot);
    v |= after_dot & ~dg;
    uint64_t frac_end = add_carry(dg, after_dot, &s->frac_carry) & ~dg;
    v |= frac_end & dt;

    *cand = prev1(q, &s->quote) & m->s;
    return v;
}

/* "status": as a little-endian word. */
#define STATUS_COLON UINT64_C(0x3a22737574617473)

/* A line the index accepted: its class, from the value of its last
 * "status" key (at k + 8, a string or a number the index validated). */
INLINE rb_jsonl_reason accepted_line(const uint8_t *k, int64_t *status)
{
    if (!k)
        return RB_JSONL_NO_STATUS;
    const uint8_t *p = k + 8, *q = p;
    if (*q == '"')
        return RB_JSONL_NO_STATUS;
    /* The usual HTTP status: three digits, then ',' or '}' (each byte is
     * read only after the one before it was a digit: the line may end
     * right after the value). ',' or '}' is one lookup, not two compares:
     * whether the status is the line's last field varies from line to
     * line, and a branch on it missed often (measured: 15% of the time of
     * a count from memory). */
    static const uint8_t ends_value[256] = {[','] = 1, ['}'] = 1};
    if (IS_DIGIT(q[1]) && IS_DIGIT(q[2]) && ends_value[q[3]]) {
        *status = (q[0] - '0') * 100 + (q[1] - '0') * 10 + (q[2] - '0');
        return RB_JSONL_VALID;
    }
    while (IS_DIGIT(*q))
        q++;
    if (*q == '.' || !parse_int64(p, q, status))
        return RB_JSONL_NO_STATUS;
    return RB_JSONL_VALID;
}

typedef void (*classify_fn)(const uint8_t *, bytemasks *);

/* Stage one runs over a chunk of blocks, then stage two over the chunk's
 * events: small enough for the stack and L1. */
#define CHUNK_BLOCKS 64
/* How far the scanner goes alone when most lines of a chunk were its. */
#define SCAN_STRETCH (64u << 10)

/* Appends the positions of the bits of e (block `base`) to ev: four
 * unconditionally, which covers almost every block (a log line is longer
 * than 32 bytes: a newline and a "status" key per line), then the rest.
 * No branch per bit, so no misprediction per line. */
INLINE uint32_t flatten(uint32_t *ev, uint32_t n, uint32_t base, uint64_t e)
{
    uint32_t count = (uint32_t)__builtin_popcountll(e);
    uint32_t *w = ev + n;
    /* An empty e gives 63, written where the next block writes again. */
    w[0] = base + (uint32_t)__builtin_ctzll(e | UINT64_C(1) << 63);
    e &= e - 1;
    w[1] = base + (uint32_t)__builtin_ctzll(e | UINT64_C(1) << 63);
    e &= e - 1;
    w[2] = base + (uint32_t)__builtin_ctzll(e | UINT64_C(1) << 63);
    e &= e - 1;
    w[3] = base + (uint32_t)__builtin_ctzll(e | UINT64_C(1) << 63);
    e &= e - 1;
    for (uint32_t i = 4; e; i++, e &= e - 1)
        w[i] = base + (uint32_t)__builtin_ctzll(e);
    return n + count;
}

/* Stage one for block j of a chunk: its newlines that end a line with a
 * violation into bad_nl[j], its events appended to ev[0..n); returns the
 * new n. */
INLINE uint32_t block_events(const bytemasks *m, uint32_t j, index_state *s, uint32_t *ev,
                             uint32_t n, uint64_t *bad_nl)
{
    uint64_t cand, v = index_block(m, s, &cand), nl = m->nl;
    /* From each violation a carry runs through the line's other bytes and
     * lands on its newline (and on into the next block). */
    uint64_t land = add_carry(~nl, v & ~nl, &s->bad_carry);
    bad_nl[j] = (land | v) & nl;
    return flatten(ev, n, 64 * j, nl | cand);
}

/* Classifies the block at b; the region's last, shorter than 64 bytes, as
 * a copy padded with zeros (nothing after the region's final newline is
 * part of a line). */
INLINE void classify_at(const uint8_t *b, const uint8_t *end, bytemasks *m, classify_fn classify)
{
    if (LIKELY(end - b >= 64)) {
        classify(b, m);
    } else {
        uint8_t pad[64] = {0};
        memcpy(pad, b, (size_t)(end - b));
        classify(pad, m);
    }
}

/* Stage one over a chunk (the blocks from `chunk` below end, at most
 * CHUNK_BLOCKS): fills ev and bad_nl, returns the number of events. */
typedef uint32_t (*stage_one_fn)(const uint8_t *chunk, const uint8_t *end, index_state *s,
                                 uint32_t *ev, uint64_t *bad_nl);

/* Stage one a block at a time. */
INLINE uint32_t stage_one_blocks(const uint8_t *chunk, const uint8_t *end, index_state *s,
                                 uint32_t *ev, uint64_t *bad_nl, classify_fn classify)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < CHUNK_BLOCKS && chunk + 64 * j < end; j++) {
        bytemasks m;
        classify_at(chunk + 64 * j, end, &m, classify);
        n = block_events(&m, j, s, ev, n, bad_nl);
    }
    return n;
}

/* Counts [p, end), which ends with '\n': stage one over a chunk of
 * blocks gives the events (every newline, every byte that may start a
 * "status": key) and, per block, the newlines that end a line with a
 * violation; stage two walks the events in order. Instantiated once per
 * kernel, so each stage one is inlined into its own loop. */
INLINE rb_status index_region(const uint8_t *p, const uint8_t *end, tally *t, rb_error *err,
                              stage_one_fn stage_one)
{
    rb_jsonl_result *res = t->res;
    scanner sc = scanner_at(end);
    counts c = {res->lines, res->blank, res->valid};
    const index_state fresh = {.nl = UINT64_C(1) << 63}; /* a line starts here */
    index_state s = fresh;
    const uint8_t *line = p, *key = NULL; /* the line's last "status": key */
    rb_status st = RB_OK;
    uint32_t ev[CHUNK_BLOCKS * 64 + 4];
    uint64_t bad_nl[CHUNK_BLOCKS];
    for (const uint8_t *chunk = p; chunk < end;) {
        uint32_t n = stage_one(chunk, end, &s, ev, bad_nl), lines = 0, scanned = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *at = chunk + ev[i];
            if (*at != '\n') {
                uint64_t word;
                if (end - at >= 8 && (memcpy(&word, at, 8), word == STATUS_COLON))
                    key = at;
                continue;
            }
            int64_t status = 0;
            int blank = 0;
            rb_jsonl_reason r;
            lines++;
            if (LIKELY(!(bad_nl[ev[i] >> 6] >> (ev[i] & 63) & 1))) {
                r = accepted_line(key, &status);
            } else {
                const uint8_t *next;
                r = scan_line(&sc, line, &next, &status, &blank);
                scanned++;
            }
            if (count_line(t, &c, r, status, blank) < 0) {
                st = out_of_memory(err);
                goto done;
            }
            line = at + 1;
            key = NULL;
        }
        chunk += CHUNK_BLOCKS * 64;
        if (UNLIKELY(scanned * 2 > lines && lines >= 8)) {
            /* Most lines here are not of the shape the index takes (a log
             * of nested objects, say), so the index is work on top of the
             * scanner's: let the scanner go on alone for a stretch, from
             * the line in progress, then try the index again there. */
            const uint8_t *stop = line + SCAN_STRETCH;
            while (line < end && line < stop) {
                int64_t status = 0;
                int blank = 0;
                rb_jsonl_reason r = scan_line(&sc, line, &line, &status, &blank);
                if (count_line(t, &c, r, status, blank) < 0) {
                    st = out_of_memory(err);
                    goto done;
                }
            }
            chunk = line;
            key = NULL;
            s = fresh;
        }
    }
done:
    res->lines = c.lines;
    res->blank = c.blank;
    res->valid = c.valid;
    return st;
}

static uint32_t stage_one_sse2(const uint8_t *chunk, const uint8_t *end, index_state *s,
                               uint32_t *ev, uint64_t *bad_nl)
{
    return stage_one_blocks(chunk, end, s, ev, bad_nl, classify_sse2);
}

static rb_status index_sse2(const uint8_t *p, const uint8_t *end, tally *t, rb_error *err)
{
    return index_region(p, end, t, err, stage_one_sse2);
}

AVX2 static uint32_t stage_one_avx2(const uint8_t *chunk, const uint8_t *end, index_state *s,
                                    uint32_t *ev, uint64_t *bad_nl)
{
    return stage_one_blocks(chunk, end, s, ev, bad_nl, classify_avx2);
}

AVX2 static rb_status index_avx2(const uint8_t *p, const uint8_t *end, tally *t, rb_error *err)
{
    return index_region(p, end, t, err, stage_one_avx2);
}

/* Kernel "avx512": stage one for eight blocks at once. The rules above are
 * bit operations on one 64-bit mask per block, so a zmm register holds
 * the same mask of eight consecutive blocks, lane j block j, and each rule
 * runs on all eight in one instruction (three-input ones in one ternary
 * logic instruction). What a block hands the next comes from the lane
 * below, and lane 0's from the previous group's lane 7:
 *
 * - "previous byte": the lane below's top bit, shifted in (valignq);
 * - the additions: one 512-bit addition of eight lanes, whose carries
 *   between lanes are those of one 8-bit addition (a lane carries out when
 *   its sum overflows, or when it is all ones and a carry comes in);
 * - the string parity before each lane: the xor of the parities of the
 *   lanes below it, an 8-bit prefix xor.
 *
 * A group with a newline inside a "string" (after a line with an odd
 * number of quotes: rare) goes through index_block a block at a time, as
 * does the end of the region (fewer than eight whole blocks). The masks
 * are the same either way, so the two agree by construction; the tests
 * hold both to the scanner. (Measured on the default log from memory:
 * stage one a block at a time was two thirds of the time, about 150
 * scalar instructions per block; in lanes it is a third of that.) */

/* The group's state between groups: index_state with each "previous
 * block's mask" a vector, whose lane 7 is that mask of the group's last
 * block. */
typedef struct lanes_state {
    __m512i quote, nl, rbrace, key_before, keyclose, valclose, colon, numb, zero, dot;
    unsigned instr; /* 1 when the byte before the group is inside a string */
    unsigned key_carry, frac_carry, bad_carry;
} lanes_state;

AVX512 INLINE void lanes_from(lanes_state *l, const index_state *s)
{
#define FROM(f) l->f = _mm512_set1_epi64((long long)s->f)
    FROM(quote), FROM(nl), FROM(rbrace), FROM(key_before), FROM(keyclose);
    FROM(valclose), FROM(colon), FROM(numb), FROM(zero), FROM(dot);
#undef FROM
    l->instr = (unsigned)(s->instr & 1);
    l->key_carry = (unsigned)s->key_carry;
    l->frac_carry = (unsigned)s->frac_carry;
    l->bad_carry = (unsigned)s->bad_carry;
}

AVX512 INLINE void lanes_to(const lanes_state *l, index_state *s)
{
#define TO(f) s->f = (uint64_t)_mm_extract_epi64(_mm512_extracti32x4_epi32(l->f, 3), 1)
    TO(quote), TO(nl), TO(rbrace), TO(key_before), TO(keyclose);
    TO(valclose), TO(colon), TO(numb), TO(zero), TO(dot);
#undef TO
    s->instr = l->instr ? ~UINT64_C(0) : 0;
    s->key_carry = l->key_carry;
    s->frac_carry = l->frac_carry;
    s->bad_carry = l->bad_carry;
}

/* prev1 in every lane: x shifted one byte on, with the lane below's last
 * bit (lane 0: the last group's lane 7). */
AVX512 INLINE __m512i lanes_prev1(__m512i x, __m512i *last)
{
    __m512i below = _mm512_alignr_epi64(x, *last, 7); /* lane j: lane j - 1 */
    *last = x;
    return _mm512_or_si512(_mm512_slli_epi64(x, 1), _mm512_srli_epi64(below, 63));
}

/* add_carry of eight lanes as one number, lane 0 lowest: a + b + *carry,
 * the carry out of lane 7 to *carry. Each lane is a one-bit full adder
 * of (carries out alone, or carries a carry through) = (a | p, g): the
 * carries into the lanes are those of that 8-bit addition. */
AVX512 INLINE __m512i lanes_add(__m512i a, __m512i b, unsigned *carry)
{
    const __m512i ones = _mm512_set1_epi64(-1);
    __m512i sum = _mm512_add_epi64(a, b);
    unsigned g = (unsigned)_mm512_cmplt_epu64_mask(sum, a);    /* overflowed */
    unsigned p = (unsigned)_mm512_cmpeq_epi64_mask(sum, ones); /* all ones */
    unsigned x = g | p, total = x + g + *carry;
    *carry = total >> 8;
    __mmask8 in = (__mmask8)((total ^ x ^ g) & 0xFF); /* lanes a carry enters */
    return _mm512_mask_sub_epi64(sum, in, sum, ones);
}

/* The twelve masks of eight blocks, one array per kind, element j block
 * j: stored mask by mask, loaded as vectors. */
typedef struct group_masks {
    _Alignas(64) uint64_t quote[8], bslash[8], nl[8], ctl[8], digit[8], zero[8], colon[8], comma[8],
        lbrace[8], rbrace[8], dot[8], s[8];
} group_masks;

AVX512 INLINE void classify_group(const uint8_t *p, group_masks *g)
{
    for (int j = 0; j < 8; j++) {
        bytemasks m;
        classify_avx512(p + 64 * j, &m);
        g->quote[j] = m.quote, g->bslash[j] = m.bslash, g->nl[j] = m.nl, g->ctl[j] = m.ctl;
        g->digit[j] = m.digit, g->zero[j] = m.zero, g->colon[j] = m.colon;
        g->comma[j] = m.comma, g->lbrace[j] = m.lbrace, g->rbrace[j] = m.rbrace;
        g->dot[j] = m.dot, g->s[j] = m.s;
    }
}

AVX512 INLINE void group_block(const group_masks *g, int j, bytemasks *m)
{
    m->quote = g->quote[j], m->bslash = g->bslash[j], m->nl = g->nl[j], m->ctl = g->ctl[j];
    m->digit = g->digit[j], m->zero = g->zero[j], m->colon = g->colon[j];
    m->comma = g->comma[j], m->lbrace = g->lbrace[j], m->rbrace = g->rbrace[j];
    m->dot = g->dot[j], m->s = g->s[j];
}

/* a & ~b; ternary logic: TERN(a, b, c, imm) is the function whose truth
 * table, indexed by a << 2 | b << 1 | c, is imm. */
#define ANDN(a, b) _mm512_andnot_si512(b, a)
#define TERN(a, b, c, imm) _mm512_ternarylogic_epi64(a, b, c, imm)

/* index_block and block_events for the eight blocks of g: 0, with l
 * untouched, when a newline is inside a "string" in one of them; else 1,
 * with their bad newlines in bad_nl[0..7] and their events in evm[0..7]. */
AVX512 INLINE int lanes_group(const group_masks *g, lanes_state *l, uint64_t *bad_nl, uint64_t *evm)
{
    const __m512i ones = _mm512_set1_epi64(-1);
    __m512i q = _mm512_load_si512(g->quote), nl = _mm512_load_si512(g->nl);
    __m512i in = q; /* the strings of each lane, as if it started outside one */
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 1));
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 2));
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 4));
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 8));
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 16));
    in = _mm512_xor_si512(in, _mm512_slli_epi64(in, 32));
    /* Bit j: lane j has an odd number of quotes (its top bit); a lane
     * starts inside a string when the lanes below it and the state say so. */
    unsigned odd = (unsigned)_mm512_test_epi64_mask(in, _mm512_set1_epi64(INT64_MIN));
    odd ^= odd << 1;
    odd ^= odd << 2;
    odd ^= odd << 4; /* bit j: the quotes of lanes 0..j */
    __mmask8 inside = (__mmask8)(((odd << 1) ^ (l->instr ? 0xFFu : 0u)) & 0xFF);
    __m512i instr = _mm512_mask_xor_epi64(in, inside, in, ones);
    if (UNLIKELY(_mm512_test_epi64_mask(nl, instr)))
        return 0;
    l->instr ^= odd >> 7 & 1;

    /* The rules of index_block, in its order and with its names. */
    __m512i lb = _mm512_load_si512(g->lbrace), colon = _mm512_load_si512(g->colon);
    __m512i out = TERN(instr, q, q, 0x03); /* ~instr & ~q */
    __m512i rbo = _mm512_and_si512(_mm512_load_si512(g->rbrace), out),
            co = _mm512_and_si512(colon, out),
            cm = _mm512_and_si512(_mm512_load_si512(g->comma), out),
            dg = _mm512_and_si512(_mm512_load_si512(g->digit), out),
            dt = _mm512_and_si512(_mm512_load_si512(g->dot), out), numb = _mm512_or_si512(dg, dt);

    /* (ctl & ~nl) | bslash */
    __m512i v = TERN(_mm512_load_si512(g->ctl), nl, _mm512_load_si512(g->bslash), 0xBA);
    v = _mm512_or_si512(v, ANDN(lanes_prev1(nl, &l->nl), lb));
    v = _mm512_or_si512(v, ANDN(lanes_prev1(rbo, &l->rbrace), nl));
    __m512i after_kb = lanes_prev1(TERN(lb, out, cm, 0xEA), &l->key_before); /* lb & out | cm */
    v = _mm512_or_si512(v, ANDN(after_kb, q));
    __m512i keyclose = ANDN(lanes_add(instr, _mm512_and_si512(q, after_kb), &l->key_carry), instr);
    v = _mm512_or_si512(v, ANDN(lanes_prev1(keyclose, &l->keyclose), colon));
    __m512i after_colon = lanes_prev1(co, &l->colon);
    v = _mm512_or_si512(v, ANDN(after_colon, _mm512_or_si512(q, dg)));
    /* q & ~instr & ~keyclose */
    __m512i after_str = lanes_prev1(TERN(q, instr, keyclose, 0x10), &l->valclose);
    __m512i after_num = lanes_prev1(numb, &l->numb);
    v = _mm512_or_si512(
        v, ANDN(_mm512_or_si512(after_str, ANDN(after_num, numb)), _mm512_or_si512(cm, rbo)));
    __m512i zero_first = _mm512_and_si512(_mm512_load_si512(g->zero), after_colon);
    v = _mm512_or_si512(v, _mm512_and_si512(lanes_prev1(zero_first, &l->zero), dg));
    __m512i after_dot = lanes_prev1(dt, &l->dot);
    v = _mm512_or_si512(v, ANDN(after_dot, dg));
    __m512i frac_end = ANDN(lanes_add(dg, after_dot, &l->frac_carry), dg);
    v = _mm512_or_si512(v, _mm512_and_si512(frac_end, dt));
    __m512i cand = _mm512_and_si512(lanes_prev1(q, &l->quote), _mm512_load_si512(g->s));

    /* block_events' bad newlines */
    __m512i notnl = _mm512_xor_si512(nl, ones);
    __m512i land = lanes_add(notnl, _mm512_and_si512(v, notnl), &l->bad_carry);
    _mm512_storeu_si512(bad_nl, TERN(land, v, nl, 0xA8)); /* (land | v) & nl */
    _mm512_store_si512(evm, _mm512_or_si512(nl, cand));
    return 1;
}
#undef TERN
#undef ANDN

AVX512 static uint32_t stage_one_avx512(const uint8_t *chunk, const uint8_t *end, index_state *s,
                                        uint32_t *ev, uint64_t *bad_nl)
{
    uint32_t n = 0, j = 0;
    size_t whole = (size_t)(end - chunk) / 64;
    uint32_t groups = (uint32_t)(whole < CHUNK_BLOCKS ? whole : CHUNK_BLOCKS) / 8;
    if (groups) {
        lanes_state l;
        lanes_from(&l, s);
        /* Two sets of masks: the next group is classified before this one
         * goes through the rules, so that its masks, stored one block at
         * a time, have reached the cache when the rules load them eight at
         * a time (a load from eight stores still in flight waits for all
         * of them: measured, 10% of the time). */
        group_masks g[2];
        _Alignas(64) uint64_t evm[8];
        classify_group(chunk, &g[0]);
        for (uint32_t gi = 0; gi < groups; gi++, j += 8) {
            const group_masks *cur = &g[gi & 1];
            if (gi + 1 < groups)
                classify_group(chunk + 64 * (j + 8), &g[(gi + 1) & 1]);
            if (LIKELY(lanes_group(cur, &l, bad_nl + j, evm))) {
                for (uint32_t k = 0; k < 8; k++)
                    n = flatten(ev, n, 64 * (j + k), evm[k]);
            } else {
                lanes_to(&l, s);
                for (uint32_t k = 0; k < 8; k++) {
                    bytemasks m;
                    group_block(cur, (int)k, &m);
                    n = block_events(&m, j + k, s, ev, n, bad_nl);
                }
                lanes_from(&l, s);
            }
        }
        lanes_to(&l, s);
    }
    for (; j < CHUNK_BLOCKS && chunk + 64 * j < end; j++) {
        bytemasks m;
        classify_at(chunk + 64 * j, end, &m, classify_avx512);
        n = block_events(&m, j, s, ev, n, bad_nl);
    }
    return n;
}

AVX512 static rb_status index_avx512(const uint8_t *p, const uint8_t *end, tally *t, rb_error *err)
{
    return index_region(p, end, t, err, stage_one_avx512);
}
#endif /* HAVE_INDEX */

/* ---- choosing the kernel -------------------------------------------------- */

typedef rb_status (*region_fn)(const uint8_t *, const uint8_t *, tally *, rb_error *);

/* The kernels, slowest first: "auto" takes the last one this CPU runs.
 * On the machine the suite is measured on (AMD EPYC, Zen 4), counting the
 * default log from memory (make jsonl-speed, medians): scan 1.6, sse2 2.2,
 * avx2 3.6, avx512 6.3 GB/s. */
enum { K_AUTO, K_SCAN, K_SSE2, K_AVX2, K_AVX512, K_COUNT };
static const struct {
    const char *name;
    const char *needs; /* what a build and CPU need to run it, for messages */
} kernels[K_COUNT] = {
    [K_AUTO] = {"auto", ""},
    [K_SCAN] = {"scan", ""},
    [K_SSE2] = {"sse2", "an x86-64 build"},
    [K_AVX2] = {"avx2", "an x86-64 build and a CPU with AVX2"},
    [K_AVX512] = {"avx512", "an x86-64 build and a CPU with AVX-512F, AVX-512BW, BMI1 and BMI2"},
};
static int kernel_choice = K_AUTO; /* read and written atomically */

static int kernel_runs(int k)
{
    switch (k) {
    case K_AUTO:
    case K_SCAN: return 1;
#if defined(HAVE_INDEX)
    case K_SSE2: return 1;
    case K_AVX2: return __builtin_cpu_supports("avx2");
    case K_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
    default: return 0;
    }
}

static int kernel_named(const char *name)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(name, kernels[k].name) == 0)
            return k;
    return -1;
}

/* The kernels' names, "auto, scan, ...", for messages. */
static const char *kernel_list(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < K_COUNT && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", kernels[k].name);
    return buf;
}

/* Fails for `name`, kernel k (-1: none), saying which kernels there are
 * or what k needs; `must` begins the message ("must be", for an argument). */
static rb_status kernel_refused(rb_error *err, const char *arg, const char *must, int k,
                                const char *name)
{
    char list[96];
    if (k < 0)
        return rb_failf(err, RB_ERR_ARG, arg, -1, "%s a jsonl kernel (%s), not '%s'", must,
                        kernel_list(list, sizeof list), name);
    return rb_failf(err, RB_ERR_ARG, arg, -1,
                    "%s a jsonl kernel this CPU and build run, not '%s', which needs %s", must,
                    name, kernels[k].needs);
}

/* The kernel in force, never K_AUTO; -1 (err set) when the environment
 * names one this CPU cannot run. */
static int kernel_resolve(rb_error *err)
{
    int k = __atomic_load_n(&kernel_choice, __ATOMIC_RELAXED);
    if (k != K_AUTO)
        return k;
    const char *env = getenv("ROUNDBENCH_JSONL_KERNEL");
    if (env && *env) {
        k = kernel_named(env);
        if (k < 0 || !kernel_runs(k)) {
            /* An environment variable, not an argument: arg stays NULL. */
            kernel_refused(err, NULL, "$ROUNDBENCH_JSONL_KERNEL must name", k, env);
            return -1;
        }
        if (k != K_AUTO)
            return k;
    }
    for (k = K_COUNT - 1; k > K_SCAN; k--)
        if (kernel_runs(k))
            return k;
    return K_SCAN;
}

static region_fn kernel_region(int k)
{
#if defined(HAVE_INDEX)
    if (k == K_AVX512)
        return index_avx512;
    if (k == K_AVX2)
        return index_avx2;
    if (k == K_SSE2)
        return index_sse2;
#endif
    (void)k;
    return scan_region;
}

rb_status rb_jsonl_set_kernel(const char *name, rb_error *err)
{
    int k = name ? kernel_named(name) : K_AUTO;
    if (k < 0 || !kernel_runs(k))
        return kernel_refused(err, "name", "must be", k, name);
    __atomic_store_n(&kernel_choice, k, __ATOMIC_RELAXED);
    return RB_OK;
}

const char *rb_jsonl_kernel(rb_error *err)
{
    int k = kernel_resolve(err);
    return k < 0 ? NULL : kernels[k].name;
}

/* Counts a final line that lacks its newline: copied with one appended. */
static rb_status scan_last(const uint8_t *p, size_t len, tally *t, rb_error *err)
{
    uint8_t *tmp = malloc(len + 1);
    if (!tmp)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the last line", -1);
    memcpy(tmp, p, len);
    tmp[len] = '\n';
    rb_status st = t->region(tmp, tmp + len + 1, t, err);
    free(tmp);
    return st;
}

static rb_status finish(tally *t, rb_status st, rb_error *err)
{
    if (merge_small(t) < 0 && st == RB_OK)
        st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the status table", -1);
    return st;
}

rb_status rb_jsonl_count_buffer(const uint8_t *buf, size_t len, rb_jsonl_result *res, rb_error *err)
{
    if (!res)
        return rb_fail(err, RB_ERR_ARG, "res", "must not be NULL", -1);
    if (!buf && len)
        return rb_fail(err, RB_ERR_ARG, "buf", "must not be NULL when len > 0", -1);
    int k = kernel_resolve(err);
    if (k < 0)
        return RB_ERR_ARG;
    if (len == 0)
        return RB_OK;
    tally *t = calloc(1, sizeof *t);
    if (!t)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory", -1);
    t->res = res;
    t->region = kernel_region(k);
    rb_status st = RB_OK;
    const uint8_t *last = memrchr(buf, '\n', len);
    size_t head = last ? (size_t)(last - buf) + 1 : 0;
    if (head)
        st = t->region(buf, buf + head, t, err);
    if (st == RB_OK && head < len)
        st = scan_last(buf + head, len - head, t, err);
    if (st == RB_OK)
        res->bytes += (int64_t)len;
    st = finish(t, st, err);
    free(t);
    return st;
}

rb_status rb_jsonl_count_file(const char *path, rb_jsonl_result *res, rb_error *err)
{
    if (!path)
        return rb_fail(err, RB_ERR_ARG, "path", "must not be NULL", -1);
    if (!res)
        return rb_fail(err, RB_ERR_ARG, "res", "must not be NULL", -1);
    int k = kernel_resolve(err);
    if (k < 0)
        return RB_ERR_ARG;
    rb_status st = RB_OK;
    uint8_t *buf = NULL;
    tally *t = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rb_fail_sys(err, errno, "path", 0, "cannot open %s", path);
    size_t cap = READ_CHUNK, have = 0;
    /* One spare byte: the newline a last line without one gets. */
    buf = malloc(cap + 1);
    t = calloc(1, sizeof *t);
    if (!buf || !t) {
        st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the read buffer", -1);
        goto done;
    }
    t->res = res;
    t->region = kernel_region(k);
    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            st = rb_fail_sys(err, errno, "path", res->bytes, "cannot read %s after %lld bytes",
                             path, (long long)res->bytes);
            goto done;
        }
        if (n == 0) {
            if (have) {
                buf[have] = '\n';
                st = t->region(buf, buf + have + 1, t, err);
                if (st == RB_OK)
                    res->bytes += (int64_t)have;
            }
            goto done;
        }
        have += (size_t)n;
        const uint8_t *last = memrchr(buf, '\n', have);
        if (!last) {
            if (have == cap) {
                /* A line longer than the buffer: grow it, lines have no limit. */
                if (cap > SIZE_MAX / 4) {
                    st = rb_fail(err, RB_ERR_NOMEM, NULL, "a line is too long", res->bytes);
                    goto done;
                }
                uint8_t *bigger = realloc(buf, cap * 2 + 1);
                if (!bigger) {
                    st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for a long line",
                                 res->bytes);
                    goto done;
                }
                buf = bigger;
                cap *= 2;
            }
            continue;
        }
        size_t head = (size_t)(last - buf) + 1;
        st = t->region(buf, buf + head, t, err);
        if (st != RB_OK)
            goto done;
        res->bytes += (int64_t)head;
        memmove(buf, buf + head, have - head);
        have -= head;
    }
done:
    if (t)
        st = finish(t, st, err);
    free(t);
    free(buf);
    close(fd);
    return st;
}
