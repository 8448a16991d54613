/* sleep.c: round sleep. The core's single-threaded event loop (a binary
 * min-heap of timers and a ring of ready callbacks), the round on that loop,
 * and the same round with one POSIX thread per task, with the machine's
 * thread limits read before trying. */
#define _GNU_SOURCE
#include "roundbench.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the event loop ----------------------------------------------------- */

/* 24 bytes per armed timer. A heap rather than a wheel: exact ns deadlines,
 * O(log n) in general and O(1) when deadlines are equal (the sift stops at
 * once on a strict comparison), which is the sleep round's case. */
typedef struct {
    int64_t deadline;
    rb_evloop_fn fn;
    void *ctx;
} ev_timer;

typedef struct {
    rb_evloop_fn fn;
    void *ctx;
} ev_ready;

struct rb_evloop {
    ev_timer *heap;
    size_t nheap, capheap;
    ev_ready *ring; /* FIFO of ready callbacks: head, count, capacity */
    size_t head, nready, capready;
    int64_t now;
    rb_status fail_code;
    const char *fail_arg, *fail_msg;
};

rb_status rb_evloop_new(int64_t capacity, rb_evloop **out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (capacity < 0)
        return rb_fail(err, RB_ERR_ARG, "capacity", "must be >= 0", capacity);
    if ((uint64_t)capacity > SIZE_MAX / sizeof(ev_timer))
        return rb_fail(err, RB_ERR_OVERFLOW, "capacity", "too large", capacity);
    size_t cap = capacity > 0 ? (size_t)capacity : 16;
    rb_evloop *loop = calloc(1, sizeof *loop);
    if (loop) {
        loop->heap = malloc(cap * sizeof *loop->heap);
        loop->ring = malloc(cap * sizeof *loop->ring);
    }
    if (!loop || !loop->heap || !loop->ring) {
        rb_evloop_free(loop);
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the event loop", -1);
    }
    loop->capheap = loop->capready = cap;
    loop->now = now_ns();
    *out = loop;
    return RB_OK;
}

void rb_evloop_free(rb_evloop *loop)
{
    if (!loop)
        return;
    free(loop->heap);
    free(loop->ring);
    free(loop);
}

int64_t rb_evloop_now(const rb_evloop *loop)
{
    return loop->now;
}

void rb_evloop_fail(rb_evloop *loop, rb_status code, const char *arg, const char *msg)
{
    if (loop->fail_code == RB_OK) {
        loop->fail_code = code;
        loop->fail_arg = arg;
        loop->fail_msg = msg;
    }
}

/* Doubles an array's capacity; 0 on success. */
static int grow(void **p, size_t *cap, size_t elem)
{
    if (*cap > SIZE_MAX / 2 / elem)
        return -1;
    void *q = realloc(*p, *cap * 2 * elem);
    if (!q)
        return -1;
    *p = q;
    *cap *= 2;
    return 0;
}

rb_status rb_evloop_post(rb_evloop *loop, rb_evloop_fn fn, void *ctx, rb_error *err)
{
    if (!fn)
        return rb_fail(err, RB_ERR_ARG, "fn", "must not be NULL", -1);
    if (loop->nready == loop->capready) {
        size_t old = loop->capready;
        if (grow((void **)&loop->ring, &loop->capready, sizeof *loop->ring) < 0)
            return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot grow the ready queue", -1);
        /* Unwrap: the entries before head move to the new second half. */
        if (loop->head + loop->nready > old)
            memcpy(loop->ring + old, loop->ring,
                   (loop->head + loop->nready - old) * sizeof *loop->ring);
    }
    size_t i = (loop->head + loop->nready) % loop->capready;
    loop->ring[i] = (ev_ready){fn, ctx};
    loop->nready++;
    return RB_OK;
}

