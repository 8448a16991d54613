/* loadgen.c: rb-load, the http round's fixed-rate load generator.
 *
 *   rb-load port=P conns=C rate=R secs=S [warmup=W] [le=NS ...]
 *
 * Sends GET / to 127.0.0.1:P over C keep-alive connections at R requests per
 * second in total (connection i sends its k-th request at the intended time
 * t0 + (i + k*C)/R) for W seconds of warm-up and S measured seconds, and
 * measures each response's latency from the request's *intended* send time,
 * not from when it could be sent: a server that stalls delays every request
 * scheduled behind the stall, and they all count (the correction wrk2 makes
 * for "coordinated omission"; wrk2 is not packaged by Debian).
 *
 * Prints one line `rb-load requests=N duration_ns=D p50_ns= p90_ns= p99_ns=
 * p999_ns= max_ns= socket_errors= non200= late=` and, per `le` bound, the
 * share of measured requests answered within it: `rb-load-le NS PCT`.
 * `late` counts measured requests not answered by 2 s after the measured
 * period (recorded with that lower bound as their latency). Loopback only.
 * Exits 2 on bad arguments. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define GRACE_NS 2000000000ull
#define BUF 16384
#define SUB 64 /* sub-buckets per power of two: under 1.6% error */
#define NBUCKETS (64 * SUB)

enum { CONNECTING, IDLE, WAITING };

typedef struct {
    int fd, state, in_flight_sent;
    uint64_t k;        /* index of this connection's next request */
    uint64_t intended; /* intended send time of the request in flight */
    size_t len;
    char buf[BUF];
} lconn;

static uint64_t hist[NBUCKETS];
static uint64_t recorded, max_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bucket(uint64_t v)
{
    if (v < SUB)
        return (int)v;
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - 6; /* keep 7 significant bits: 64..127 */
    return (msb - 5) * SUB + (int)((v >> shift) & (SUB - 1));
}

static uint64_t bucket_high(int b)
{
    if (b < SUB)
        return (uint64_t)b;
    int msb = b / SUB + 5, shift = msb - 6;
    uint64_t lo = ((uint64_t)(SUB + b % SUB)) << shift;
    return lo + (1ull << shift) - 1;
}

static void record(uint64_t ns)
{
    int b = bucket(ns);
    if (b >= NBUCKETS)
        b = NBUCKETS - 1;
    hist[b]++;
    recorded++;
    if (ns > max_ns)
        max_ns = ns;
}

static uint64_t percentile(double p)
{
    if (!recorded)
        return 0;
    uint64_t want = (uint64_t)(p / 100.0 * (double)recorded + 0.999999), seen = 0;
    if (want < 1)
        want = 1;
    for (int b = 0; b < NBUCKETS; b++) {
        seen += hist[b];
        if (seen >= want) {
            uint64_t h = bucket_high(b);
            return h < max_ns ? h : max_ns;
        }
    }
    return max_ns;
}

static double share_le(uint64_t bound)
{
    if (!recorded)
        return 0;
    uint64_t n = 0;
    for (int b = 0; b < NBUCKETS; b++)
        if (bucket_high(b) <= bound)
            n += hist[b];
    return 100.0 * (double)n / (double)recorded;
}

static struct sockaddr_in target;
static int ep;
static uint64_t socket_errors, non200, completed;
static const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

static void open_conn(lconn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    c->len = 0;
    c->state = CONNECTING;
    if (c->fd < 0) {
        socket_errors++;
        return;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&target, sizeof target) < 0 && errno != EINPROGRESS) {
        socket_errors++;
        close(c->fd);
        c->fd = -1;
        return;
    }
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
}

/* Drops the connection; a request in flight is sent again on the new one,
 * keeping its intended time. */
static void reopen(lconn *c, int error)
{
    if (error)
        socket_errors++;
    if (c->fd >= 0)
        close(c->fd);
    int waiting = c->state == WAITING;
    open_conn(c);
    c->in_flight_sent = 0;
    if (waiting)
        c->in_flight_sent = -1; /* resend once connected */
}

static int send_request(lconn *c)
{
    ssize_t n = send(c->fd, request, sizeof request - 1, MSG_NOSIGNAL);
    if (n != (ssize_t)(sizeof request - 1))
        return -1;
    c->state = WAITING;
    c->in_flight_sent = 1;
    c->len = 0;
    return 0;
}

/* A complete response at the start of c->buf: returns its length, or 0. */
static size_t parse_response(lconn *c, int *status, int *closes)
{
    c->buf[c->len < BUF ? c->len : BUF - 1] = '\0';
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - c->buf) + 4;
    *status = (c->len >= 12 && memcmp(c->buf, "HTTP/1.", 7) == 0) ? atoi(c->buf + 9) : -1;
    size_t body = 0;
    *closes = 0;
    for (char *p = c->buf; p < end; p++) {
        if (*p != '\n')
            continue;
        if (strncasecmp(p + 1, "content-length:", 15) == 0)
            body = (size_t)strtoul(p + 16, NULL, 10);
        else if (strncasecmp(p + 1, "connection:", 11) == 0 &&
                 strncasecmp(p + 12, " close", 6) == 0)
            *closes = 1;
    }
    if (c->len < head + body)
        return 0;
    return head + body;
}

