/* aspects_input.c: libFuzzer target of round aspects' readers: the
 * ephemeris and events parsers (rb_aspects_ephemeris_parse,
 * rb_aspects_events_parse), the combination parser (rb_aspects_combo_parse,
 * which reads --combo) and, on what they accept, the search.
 *
 * Input: byte 0 chooses what the rest is: 0 an ephemeris; 1 events, read
 * against a 60-day ephemeris the target makes when it starts; 2 an
 * ephemeris, a NUL byte, events for it; 3 a combination (up to a NUL).
 * Each text is a heap block of exactly its bytes (a read past it is an
 * AddressSanitizer report). Checked:
 *
 * - a rejection is RB_ERR_ARG with no argument named, a message that
 *   starts with the file's name and the line (`NAME:LINE: `), a line
 *   between 1 and the text's lines, and the output left untouched; a
 *   combination's names "combo" and the term;
 * - an accepted table has at most one row a line after the header, and
 *   accepted events at most one a line;
 * - on events accepted for a table, the search (tests 1 and 2, the
 *   default combination) succeeds, finds at most one match an event, and
 *   test 2's output ends with test 1's (docs/rounds/aspects.md). */
#include <string.h>

#include "fuzz.h"
#include "roundbench.h"

static char table_text[8192];
static size_t table_len;
static rb_aspects_ephemeris *table;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* 60 days from 2000-03-01 (March 31 days, April 30); each body moves
     * at its own steady rate. */
    static const double start[RB_ASPECTS_BODIES] = {340, 281, 342, 314, 13, 32, 42, 318, 305, 252};
    static const double rate[RB_ASPECTS_BODIES] = {1.0,  13.2, 1.4,  1.2,   0.7,
                                                   0.08, 0.03, 0.01, 0.006, 0.004};
    int n = snprintf(
        table_text, sizeof table_text,
        "date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\tneptune\tpluto\n");
    for (int d = 0; d < 60; d++) {
        int month = d < 31 ? 3 : 4, day = d < 31 ? d + 1 : d - 30;
        n += snprintf(table_text + n, sizeof table_text - (size_t)n, "2000-%02d-%02d", month, day);
        for (int b = 0; b < RB_ASPECTS_BODIES; b++) {
            double lon = start[b] + rate[b] * d;
            while (lon >= 360)
                lon -= 360;
            n += snprintf(table_text + n, sizeof table_text - (size_t)n, "\t%.6f", lon);
        }
        n += snprintf(table_text + n, sizeof table_text - (size_t)n, "\n");
    }
    table_len = (size_t)n;
    rb_error err;
    if (rb_aspects_ephemeris_parse(table_text, table_len, "table", &table, &err) != RB_OK) {
        fprintf(stderr, "aspects_input: the target's own table is refused: %s\n", err.msg);
        abort();
    }
    return 0;
}

static int64_t lines_of(const char *text, size_t n)
{
    int64_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines + (n && text[n - 1] != '\n');
}

/* A rejection's invariants: err names no argument, says NAME:LINE: with
 * the line in [1, lines of the text]. */
static void check_rejection(rb_status st, const rb_error *err, const char *name, const char *text,
                            size_t n)
{
    FUZZ_CHECK(st == RB_ERR_ARG && err->code == st, "%s: status %d (err %d): %s", name, st,
               err->code, err->msg);
    FUZZ_CHECK(err->arg == NULL, "%s: the error names argument %s", name, err->arg);
    int64_t lines = lines_of(text, n);
    FUZZ_CHECK(err->pos >= 1 && err->pos <= (lines ? lines : 1), "%s: line %lld of %lld: %s", name,
               (long long)err->pos, (long long)lines, err->msg);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s:%lld: ", name, (long long)err->pos);
    FUZZ_CHECK(strncmp(err->msg, prefix, strlen(prefix)) == 0 && strlen(err->msg) > strlen(prefix),
               "%s: message \"%s\" does not start with \"%s\" and say what", name, err->msg,
               prefix);
}

static rb_aspects_ephemeris *ephemeris(const char *text, size_t n)
{
    char *block = (char *)fuzz_exact_copy((const uint8_t *)text, n, 0);
    rb_aspects_ephemeris *sentinel = (rb_aspects_ephemeris *)(uintptr_t)0x1, *eph = sentinel;
    rb_error err;
    rb_status st = rb_aspects_ephemeris_parse(block, n, "eph", &eph, &err);
    if (st != RB_OK) {
        FUZZ_CHECK(eph == sentinel, "ephemeris: output touched on failure");
        check_rejection(st, &err, "eph", block, n);
        eph = NULL;
    } else {
        FUZZ_CHECK(eph && eph != sentinel, "ephemeris: no table on success");
        int64_t rows = rb_aspects_ephemeris_rows(eph);
        FUZZ_CHECK(rows >= 0 && rows <= lines_of(block, n), "ephemeris: %lld rows from %lld lines",
                   (long long)rows, (long long)lines_of(block, n));
    }
    free(block);
    return eph;
}