rb_status rb_evloop_at(rb_evloop *loop, int64_t deadline_ns, rb_evloop_fn fn, void *ctx,
                       rb_error *err)
{
    if (!fn)
        return rb_fail(err, RB_ERR_ARG, "fn", "must not be NULL", -1);
    if (loop->nheap == loop->capheap &&
        grow((void **)&loop->heap, &loop->capheap, sizeof *loop->heap) < 0)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot grow the timer heap", -1);
    size_t i = loop->nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (loop->heap[parent].deadline <= deadline_ns)
            break;
        loop->heap[i] = loop->heap[parent];
        i = parent;
    }
    loop->heap[i] = (ev_timer){deadline_ns, fn, ctx};
    return RB_OK;
}

static ev_timer heap_pop(rb_evloop *loop)
{
    ev_timer top = loop->heap[0];
    ev_timer last = loop->heap[--loop->nheap];
    size_t n = loop->nheap, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && loop->heap[c + 1].deadline < loop->heap[c].deadline)
            c++;
        if (loop->heap[c].deadline >= last.deadline)
            break;
        loop->heap[i] = loop->heap[c];
        i = c;
    }
    if (n > 0)
        loop->heap[i] = last;
    return top;
}

rb_status rb_evloop_run(rb_evloop *loop, rb_error *err)
{
    while (loop->fail_code == RB_OK && (loop->nready > 0 || loop->nheap > 0)) {
        loop->now = now_ns();
        /* Only the callbacks ready at the start of this iteration: what they
         * post runs on the next one, so a callback that reposts itself
         * cannot starve the timers. */
        for (size_t k = loop->nready; k > 0 && loop->fail_code == RB_OK; k--) {
            ev_ready r = loop->ring[loop->head];
            loop->head = (loop->head + 1) % loop->capready;
            loop->nready--;
            r.fn(loop, r.ctx);
        }
        while (loop->fail_code == RB_OK && loop->nheap > 0 && loop->heap[0].deadline <= loop->now) {
            ev_timer t = heap_pop(loop);
            t.fn(loop, t.ctx);
        }
        if (loop->fail_code != RB_OK || loop->nready > 0 || loop->nheap == 0)
            continue;
        /* Nothing is ready: sleep until the earliest deadline. This loop has
         * no file descriptors to watch; one that had would wait in
         * epoll_pwait2, whose timeout is in ns too (epoll_wait's is in ms,
         * which would add up to 1 ms to every wake). */
        int64_t d = loop->heap[0].deadline;
        struct timespec ts = {.tv_sec = d / 1000000000, .tv_nsec = d % 1000000000};
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR) {
        }
        if (rc != 0) {
            return rb_fail_sys(err, rc, NULL, -1, "clock_nanosleep failed");
        }
    }
    if (loop->fail_code != RB_OK)
        return rb_fail(err, loop->fail_code, loop->fail_arg, loop->fail_msg, -1);
    return RB_OK;
}

/* ---- the round on the event loop ---------------------------------------- */

typedef struct {
    int64_t wait_ns, start, live, peak, completed, early;
} sleep_state;

/* A task's whole state: 16 bytes. */
typedef struct {
    sleep_state *st;
    int64_t deadline;
} sleep_task;

static void task_wake(rb_evloop *loop, void *ctx)
{
    sleep_task *t = ctx;
    if (rb_evloop_now(loop) < t->deadline)
        t->st->early++;
    t->st->live--;
    t->st->completed++;
}

/* A task's first step, run when the loop starts: every task started in the
 * first iteration sees the same `now`, the common start. */
static void task_start(rb_evloop *loop, void *ctx)
{
    sleep_task *t = ctx;
    if (t->st->start < 0)
        t->st->start = rb_evloop_now(loop);
    t->deadline = t->st->start + t->st->wait_ns;
    if (rb_evloop_at(loop, t->deadline, task_wake, t, NULL) != RB_OK)
        rb_evloop_fail(loop, RB_ERR_NOMEM, NULL, "cannot arm a timer");
}

