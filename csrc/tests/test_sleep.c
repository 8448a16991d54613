/* test_sleep.c: round sleep: the event loop, the round on it and on
 * threads, against the shared vectors; bad input; the thread-limit reader.
 * Run under ASan and UBSan (make test-c): the loop and the threads' shared
 * stack mapping must be clean. */
#include <pthread.h>
#include <stdint.h>

#include "roundbench.h"
#include "vectors.h"

#define WAIT_NS 5000000 /* 5 ms: the tests check what happened, not how fast */
/* ASan needs more stack per thread than the round's 16 KiB. */
#define TEST_STACK (256 * 1024)

static void check_stats(const char *what, long long n, const rb_sleep_stats *s)
{
    CHECK(s->n == n, "%s(%lld): n = %lld", what, n, (long long)s->n);
    CHECK(s->peak_live == n, "%s(%lld): peak live = %lld; want %lld", what, n,
          (long long)s->peak_live, n);
    CHECK(s->completed == n, "%s(%lld): completed = %lld; want %lld", what, n,
          (long long)s->completed, n);
    CHECK(s->early == 0, "%s(%lld): %lld woke early", what, n, (long long)s->early);
    CHECK(s->setup_ns >= 0, "%s(%lld): setup_ns = %lld", what, n, (long long)s->setup_ns);
    if (n > 0)
        CHECK(s->run_ns >= WAIT_NS && s->overhead_ns == s->run_ns - WAIT_NS,
              "%s(%lld): run_ns %lld must cover the wait", what, n, (long long)s->run_ns);
}

static void sleep_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n");
    rb_sleep_stats s = {0};
    rb_error err;
    rb_status st = rb_sleep(n, WAIT_NS, &s, &err);
    CHECK(st == RB_OK, "rb_sleep(%lld) status %d", n, st);
    check_stats("rb_sleep", n, &s);
    memset(&s, 0, sizeof s);
    st = rb_sleep_threads(n, WAIT_NS, TEST_STACK, &s, &err);
    CHECK(st == RB_OK, "rb_sleep_threads(%lld) status %d (%s)", n, st, err.msg);
    check_stats("rb_sleep_threads", n, &s);
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    long long n = rbt_int(v, "n");
    rb_status want = rbt_status(v);
    rb_sleep_stats s;
    rb_error err;
    CHECK(rb_sleep(n, WAIT_NS, &s, &err) == want && strcmp(err.arg, "n") == 0,
          "rb_sleep(%lld) must fail with %d naming n", n, want);
    CHECK(rb_sleep_threads(n, WAIT_NS, 0, &s, &err) == want && strcmp(err.arg, "n") == 0,
          "rb_sleep_threads(%lld) must fail with %d naming n", n, want);
}

/* ---- the event loop on its own ---- */

typedef struct {
    int order[16];
    int count;
    int64_t deadlines[8];
    rb_evloop *loop;
} trace;

typedef struct {
    trace *t;
    int id;
} mark;

static void record(rb_evloop *loop, void *ctx)
{
    mark *m = ctx;
    m->t->order[m->t->count++] = m->id;
    if (m->id < 100)
        CHECK(rb_evloop_now(loop) >= m->t->deadlines[m->id], "timer %d ran before its deadline",
              m->id);
}

static void post_more(rb_evloop *loop, void *ctx)
{
    mark *m = ctx;
    m->t->order[m->t->count++] = m->id;
    /* A callback may post work of its own: it runs on the next iteration,
     * before any timer that is not yet due. */
    static mark later;
    later = (mark){m->t, 100};
    CHECK(rb_evloop_post(loop, record, &later, NULL) == RB_OK, "post from a callback");
}

static void spawn_six(rb_evloop *loop, void *ctx)
{
    mark *m = ctx;
    m->t->order[m->t->count++] = m->id;
    static mark six[6];
    for (int i = 0; i < 6; i++) {
        six[i] = (mark){m->t, 103 + i};
        CHECK(rb_evloop_post(loop, record, &six[i], NULL) == RB_OK, "post %d", i);
    }
}

static void failing(rb_evloop *loop, void *ctx)
{
    (void)ctx;
    rb_evloop_fail(loop, RB_ERR_NOMEM, "x", "test failure");
}

