/* http_request.c: libFuzzer target of the core server's request parser,
 * rb_http_parse (csrc/http.c), the part of the product that reads bytes
 * from the network.
 *
 * Input: byte 0 chooses the head limit (max_head), byte 1 how the stream
 * arrives (the number of reads and, seeded by it, where it is cut); the
 * rest is the byte stream of one connection, possibly several pipelined
 * requests. The target plays the server's loop (http.c, process()): parse
 * at the current offset; a complete head is consumed with its body
 * (Content-Length bytes, skipped), a rejection ends the connection, a
 * partial head waits for more bytes. It does so twice, once on the whole
 * stream and once read by read, every parse on a heap copy of exactly the
 * bytes received (so a read past them is an AddressSanitizer report), and
 * checks:
 *
 * - every result is partial, complete, 400, 431 or 501; partial only while
 *   the bytes are fewer than the limit;
 * - a complete head's fields lie inside its head, inside the input: the
 *   method a non-empty run of token characters at its start, the target
 *   visible ASCII after one space, head_len within the bytes and the limit,
 *   minor version 0 or 1, keep_alive 0 or 1, a Content-Length in range;
 * - the head parsed alone (exactly head_len bytes) gives the same request:
 *   the parser never decides from bytes after the head;
 * - keep_alive and content_length are what a second, plain reading of the
 *   accepted head's header lines says (RFC 9112 9.6: a "close" option
 *   closes whatever else is said; "keep-alive" keeps HTTP/1.0 open; 1.1
 *   stays open by default; no Content-Length is 0);
 * - the stream read by read gives the same requests, in order, as the
 *   whole stream; where a read ends at the limit inside an unfinished head
 *   it may reject with 431 a head the whole stream rejects otherwise. */
#include <string.h>

#include "fuzz.h"
#include "roundbench.h"

/* The server's own limits (http.c): the largest body it skips. */
#define MAX_BODY (1 << 20)

static const size_t head_limits[8] = {8192, 4096, 1024, 256, 64, 32, 16, 8};

typedef struct event {
    int result; /* RB_HTTP_COMPLETE, or the rejection */
    size_t at;  /* stream offset of the head */
    /* A complete head's fields, the pointers as offsets from `at`. */
    size_t method, method_len, path, path_len, head_len;
    int minor_version, keep_alive;
    int64_t content_length;
} event;

/* What one connection's stream made the server do, in order: a head
 * takes at least two bytes ("\n\n" would end one), so a stream of n bytes
 * makes at most n / 2 + 1 events. */
typedef struct events {
    size_t n, cap;
    event *e;
} events;

static int is_tchar(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int word_is(const char *p, size_t n, const char *word)
{
    if (strlen(word) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)p[i]) != word[i])
            return 0;
    return 1;
}

/* What the header lines of an accepted head say, read plainly: each line
 * up to its LF, the name up to the first ':', the value's tokens split at
 * commas, spaces and tabs (a CR before the LF dropped). */
static void expected_fields(const rb_http_request *req, const char *head, int *keep_alive,
                            int64_t *content_length)
{
    int close_opt = 0, keep_opt = 0;
    *content_length = 0;
    const char *end = head + req->head_len, *line = memchr(head, '\n', req->head_len);
    while (line && ++line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)(eol - line);
        if (n && line[n - 1] == '\r')
            n--;
        const char *colon = memchr(line, ':', n);
        if (colon) {
            const char *v = colon + 1, *vend = line + n;
            if (word_is(line, (size_t)(colon - line), "connection")) {
                while (v < vend) {
                    while (v < vend && (*v == ',' || *v == ' ' || *v == '\t'))
                        v++;
                    const char *t = v;
                    while (v < vend && *v != ',' && *v != ' ' && *v != '\t')
                        v++;
                    close_opt |= word_is(t, (size_t)(v - t), "close");
                    keep_opt |= word_is(t, (size_t)(v - t), "keep-alive");
                }
            } else if (word_is(line, (size_t)(colon - line), "content-length")) {
                while (v < vend && (*v == ' ' || *v == '\t'))
                    v++;
                *content_length = 0;
                while (v < vend && *v >= '0' && *v <= '9')
                    *content_length = *content_length * 10 + (*v++ - '0');
            }
        }
        line = eol;
    }
    *keep_alive = !close_opt && (keep_opt || req->minor_version == 1);
}

