/* test_http.c: round http. The parser against the shared vectors and a
 * bounded fuzz run (under ASan and UBSan in `make test-c`); the server over
 * loopback: every vector, 431, a slow client timed out while others are
 * served, pipelining in order, 1,000 connections dropped mid-request with no
 * descriptor left open, and a clean stop. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "roundbench.h"
#include "vectors.h"

static const char *vectors_path = "testdata/vectors.txt";

static size_t unhex(const char *hex, char *out, size_t cap)
{
    size_t n = strlen(hex) / 2;
    if (n > cap)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (char)v;
    }
    return n;
}

/* ---- the parser --------------------------------------------------------- */

static void parse_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char req[512];
    size_t n = unhex(rbt_get(v, "hex"), req, sizeof req);
    long long status = rbt_int(v, "status");
    int want = status < 400 || status == 404 || status == 405 ? RB_HTTP_COMPLETE : (int)status;
    rb_http_request r;
    int got = rb_http_parse(req, n, 8192, &r);
    CHECK(got == want, "rb_http_parse(%s) = %d; want %d", rbt_get(v, "hex"), got, want);
    if (got == RB_HTTP_COMPLETE) {
        CHECK(r.head_len <= n, "head_len %zu > %zu", r.head_len, n);
        CHECK(r.method >= req && r.path > r.method && r.path + r.path_len <= req + n,
              "pointers outside the buffer");
        /* Every proper prefix of a complete head is a valid partial one. */
        for (size_t k = 0; k < r.head_len; k++) {
            rb_http_request p;
            int pr = rb_http_parse(req, k, 8192, &p);
            CHECK(pr == RB_HTTP_PARTIAL, "prefix %zu of %s: %d; want partial", k, rbt_get(v, "hex"),
                  pr);
        }
        /* Bytes after the head (the next pipelined request) change nothing. */
        char more[600];
        memcpy(more, req, n);
        memcpy(more + n, "GET /", 5);
        rb_http_request m;
        CHECK(rb_http_parse(more, n + 5, 8192, &m) == RB_HTTP_COMPLETE && m.head_len == r.head_len,
              "trailing bytes changed the parse of %s", rbt_get(v, "hex"));
    }
}

static void parser_details(void)
{
    rb_http_request r;
    const char *get =
        "GET /a/b?c=d HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 12\r\n\r\n";
    CHECK(rb_http_parse(get, strlen(get), 8192, &r) == RB_HTTP_COMPLETE, "1.0 keep-alive");
    CHECK(r.minor_version == 0 && r.keep_alive == 1 && r.content_length == 12, "fields");
    CHECK(r.path_len == 8 && memcmp(r.path, "/a/b?c=d", 8) == 0, "path");
    const char *cl = "GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n\r\n";
    CHECK(rb_http_parse(cl, strlen(cl), 8192, &r) == RB_HTTP_COMPLETE && r.keep_alive == 0,
          "Connection: close in a list");
    /* A "close" wins over a "keep-alive" before or after it, in one list or
     * on another line (RFC 9112 9.6; found by tests/test_properties.py). */
    const char *closing[] = {
        "GET / HTTP/1.1\r\nHost: h\r\nConnection: close, keep-alive\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: close\r\nConnection: Keep-Alive\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: keep-alive, CLOSE\r\n\r\n",
    };
    for (size_t k = 0; k < sizeof closing / sizeof *closing; k++)
        CHECK(rb_http_parse(closing[k], strlen(closing[k]), 8192, &r) == RB_HTTP_COMPLETE &&
                  r.keep_alive == 0,
              "close wins: %s", closing[k]);
    /* The head limit: partial at the limit is 431, complete past it too. */
    char big[9000];
    int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    memset(big + n, 'a', sizeof big - (size_t)n);
    CHECK(rb_http_parse(big, 8192, 8192, &r) == RB_HTTP_TOO_LARGE, "431 while partial");
    CHECK(rb_http_parse(big, 100, 8192, &r) == RB_HTTP_PARTIAL, "partial below the limit");
    memcpy(big + 8990, "\r\n\r\n", 4);
    CHECK(rb_http_parse(big, 8994, 8192, &r) == RB_HTTP_TOO_LARGE, "431 when complete");
    CHECK(rb_http_parse(big, 8994, 9000, &r) == RB_HTTP_COMPLETE, "fits a larger limit");
    /* Too many headers. */
    char many[4096];
    size_t m = (size_t)snprintf(many, sizeof many, "GET / HTTP/1.1\r\nHost: h\r\n");
    for (int i = 0; i < RB_HTTP_MAX_HEADERS; i++)
        m += (size_t)snprintf(many + m, sizeof many - m, "X%d: y\r\n", i);
    m += (size_t)snprintf(many + m, sizeof many - m, "\r\n");
    CHECK(rb_http_parse(many, m, 8192, &r) == RB_HTTP_TOO_LARGE, "too many headers");
    CHECK(rb_http_parse(NULL, 0, 8192, &r) == RB_HTTP_BAD, "NULL buffer");
}

