/* http.c: round http, the core's HTTP/1.1 server.
 *
 * One epoll loop per worker thread; all workers share one listening socket
 * (EPOLLEXCLUSIVE, so a new connection wakes one worker, see epoll_ctl(2)),
 * and a connection stays with the worker that accepted it. Requests are
 * parsed by rb_http_parse, a hand-written parser (Debian packages neither
 * picohttpparser nor llhttp as a C library); csrc/tests/test_http.c checks
 * it on vectors and fuzzes it under ASan and UBSan. Pipelined requests are
 * answered in order into one output buffer per connection, written with one
 * write() per batch. Every loop wakes at least every 100 ms to enforce the
 * header and idle timeouts, so a client that never finishes its headers
 * costs a file descriptor for a bounded time and never a thread. */
#define _GNU_SOURCE
#include "roundbench.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* ---- the parser --------------------------------------------------------- */

/* RFC 9110 5.6.2: token characters. */
/* clang-format off */
static const unsigned char tchar[256] = {
    ['0' ... '9'] = 1, ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1,
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1,
    ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
};

/* RFC 9110 5.5: field-vchar, SP and HTAB (obs-text included). */
static const unsigned char vchar[256] = {
    ['\t'] = 1, [0x20 ... 0x7e] = 1, [0x80 ... 0xff] = 1,
};
/* clang-format on */

static int name_is(const unsigned char *p, size_t n, const char *lower)
{
    size_t m = strlen(lower);
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        if (c != (unsigned char)lower[i])
            return 0;
    }
    return 1;
}

/* Reads one Connection header value (a comma-separated token list) into
 * the flags of the options seen: "close" and "keep-alive". */
static void connection_tokens(const unsigned char *p, size_t n, int *close_opt, int *keep_alive)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == ','))
            i++;
        size_t start = i;
        while (i < n && p[i] != ',' && p[i] != ' ' && p[i] != '\t')
            i++;
        if (name_is(p + start, i - start, "close"))
            *close_opt = 1;
        else if (name_is(p + start, i - start, "keep-alive"))
            *keep_alive = 1;
    }
}

int rb_http_parse(const char *buf, size_t len, size_t max_head, rb_http_request *req)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t i = 0;
    /* Out of bytes: a valid prefix so far, unless it is already too long. */
#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (i + (k) > len)                                                                         \
            return len >= max_head ? RB_HTTP_TOO_LARGE : RB_HTTP_PARTIAL;                          \
    } while (0)
    /* A line ends in CRLF or a bare LF (RFC 9112 2.2 allows recipients to
     * accept LF alone); a CR not followed by LF is malformed. */
