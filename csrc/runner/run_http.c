/* run_http.c: the C runner's server for round http.
 *
 *   rb-c http-serve c port=P threads=N
 *
 * Serves the core's hello-world handler on 127.0.0.1:P (0: any free port)
 * with N worker threads, prints `listening port=<port>` once it accepts
 * connections, and on SIGTERM or SIGINT stops cleanly, prints
 * `stopped requests=... bad=... timeouts=... open=...` and exits 0. The
 * round's driver (python/roundbench/rounds/http/) starts it, loads it and
 * stops it; the driver, not this program, prints the result line.
 *
 *   rb-c http-parse c
 *
 * Times the hand-written parser alone on the request wrk sends (calibrated
 * loop, empty loop subtracted) and prints `BenchmarkHttp-parse/impl=c ...
 * ns/parse`: the parser's share of the server's CPU time per request. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* Helper entry points of round http, not variants: the round's driver
 * starts http-serve; http-parse times the parser alone. */
RBC_ROUND("http-serve", run_http_serve, {"c", "", NULL});
RBC_ROUND("http-parse", run_http_parse, {"c", "ns/parse", NULL});

static rb_http_server *serving;

static void on_signal(int sig)
{
    (void)sig;
    rb_http_server_stop(serving); /* async-signal-safe: one eventfd write */
}

static int run_http_serve(const rbc_args *a)
{
    rb_http_config cfg = {
        .host = "127.0.0.1",
        .port = (int)rbc_int_arg(a, "port", 0, 0, 65535),
        .threads = (int)rbc_int_arg(a, "threads", 1, 1, 256),
        .header_timeout_ms = (int)rbc_int_arg(a, "header_timeout_ms", 10000, 1, 3600000),
    };
    rb_error err;
    rb_http_server *s = NULL;
    if (rb_http_server_open(&cfg, &s, &err) != RB_OK)
        rbc_core_failed("rb_http_server_open", &err);
    serving = s;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (rb_http_server_start(s, &err) != RB_OK)
        rbc_core_failed("rb_http_server_start", &err);
    /* scan: allow print: the driver's start line, before any load */
    printf("listening port=%d\n", rb_http_server_port(s));
    fflush(stdout);
    rb_http_server_wait(s, -1);
    rb_http_stats st;
    rb_http_server_stats(s, &st);
    rb_http_server_close(s);
    /* scan: allow print: the driver's stop line, after the load */
    printf("stopped requests=%lld bad=%lld timeouts=%lld open=%lld\n", (long long)st.requests,
           (long long)st.bad_requests, (long long)st.timeouts, (long long)st.open);
    return RBC_EXIT_OK;
}

/* ---- the parser's own cost ---------------------------------------------- */

static const char wrk_request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
static volatile size_t parse_kept; /* a volatile: every parse's result is kept */

static uint64_t time_parse(void *ctx, int64_t count)
{
    (void)ctx;
    rb_http_request r;
    uint64_t t0 = rbc_now_ns();
    for (int64_t i = 0; i < count; i++) {
        /* rb_http_parse lives in another translation unit and is not known
         * to be pure: every call is made; its result is kept. */
        if (rb_http_parse(wrk_request, sizeof wrk_request - 1, 8192, &r) == RB_HTTP_COMPLETE)
            parse_kept += r.head_len;
    }
    return rbc_now_ns() - t0;
}

static uint64_t time_empty(void *ctx, int64_t count)
{
    (void)ctx;
    uint64_t t0 = rbc_now_ns();
    for (int64_t i = 0; i < count; i++)
        parse_kept += sizeof wrk_request - 1;
    return rbc_now_ns() - t0;
}

static int run_http_parse(const rbc_args *a)
{
    rb_http_request r;
    if (rb_http_parse(wrk_request, sizeof wrk_request - 1, 8192, &r) != RB_HTTP_COMPLETE ||
        r.head_len != sizeof wrk_request - 1)
        rbc_wrong("parsed head length", (long long)r.head_len, (long long)(sizeof wrk_request - 1));
    int64_t count = 0;
    double ns = rbc_calibrated(time_parse, time_empty, NULL, &count);
    rbc_metric m[] = {{ns, "ns/parse"}};
    rbc_result("head_len=%zu", r.head_len);
    rbc_emit(a, count, ns, m, 1);
    return RBC_EXIT_OK;
}