/* A bounded fuzz run: random mutations of valid requests (flips, inserted
 * and deleted bytes, truncation). ASan and UBSan catch any read past the
 * buffer; the checks hold the parser to its contract. Fixed seed: a failure
 * reproduces. */
static void fuzz(int rounds)
{
    static const char *seeds[] = {
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /p HTTP/1.0\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc",
        "\r\nHEAD /q?x HTTP/1.1\nHost: y\nTransfer-Encoding: chunked\n\n",
    };
    static const char alphabet[] = "\r\n :\t/HTTP1.0GETx\x01\x7f\xff,";
    uint64_t rng = 0x9e3779b97f4a7c15u;
    for (int it = 0; it < rounds; it++) {
        char buf[256];
        const char *seed = seeds[it % 3];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + (int)(rng % 4);
        for (int e = 0; e < edits; e++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            size_t at = n ? (size_t)(rng >> 8) % n : 0;
            char ch = alphabet[(rng >> 40) % (sizeof alphabet - 1)];
            switch (rng % 4) {
            case 0: buf[at] = ch; break;
            case 1:
                if (n < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = ch;
                    n++;
                }
                break;
            case 2:
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            case 3: n = at; break;
            }
        }
        /* An exactly sized heap copy, so ASan sees any overread. */
        char *heap = malloc(n ? n : 1);
        memcpy(heap, buf, n);
        rb_http_request r;
        int got = rb_http_parse(heap, n, 128, &r);
        CHECK(got == RB_HTTP_PARTIAL || got == RB_HTTP_COMPLETE || got == RB_HTTP_BAD ||
                  got == RB_HTTP_TOO_LARGE || got == RB_HTTP_UNSUPPORTED,
              "fuzz %d: result %d", it, got);
        if (got == RB_HTTP_COMPLETE) {
            CHECK(r.head_len <= n && r.head_len <= 128, "fuzz %d: head_len %zu of %zu", it,
                  r.head_len, n);
            CHECK(r.method_len > 0 && r.path_len > 0 && (r.minor_version | 1) == 1,
                  "fuzz %d: fields", it);
        }
        if (got == RB_HTTP_PARTIAL)
            CHECK(n < 128, "fuzz %d: partial at %zu bytes, past the limit", it, n);
        free(heap);
    }
}

/* ---- the server --------------------------------------------------------- */

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Reads until the peer closes, `want` bytes are in, or timeout_ms passes. */
static size_t recv_some(int fd, char *buf, size_t cap, size_t want, int timeout_ms)
{
    size_t n = 0;
    while (n < want && n < cap) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, timeout_ms) <= 0)
            break;
        ssize_t r = recv(fd, buf + n, cap - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    return n;
}

static int status_of(const char *resp, size_t n)
{
    if (n < 12 || memcmp(resp, "HTTP/1.1 ", 9) != 0)
        return -1;
    return atoi(resp + 9);
}