#define EOL()                                                                                      \
    do {                                                                                           \
        NEED(1);                                                                                   \
        if (p[i] == '\r') {                                                                        \
            i++;                                                                                   \
            NEED(1);                                                                               \
            if (p[i] != '\n')                                                                      \
                return RB_HTTP_BAD;                                                                \
        } else if (p[i] != '\n')                                                                   \
            return RB_HTTP_BAD;                                                                    \
        i++;                                                                                       \
    } while (0)

    if (!buf || !req || max_head == 0)
        return RB_HTTP_BAD;
    /* RFC 9112 2.2: a server SHOULD ignore empty lines before the request line. */
    for (;;) {
        NEED(1);
        if (p[i] == '\n')
            i++;
        else if (p[i] == '\r') {
            NEED(2);
            if (p[i + 1] != '\n')
                return RB_HTTP_BAD;
            i += 2;
        } else
            break;
    }
    size_t m0 = i;
    for (;;) {
        NEED(1);
        if (!tchar[p[i]])
            break;
        i++;
    }
    if (i == m0 || p[i] != ' ')
        return RB_HTTP_BAD;
    size_t mlen = i - m0;
    i++;
    size_t t0 = i;
    for (;;) {
        NEED(1);
        if (p[i] < 0x21 || p[i] > 0x7e)
            break;
        i++;
    }
    if (i == t0 || p[i] != ' ')
        return RB_HTTP_BAD;
    size_t tlen = i - t0;
    i++;
    static const char version[] = "HTTP/1.";
    for (size_t k = 0; k < sizeof version - 1; k++, i++) {
        NEED(1);
        if (p[i] != (unsigned char)version[k])
            return RB_HTTP_BAD;
    }
    NEED(1);
    if (p[i] != '0' && p[i] != '1')
        return RB_HTTP_BAD;
    int minor = p[i] - '0';
    i++;
    EOL();

    int close_opt = 0, keep_alive = minor == 1, hosts = 0, nheaders = 0;
    int64_t content_length = -1;
    for (;;) {
        NEED(1);
        if (p[i] == '\r' || p[i] == '\n') {
            EOL();
            break;
        }
        if (++nheaders > RB_HTTP_MAX_HEADERS)
            return RB_HTTP_TOO_LARGE;
        size_t n0 = i;
        for (;;) {
            NEED(1);
            if (!tchar[p[i]])
                break;
            i++;
        }
        /* An empty name, white space before the colon (RFC 9112 5.1) and
         * obs-fold continuation lines are all rejected. */
        if (i == n0 || p[i] != ':')
            return RB_HTTP_BAD;
        size_t nlen = i - n0;
        i++;
        for (;;) {
            NEED(1);
            if (p[i] != ' ' && p[i] != '\t')
                break;
            i++;
        }
        size_t v0 = i;
        for (;;) {
            NEED(1);
            if (!vchar[p[i]])
                break;
            i++;
        }
        size_t vend = i;
        while (vend > v0 && (p[vend - 1] == ' ' || p[vend - 1] == '\t'))
            vend--;
        EOL();
        const unsigned char *name = p + n0, *val = p + v0;
        size_t vlen = vend - v0;
        switch (name[0] | 0x20) {
        case 'c':
            if (name_is(name, nlen, "connection")) {
                connection_tokens(val, vlen, &close_opt, &keep_alive);
            } else if (name_is(name, nlen, "content-length")) {
                if (vlen == 0 || vlen > 15)
                    return RB_HTTP_BAD;
                int64_t v = 0;
                for (size_t k = 0; k < vlen; k++) {
                    if (val[k] < '0' || val[k] > '9')
                        return RB_HTTP_BAD;
                    v = v * 10 + (val[k] - '0');
                }
                /* RFC 9112 6.3: differing repeated lengths are an error. */
                if (content_length >= 0 && content_length != v)
                    return RB_HTTP_BAD;
                content_length = v;
            }
            break;
        case 'h':
            if (name_is(name, nlen, "host"))
                hosts++;
            break;
        case 't':
            if (name_is(name, nlen, "transfer-encoding"))
                return RB_HTTP_UNSUPPORTED;
            break;
        }
    }
    if (i > max_head)
        return RB_HTTP_TOO_LARGE;
    /* RFC 9112 3.2: 400 for an HTTP/1.1 request without exactly one Host. */
    if (hosts > 1 || (minor == 1 && hosts == 0))
        return RB_HTTP_BAD;
    req->method = (const char *)p + m0;
    req->method_len = mlen;
    req->path = (const char *)p + t0;
    req->path_len = tlen;
    req->minor_version = minor;
    /* RFC 9112 9.6: a "close" option closes the connection after this
     * answer, whatever other tokens or Connection lines say and in any order;
     * "keep-alive" keeps an HTTP/1.0 connection open. */
    req->keep_alive = keep_alive && !close_opt;
    req->content_length = content_length < 0 ? 0 : content_length;
    req->head_len = i;
    return RB_HTTP_COMPLETE;
#undef NEED
#undef EOL
}