static void search(const rb_aspects_ephemeris *eph, const rb_aspects_events *ev)
{
    int64_t count = rb_aspects_events_count(ev);
    if (count == 0)
        return;
    if (count > 50)
        count = 50; /* the search is not what is fuzzed: a bounded slice */
    rb_aspects_combo combo;
    rb_error err;
    FUZZ_CHECK(rb_aspects_combo_parse(RB_ASPECTS_DEFAULT_COMBO, &combo, &err) == RB_OK,
               "the default combination: %s", err.msg);
    rb_buf out1 = {0}, out2 = {0};
    int64_t m1 = -1, m2 = -1;
    rb_status s1 = rb_aspects_search(eph, ev, 0, count, &combo, 1, &out1, &m1, &err);
    FUZZ_CHECK(s1 == RB_OK, "search, test 1: %s", err.msg);
    rb_status s2 = rb_aspects_search(eph, ev, 0, count, &combo, 2, &out2, &m2, &err);
    FUZZ_CHECK(s2 == RB_OK, "search, test 2: %s", err.msg);
    FUZZ_CHECK(m1 == m2 && m1 >= 0 && m1 <= count, "matches %lld and %lld of %lld events",
               (long long)m1, (long long)m2, (long long)count);
    FUZZ_CHECK(out1.len > 0 && out1.data[out1.len - 1] == '\n', "test 1's output is not lines");
    FUZZ_CHECK(out2.len >= out1.len &&
                   memcmp(out2.data + out2.len - out1.len, out1.data, out1.len) == 0,
               "test 2's output does not end with test 1's");
    rb_buf_free(&out1);
    rb_buf_free(&out2);
}

static void events(const rb_aspects_ephemeris *eph, const char *text, size_t n)
{
    char *block = (char *)fuzz_exact_copy((const uint8_t *)text, n, 0);
    rb_aspects_events *sentinel = (rb_aspects_events *)(uintptr_t)0x1, *ev = sentinel;
    rb_error err;
    rb_status st = rb_aspects_events_parse(block, n, "ev", eph, &ev, &err);
    if (st != RB_OK) {
        FUZZ_CHECK(ev == sentinel, "events: output touched on failure");
        check_rejection(st, &err, "ev", block, n);
    } else {
        FUZZ_CHECK(ev && ev != sentinel, "events: no list on success");
        int64_t count = rb_aspects_events_count(ev);
        FUZZ_CHECK(count >= 0 && count <= lines_of(block, n), "events: %lld from %lld lines",
                   (long long)count, (long long)lines_of(block, n));
        search(eph, ev);
        rb_aspects_events_free(ev);
    }
    free(block);
}

static void combination(const char *text, size_t n)
{
    char *block = malloc(n + 1);
    if (!block)
        abort();
    memcpy(block, text, n);
    block[n] = '\0';
    rb_aspects_combo combo, before;
    memset(&combo, 0x5A, sizeof combo);
    before = combo;
    rb_error err;
    rb_status st = rb_aspects_combo_parse(block, &combo, &err);
    if (st != RB_OK) {
        FUZZ_CHECK(st == RB_ERR_ARG && err.arg && strcmp(err.arg, "combo") == 0,
                   "combo: status %d naming %s: %s", st, err.arg ? err.arg : "nothing", err.msg);
        FUZZ_CHECK(memcmp(&combo, &before, sizeof combo) == 0, "combo: output touched on failure");
        FUZZ_CHECK(err.pos >= 0 && err.pos <= RB_ASPECTS_MAX_TERMS, "combo: term %lld",
                   (long long)err.pos);
    } else {
        FUZZ_CHECK(combo.nterms >= 1 && combo.nterms <= RB_ASPECTS_MAX_TERMS, "combo: %d terms",
                   combo.nterms);
        for (int i = 0; i < combo.nterms; i++) {
            const rb_aspects_term *t = &combo.terms[i];
            FUZZ_CHECK(t->p1 >= 0 && t->p1 < RB_ASPECTS_POINTS && t->p2 >= 0 &&
                           t->p2 < RB_ASPECTS_POINTS && t->p1 != t->p2,
                       "combo: term %d has points %d and %d", i, t->p1, t->p2);
            FUZZ_CHECK(t->angle == 0 || t->angle == 60 || t->angle == 90 || t->angle == 120 ||
                           t->angle == 180,
                       "combo: term %d has angle %d", i, t->angle);
        }
    }
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    switch (data[0] & 3) {
    case 0: {
        rb_aspects_ephemeris *eph = ephemeris(text, n);
        rb_aspects_ephemeris_free(eph);
        break;
    }
    case 1: events(table, text, n); break;
    case 2: {
        const char *nul = memchr(text, '\0', n);
        size_t first = nul ? (size_t)(nul - text) : n;
        rb_aspects_ephemeris *eph = ephemeris(text, first);
        if (eph && nul)
            events(eph, nul + 1, n - first - 1);
        rb_aspects_ephemeris_free(eph);
        break;
    }
    default: {
        const char *nul = memchr(text, '\0', n);
        combination(text, nul ? (size_t)(nul - text) : n);
        break;
    }
    }
    return 0;
}
