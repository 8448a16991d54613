/* chain.c: round chain, N stackful coroutines in a line joined by unbuffered
 * channels; the first receives 0, each adds 1 (after its hop work) and
 * passes the value on, the last hands N to the caller.
 *
 * Stacks: ONE shared stack per scheduler, and the used part of a task's
 * stack is copied out to the heap when the task is suspended (and back in
 * when it resumes). Why not a separate small stack per task behind a guard
 * page: a stack must be at least one page, so every suspended task would
 * hold 4 KiB of resident memory (more than a goroutine's 2 KiB), and each
 * guard page splits the mapping, so N tasks need 2N memory areas, beyond
 * the default vm.max_map_count (65530) from N = 32,768 on: N = 1,000,000
 * could not run at all. A suspended task in this round holds a few hundred
 * bytes of live frames; copying them costs one memcpy per resume, and the
 * single shared stack can afford a real guard page. A task in this round
 * resumes at most twice (start, and receiving its value), so the copy is
 * not on a hot loop.
 *
 * Switching: RB_CHAIN_ASM uses the switch below (callee-saved registers and
 * the stack pointer, x86-64 and aarch64), RB_CHAIN_UCONTEXT the C library's
 * swapcontext, which also saves and restores the signal mask with a system
 * call (rt_sigprocmask) on every switch: that is the cost the c-ucontext
 * variant makes visible. Both use the same scheduler and stacks, so the
 * switch is the only difference.
 *
 * Every switch goes through the scheduler (which runs on the calling
 * thread's own stack): it is the one place that can copy a stack in or out,
 * since the shared stack cannot be rewritten while something runs on it.
 *
 * AddressSanitizer: the switches are announced with
 * __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber, the
 * copies read the stack without instrumentation (a suspended task's frames
 * keep their redzones poisoned), and the shared stack's shadow is cleared
 * before a task's frames are copied back in (frames left by another task
 * would otherwise look poisoned); csrc/tests/test_chain.c runs both
 * switches under ASan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"
#include "roundbench.h"

#if defined(__SANITIZE_ADDRESS__)
#define CHAIN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHAIN_ASAN 1
#endif
#endif
#ifdef CHAIN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "chain.c: the coroutine switch is written for x86-64 and aarch64 only"
#endif

/* The shared stack: deep enough for a task's frames under sanitizers (which
 * grow frames several times), small enough to stay cheap per scheduler. */
#define STACK_SIZE (256 * 1024)
#define ARENA_CHUNK (1024 * 1024)

/* ------------------------------------------------------------------------ */
/* The context switch.                                                       */

/* chain_switch(save, to): saves the callee-saved registers on the current
 * stack, stores the stack pointer in *save, loads `to` as the stack pointer
 * and restores the registers saved there. Only callee-saved state is kept:
 * the switch is an ordinary call for the compiler, so the caller already
 * treats every other register as clobbered. The x87 control word and MXCSR
 * (also callee-saved in the SysV ABI) and aarch64's FPCR are not switched:
 * no task changes them. */
void rb__chain_switch(void **save, void *to) __attribute__((visibility("hidden")));

#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl rb__chain_switch\n"
        ".hidden rb__chain_switch\n"
        ".type rb__chain_switch,@function\n"
        "rb__chain_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size rb__chain_switch,.-rb__chain_switch\n");
/* A new task's first frame: six registers, then the entry as the return
 * address, then a zero "return address" for the entry itself, so that the
 * entry starts with rsp = 8 (mod 16) as the ABI requires. */