int rb_http_hello_handler(void *ctx, const rb_http_request *req, rb_http_response *resp)
{
    (void)ctx;
    int get = req->method_len == 3 && memcmp(req->method, "GET", 3) == 0;
    int head = req->method_len == 4 && memcmp(req->method, "HEAD", 4) == 0;
    if (!get && !head) {
        resp->status = 405;
        return 0;
    }
    if (req->path_len != 1 || req->path[0] != '/') {
        resp->status = 404;
        return 0;
    }
    size_t n = sizeof RB_HTTP_HELLO - 1;
    if (n > resp->body_cap)
        return 1;
    memcpy(resp->body, RB_HTTP_HELLO, n);
    resp->body_len = n;
    return 0;
}

/* ---- the server --------------------------------------------------------- */

#define BODY_CAP 65536     /* the most a handler may answer */
#define MAX_BODY (1 << 20) /* the largest request body accepted (else 413) */
#define OUT_HIGH 65536     /* stop parsing while this much output waits */
#define CLOSING_MS 2000    /* how long a closing connection may drain */
#define SCAN_MS 100        /* how often the timeouts are checked */
#define MAX_EVENTS 256

enum { ST_OPEN, ST_CLOSING };

typedef struct conn {
    int fd;
    int state;
    size_t idx;          /* position in its worker's conns array */
    uint64_t head_start; /* when the pending, incomplete head began (ms); 0: none */
    uint64_t last;       /* last progress (ms) */
    int64_t skip;        /* request body bytes still to discard */
    int close_after;     /* close once the output is written */
    uint32_t events;     /* the epoll interest now registered */
    size_t rlen, rcap;
    char *out;
    size_t out_len, out_off, out_cap;
    char rbuf[];
} conn;

typedef struct worker {
    struct rb_http_server *srv;
    pthread_t tid;
    int ep;
    int running;
    conn **conns;
    size_t nconns, cap;
    uint64_t last_scan;
    int64_t requests, bad, timeouts, accepted, open; /* read by other threads: atomics */
    time_t date_sec;
    char date[64];
    size_t date_len;
    char body[BODY_CAP];
} worker;

struct rb_http_server {
    rb_http_config cfg;
    int lfd, efd, port, started;
    int nworkers, done;
    worker *w;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Tags that tell the listening socket and the stop eventfd from connections
 * in epoll_event.data.ptr. */
static char tag_listen, tag_stop;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void count(int64_t *c, int64_t d)
{
    __atomic_fetch_add(c, d, __ATOMIC_RELAXED);
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    }
    return "Unknown";
}

static void close_conn(worker *w, conn *c)
{
    /* Closing the descriptor removes it from the epoll set. */
    close(c->fd);
    conn *last = w->conns[--w->nconns];
    w->conns[c->idx] = last;
    last->idx = c->idx;
    free(c->out);
    free(c);
    count(&w->open, -1);
}

static int out_reserve(conn *c, size_t n)
{
    if (c->out_len + n <= c->out_cap)
        return 0;
    size_t cap = c->out_cap ? c->out_cap : 1024;
    while (cap < c->out_len + n)
        cap *= 2;
    char *p = realloc(c->out, cap);
    if (!p)
        return -1;
    c->out = p;
    c->out_cap = cap;
    return 0;
}

static char *put(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
    return d + n;
}

#define PUT_LIT(d, s) put((d), (s), sizeof(s) - 1)

static char *put_uint(char *d, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *d++ = tmp[--n];
    return d;
}

static void refresh_date(worker *w)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    if (ts.tv_sec == w->date_sec && w->date_len)
        return;
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    w->date_len = strftime(w->date, sizeof w->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    w->date_sec = ts.tv_sec;
}

/* Appends one response; returns -1 when out of memory. */
static int append_response(worker *w, conn *c, int status, const char *body, size_t blen,
                           int send_body, int keep_alive, int minor)
{
    if (out_reserve(c, 256 + w->date_len + (send_body ? blen : 0)) < 0)
        return -1;
    const char *why = reason(status);
    char *d = c->out + c->out_len;
    d = PUT_LIT(d, "HTTP/1.1 ");
    d = put_uint(d, (uint64_t)status);
    *d++ = ' ';
    d = put(d, why, strlen(why));
    d = PUT_LIT(d, "\r\nServer: roundbench\r\nDate: ");
    d = put(d, w->date, w->date_len);
    d = PUT_LIT(d, "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ");
    d = put_uint(d, blen);
    if (!keep_alive)
        d = PUT_LIT(d, "\r\nConnection: close");
    else if (minor == 0)
        d = PUT_LIT(d, "\r\nConnection: keep-alive");
    d = PUT_LIT(d, "\r\n\r\n");
    if (send_body && blen)
        d = put(d, body, blen);
    c->out_len = (size_t)(d - c->out);
    if (!keep_alive)
        c->close_after = 1;
    return 0;
}