/* Parses buf[0, len) (a heap block of exactly len bytes) and checks the
 * result's invariants; returns the result, *req filled when complete. */
static int parse_checked(const uint8_t *buf, size_t len, size_t max_head, rb_http_request *req)
{
    memset(req, 0xA5, sizeof *req);
    int r = rb_http_parse((const char *)buf, len, max_head, req);
    FUZZ_CHECK(r == RB_HTTP_PARTIAL || r == RB_HTTP_COMPLETE || r == RB_HTTP_BAD ||
                   r == RB_HTTP_TOO_LARGE || r == RB_HTTP_UNSUPPORTED,
               "result %d on %zu bytes", r, len);
    if (r == RB_HTTP_PARTIAL)
        FUZZ_CHECK(len < max_head, "partial at %zu bytes with a limit of %zu", len, max_head);
    if (r != RB_HTTP_COMPLETE)
        return r;
    const char *b = (const char *)buf;
    FUZZ_CHECK(req->head_len > 0 && req->head_len <= len && req->head_len <= max_head,
               "head_len %zu of %zu bytes, limit %zu", req->head_len, len, max_head);
    FUZZ_CHECK(req->method >= b && req->method_len > 0 &&
                   req->method + req->method_len < b + req->head_len,
               "method outside the head");
    for (size_t i = 0; i < req->method_len; i++)
        FUZZ_CHECK(is_tchar((uint8_t)req->method[i]), "method byte %zu is 0x%02x", i,
                   (uint8_t)req->method[i]);
    FUZZ_CHECK(req->method[req->method_len] == ' ' &&
                   req->path == req->method + req->method_len + 1,
               "the target does not follow the method and one space");
    FUZZ_CHECK(req->path_len > 0 && req->path + req->path_len < b + req->head_len,
               "target outside the head");
    for (size_t i = 0; i < req->path_len; i++)
        FUZZ_CHECK((uint8_t)req->path[i] > 0x20 && (uint8_t)req->path[i] < 0x7f,
                   "target byte %zu is 0x%02x", i, (uint8_t)req->path[i]);
    FUZZ_CHECK(req->minor_version == 0 || req->minor_version == 1, "minor version %d",
               req->minor_version);
    FUZZ_CHECK(req->keep_alive == 0 || req->keep_alive == 1, "keep_alive %d", req->keep_alive);
    FUZZ_CHECK(req->content_length >= 0 && req->content_length < INT64_C(1000000000000000),
               "content_length %lld", (long long)req->content_length);
    int keep_alive;
    int64_t content_length;
    expected_fields(req, b, &keep_alive, &content_length);
    FUZZ_CHECK(req->keep_alive == keep_alive, "keep_alive %d; the header lines say %d",
               req->keep_alive, keep_alive);
    FUZZ_CHECK(req->content_length == content_length,
               "content_length %lld; the header lines say %lld", (long long)req->content_length,
               (long long)content_length);
    return r;
}

static int same_request(const rb_http_request *a, const char *abase, const rb_http_request *b,
                        const char *bbase)
{
    return a->method - abase == b->method - bbase && a->method_len == b->method_len &&
           a->path - abase == b->path - bbase && a->path_len == b->path_len &&
           a->minor_version == b->minor_version && a->keep_alive == b->keep_alive &&
           a->content_length == b->content_length && a->head_len == b->head_len;
}

/* A connection's state, as http.c keeps it. */
typedef struct conn {
    size_t off;   /* stream offset of the next head */
    int64_t skip; /* body bytes still to skip */
    int closed;
} conn;

/* Runs the server's loop over stream[0, have) from c's state: the bytes
 * are copied to a block of exactly have - off bytes for each parse. */