#define FRAME_WORDS 8
#define FRAME_ENTRY 6
#elif defined(__aarch64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl rb__chain_switch\n"
        ".hidden rb__chain_switch\n"
        ".type rb__chain_switch,%function\n"
        "rb__chain_switch:\n"
        "    sub sp, sp, #176\n"
        "    stp x19, x20, [sp, #0]\n"
        "    stp x21, x22, [sp, #16]\n"
        "    stp x23, x24, [sp, #32]\n"
        "    stp x25, x26, [sp, #48]\n"
        "    stp x27, x28, [sp, #64]\n"
        "    stp x29, x30, [sp, #80]\n"
        "    stp d8, d9, [sp, #96]\n"
        "    stp d10, d11, [sp, #112]\n"
        "    stp d12, d13, [sp, #128]\n"
        "    stp d14, d15, [sp, #144]\n"
        "    mov x9, sp\n"
        "    str x9, [x0]\n"
        "    mov sp, x1\n"
        "    ldp x19, x20, [sp, #0]\n"
        "    ldp x21, x22, [sp, #16]\n"
        "    ldp x23, x24, [sp, #32]\n"
        "    ldp x25, x26, [sp, #48]\n"
        "    ldp x27, x28, [sp, #64]\n"
        "    ldp x29, x30, [sp, #80]\n"
        "    ldp d8, d9, [sp, #96]\n"
        "    ldp d10, d11, [sp, #112]\n"
        "    ldp d12, d13, [sp, #128]\n"
        "    ldp d14, d15, [sp, #144]\n"
        "    add sp, sp, #176\n"
        "    ret\n"
        ".size rb__chain_switch,.-rb__chain_switch\n");
/* A new task's first frame: the 176-byte save area with x30 (the return
 * address, at byte 88) set to the entry; sp ends 16-aligned at the top. */
#define FRAME_WORDS 22
#define FRAME_ENTRY 11
#endif

/* ------------------------------------------------------------------------ */
/* Tasks, channels, schedulers.                                              */

enum { CO_NEW, CO_SUSPENDED, CO_RUNNABLE, CO_DONE };

typedef struct co {
    void *sp;             /* saved stack pointer while suspended */
    unsigned char *saved; /* the used part of the shared stack, while suspended */
    uint32_t saved_len;   /* bytes in `saved` */
    uint32_t state;
    struct co *next; /* run queue link */
    int64_t value;   /* the value a channel operation handed over */
} co;

/* An unbuffered channel: at most one waiting receiver or sender. */
typedef struct chan {
    co *recv;
    co *send;
} chan;

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used;
    unsigned char data[];
} arena_chunk;

typedef struct sched {
    const struct rb_chain *chain;
    co *tasks;          /* n tasks */
    chan *chans;        /* n + 1 channels: task i reads chans[i], writes chans[i+1] */
    ucontext_t *ucs;    /* RB_CHAIN_UCONTEXT: one context per task */
    ucontext_t uc;      /* RB_CHAIN_UCONTEXT: the scheduler's context */
    void *sp;           /* RB_CHAIN_ASM: the scheduler's saved stack pointer */
    unsigned char *map; /* guard page + shared stack */
    unsigned char *stack_lo, *stack_top;
    co *current;     /* the task running now */
    co *on_stack;    /* the task whose frames the shared stack holds */
    co *head, *tail; /* run queue */
    co driver;       /* stands for the caller at the chain's end */
    int driver_got;
    int64_t result;
    arena_chunk *arena;
#ifdef CHAIN_ASAN
    const void *main_bottom;
    size_t main_size;
#endif
} sched;

struct rb_chain {
    int64_t n, hop_work, parallel;
    rb_chain_switch how;
    int passed;
    sched *scheds;
};

/* The scheduler of the calling thread while it runs tasks: a task finds
 * its own scheduler here (one scheduler runs on one thread at a time). */
static __thread sched *tls_sched;

static void *arena_alloc(sched *s, size_t len)
{
    len = (len + 15) & ~(size_t)15;
    arena_chunk *c = s->arena;
    if (!c || c->used + len > ARENA_CHUNK) {
        size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = s->arena;
        c->used = 0;
        s->arena = c;
    }
    void *p = c->data + c->used;
    c->used += len;
    return p;
}