/* Answers an error status and marks the connection to close. */
static void fail_conn(worker *w, conn *c, int status)
{
    if (append_response(w, c, status, NULL, 0, 0, 0, 1) < 0)
        c->out_len = c->out_off; /* nothing to send: just close */
    c->close_after = 1;
}

static void respond(worker *w, conn *c, const rb_http_request *req)
{
    const rb_http_config *cfg = &w->srv->cfg;
    rb_http_response resp = {200, w->body, BODY_CAP, 0};
    int rc = cfg->handler(cfg->handler_ctx, req, &resp);
    if (rc != 0 || resp.status < 100 || resp.status > 999 || resp.body_len > BODY_CAP) {
        fail_conn(w, c, 500);
        return;
    }
    int head = req->method_len == 4 && memcmp(req->method, "HEAD", 4) == 0;
    if (append_response(w, c, resp.status, resp.body, resp.body_len, !head, req->keep_alive,
                        req->minor_version) < 0)
        fail_conn(w, c, 500);
}

/* Parses and answers every complete request buffered on c, in order. */
static void process(worker *w, conn *c, uint64_t now)
{
    size_t off = 0;
    size_t max_head = w->srv->cfg.max_head;
    while (!c->close_after) {
        if (c->skip) {
            size_t take = c->rlen - off;
            if ((int64_t)take > c->skip)
                take = (size_t)c->skip;
            off += take;
            c->skip -= (int64_t)take;
            if (c->skip)
                break;
        }
        if (off == c->rlen || c->out_len - c->out_off >= OUT_HIGH)
            break;
        rb_http_request req;
        int r = rb_http_parse(c->rbuf + off, c->rlen - off, max_head, &req);
        if (r == RB_HTTP_PARTIAL)
            break;
        if (r != RB_HTTP_COMPLETE) {
            count(&w->bad, 1);
            fail_conn(w, c, r);
            break;
        }
        off += req.head_len;
        if (req.content_length > MAX_BODY) {
            count(&w->bad, 1);
            fail_conn(w, c, 413);
            break;
        }
        c->skip = req.content_length;
        respond(w, c, &req);
        count(&w->requests, 1);
    }
    if (off) {
        memmove(c->rbuf, c->rbuf + off, c->rlen - off);
        c->rlen -= off;
        c->head_start = c->rlen ? now : 0;
    }
}

/* Writes what it can; returns -1 when the connection must be closed now. */
static int flush(conn *c, uint64_t now)
{
    while (c->out_off < c->out_len) {
        ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n > 0) {
            c->out_off += (size_t)n;
            c->last = now;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    c->out_off = c->out_len = 0;
    if (c->close_after && c->state == ST_OPEN) {
        /* Half-close and drain what the client still sends: closing with
         * unread input would send a reset that can destroy the response
         * before the client reads it (RFC 9112 9.6, "lingering close"). */
        shutdown(c->fd, SHUT_WR);
        c->state = ST_CLOSING;
        c->last = now;
        c->rlen = 0;
    }
    return 0;
}

/* Registers the events c now waits for; -1 when epoll refuses. */
static int update_interest(worker *w, conn *c)
{
    uint32_t ev = 0;
    if (c->state == ST_CLOSING)
        ev = EPOLLIN;
    else {
        if (!c->close_after && c->rlen < c->rcap && c->out_len - c->out_off < OUT_HIGH)
            ev |= EPOLLIN;
        if (c->out_off < c->out_len)
            ev |= EPOLLOUT;
    }
    if (ev == c->events)
        return 0;
    struct epoll_event e = {.events = ev, .data.ptr = c};
    if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &e) < 0)
        return -1;
    c->events = ev;
    return 0;
}