static rb_status check_sleep_args(int64_t n, int64_t wait_ns, rb_sleep_stats *stats, rb_error *err)
{
    if (!stats)
        return rb_fail(err, RB_ERR_ARG, "stats", "must not be NULL", -1);
    if (n < 0)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 0, not %lld", (long long)n);
    if (n > RB_SLEEP_MAX_N)
        return rb_failf(err, RB_ERR_OVERFLOW, "n", n,
                        "must be <= %lld (task ids are 32-bit), not %lld",
                        (long long)RB_SLEEP_MAX_N, (long long)n);
    if (wait_ns < 0)
        return rb_failf(err, RB_ERR_ARG, "wait_ns", wait_ns, "must be >= 0, not %lld",
                        (long long)wait_ns);
    return RB_OK;
}

static void finish_stats(rb_sleep_stats *s, int64_t n, int64_t t0, int64_t start, int64_t end,
                         int64_t wait_ns)
{
    s->n = n;
    if (n == 0) {
        s->setup_ns = end - t0;
        s->run_ns = s->overhead_ns = 0;
        return;
    }
    s->setup_ns = start - t0;
    s->run_ns = end - start;
    s->overhead_ns = s->run_ns - wait_ns;
}

rb_status rb_sleep(int64_t n, int64_t wait_ns, rb_sleep_stats *stats, rb_error *err)
{
    rb_status st = check_sleep_args(n, wait_ns, stats, err);
    if (st != RB_OK)
        return st;
    int64_t t0 = now_ns();
    sleep_state s = {.wait_ns = wait_ns, .start = -1};
    rb_evloop *loop = NULL;
    sleep_task *tasks = malloc((size_t)(n > 0 ? n : 1) * sizeof *tasks);
    if (!tasks) {
        st = rb_fail(err, RB_ERR_NOMEM, "n", "cannot allocate the tasks", n);
        goto done;
    }
    if ((st = rb_evloop_new(n, &loop, err)) != RB_OK)
        goto done;
    for (int64_t i = 0; i < n; i++) {
        tasks[i] = (sleep_task){&s, 0};
        if ((st = rb_evloop_post(loop, task_start, &tasks[i], err)) != RB_OK)
            goto done;
        if (++s.live > s.peak)
            s.peak = s.live;
    }
    if ((st = rb_evloop_run(loop, err)) != RB_OK)
        goto done;
    int64_t end = now_ns();
    finish_stats(stats, n, t0, s.start, end, wait_ns);
    stats->peak_live = s.peak;
    stats->completed = s.completed;
    stats->early = s.early;
done:
    rb_evloop_free(loop);
    free(tasks);
    return st;
}

/* ---- machine limits on threads ------------------------------------------ */

/* A thread's cost in kernel memory: a 16 KiB kernel stack (x86-64
 * THREAD_SIZE) plus task_struct and friends; an estimate, on the safe side. */
#define KERNEL_BYTES_PER_THREAD 32768