static void process(const uint8_t *stream, size_t have, size_t max_head, conn *c, events *out)
{
    while (!c->closed) {
        if (c->skip) {
            size_t take = have - c->off;
            if ((int64_t)take > c->skip)
                take = (size_t)c->skip;
            c->off += take;
            c->skip -= (int64_t)take;
            if (c->skip)
                return;
        }
        if (c->off == have)
            return;
        size_t len = have - c->off;
        uint8_t *buf = fuzz_exact_copy(stream + c->off, len, 0);
        rb_http_request req;
        int r = parse_checked(buf, len, max_head, &req);
        if (r == RB_HTTP_PARTIAL) {
            free(buf);
            return;
        }
        FUZZ_CHECK(out->n < out->cap, "more than %zu requests", out->cap);
        event *e = &out->e[out->n++];
        e->result = r;
        e->at = c->off;
        if (r != RB_HTTP_COMPLETE) {
            c->closed = 1;
            free(buf);
            return;
        }
        /* The head alone parses the same: nothing after it was read. */
        uint8_t *head = fuzz_exact_copy(buf, req.head_len, 0);
        rb_http_request alone;
        int ra = parse_checked(head, req.head_len, max_head, &alone);
        FUZZ_CHECK(ra == RB_HTTP_COMPLETE &&
                       same_request(&alone, (const char *)head, &req, (const char *)buf),
                   "the head alone (%zu bytes) parses as %d, not as the same request", req.head_len,
                   ra);
        free(head);
        /* Offsets from the head's start, comparable across the two runs. */
        e->method = (size_t)(req.method - (const char *)buf);
        e->method_len = req.method_len;
        e->path = (size_t)(req.path - (const char *)buf);
        e->path_len = req.path_len;
        e->head_len = req.head_len;
        e->minor_version = req.minor_version;
        e->keep_alive = req.keep_alive;
        e->content_length = req.content_length;
        free(buf);
        c->off += req.head_len;
        if (req.content_length > MAX_BODY) {
            c->closed = 1;
            return;
        }
        c->skip = req.content_length;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t max_head = head_limits[data[0] & 7];
    uint64_t seed = data[1];
    int reads = 1 + (data[1] & 7);
    const uint8_t *stream = data + 2;
    size_t n = size - 2;

    events whole = {0, n / 2 + 1, calloc(n / 2 + 1, sizeof(event))};
    events split = {0, n / 2 + 1, calloc(n / 2 + 1, sizeof(event))};
    if (!whole.e || !split.e)
        abort();
    conn c = {0, 0, 0};
    process(stream, n, max_head, &c, &whole);

    /* The same stream in `reads` reads, cut at seeded points. */
    size_t cuts[8];
    int ncuts = 0;
    for (int i = 0; i + 1 < reads && n > 1; i++)
        cuts[ncuts++] = 1 + (size_t)(fuzz_next(&seed) % (n - 1));
    for (int i = 1; i < ncuts; i++) /* insertion sort */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    conn d = {0, 0, 0};
    for (int i = 0; i < ncuts; i++)
        process(stream, cuts[i], max_head, &d, &split);
    process(stream, n, max_head, &d, &split);

    FUZZ_CHECK(split.n == whole.n || (split.n < whole.n && split.n > 0 &&
                                      split.e[split.n - 1].result == RB_HTTP_TOO_LARGE),
               "%zu requests read by read, %zu whole", split.n, whole.n);
    for (size_t i = 0; i < split.n; i++) {
        const event *a = &split.e[i], *b = &whole.e[i];
        FUZZ_CHECK(a->at == b->at, "request %zu at %zu read by read, %zu whole", i, a->at, b->at);
        if (a->result == RB_HTTP_TOO_LARGE && b->result != RB_HTTP_COMPLETE && i + 1 == split.n)
            continue; /* the limit met at a read's end: a rejection either way */
        FUZZ_CHECK(a->result == b->result, "request %zu: %d read by read, %d whole", i, a->result,
                   b->result);
        if (a->result == RB_HTTP_COMPLETE)
            FUZZ_CHECK(a->method == b->method && a->method_len == b->method_len &&
                           a->path == b->path && a->path_len == b->path_len &&
                           a->head_len == b->head_len && a->minor_version == b->minor_version &&
                           a->keep_alive == b->keep_alive && a->content_length == b->content_length,
                       "request %zu parses differently read by read", i);
    }
    free(whole.e);
    free(split.e);
    return 0;
}