static void on_conn(worker *w, conn *c, uint32_t events, uint64_t now)
{
    if (c->state == ST_CLOSING) {
        char sink[4096];
        ssize_t n = read(c->fd, sink, sizeof sink);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || (events & EPOLLERR))
            close_conn(w, c);
        return;
    }
    if (events & EPOLLERR) {
        close_conn(w, c);
        return;
    }
    if ((events & EPOLLIN) && c->rlen < c->rcap) {
        ssize_t n = read(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            close_conn(w, c);
            return;
        }
        if (n > 0) {
            if (!c->head_start && !c->skip)
                c->head_start = now;
            c->rlen += (size_t)n;
            c->last = now;
        }
    } else if ((events & EPOLLHUP) && !(events & EPOLLOUT)) {
        close_conn(w, c);
        return;
    }
    process(w, c, now);
    if (flush(c, now) < 0) {
        close_conn(w, c);
        return;
    }
    /* Output drained: requests held back by OUT_HIGH can go now. */
    if (c->state == ST_OPEN && c->out_len == 0 && c->rlen && !c->close_after) {
        process(w, c, now);
        if (flush(c, now) < 0) {
            close_conn(w, c);
            return;
        }
    }
    if (update_interest(w, c) < 0)
        close_conn(w, c);
}

static void accept_all(worker *w, uint64_t now)
{
    rb_http_server *s = w->srv;
    for (int k = 0; k < 64; k++) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or EMFILE: try again on the next wake-up */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        size_t rcap = s->cfg.max_head + 4096;
        conn *c = calloc(1, sizeof *c + rcap);
        if (!c || (w->nconns == w->cap && w->cap > SIZE_MAX / 2)) {
            free(c);
            close(fd);
            continue;
        }
        if (w->nconns == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 256;
            conn **p = realloc(w->conns, cap * sizeof *p);
            if (!p) {
                free(c);
                close(fd);
                continue;
            }
            w->conns = p;
            w->cap = cap;
        }
        c->fd = fd;
        c->rcap = rcap;
        c->last = now;
        c->head_start = now; /* the first head's clock starts at accept */
        c->events = EPOLLIN;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &e) < 0) {
            free(c);
            close(fd);
            continue;
        }
        c->idx = w->nconns;
        w->conns[w->nconns++] = c;
        count(&w->accepted, 1);
        count(&w->open, 1);
    }
}