static void test_evloop(void)
{
    rb_evloop *loop = NULL;
    rb_error err;
    CHECK(rb_evloop_new(-1, &loop, &err) == RB_ERR_ARG && strcmp(err.arg, "capacity") == 0,
          "negative capacity");
    CHECK(rb_evloop_new(4, NULL, &err) == RB_ERR_ARG, "NULL out");
    /* Capacity 0 then more timers and posts than that: the heap and the
     * ring grow (the ring while wrapped). */
    CHECK(rb_evloop_new(0, &loop, &err) == RB_OK, "rb_evloop_new");
    trace t = {.count = 0};
    mark marks[8];
    int64_t base = rb_evloop_now(loop);
    /* Deadlines out of order, two equal: they must run by deadline. */
    int64_t offs[5] = {4000000, 1000000, 3000000, 1000000, 2000000};
    for (int i = 0; i < 5; i++) {
        marks[i] = (mark){&t, i};
        t.deadlines[i] = base + offs[i];
        CHECK(rb_evloop_at(loop, t.deadlines[i], record, &marks[i], &err) == RB_OK, "at");
    }
    marks[5] = (mark){&t, 200};
    CHECK(rb_evloop_post(loop, post_more, &marks[5], &err) == RB_OK, "post");
    CHECK(rb_evloop_at(loop, 0, NULL, NULL, &err) == RB_ERR_ARG, "NULL timer fn");
    CHECK(rb_evloop_post(loop, NULL, NULL, &err) == RB_ERR_ARG, "NULL posted fn");
    CHECK(rb_evloop_run(loop, &err) == RB_OK, "run");
    CHECK(t.count == 7, "ran %d callbacks; want 7", t.count);
    int want[7] = {200, 100, 1, 3, 4, 2, 0};
    for (int i = 0; i < 7 && i < t.count; i++) {
        if (i == 2 || i == 3) /* the equal deadlines, in either order */
            CHECK(t.order[i] == 1 || t.order[i] == 3, "order[%d] = %d; want 1 or 3", i, t.order[i]);
        else
            CHECK(t.order[i] == want[i], "order[%d] = %d; want %d", i, t.order[i], want[i]);
    }
    /* FIFO order through a ring that grows while wrapped: capacity 4,
     * three posted, the first posts six more once the head has moved. */
    rb_evloop *small = NULL;
    CHECK(rb_evloop_new(4, &small, &err) == RB_OK, "rb_evloop_new(4)");
    trace t2 = {.count = 0};
    mark first[3] = {{&t2, 100}, {&t2, 101}, {&t2, 102}};
    CHECK(rb_evloop_post(small, spawn_six, &first[0], NULL) == RB_OK, "post spawner");
    CHECK(rb_evloop_post(small, record, &first[1], NULL) == RB_OK, "post");
    CHECK(rb_evloop_post(small, record, &first[2], NULL) == RB_OK, "post");
    CHECK(rb_evloop_run(small, &err) == RB_OK, "run the small loop");
    CHECK(t2.count == 9, "ran %d; want 9", t2.count);
    for (int i = 0; i < 9 && i < t2.count; i++)
        CHECK(t2.order[i] == 100 + i, "fifo order[%d] = %d; want %d", i, t2.order[i], 100 + i);
    rb_evloop_free(small);

    /* A failing callback stops the loop with its error; the rest are freed. */
    CHECK(rb_evloop_post(loop, failing, NULL, &err) == RB_OK, "post failing");
    CHECK(rb_evloop_at(loop, base, record, &marks[0], &err) == RB_OK, "at after");
    CHECK(rb_evloop_run(loop, &err) == RB_ERR_NOMEM && strcmp(err.arg, "x") == 0,
          "the callback's failure");
    rb_evloop_free(loop);
    rb_evloop_free(NULL);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(path, "sleep", sleep_vector, NULL) >= 4, "too few sleep vectors");
    CHECK(rbt_each(path, "sleep-error", error_vector, NULL) >= 2, "too few sleep-error vectors");

    rb_sleep_stats s;
    rb_error err;
    CHECK(rb_sleep(3, -1, &s, &err) == RB_ERR_ARG && strcmp(err.arg, "wait_ns") == 0,
          "negative wait");
    CHECK(rb_sleep(3, 0, NULL, &err) == RB_ERR_ARG && strcmp(err.arg, "stats") == 0, "NULL stats");
    CHECK(rb_sleep_threads(3, 0, -5, &s, &err) == RB_ERR_ARG && strcmp(err.arg, "stack_bytes") == 0,
          "negative stack");
    CHECK(rb_sleep(2, 0, &s, NULL) == RB_OK && s.completed == 2, "zero wait, NULL err");

    rb_thread_limit lim;
    CHECK(rb_thread_limit_now(8192, 0, &lim, &err) == RB_OK, "rb_thread_limit_now");
    CHECK(lim.name != NULL && lim.value > 0 && lim.max_threads >= 0,
          "a limit with a name, a setting and a count");
    rb_thread_limit lim3;
    CHECK(rb_thread_limit_now(8192, 3, &lim3, &err) == RB_OK && lim3.max_threads <= lim.max_threads,
          "more maps per thread never allow more threads");
    CHECK(rb_thread_limit_now(-1, 0, &lim, &err) == RB_ERR_ARG, "negative touched bytes");
    CHECK(rb_thread_limit_now(0, 0, NULL, &err) == RB_ERR_ARG, "NULL out");

    test_evloop();
    return rbt_done("test_sleep");
}