/* Copies a suspended task's frames. Under ASan the source holds the
 * frames' poisoned redzones, so it is read without instrumentation. */
#ifdef CHAIN_ASAN
__attribute__((no_sanitize_address)) static void stack_copy(void *dst, const void *src, size_t n)
{
    volatile unsigned char *d = dst;
    const volatile unsigned char *p = src;
    while (n--)
        *d++ = *p++;
}
#else
#define stack_copy memcpy
#endif

int64_t rb_chain_hop(int64_t x, int64_t hop_work)
{
    /* The hop's work: hop_work iterations that depend on x, so that no
     * compiler can hoist them out of the task or fold them together. */
    int64_t s = 0;
    for (int64_t i = 0; i < hop_work; i++) {
        int64_t t = (x + i) % 7;
        s += t * t % 7;
    }
    return x + 1 + s;
}

/* hop_work >= 0, and the value after n hops, each adding at most
 * 1 + 6 * hop_work, fits in int64 (n >= 0). */
static rb_status check_hop_work(int64_t n, int64_t hop_work, rb_error *err)
{
    if (hop_work < 0)
        return rb_failf(err, RB_ERR_ARG, "hop_work", hop_work, "must be >= 0, not %lld",
                        (long long)hop_work);
    if (n > 0 && hop_work > (INT64_MAX / n - 1) / 6)
        return rb_failf(err, RB_ERR_OVERFLOW, "hop_work", hop_work,
                        "is too large: n * (1 + 6 * hop_work) would overflow int64 (n = %lld, "
                        "hop_work = %lld)",
                        (long long)n, (long long)hop_work);
    return RB_OK;
}

rb_status rb_chain_expected(int64_t n, int64_t hop_work, int64_t *out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (n < 0)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 0, not %lld", (long long)n);
    rb_status st = check_hop_work(n, hop_work, err);
    if (st != RB_OK)
        return st;
    /* Per hop in O(1): t*t % 7 over t = (x+i) % 7 repeats every 7 steps
     * (0 1 4 2 2 4 1, sum 14), so the work depends only on x % 7. */
    static const int64_t sq[7] = {0, 1, 4, 2, 2, 4, 1};
    int64_t add[7];
    for (int r = 0; r < 7; r++) {
        int64_t w = hop_work / 7 * 14;
        for (int64_t j = 0; j < hop_work % 7; j++)
            w += sq[(r + j) % 7];
        add[r] = 1 + w;
    }
    int64_t x = 0;
    for (int64_t i = 0; i < n; i++)
        x += add[x % 7];
    *out = x;
    return RB_OK;
}

static void make_runnable(sched *s, co *t)
{
    if (t == &s->driver) {
        s->driver_got = 1;
        return;
    }
    t->state = CO_RUNNABLE;
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
}

/* Suspends the running task and returns to the scheduler; returns when the
 * scheduler resumes it. `done`: the task has finished and never resumes. */
static void co_yield_to_sched(sched *s, co *t, int done)
{
#ifdef CHAIN_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(done ? NULL : &fake, s->main_bottom, s->main_size);
#endif
    t->state = done ? CO_DONE : CO_SUSPENDED;
    if (s->chain->how == RB_CHAIN_UCONTEXT)
        swapcontext(&s->ucs[t - s->tasks], &s->uc);
    else
        rb__chain_switch(&t->sp, s->sp);
#ifdef CHAIN_ASAN
    __sanitizer_finish_switch_fiber(fake, &s->main_bottom, &s->main_size);
#endif
}

static int64_t chan_recv(sched *s, chan *c)
{
    co *me = s->current;
    co *snd = c->send;
    if (snd) {
        c->send = NULL;
        int64_t v = snd->value;
        make_runnable(s, snd);
        return v;
    }
    c->recv = me;
    co_yield_to_sched(s, me, 0);
    return me->value;
}