static void scan_timeouts(worker *w, uint64_t now)
{
    const rb_http_config *cfg = &w->srv->cfg;
    for (size_t k = 0; k < w->nconns;) {
        conn *c = w->conns[k];
        int expired = 0, slow_head = 0;
        if (c->state == ST_CLOSING)
            expired = now - c->last > CLOSING_MS;
        else if (c->head_start && !c->close_after)
            slow_head = expired = now - c->head_start > (uint64_t)cfg->header_timeout_ms;
        else
            expired = now - c->last > (uint64_t)cfg->idle_timeout_ms;
        if (!expired) {
            k++;
            continue;
        }
        count(&w->timeouts, 1);
        if (slow_head) {
            /* Say why before closing; the client may be slow, not gone. */
            c->rlen = 0;
            c->head_start = 0;
            fail_conn(w, c, 408);
            if (flush(c, now) == 0 && update_interest(w, c) == 0) {
                k++;
                continue;
            }
        }
        close_conn(w, c); /* moves the last connection to slot k */
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    rb_http_server *s = w->srv;
    struct epoll_event evs[MAX_EVENTS];
    int stop = 0;
    w->last_scan = now_ms();
    while (!stop) {
        int n = epoll_wait(w->ep, evs, MAX_EVENTS, SCAN_MS);
        if (n < 0 && errno != EINTR)
            break;
        uint64_t now = now_ms();
        refresh_date(w);
        for (int k = 0; k < n; k++) {
            void *p = evs[k].data.ptr;
            if (p == &tag_stop)
                stop = 1;
            else if (p == &tag_listen)
                accept_all(w, now);
            else
                on_conn(w, p, evs[k].events, now);
        }
        if (now - w->last_scan >= SCAN_MS) {
            scan_timeouts(w, now);
            w->last_scan = now;
        }
    }
    while (w->nconns)
        close_conn(w, w->conns[w->nconns - 1]);
    pthread_mutex_lock(&s->mu);
    s->done++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

rb_status rb_http_server_open(const rb_http_config *cfg, rb_http_server **out, rb_error *err)
{
    if (!cfg)
        return rb_fail(err, RB_ERR_ARG, "cfg", "must not be NULL", -1);
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    rb_http_config c = *cfg;
    if (!c.host)
        c.host = "127.0.0.1";
    struct sockaddr_in sa = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, c.host, &sa.sin_addr) != 1)
        return rb_failf(err, RB_ERR_ARG, "host", -1, "must be an IPv4 address, not '%s'", c.host);
    if ((ntohl(sa.sin_addr.s_addr) >> 24) != 127)
        return rb_failf(err, RB_ERR_ARG, "host", -1,
                        "must be a loopback address (127.0.0.0/8), not %s", c.host);
    if (c.port < 0 || c.port > 65535)
        return rb_failf(err, RB_ERR_ARG, "port", c.port, "must be in [0, 65535], not %d", c.port);
    if (c.threads < 0 || c.threads > 256)
        return rb_failf(err, RB_ERR_ARG, "threads", c.threads, "must be in [0, 256], not %d",
                        c.threads);
    if (c.header_timeout_ms < 0)
        return rb_failf(err, RB_ERR_ARG, "header_timeout_ms", c.header_timeout_ms,
                        "must be >= 0, not %d", c.header_timeout_ms);
    if (c.idle_timeout_ms < 0)
        return rb_failf(err, RB_ERR_ARG, "idle_timeout_ms", c.idle_timeout_ms,
                        "must be >= 0, not %d", c.idle_timeout_ms);
    if (c.max_head > 65536)
        return rb_failf(err, RB_ERR_ARG, "max_head", (int64_t)c.max_head,
                        "must be <= 65536, not %zu", c.max_head);
    if (!c.threads)
        c.threads = 1;
    if (!c.header_timeout_ms)
        c.header_timeout_ms = 10000;
    if (!c.idle_timeout_ms)
        c.idle_timeout_ms = 60000;
    if (!c.max_head)
        c.max_head = 8192;
    if (!c.handler)
        c.handler = rb_http_hello_handler;
    sa.sin_port = htons((uint16_t)c.port);

    rb_http_server *s = calloc(1, sizeof *s);
    if (!s)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the server", -1);
    s->cfg = c;
    s->cfg.host = NULL; /* the caller's string need not outlive this call */
    s->lfd = s->efd = -1;
    s->nworkers = c.threads;
    const char *what = "socket";
    int e = 0;
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (s->lfd < 0)
        goto sys_fail;
    what = "bind";
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s->lfd, (struct sockaddr *)&sa, sizeof sa) < 0)
        goto sys_fail;
    what = "listen";
    if (listen(s->lfd, 4096) < 0)
        goto sys_fail;
    socklen_t slen = sizeof sa;
    what = "getsockname";
    if (getsockname(s->lfd, (struct sockaddr *)&sa, &slen) < 0)
        goto sys_fail;
    s->port = ntohs(sa.sin_port);
    what = "eventfd";
    s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->efd < 0)
        goto sys_fail;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return RB_OK;

sys_fail:
    e = errno;
    if (s->lfd >= 0)
        close(s->lfd);
    free(s);
    return rb_fail_sys(err, e, NULL, -1, "%s failed", what);
}

int rb_http_server_port(const rb_http_server *s)
{
    return s ? s->port : -1;
}