/* 1 when the peer has closed (recv returns 0 within timeout_ms). */
static int closed_by_peer(int fd, int timeout_ms)
{
    char tmp[4096];
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, timeout_ms) <= 0)
            return 0;
        ssize_t r = recv(fd, tmp, sizeof tmp, 0);
        if (r <= 0)
            return 1;
    }
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void server_vector(const rbt_vector *v, void *ctx)
{
    int port = *(int *)ctx;
    char req[512], resp[4096];
    size_t n = unhex(rbt_get(v, "hex"), req, sizeof req);
    int fd = dial(port);
    CHECK(fd >= 0, "connect");
    if (fd < 0)
        return;
    send_all(fd, req, n);
    shutdown(fd, SHUT_WR);
    size_t got = recv_some(fd, resp, sizeof resp - 1, sizeof resp, 2000);
    resp[got] = '\0';
    long long want = rbt_int(v, "status");
    CHECK(status_of(resp, got) == want, "server answered %s with %d; want %lld", rbt_get(v, "hex"),
          status_of(resp, got), want);
    const char *body = strstr(resp, "\r\n\r\n");
    if (strcmp(rbt_get(v, "body"), "hello") == 0)
        CHECK(body && strcmp(body + 4, RB_HTTP_HELLO) == 0, "body of %s", rbt_get(v, "hex"));
    if (want >= 400 && want != 404 && want != 405)
        CHECK(strstr(resp, "Connection: close\r\n") != NULL, "%lld must close", want);
    close(fd);
}