static void chan_send(sched *s, chan *c, int64_t v)
{
    co *me = s->current;
    co *rcv = c->recv;
    if (rcv) {
        c->recv = NULL;
        rcv->value = v;
        make_runnable(s, rcv);
        return;
    }
    me->value = v;
    c->send = me;
    co_yield_to_sched(s, me, 0);
}

/* Every task's body: receive, hop, send, finish. */
static void task_body(void)
{
    sched *s = tls_sched;
#ifdef CHAIN_ASAN
    __sanitizer_finish_switch_fiber(NULL, &s->main_bottom, &s->main_size);
#endif
    co *me = s->current;
    size_t i = (size_t)(me - s->tasks);
    /* From here on `s` only: the task may resume on another thread (the
     * pass runs chains on worker threads), and a thread-local address
     * computed before a switch would be the old thread's. */
    int64_t x = chan_recv(s, &s->chans[i]);
    x = rb_chain_hop(x, s->chain->hop_work);
    chan_send(s, &s->chans[i + 1], x);
    co_yield_to_sched(s, me, 1);
    __builtin_unreachable();
}

static void task_entry_uc(void)
{
    task_body();
}

/* Where the shared stack's frames of a suspended task begin. */
static unsigned char *co_stack_pointer(sched *s, co *t)
{
    if (s->chain->how == RB_CHAIN_UCONTEXT) {
        const mcontext_t *m = &s->ucs[t - s->tasks].uc_mcontext;
#if defined(__x86_64__)
        return (unsigned char *)(uintptr_t)m->gregs[REG_RSP];
#else
        return (unsigned char *)(uintptr_t)m->sp;
#endif
    }
    return t->sp;
}

/* Runs task t until it suspends or finishes. */
static rb_status resume(sched *s, co *t, rb_error *err)
{
#ifdef CHAIN_ASAN
    /* Frames another task left on the shared stack keep their poison. */
    __asan_unpoison_memory_region(s->stack_lo, (size_t)(s->stack_top - s->stack_lo));
#endif
    if (t->state == CO_NEW) {
        if (s->chain->how == RB_CHAIN_UCONTEXT) {
            ucontext_t *uc = &s->ucs[t - s->tasks];
            getcontext(uc);
            uc->uc_stack.ss_sp = s->stack_lo;
            uc->uc_stack.ss_size = (size_t)(s->stack_top - s->stack_lo);
            uc->uc_link = NULL;
            makecontext(uc, task_entry_uc, 0);
        } else {
            void **frame = (void **)s->stack_top - FRAME_WORDS;
            memset(frame, 0, FRAME_WORDS * sizeof(void *));
            frame[FRAME_ENTRY] = (void *)(uintptr_t)task_body;
            t->sp = frame;
        }
    } else if (s->on_stack != t) {
        stack_copy(s->stack_top - t->saved_len, t->saved, t->saved_len);
    }
    s->current = t;
    s->on_stack = t;
#ifdef CHAIN_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, s->stack_lo, (size_t)(s->stack_top - s->stack_lo));
#endif
    if (s->chain->how == RB_CHAIN_UCONTEXT)
        swapcontext(&s->uc, &s->ucs[t - s->tasks]);
    else
        rb__chain_switch(&s->sp, t->sp);
#ifdef CHAIN_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    s->current = NULL;
    if (t->state == CO_DONE) {
        s->on_stack = NULL;
        return RB_OK;
    }
    /* Suspended: save the used part of the shared stack. */
    unsigned char *sp = co_stack_pointer(s, t);
    size_t len = (size_t)(s->stack_top - sp);
    if (len > t->saved_len || !t->saved) {
        t->saved = arena_alloc(s, len);
        if (!t->saved)
            return rb_fail(err, RB_ERR_NOMEM, "n", "cannot allocate a suspended task's stack", -1);
    }
    stack_copy(t->saved, sp, len);
    t->saved_len = (uint32_t)len;
    return RB_OK;
}