/* Reads the first integer of a /proc file; -1 when it cannot. */
static int64_t read_proc_int(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long long v = -1;
    if (fscanf(f, "%lld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* Threads in the whole system: the total after the slash in /proc/loadavg
 * ("0.10 0.20 0.30 2/345 6789"), which counts every thread. */
static int64_t threads_in_use(void)
{
    FILE *f = fopen("/proc/loadavg", "re");
    if (!f)
        return -1;
    long long total = -1;
    if (fscanf(f, "%*s %*s %*s %*d/%lld", &total) != 1)
        total = -1;
    fclose(f);
    return total;
}

static int64_t maps_in_use(void)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    int64_t lines = 0;
    int c;
    while ((c = getc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

static int64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

static void tighter(rb_thread_limit *out, const char *name, int64_t value, int64_t allows)
{
    if (allows < 0)
        allows = 0;
    if (out->name == NULL || allows < out->max_threads)
        *out = (rb_thread_limit){name, value, allows};
}

rb_status rb_thread_limit_now(int64_t touched_bytes, int64_t maps_per_thread, rb_thread_limit *out,
                              rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (touched_bytes < 0)
        return rb_failf(err, RB_ERR_ARG, "touched_bytes", touched_bytes, "must be >= 0, not %lld",
                        (long long)touched_bytes);
    if (maps_per_thread < 0)
        return rb_failf(err, RB_ERR_ARG, "maps_per_thread", maps_per_thread,
                        "must be >= 0, not %lld", (long long)maps_per_thread);
    rb_thread_limit lim = {NULL, 0, 0};
    int64_t used = threads_in_use();
    int64_t pid_max = read_proc_int("/proc/sys/kernel/pid_max");
    int64_t threads_max = read_proc_int("/proc/sys/kernel/threads-max");
    int64_t map_max = read_proc_int("/proc/sys/vm/max_map_count");
    int64_t maps = maps_in_use();
    int64_t avail = mem_available();
    if (used < 0 || pid_max < 0 || threads_max < 0 || map_max < 0 || maps < 0 || avail < 0) {
        return rb_fail_sys(err, errno, NULL, -1, "cannot read the thread limits from /proc");
    }
    /* Every thread takes a pid; after wrapping, the kernel hands out pids
     * from 300 up (RESERVED_PIDS in kernel/pid.c). */
    tighter(&lim, "kernel.pid_max", pid_max, pid_max - 300 - used);
    tighter(&lim, "kernel.threads-max", threads_max, threads_max - used);
    struct rlimit rl;
    /* RLIMIT_NPROC counts the user's threads, which are at most all of them;
     * the kernel does not apply it to root. */
    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && geteuid() != 0)
        tighter(&lim, "ulimit -u (RLIMIT_NPROC)", (int64_t)rl.rlim_cur,
                (int64_t)rl.rlim_cur - used);
    if (maps_per_thread > 0)
        tighter(&lim, "vm.max_map_count", map_max, (map_max - maps) / maps_per_thread);
    /* Keep a quarter of the available memory for everything else. */
    tighter(&lim, "MemAvailable", avail, avail / 4 * 3 / (touched_bytes + KERNEL_BYTES_PER_THREAD));
    *out = lim;
    return RB_OK;
}

/* ---- the round on threads ----------------------------------------------- */

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr, int count)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

typedef struct {
    uint32_t n;
    _Atomic uint32_t live;      /* threads that have started and not ended */
    _Atomic uint32_t go;        /* 0 until the common start, then 1 */
    _Atomic uint32_t completed; /* threads that finished their wait */
    _Atomic uint32_t early;
    _Atomic int64_t peak;
    int64_t deadline; /* written before go is set, read after */
    int abort;        /* set with go when the run is abandoned */
} thread_state;

static void *sleep_thread(void *arg)
{
    thread_state *s = arg;
    uint32_t live = atomic_fetch_add(&s->live, 1) + 1;
    int64_t peak = atomic_load(&s->peak);
    while (live > peak && !atomic_compare_exchange_weak(&s->peak, &peak, live)) {
    }
    if (live == s->n)
        futex_wake(&s->live, 1); /* the creator waits for all to be live */
    while (atomic_load(&s->go) == 0)
        futex_wait(&s->go, 0);
    if (!s->abort) {
        struct timespec ts = {.tv_sec = s->deadline / 1000000000,
                              .tv_nsec = s->deadline % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        if (now_ns() < s->deadline)
            atomic_fetch_add(&s->early, 1);
    }
    atomic_fetch_sub(&s->live, 1);
    if (atomic_fetch_add(&s->completed, 1) + 1 == s->n)
        futex_wake(&s->completed, 1);
    return NULL;
}

static void wait_count(_Atomic uint32_t *word, uint32_t want)
{
    uint32_t v;
    while ((v = atomic_load(word)) != want)
        futex_wait(word, v);
}

rb_status rb_sleep_threads(int64_t n, int64_t wait_ns, int64_t stack_bytes, rb_sleep_stats *stats,
                           rb_error *err)
{
    rb_status st = check_sleep_args(n, wait_ns, stats, err);
    if (st != RB_OK)
        return st;
    if (stack_bytes < 0)
        return rb_failf(err, RB_ERR_ARG, "stack_bytes", stack_bytes, "must be >= 0, not %lld",
                        (long long)stack_bytes);
    if (stack_bytes > (INT64_C(1) << 30))
        return rb_failf(err, RB_ERR_OVERFLOW, "stack_bytes", stack_bytes,
                        "must be <= 1 GiB, not %lld", (long long)stack_bytes);
    int64_t page = sysconf(_SC_PAGESIZE);
    int64_t min = sysconf(_SC_THREAD_STACK_MIN);
    if (min < PTHREAD_STACK_MIN)
        min = PTHREAD_STACK_MIN;
    int64_t stack = stack_bytes ? stack_bytes : RB_SLEEP_THREAD_STACK;
    if (stack < min)
        stack = min;
    stack = (stack + page - 1) / page * page;
    if (n > 0 && stack > INT64_MAX / n)
        return rb_failf(err, RB_ERR_OVERFLOW, "n", n,
                        "is too large: %lld stacks of %lld bytes do not fit in the address space",
                        (long long)n, (long long)stack);

    int64_t t0 = now_ns();
    thread_state s = {.n = (uint32_t)n};
    pthread_t *tids = malloc((size_t)(n > 0 ? n : 1) * sizeof *tids);
    /* One mapping for every stack: threads then add no mappings (glibc maps
     * a stack and a guard page per thread, two of vm.max_map_count's 65530
     * each). The price is no guard pages; these threads only sleep. */
    size_t region = (size_t)(n > 0 ? n : 1) * (size_t)stack;
    void *stacks = mmap(NULL, region, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    pthread_attr_t attr;
    int have_attr = 0;
    int64_t created = 0;
    if (!tids || stacks == MAP_FAILED) {
        st = rb_fail(err, RB_ERR_NOMEM, "n", "cannot allocate the threads' stacks", n);
        goto done;
    }
    if (pthread_attr_init(&attr) != 0) {
        st = rb_fail(err, RB_ERR_NOMEM, NULL, "pthread_attr_init failed", -1);
        goto done;
    }
    have_attr = 1;
    for (; created < n; created++) {
        int rc = pthread_attr_setstack(&attr, (char *)stacks + created * stack, (size_t)stack);
        if (rc == 0)
            rc = pthread_create(&tids[created], &attr, sleep_thread, &s);
        if (rc != 0) {
            st = rb_fail_sys(err, rc, "n", created,
                             "cannot start thread %lld of %lld: a thread limit was reached",
                             (long long)created + 1, (long long)n);
            /* Release the threads already made (they end at once) and join
             * them below, so a refused run leaves nothing behind. */
            s.abort = 1;
            atomic_store(&s.go, 1);
            futex_wake(&s.go, INT_MAX);
            goto done;
        }
    }
    wait_count(&s.live, (uint32_t)n);
    int64_t start = now_ns();
    s.deadline = start + wait_ns;
    atomic_store(&s.go, 1); /* seq_cst: publishes the deadline */
    futex_wake(&s.go, INT_MAX);
    wait_count(&s.completed, (uint32_t)n);
    int64_t end = now_ns();
    finish_stats(stats, n, t0, start, end, wait_ns);
    stats->peak_live = atomic_load(&s.peak);
    stats->completed = atomic_load(&s.completed);
    stats->early = atomic_load(&s.early);
done:
    for (int64_t i = 0; i < created; i++)
        pthread_join(tids[i], NULL);
    if (have_attr)
        pthread_attr_destroy(&attr);
    if (stacks != MAP_FAILED)
        munmap(stacks, region);
    free(tids);
    return st;
}
