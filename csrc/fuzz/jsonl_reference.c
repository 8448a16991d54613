/* jsonl_reference.c: the rules of round jsonl for one line, plainly
 * (jsonl_reference.h). RFC 8259 by recursive descent: strict UTF-8,
 * the eight escapes and \uXXXX, the number grammar, at most 512 nested
 * arrays and objects; then the top-level "status" (compared after
 * unescaping, the last one wins) must be an integer in the int64 range. */
#include "jsonl_reference.h"

#include <string.h>

#define MAX_DEPTH 512

typedef struct parser {
    const uint8_t *p, *end;
    int depth;
} parser;

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r'))
        ps->p++;
}

static int hex(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The bytes of one UTF-8 character at p (n bytes left), or 0 when they
 * are not one (Unicode 15, table 3-7: no overlong form, no surrogate,
 * nothing above U+10FFFF). */
static size_t utf8_char(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return len;
}

/* A string at ps->p (its opening quote). *is_status: its unescaped
 * content is exactly the six letters of "status". Returns 0 if invalid. */
static int string(parser *ps, int *is_status)
{
    static const char want[] = "status";
    size_t units = 0; /* characters decoded so far */
    int match = 1;
    ps->p++;
    for (;;) {
        if (ps->p >= ps->end)
            return 0;
        uint8_t c = *ps->p;
        uint32_t ch;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (ps->end - ps->p < 2)
                return 0;
            uint8_t e = ps->p[1];
            ps->p += 2;
            switch (e) {
            case '"':
            case '\\':
            case '/': ch = e; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                if (ps->end - ps->p < 4)
                    return 0;
                ch = 0;
                for (int i = 0; i < 4; i++) {
                    int h = hex(ps->p[i]);
                    if (h < 0)
                        return 0;
                    ch = ch * 16 + (uint32_t)h;
                }
                ps->p += 4;
                break;
            }
            default: return 0;
            }
        } else {
            size_t k = utf8_char(ps->p, (size_t)(ps->end - ps->p));
            if (!k)
                return 0;
            ch = k == 1 ? c : 0x80; /* any non-ASCII character: not a letter of "status" */
            ps->p += k;
        }
        if (match && (units >= 6 || ch != (uint8_t)want[units]))
            match = 0;
        units++;
    }
    *is_status = match && units == 6;
    return 1;
}

/* A number; *is_int64 and *value when it is an integer (no fraction, no
 * exponent) in the int64 range. Returns 0 if invalid. */
static int number(parser *ps, int *is_int64, int64_t *value)
{
    int neg = 0, integer = 1;
    if (ps->p < ps->end && *ps->p == '-') {
        neg = 1;
        ps->p++;
    }
    const uint8_t *digits = ps->p;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return 0;
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    size_t ndigits = (size_t)(ps->p - digits);
    if (ps->p < ps->end && *ps->p == '.') {
        integer = 0;
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return 0;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        integer = 0;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return 0;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    *is_int64 = 0;
    if (!integer || ndigits > 19)
        return 1;
    /* The magnitude as unsigned; int64 holds up to 2^63 - 1, and 2^63 negated. */
    uint64_t mag = 0;
    for (size_t i = 0; i < ndigits; i++) {
        uint64_t d = (uint64_t)(digits[i] - '0');
        if (mag > (UINT64_MAX - d) / 10)
            return 1;
        mag = mag * 10 + d;
    }
    uint64_t limit = neg ? UINT64_C(9223372036854775808) : UINT64_C(9223372036854775807);
    if (mag > limit)
        return 1;
    *is_int64 = 1;
    *value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 1;
}

/* A value; at the top level (top set) an object records its last
 * "status": *st 0 none, 1 an int64 (in *status), 2 another value. */
static int value(parser *ps, int top, int *st, int64_t *status);

static int literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static int object(parser *ps, int top, int *st, int64_t *status)
{
    ps->p++;
    ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return 1;
    }
    for (;;) {
        ws(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            return 0;
        int is_status = 0;
        if (!string(ps, &is_status))
            return 0;
        ws(ps);
        if (ps->p >= ps->end || *ps->p != ':')
            return 0;
        ps->p++;
        ws(ps);
        if (top && is_status) {
            if (ps->p < ps->end && (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))) {
                int is_int64;
                int64_t v;
                if (!number(ps, &is_int64, &v))
                    return 0;
                *st = is_int64 ? 1 : 2;
                if (is_int64)
                    *status = v;
            } else {
                if (!value(ps, 0, NULL, NULL))
                    return 0;
                *st = 2;
            }
        } else if (!value(ps, 0, NULL, NULL))
            return 0;
        ws(ps);
        if (ps->p >= ps->end)
            return 0;
        if (*ps->p == '}') {
            ps->p++;
            return 1;
        }
        if (*ps->p != ',')
            return 0;
        ps->p++;
    }
}

static int array(parser *ps)
{
    ps->p++;
    ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return 1;
    }
    for (;;) {
        ws(ps);
        if (!value(ps, 0, NULL, NULL))
            return 0;
        ws(ps);
        if (ps->p >= ps->end)
            return 0;
        if (*ps->p == ']') {
            ps->p++;
            return 1;
        }
        if (*ps->p != ',')
            return 0;
        ps->p++;
    }
}

static int value(parser *ps, int top, int *st, int64_t *status)
{
    if (ps->p >= ps->end)
        return 0;
    int dummy;
    switch (*ps->p) {
    case '{':
    case '[': {
        if (++ps->depth > MAX_DEPTH)
            return 0;
        int ok = *ps->p == '{' ? object(ps, top, st, status) : array(ps);
        ps->depth--;
        return ok;
    }
    case '"': return string(ps, &dummy);
    case 't': return literal(ps, "true");
    case 'f': return literal(ps, "false");
    case 'n': return literal(ps, "null");
    default: {
        int64_t v;
        return number(ps, &dummy, &v);
    }
    }
}

ref_class ref_classify(const uint8_t *line, size_t len, int64_t *status)
{
    parser ps = {line, line + len, 0};
    ws(&ps);
    if (ps.p == ps.end)
        return REF_BLANK;
    int is_object = *ps.p == '{', st = 0;
    if (!value(&ps, 1, &st, status))
        return REF_INVALID_JSON;
    ws(&ps);
    if (ps.p != ps.end)
        return REF_INVALID_JSON;
    if (!is_object)
        return REF_NOT_OBJECT;
    return st == 1 ? REF_VALID : REF_NO_STATUS;
}