static void sched_free(sched *s)
{
    while (s->arena) {
        arena_chunk *c = s->arena;
        s->arena = c->next;
        free(c);
    }
    free(s->tasks);
    free(s->chans);
    free(s->ucs);
    if (s->map)
        munmap(s->map, STACK_SIZE + (size_t)sysconf(_SC_PAGESIZE));
    memset(s, 0, sizeof *s);
}

/* Builds one chain: allocates it and runs every task to its first
 * suspension (waiting to receive), so that all N tasks exist with their
 * stacks when setup ends, as the goroutines of the Go variant do. */
static rb_status sched_init(sched *s, const rb_chain *c, rb_error *err)
{
    size_t n = (size_t)c->n;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    s->chain = c;
    s->tasks = calloc(n, sizeof *s->tasks);
    s->chans = calloc(n + 1, sizeof *s->chans);
    if (c->how == RB_CHAIN_UCONTEXT)
        s->ucs = calloc(n, sizeof *s->ucs);
    if (!s->tasks || !s->chans || (c->how == RB_CHAIN_UCONTEXT && !s->ucs))
        return rb_failf(err, RB_ERR_NOMEM, "n", c->n,
                        "%lld tasks x %lld chains do not fit in memory", (long long)c->n,
                        (long long)c->parallel);
    s->map =
        mmap(NULL, STACK_SIZE + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->map == MAP_FAILED) {
        s->map = NULL;
        rb_fail(err, RB_ERR_NOMEM, "n", "cannot map the shared stack", -1);
        if (err)
            err->sys_errno = errno;
        return RB_ERR_NOMEM;
    }
    /* The guard page below the stack (stacks grow down on both targets). */
    if (mprotect(s->map, page, PROT_NONE) != 0) {
        rb_fail(err, RB_ERR_IO, NULL, "cannot protect the stack's guard page", -1);
        if (err)
            err->sys_errno = errno;
        return RB_ERR_IO;
    }
    s->stack_lo = s->map + page;
    s->stack_top = s->stack_lo + STACK_SIZE;
    tls_sched = s;
    for (size_t i = 0; i < n; i++) {
        rb_status st = resume(s, &s->tasks[i], err);
        if (st != RB_OK)
            return st;
    }
    tls_sched = NULL;
    return RB_OK;
}

/* Sends 0 into the chain and runs its tasks until the value comes out. */
static rb_status sched_pass(sched *s, rb_error *err)
{
    tls_sched = s;
    chan *first = &s->chans[0];
    chan *last = &s->chans[s->chain->n];
    last->recv = &s->driver; /* the caller waits at the end */
    co *t0 = first->recv;
    first->recv = NULL;
    t0->value = 0;
    make_runnable(s, t0);
    rb_status st = RB_OK;
    while (s->head && st == RB_OK) {
        co *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        st = resume(s, t, err);
    }
    tls_sched = NULL;
    if (st == RB_OK && !s->driver_got)
        return rb_fail(err, RB_ERR_INTERRUPTED, NULL, "the chain stopped before its end", -1);
    s->result = s->driver.value;
    return st;
}