int main(int argc, char **argv)
{
    long port = -1, conns = 0, rate = 0, secs = 0, warmup = 0;
    uint64_t bounds[16];
    int nbounds = 0;
    for (int i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "rb-load: bad argument '%s' (want key=value)\n", argv[i]);
            return 2;
        }
        long v = strtol(eq + 1, NULL, 10);
        size_t k = (size_t)(eq - argv[i]);
        if (k == 4 && !strncmp(argv[i], "port", 4))
            port = v;
        else if (k == 5 && !strncmp(argv[i], "conns", 5))
            conns = v;
        else if (k == 4 && !strncmp(argv[i], "rate", 4))
            rate = v;
        else if (k == 4 && !strncmp(argv[i], "secs", 4))
            secs = v;
        else if (k == 6 && !strncmp(argv[i], "warmup", 6))
            warmup = v;
        else if (k == 2 && !strncmp(argv[i], "le", 2) && nbounds < 16)
            bounds[nbounds++] = (uint64_t)v;
        else {
            fprintf(stderr, "rb-load: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (port <= 0 || port > 65535 || conns < 1 || conns > 100000 || rate < 1 || secs < 1 ||
        secs > 3600 || warmup < 0 || warmup > 600) {
        fprintf(stderr, "usage: rb-load port=P conns=C rate=R secs=S [warmup=W] [le=NS...]\n");
        return 2;
    }
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)port);
    target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ep = epoll_create1(EPOLL_CLOEXEC);
    lconn *cs = calloc((size_t)conns, sizeof *cs);
    if (ep < 0 || !cs) {
        fprintf(stderr, "rb-load: out of resources\n");
        return 1;
    }
    for (long i = 0; i < conns; i++)
        open_conn(&cs[i]);

    const double period = 1e9 / (double)rate;
    const uint64_t t0 = now_ns() + 50000000ull; /* 50 ms to connect first */
    const uint64_t mstart = t0 + (uint64_t)warmup * 1000000000ull;
    const uint64_t mend = mstart + (uint64_t)secs * 1000000000ull;
    const uint64_t deadline = mend + GRACE_NS;
#define DUE(i, c) (t0 + (uint64_t)(((double)(i) + (double)(c)->k * (double)conns) * period))
    struct epoll_event evs[256];
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline)
            break;
        /* Send every request that is due on an idle connection. */
        uint64_t next = deadline;
        int busy = 0;
        for (long i = 0; i < conns; i++) {
            lconn *c = &cs[i];
            uint64_t due = DUE(i, c);
            if (due >= mend)
                continue;
            busy = 1;
            if (c->state == CONNECTING && c->fd < 0 && now >= due)
                reopen(c, 0);
            if (c->state != IDLE)
                continue;
            if (due <= now) {
                c->intended = due;
                if (send_request(c) < 0)
                    reopen(c, 1), c->state = CONNECTING, c->in_flight_sent = -1;
            } else if (due < next)
                next = due;
        }
        if (!busy) {
            int waiting = 0;
            for (long i = 0; i < conns; i++)
                waiting |= cs[i].state == WAITING || cs[i].in_flight_sent == -1;
            if (!waiting)
                break;
        }
        int timeout = next > now ? (int)((next - now) / 1000000u) : 0;
        if (timeout > 100)
            timeout = 100;
        int n = epoll_wait(ep, evs, 256, timeout);
        now = now_ns();
        for (int e = 0; e < n; e++) {
            lconn *c = evs[e].data.ptr;
            if (c->state == CONNECTING) {
                int soerr = 0;
                socklen_t sl = sizeof soerr;
                getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
                if (soerr || (evs[e].events & (EPOLLERR | EPOLLHUP))) {
                    reopen(c, 1);
                    continue;
                }
                struct epoll_event m = {.events = EPOLLIN, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &m);
                c->state = IDLE;
                if (c->in_flight_sent == -1 && send_request(c) < 0)
                    reopen(c, 1);
                continue;
            }
            ssize_t r = c->len < BUF - 1 ? read(c->fd, c->buf + c->len, BUF - 1 - c->len) : -1;
            if (r <= 0) {
                if (r < 0 && (errno == EAGAIN || errno == EINTR))
                    continue;
                /* Closed: an error only if a response was owed. */
                reopen(c, c->state == WAITING);
                continue;
            }
            c->len += (size_t)r;
            if (c->state != WAITING)
                continue;
            int status, closes;
            size_t used = parse_response(c, &status, &closes);
            if (!used)
                continue;
            if (c->intended >= mstart && c->intended < mend) {
                record(now - c->intended);
                completed++;
                if (status != 200)
                    non200++;
            }
            c->k++;
            c->state = IDLE;
            c->in_flight_sent = 0;
            c->len = 0;
            if (closes)
                reopen(c, 0);
        }
    }
    /* Requests of the measured period still unanswered are late: recorded
     * with the grace period's end as a lower bound of their latency. */
    uint64_t late = 0, end = now_ns();
    for (long i = 0; i < conns; i++) {
        lconn *c = &cs[i];
        if (c->state == WAITING || c->in_flight_sent == -1) {
            if (c->intended >= mstart && c->intended < mend) {
                record(end - c->intended);
                late++;
            }
            c->k++;
        }
        for (uint64_t due = DUE(i, c); due < mend; c->k++, due = DUE(i, c))
            if (due >= mstart) {
                record(end - due);
                late++;
            }
        if (c->fd >= 0)
            close(c->fd);
    }
    printf("rb-load requests=%llu duration_ns=%llu p50_ns=%llu p90_ns=%llu p99_ns=%llu "
           "p999_ns=%llu max_ns=%llu socket_errors=%llu non200=%llu late=%llu\n",
           (unsigned long long)completed, (unsigned long long)(mend - mstart),
           (unsigned long long)percentile(50), (unsigned long long)percentile(90),
           (unsigned long long)percentile(99), (unsigned long long)percentile(99.9),
           (unsigned long long)max_ns, (unsigned long long)socket_errors,
           (unsigned long long)non200, (unsigned long long)late);
    for (int b = 0; b < nbounds; b++)
        printf("rb-load-le %llu %.4f\n", (unsigned long long)bounds[b], share_le(bounds[b]));
    free(cs);
    close(ep);
    return 0;
}
