/* test_threads.c: the core's entry points that roundbench._core calls with
 * the GIL released (or with no GIL, on a free-threaded CPython), called
 * from several threads at once, on shared inputs (one jsonl buffer, one
 * pair of matrices, one aspects data set, one HTTP server) and on separate
 * ones (a chain each, an output each). `make test-c` runs it under ASan
 * and UBSan like every C test, and builds and runs it again under
 * ThreadSanitizer (build/tsan/test_threads), which reports any data race
 * between the calls. Each thread records what it got; the main thread
 * checks it after the join (the CHECK counters are not thread-safe). */
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "roundbench.h"
#include "vectors.h"

#define THREADS 4
#define ROUNDS 3
#define MAT_N 24

static const char jsonl_text[] = "{\"status\": 200}\n"
                                 "{\"status\": 404, \"path\": \"/x\"}\n"
                                 "\n"
                                 "not json\n"
                                 "[1, 2]\n"
                                 "{\"status\": 200, \"nested\": {\"a\": [1, 2, {\"b\": null}]}}\n"
                                 "{\"path\": \"/no-status\"}\n"
                                 "{\"status\": 500}";

typedef struct {
    /* shared, read-only while the threads run */
    const double *a, *b;
    const double *c_ref;
    const rb_aspects_ephemeris *eph;
    const rb_aspects_events *events;
    const rb_aspects_combo *combo;
    const rb_buf *aspects_ref;
    int64_t aspects_ref_matches;
    const rb_jsonl_result *jsonl_ref;
    rb_http_server *server;
    int blas; /* 1 when the BLAS loaded in the main thread */
} shared_in;

typedef struct {
    int index;
    const shared_in *in;
    /* what the thread got; the main thread checks it */
    int loop_ok, matmul_ok, jsonl_ok, aspects_ok, chain_ok, kernel_ok, blas_ok, stats_ok;
    char why[256];
} job;

static void fail(job *j, const char *what)
{
    if (!j->why[0])
        snprintf(j->why, sizeof j->why, "thread %d: %s", j->index, what);
}