rb_status rb_chain_new(int64_t n, int64_t hop_work, int64_t parallel, rb_chain_switch how,
                       rb_chain **out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (n < 1)
        return rb_failf(err, RB_ERR_ARG, "n", n, "must be >= 1, not %lld", (long long)n);
    if (n > RB_CHAIN_MAX_N)
        return rb_failf(err, RB_ERR_OVERFLOW, "n", n, "must be <= %lld (2^32), not %lld",
                        (long long)RB_CHAIN_MAX_N, (long long)n);
    rb_status st = check_hop_work(n, hop_work, err);
    if (st != RB_OK)
        return st;
    if (parallel < 1 || parallel > RB_CHAIN_MAX_PARALLEL)
        return rb_failf(err, RB_ERR_ARG, "parallel", parallel, "must be in [1, %d], not %lld",
                        RB_CHAIN_MAX_PARALLEL, (long long)parallel);
    if (how != RB_CHAIN_ASM && how != RB_CHAIN_UCONTEXT)
        return rb_failf(err, RB_ERR_ARG, "how", how,
                        "must be RB_CHAIN_ASM or RB_CHAIN_UCONTEXT, not %d", (int)how);
    rb_chain *c = calloc(1, sizeof *c);
    if (!c)
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the chain", -1);
    c->n = n;
    c->hop_work = hop_work;
    c->parallel = parallel;
    c->how = how;
    c->scheds = calloc((size_t)parallel, sizeof *c->scheds);
    if (!c->scheds) {
        free(c);
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the chain", -1);
    }
    for (int64_t p = 0; p < parallel; p++) {
        st = sched_init(&c->scheds[p], c, err);
        if (st != RB_OK) {
            tls_sched = NULL;
            rb_chain_free(c);
            return st;
        }
    }
    *out = c;
    return RB_OK;
}

typedef struct pass_job {
    sched *s;
    rb_status st;
    rb_error err;
} pass_job;

static void *pass_thread(void *arg)
{
    pass_job *j = arg;
    j->st = sched_pass(j->s, &j->err);
    return NULL;
}

rb_status rb_chain_pass(rb_chain *c, int64_t *out, rb_error *err)
{
    if (!c)
        return rb_fail(err, RB_ERR_ARG, "chain", "chain must not be NULL", -1);
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "out must not be NULL", -1);
    if (c->passed)
        return rb_fail(err, RB_ERR_ARG, "chain", "this chain has already passed its value", -1);
    c->passed = 1;
    size_t p = (size_t)c->parallel;
    pass_job *jobs = calloc(p, sizeof *jobs);
    pthread_t *threads = calloc(p, sizeof *threads);
    if (!jobs || !threads) {
        free(jobs);
        free(threads);
        return rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the pass's threads", -1);
    }
    /* Chains 1..P-1 on threads of their own, chain 0 on the caller's. */
    size_t started = 1;
    int create_errno = 0;
    for (size_t i = 0; i < p; i++) {
        jobs[i].s = &c->scheds[i];
        rb_error_clear(&jobs[i].err);
    }
    for (; started < p; started++) {
        int e = pthread_create(&threads[started], NULL, pass_thread, &jobs[started]);
        if (e) {
            create_errno = e;
            break;
        }
    }
    pass_thread(&jobs[0]);
    for (size_t i = 1; i < started; i++)
        pthread_join(threads[i], NULL);
    rb_status st = RB_OK;
    if (create_errno) {
        st = rb_fail_sys(err, create_errno, "parallel", (int64_t)started,
                         "cannot start a thread for chain %zu of %zu", started + 1, p);
    } else {
        for (size_t i = 0; i < p && st == RB_OK; i++) {
            if (jobs[i].st != RB_OK) {
                st = jobs[i].st;
                if (err)
                    *err = jobs[i].err;
            }
        }
    }
    if (st == RB_OK)
        for (size_t i = 0; i < p; i++)
            out[i] = c->scheds[i].result;
    free(jobs);
    free(threads);
    return st;
}

int64_t rb_chain_n(const rb_chain *c)
{
    return c ? c->n : 0;
}

int64_t rb_chain_parallel(const rb_chain *c)
{
    return c ? c->parallel : 0;
}

void rb_chain_free(rb_chain *c)
{
    /* Suspended tasks hold nothing but their saved frames (in the arena):
     * a chain that never passed is freed the same way. */
    if (!c)
        return;
    if (c->scheds)
        for (int64_t p = 0; p < c->parallel; p++)
            sched_free(&c->scheds[p]);
    free(c->scheds);
    free(c);
}