rb_status rb_http_server_start(rb_http_server *s, rb_error *err)
{
    if (!s)
        return rb_fail(err, RB_ERR_ARG, "s", "must not be NULL", -1);
    if (s->started)
        return rb_fail(err, RB_ERR_ARG, NULL, "the server is already started", -1);
    s->w = calloc((size_t)s->nworkers, sizeof *s->w);
    if (!s->w)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the workers", -1);
    /* Workers block every signal, so a process's SIGINT and SIGTERM reach
     * the thread that owns the server (its handler calls stop). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const char *what = NULL;
    int e = 0, k;
    for (k = 0; k < s->nworkers; k++) {
        worker *w = &s->w[k];
        w->srv = s;
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        if (w->ep < 0) {
            what = "epoll_create1";
            e = errno;
            break;
        }
        struct epoll_event le = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &tag_listen};
        struct epoll_event se = {.events = EPOLLIN, .data.ptr = &tag_stop};
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, s->lfd, &le) < 0 ||
            epoll_ctl(w->ep, EPOLL_CTL_ADD, s->efd, &se) < 0) {
            what = "epoll_ctl";
            e = errno;
            close(w->ep);
            break;
        }
        int rc = pthread_create(&w->tid, NULL, worker_main, w);
        if (rc != 0) {
            what = "pthread_create";
            e = rc;
            close(w->ep);
            break;
        }
        w->running = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    s->started = 1;
    if (what) {
        /* Workers that did start are stopped; the rest count as done. */
        pthread_mutex_lock(&s->mu);
        s->done += s->nworkers - k;
        pthread_mutex_unlock(&s->mu);
        rb_http_server_stop(s);
        return rb_fail_sys(err, e, NULL, -1, "%s failed (worker %d of %d)", what, k + 1,
                           s->nworkers);
    }
    return RB_OK;
}

void rb_http_server_stop(rb_http_server *s)
{
    if (!s || s->efd < 0)
        return;
    uint64_t one = 1;
    ssize_t n = write(s->efd, &one, sizeof one);
    (void)n; /* EAGAIN: the counter is already non-zero, which is enough */
}

int rb_http_server_wait(rb_http_server *s, int timeout_ms)
{
    if (!s)
        return 1;
    if (!s->started)
        return 0;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (timeout_ms >= 0) {
        dl.tv_sec += timeout_ms / 1000;
        dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&s->mu);
    while (s->done < s->nworkers) {
        int rc = timeout_ms < 0 ? pthread_cond_wait(&s->cv, &s->mu)
                                : pthread_cond_timedwait(&s->cv, &s->mu, &dl);
        if (rc == ETIMEDOUT)
            break;
    }
    int finished = s->done >= s->nworkers;
    pthread_mutex_unlock(&s->mu);
    return finished;
}

void rb_http_server_stats(const rb_http_server *s, rb_http_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    if (!s || !s->w)
        return;
    for (int k = 0; k < s->nworkers; k++) {
        const worker *w = &s->w[k];
        st->requests += __atomic_load_n(&w->requests, __ATOMIC_RELAXED);
        st->bad_requests += __atomic_load_n(&w->bad, __ATOMIC_RELAXED);
        st->timeouts += __atomic_load_n(&w->timeouts, __ATOMIC_RELAXED);
        st->accepted += __atomic_load_n(&w->accepted, __ATOMIC_RELAXED);
        st->open += __atomic_load_n(&w->open, __ATOMIC_RELAXED);
    }
}

void rb_http_server_close(rb_http_server *s)
{
    if (!s)
        return;
    if (s->started) {
        rb_http_server_stop(s);
        for (int k = 0; k < s->nworkers; k++) {
            if (s->w[k].running) {
                pthread_join(s->w[k].tid, NULL);
                close(s->w[k].ep);
                free(s->w[k].conns);
            }
        }
    }
    free(s->w);
    close(s->lfd);
    if (s->efd >= 0)
        close(s->efd);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}