static void *worker(void *arg)
{
    job *j = arg;
    const shared_in *in = j->in;
    rb_error err;
    j->loop_ok = j->matmul_ok = j->jsonl_ok = j->aspects_ok = j->chain_ok = j->kernel_ok =
        j->blas_ok = j->stats_ok = 1;
    for (int r = 0; r < ROUNDS; r++) {
        /* loop: this thread's share of one sum, and the whole of another */
        int64_t n = 200000 + j->index, lo, hi, part = -1, whole = -1;
        rb_cores_share(n, THREADS, j->index, &lo, &hi);
        if (rb_loop_range(lo, hi, &part, &err) != RB_OK || rb_loop(n, &whole, &err) != RB_OK ||
            whole != rb_loop_expected(n) || part != rb_loop_expected(hi) - rb_loop_expected(lo)) {
            j->loop_ok = 0;
            fail(j, "rb_loop / rb_loop_range");
        }

        /* matmul: shared a and b, this thread's own c */
        double c[MAT_N * MAT_N];
        int64_t checksum = 0;
        if (rb_matmul_naive(MAT_N, in->a, in->b, c, &err) != RB_OK ||
            memcmp(c, in->c_ref, sizeof c) != 0 ||
            rb_matmul_verify(MAT_N, in->a, in->b, c, &checksum, &err) != RB_OK) {
            j->matmul_ok = 0;
            fail(j, "rb_matmul_naive on shared inputs");
        }

        /* jsonl: one shared buffer, this thread's own result */
        rb_jsonl_result res;
        rb_jsonl_result_init(&res);
        if (rb_jsonl_count_buffer((const uint8_t *)jsonl_text, sizeof jsonl_text - 1, &res, &err) !=
                RB_OK ||
            res.lines != in->jsonl_ref->lines || res.valid != in->jsonl_ref->valid ||
            res.invalid != in->jsonl_ref->invalid || res.nstatuses != in->jsonl_ref->nstatuses) {
            j->jsonl_ok = 0;
            fail(j, "rb_jsonl_count_buffer on a shared buffer");
        }
        rb_jsonl_result_free(&res);
        /* the kernel choice: read here while the main thread sets it */
        const char *k = rb_jsonl_kernel(&err);
        if (!k || !*k) {
            j->kernel_ok = 0;
            fail(j, "rb_jsonl_kernel");
        }

        /* aspects: the shared data, this thread's own output */
        rb_buf out = {0};
        int64_t matches = -1;
        if (rb_aspects_search(in->eph, in->events, 0, rb_aspects_events_count(in->events),
                              in->combo, 2, &out, &matches, &err) != RB_OK ||
            matches != in->aspects_ref_matches || out.len != in->aspects_ref->len ||
            (out.len && memcmp(out.data, in->aspects_ref->data, out.len) != 0)) {
            j->aspects_ok = 0;
            fail(j, "rb_aspects_search on shared data");
        }
        rb_buf_free(&out);

        /* chain: a chain of this thread's own, two in parallel */
        rb_chain *ch = NULL;
        int64_t got[2] = {-1, -1}, want = -1;
        if (rb_chain_new(500, 3, 2, RB_CHAIN_ASM, &ch, &err) != RB_OK ||
            rb_chain_pass(ch, got, &err) != RB_OK ||
            rb_chain_expected(500, 3, &want, &err) != RB_OK || got[0] != want || got[1] != want) {
            j->chain_ok = 0;
            fail(j, "rb_chain_new / rb_chain_pass");
        }
        rb_chain_free(ch);

        /* the BLAS: loading and asking about it from every thread at once */
        if (in->blas) {
            rb_blas_info info;
            if (rb_blas_load(&err) != RB_OK || rb_blas_get_info(&info, &err) != RB_OK ||
                !info.library) {
                j->blas_ok = 0;
                fail(j, "rb_blas_load / rb_blas_get_info");
            }
        }

        /* http: the counters of a server its workers are updating */
        rb_http_stats st;
        rb_http_server_stats(in->server, &st);
        if (st.requests < 0 || st.accepted < 0) {
            j->stats_ok = 0;
            fail(j, "rb_http_server_stats");
        }
    }
    return NULL;
}

/* A few requests to the server while the workers run (the main thread's
 * part of the http check); returns how many were answered 200. */
static int requests(int port, int count)
{
    int ok = 0;
    for (int i = 0; i < count; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
            char buf[512];
            ssize_t n = read(fd, buf, sizeof buf - 1);
            if (n > 12 && memcmp(buf, "HTTP/1.1 200", 12) == 0)
                ok++;
        }
        close(fd);
    }
    return ok;
}