static void server_tests(void)
{
    rb_error err;
    rb_http_server *s = NULL;
    CHECK(rb_http_server_open(&(rb_http_config){.host = "10.0.0.1"}, &s, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "host") == 0,
          "a non-loopback host must be refused");
    CHECK(rb_http_server_open(&(rb_http_config){.threads = 1000}, &s, &err) == RB_ERR_ARG,
          "too many threads");
    CHECK(rb_http_server_open(NULL, &s, &err) == RB_ERR_ARG, "NULL config");

    int fds_before = count_fds();
    rb_http_config cfg = {.threads = 1, .header_timeout_ms = 300};
    CHECK(rb_http_server_open(&cfg, &s, &err) == RB_OK, "open: %s", err.msg);
    if (!s)
        return;
    int port = rb_http_server_port(s);
    CHECK(port > 0, "port %d", port);
    CHECK(rb_http_server_start(s, &err) == RB_OK, "start");
    CHECK(rb_http_server_start(s, &err) == RB_ERR_ARG, "a second start must fail");
    CHECK(rbt_each(vectors_path, "http", server_vector, &port) >= 20, "http vectors");

    char resp[8192];
    /* 431: a head longer than the limit, sent whole. */
    {
        int fd = dial(port);
        char big[10000];
        int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
        memset(big + n, 'a', sizeof big - (size_t)n - 4);
        memcpy(big + sizeof big - 4, "\r\n\r\n", 4);
        send_all(fd, big, sizeof big);
        size_t got = recv_some(fd, resp, sizeof resp, 12, 2000);
        CHECK(status_of(resp, got) == 431, "oversized head: %d; want 431", status_of(resp, got));
        CHECK(closed_by_peer(fd, 3000), "the server must close after 431");
        close(fd);
    }
    /* Pipelining: three requests in one write, answered in order. */
    {
        int fd = dial(port);
        const char *three = "GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n"
                            "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
        send_all(fd, three, strlen(three));
        size_t got = recv_some(fd, resp, sizeof resp - 1, sizeof resp, 2000);
        resp[got] = '\0';
        const char *a = strstr(resp, "HTTP/1.1 200");
        const char *b = a ? strstr(a + 1, "HTTP/1.1 404") : NULL;
        const char *c = b ? strstr(b + 1, "HTTP/1.1 200") : NULL;
        CHECK(a == resp && b && c && strstr(c, "Connection: close"),
              "pipelined answers out of order: %s", resp);
        close(fd);
    }
    /* A slow client that never finishes its head is answered 408 and closed
     * after the header timeout, and meanwhile the only worker serves others. */
    {
        int slow = dial(port);
        send_all(slow, "GET / HTTP/1.1\r\nHo", 18);
        uint64_t t0 = (uint64_t)time(NULL);
        for (int i = 0; i < 5; i++) {
            int fd = dial(port);
            send_all(fd, "GET / HTTP/1.1\r\nHost: h\r\n\r\n", 27);
            size_t got = recv_some(fd, resp, sizeof resp, 100, 1000);
            CHECK(status_of(resp, got) == 200, "served while a client is slow");
            close(fd);
        }
        size_t got = recv_some(slow, resp, sizeof resp, 12, 3000);
        CHECK(status_of(resp, got) == 408, "slow client: %d; want 408", status_of(resp, got));
        CHECK(closed_by_peer(slow, 3000), "the slow client must be closed");
        CHECK((uint64_t)time(NULL) - t0 <= 3, "the timeout took too long");
        close(slow);
    }
    /* 1,000 connections dropped mid-request leave nothing open. */
    {
        int fds[1000];
        int opened = 0;
        for (int i = 0; i < 1000; i++) {
            fds[i] = dial(port);
            if (fds[i] >= 0) {
                send_all(fds[i], "GET / HTTP/1.1\r\nHost:", 21);
                opened++;
            }
        }
        CHECK(opened == 1000, "opened %d of 1000", opened);
        for (int i = 0; i < 1000; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        rb_http_stats st = {0};
        for (int i = 0; i < 100; i++) {
            rb_http_server_stats(s, &st);
            if (st.open == 0 && st.accepted >= 1000)
                break;
            usleep(20000);
        }
        CHECK(st.open == 0, "%lld connections still open after the drop", (long long)st.open);
        CHECK(st.accepted >= 1000, "accepted %lld", (long long)st.accepted);
    }
    rb_http_stats st;
    rb_http_server_stats(s, &st);
    CHECK(st.requests >= 10 && st.bad_requests >= 10 && st.timeouts >= 1,
          "stats: requests %lld bad %lld timeouts %lld", (long long)st.requests,
          (long long)st.bad_requests, (long long)st.timeouts);
    /* A clean stop: every worker exits, and then nothing is left open. */
    int idle = dial(port);
    CHECK(rb_http_server_wait(s, 50) == 0, "wait before stop must time out");
    rb_http_server_stop(s);
    rb_http_server_stop(s);
    CHECK(rb_http_server_wait(s, 3000) == 1, "the workers must stop");
    CHECK(closed_by_peer(idle, 2000), "stop must close open connections");
    close(idle);
    rb_http_server_close(s);
    CHECK(count_fds() == fds_before, "descriptors: %d before, %d after", fds_before, count_fds());
    rb_http_server_close(NULL);
}

static int echo_path(void *ctx, const rb_http_request *req, rb_http_response *resp)
{
    (*(int *)ctx)++;
    if (req->path_len > resp->body_cap)
        return 1;
    if (req->path_len == 6 && memcmp(req->path, "/error", 6) == 0)
        return 1;
    memcpy(resp->body, req->path, req->path_len);
    resp->body_len = req->path_len;
    resp->status = 201;
    return 0;
}

static void handler_tests(void)
{
    int calls = 0;
    rb_http_server *s = NULL;
    rb_http_config cfg = {.threads = 2, .handler = echo_path, .handler_ctx = &calls};
    CHECK(rb_http_server_open(&cfg, &s, NULL) == RB_OK && rb_http_server_start(s, NULL) == RB_OK,
          "open and start");
    char resp[2048];
    int fd = dial(rb_http_server_port(s));
    send_all(fd, "GET /echo HTTP/1.1\r\nHost: h\r\n\r\nGET /error HTTP/1.1\r\nHost: h\r\n\r\n", 64);
    size_t got = recv_some(fd, resp, sizeof resp - 1, sizeof resp, 2000);
    resp[got] = '\0';
    CHECK(status_of(resp, got) == 201 && strstr(resp, "\r\n\r\n/echo"), "handler body: %s", resp);
    CHECK(strstr(resp, "HTTP/1.1 500") && strstr(resp, "Connection: close"),
          "a failing handler gives 500 and closes");
    close(fd);
    rb_http_server_close(s);
    CHECK(calls == 2, "handler calls %d; want 2", calls);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    vectors_path = path;
    /* Both ends of 1,000 connections live in this process. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096 && rl.rlim_max >= 4096) {
        rl.rlim_cur = 4096;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    CHECK(rbt_each(path, "http", parse_vector, NULL) >= 20, "too few http vectors");
    parser_details();
    fuzz(200000);
    server_tests();
    handler_tests();
    return rbt_done("test_http");
}