static void *stopper(void *server)
{
    rb_http_server_stop(server);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *vectors = argc > 1 ? argv[1] : "testdata/vectors.txt";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", vectors);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    char eph_path[4200], ev_path[4200];
    snprintf(eph_path, sizeof eph_path, "%saspects/ephemeris.tsv", dir);
    snprintf(ev_path, sizeof ev_path, "%saspects/events-300.tsv", dir);

    rb_error err;
    static double a[MAT_N * MAT_N], b[MAT_N * MAT_N], c_ref[MAT_N * MAT_N];
    CHECK(rb_matmul_fill(MAT_N, 7, a, b, &err) == RB_OK, "rb_matmul_fill");
    CHECK(rb_matmul_naive(MAT_N, a, b, c_ref, &err) == RB_OK, "rb_matmul_naive (reference)");

    rb_jsonl_result jref;
    rb_jsonl_result_init(&jref);
    CHECK(rb_jsonl_count_buffer((const uint8_t *)jsonl_text, sizeof jsonl_text - 1, &jref, &err) ==
              RB_OK,
          "rb_jsonl_count_buffer (reference)");
    CHECK(jref.lines == 8 && jref.valid == 4, "jsonl reference: %lld lines, %lld valid",
          (long long)jref.lines, (long long)jref.valid);

    rb_aspects_ephemeris *eph = NULL;
    rb_aspects_events *events = NULL;
    rb_aspects_combo combo;
    rb_buf aref = {0};
    int64_t amatches = -1;
    int loaded = rb_aspects_ephemeris_load(eph_path, &eph, &err) == RB_OK &&
                 rb_aspects_events_load(ev_path, eph, &events, &err) == RB_OK;
    CHECK(loaded, "aspects data from %s: %s", dir, err.msg);
    if (!loaded)
        return rbt_done("test_threads");
    CHECK(rb_aspects_combo_parse(RB_ASPECTS_DEFAULT_COMBO, &combo, &err) == RB_OK, "combo");
    CHECK(rb_aspects_search(eph, events, 0, rb_aspects_events_count(events), &combo, 2, &aref,
                            &amatches, &err) == RB_OK,
          "rb_aspects_search (reference)");

    rb_http_config cfg = {.host = "127.0.0.1", .port = 0, .threads = 2};
    rb_http_server *server = NULL;
    CHECK(rb_http_server_open(&cfg, &server, &err) == RB_OK, "rb_http_server_open: %s", err.msg);
    CHECK(server && rb_http_server_start(server, &err) == RB_OK, "rb_http_server_start");

    shared_in in = {.a = a,
                    .b = b,
                    .c_ref = c_ref,
                    .eph = eph,
                    .events = events,
                    .combo = &combo,
                    .aspects_ref = &aref,
                    .aspects_ref_matches = amatches,
                    .jsonl_ref = &jref,
                    .server = server,
                    .blas = rb_blas_load(&err) == RB_OK};
    if (!in.blas)
        printf("test_threads: no BLAS here (%s): its part is skipped\n", err.msg);

    job jobs[THREADS];
    pthread_t tid[THREADS];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < THREADS; i++) {
        jobs[i].index = i;
        jobs[i].in = &in;
        CHECK(pthread_create(&tid[i], NULL, worker, &jobs[i]) == 0, "pthread_create %d", i);
    }
    /* While they run: the kernel choice set again (to what it is), and
     * requests for the server's workers to count. */
    const char *kernel = rb_jsonl_kernel(&err);
    char kname[64];
    snprintf(kname, sizeof kname, "%s", kernel ? kernel : "auto");
    for (int r = 0; r < 20; r++)
        CHECK(rb_jsonl_set_kernel(kname, &err) == RB_OK, "rb_jsonl_set_kernel(%s): %s", kname,
              err.msg);
    int answered = requests(rb_http_server_port(server), 8);
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    CHECK(answered == 8, "%d of 8 requests answered 200", answered);

    for (int i = 0; i < THREADS; i++) {
        const job *j = &jobs[i];
        CHECK(j->loop_ok && j->matmul_ok && j->jsonl_ok && j->aspects_ok && j->chain_ok &&
                  j->kernel_ok && j->blas_ok && j->stats_ok,
              "%s", j->why);
    }
    rb_http_stats st;
    rb_http_server_stats(server, &st);
    CHECK(st.requests == 8, "the server counted %lld requests; want 8", (long long)st.requests);

    /* stop() from several threads at once, beside the wait */
    pthread_t stoppers[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&stoppers[i], NULL, stopper, server) == 0, "pthread_create stopper %d",
              i);
    CHECK(rb_http_server_wait(server, 10000) == 1, "the workers did not exit after stop()");
    for (int i = 0; i < THREADS; i++)
        pthread_join(stoppers[i], NULL);
    rb_http_server_close(server);

    rb_buf_free(&aref);
    rb_aspects_events_free(events);
    rb_aspects_ephemeris_free(eph);
    rb_jsonl_result_free(&jref);
    return rbt_done("test_threads");
}
