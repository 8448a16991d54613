/*
 * roundbench.h: the public interface of the roundbench C core.
 *
 * Every round's work is one function here, implemented in csrc/<round>.c.
 * The Python extension (python/roundbench/_core.c) and the Go package
 * (go/cgo.go) call these functions and nothing else.
 *
 * Error contract: the core never prints, exits or aborts on bad input. Each
 * function that can fail returns an rb_status and, when `err` is not NULL,
 * fills it with the code, a constant message and the position (argument
 * index or byte offset) where it applies. `err` may always be NULL.
 *
 * Thread safety: unless a function says otherwise it touches no global state
 * and may be called from any number of threads at once.
 */
#ifndef ROUNDBENCH_H
#define ROUNDBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

/** Status codes. RB_OK is zero; every failure is non-zero. */
typedef enum rb_status {
    RB_OK = 0,
    RB_ERR_ARG = 1,      /**< an argument is out of its domain (maps to ValueError) */
    RB_ERR_OVERFLOW = 2, /**< a result or size would overflow (OverflowError) */
    RB_ERR_NOMEM = 3,    /**< an allocation failed (MemoryError) */
    RB_ERR_IO = 4,       /**< a system call failed; see rb_error.sys_errno (OSError) */
    RB_ERR_TYPE = 5,     /**< an argument has the wrong type or layout (TypeError) */
    RB_ERR_INTERRUPTED = 6 /**< the caller asked the work to stop */
} rb_status;

/** Error record. `msg` points to a constant string owned by the core (never
 *  freed by the caller); `arg` names the argument that was wrong, or is NULL;
 *  `pos` is a byte offset or index where it applies, else -1. */
typedef struct rb_error {
    rb_status code;
    const char *msg;
    const char *arg;
    int64_t pos;
    int sys_errno;
} rb_error;

/** Clears `err` (when not NULL) to RB_OK. */
void rb_error_clear(rb_error *err);

/** A constant, human-readable name of a status code ("argument out of range"
 *  ...). Never returns NULL. */
const char *rb_status_name(rb_status code);

/* ------------------------------------------------------------------------ */
/* Round loop: the sum of i*i % 7 for i in [0, n), 64-bit integers.          */

/** The largest n the loop round accepts: (n-1)^2 must fit in int64_t. */
#define RB_LOOP_MAX_N INT64_C(3037000500)

/** Computes the sum of i*i % 7 for i in [lo, hi) into *out.
 *  @param lo, hi  0 <= lo <= hi <= RB_LOOP_MAX_N, else RB_ERR_ARG (negative
 *                 or lo > hi) or RB_ERR_OVERFLOW (hi too large).
 *  @param out     must not be NULL (RB_ERR_ARG).
 *  @param err     optional error record, may be NULL.
 *  @return RB_OK or a failure code; *out is untouched on failure.
 *  The cores round splits [0, n) into ranges and calls this from each
 *  worker; it is thread-safe. */
rb_status rb_loop_range(int64_t lo, int64_t hi, int64_t *out, rb_error *err);

/** rb_loop_range(0, n, out, err). */
rb_status rb_loop(int64_t n, int64_t *out, rb_error *err);

/** The expected loop sum, by the period-7 closed form. Used only to verify
 *  results; never as the round's work. Requires 0 <= n <= RB_LOOP_MAX_N. */
int64_t rb_loop_expected(int64_t n);

/* ------------------------------------------------------------------------ */
/* Round ffi: the callee every mechanism calls, kept in its own translation  */
/* unit (csrc/ffi.c) and marked noinline so no caller can fold it away.      */

/** The trivial callee: returns x + 1 (wrapping). */
int64_t rb_ffi_noop(int64_t x);

/** The same function under other names, so that Go's per-function
 *  `#cgo noescape` / `#cgo nocallback` directives can be measured on the
 *  very same machine code (they are aliases, not copies). */
int64_t rb_ffi_noop_noescape(int64_t x);
int64_t rb_ffi_noop_nocallback(int64_t x);

/** The callee that receives a buffer: returns p[0] + p[n-1] (0 when n == 0),
 *  so a handed-over buffer is really read but the callee's own cost stays
 *  constant and the cost of getting the bytes to C is what is measured. */
int64_t rb_ffi_buffer(const uint8_t *p, size_t n);

/** A callback as the core sees it: `ctx` is passed through untouched. It
 *  returns non-zero to stop the loop early (for example when a Python
 *  callback raised). */
typedef int (*rb_ffi_callback)(void *ctx, int64_t x, int64_t *result);

/** Calls `cb(ctx, i, &r)` for i in [0, count) and returns the wrapped sum of
 *  the results in *sink. Stops at the first non-zero return of `cb` and
 *  reports RB_ERR_INTERRUPTED with pos = the index of that call.
 *  @param cb    must not be NULL (RB_ERR_ARG).
 *  @param count >= 0 (RB_ERR_ARG). */
rb_status rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sink,
                               rb_error *err);

/** A callback that does what rb_ffi_noop does; the empty baseline for the
 *  callback mechanisms (the cost of the loop and an indirect C call). */
int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result);

/* ------------------------------------------------------------------------ */
/* Round sleep (issue 5): N tasks, all alive at once, each waiting until a   */
/* common deadline one wait after a common start. csrc/sleep.c.              */

/** The most tasks one sleep run accepts (task ids and counters are 32-bit). */
#define RB_SLEEP_MAX_N INT64_C(100000000)

/** What one sleep run measured. All times are CLOCK_MONOTONIC nanoseconds. */
typedef struct rb_sleep_stats {
    int64_t n;           /**< tasks created */
    int64_t setup_ns;    /**< from the first creation until all n were live */
    int64_t run_ns;      /**< from the common start until the last task woke */
    int64_t overhead_ns; /**< run_ns minus the wait: what the mechanism added */
    int64_t peak_live;   /**< the most tasks live at once (must equal n) */
    int64_t completed;   /**< tasks that finished their wait (must equal n) */
    int64_t early;       /**< tasks that woke before the deadline (must be 0) */
} rb_sleep_stats;

/** A single-threaded event loop: a binary min-heap of timers and a FIFO of
 *  ready callbacks. Not thread-safe: one loop belongs to one thread. */
typedef struct rb_evloop rb_evloop;

/** A callback the loop runs; `ctx` is passed through untouched. */
typedef void (*rb_evloop_fn)(rb_evloop *loop, void *ctx);

/** Creates a loop with room for `capacity` timers and ready callbacks
 *  (it grows beyond that as needed). *out gets the loop, which the caller
 *  frees with rb_evloop_free. @return RB_OK, RB_ERR_ARG (out NULL or
 *  capacity < 0) or RB_ERR_NOMEM. */
rb_status rb_evloop_new(int64_t capacity, rb_evloop **out, rb_error *err);

/** Frees the loop and any callbacks it still holds (without running them).
 *  NULL is allowed. */
void rb_evloop_free(rb_evloop *loop);

/** The loop's notion of now: CLOCK_MONOTONIC read once per loop iteration,
 *  so every callback of one iteration sees the same value. */
int64_t rb_evloop_now(const rb_evloop *loop);

/** Queues fn(loop, ctx) to run on the loop's next iteration.
 *  @return RB_OK, RB_ERR_ARG (fn NULL) or RB_ERR_NOMEM. */
rb_status rb_evloop_post(rb_evloop *loop, rb_evloop_fn fn, void *ctx, rb_error *err);

/** Arms a timer: fn(loop, ctx) runs once CLOCK_MONOTONIC >= deadline_ns.
 *  Timers with equal deadlines cost O(1) to add.
 *  @return RB_OK, RB_ERR_ARG (fn NULL) or RB_ERR_NOMEM. */
rb_status rb_evloop_at(rb_evloop *loop, int64_t deadline_ns, rb_evloop_fn fn, void *ctx,
                       rb_error *err);

/** Runs until no ready callback and no timer is left; sleeps with
 *  clock_nanosleep between timers. A callback may post or arm more.
 *  @return RB_OK, or the first failure a callback reported through
 *  rb_evloop_fail (the loop stops there). */
rb_status rb_evloop_run(rb_evloop *loop, rb_error *err);

/** Makes rb_evloop_run stop and return `code` with this error record
 *  (constant strings); for callbacks that hit an error. */
void rb_evloop_fail(rb_evloop *loop, rb_status code, const char *arg, const char *msg);

/** The sleep round on the core's event loop, in the calling thread: creates
 *  n tasks (each a 16-byte record), and once all are live starts them at one
 *  instant; each arms a timer at start + wait_ns and, when it fires, checks
 *  that it did not wake early and ends.
 *  @param n        0 <= n <= RB_SLEEP_MAX_N (RB_ERR_ARG / RB_ERR_OVERFLOW).
 *  @param wait_ns  >= 0 (RB_ERR_ARG).
 *  @param stats    must not be NULL (RB_ERR_ARG); filled on success.
 *  @return RB_OK, or RB_ERR_NOMEM. Blocks for about wait_ns. Thread-safe
 *  (each call has its own loop). */
rb_status rb_sleep(int64_t n, int64_t wait_ns, rb_sleep_stats *stats, rb_error *err);

/** The default stack of one rb_sleep_threads thread, in bytes. */
#define RB_SLEEP_THREAD_STACK 16384

/** Why a number of threads cannot be created here: the limit that binds.
 *  `name` is a constant string such as "kernel.pid_max"; `value` is that
 *  limit's setting and `max_threads` how many more threads it allows now. */
typedef struct rb_thread_limit {
    const char *name;
    int64_t value;
    int64_t max_threads;
} rb_thread_limit;

/** Estimates how many more threads this process could create now, each with
 *  `stack_bytes` of stack (of which about `touched_bytes` become resident)
 *  and `maps_per_thread` new memory mappings, from kernel.pid_max and the
 *  threads in use, kernel.threads-max, RLIMIT_NPROC, vm.max_map_count and
 *  the maps in use, and MemAvailable. *out gets the tightest limit.
 *  @return RB_OK, RB_ERR_ARG (out NULL, negative sizes) or RB_ERR_IO when
 *  /proc cannot be read. */
rb_status rb_thread_limit_now(int64_t touched_bytes, int64_t maps_per_thread,
                              rb_thread_limit *out, rb_error *err);

/** The sleep round with one POSIX thread per task: n threads with
 *  `stack_bytes` stacks (0: RB_SLEEP_THREAD_STACK; rounded up to the
 *  system's minimum and to pages) carved from one mapping, so threads add no
 *  mappings. Each thread counts itself live, waits on a futex for the common
 *  start, then clock_nanosleep()s to start + wait_ns.
 *  @return RB_OK; RB_ERR_ARG / RB_ERR_OVERFLOW for bad arguments;
 *  RB_ERR_NOMEM; RB_ERR_IO (sys_errno set, pos = threads created) when
 *  pthread_create fails part-way: the threads already created are released
 *  and joined first, so nothing is left running. Check rb_thread_limit_now
 *  first to refuse an impossible n before trying. Thread-safe. */
rb_status rb_sleep_threads(int64_t n, int64_t wait_ns, int64_t stack_bytes,
                           rb_sleep_stats *stats, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round cores (issue 5): the loop round's work on T threads. csrc/cores.c.  */

/** The most workers rb_loop_parallel accepts. */
#define RB_CORES_MAX_WORKERS 4096

/** The share [*lo, *hi) of worker w of `workers` over [0, n): equal
 *  contiguous ranges, the first n % workers one longer. The C, Python and Go
 *  variants all split this way. Requires 0 <= w < workers, n >= 0. */
void rb_cores_share(int64_t n, int64_t workers, int64_t w, int64_t *lo, int64_t *hi);

/** The loop round's sum over [0, n) computed by `workers` POSIX threads,
 *  each running rb_loop_range on its share; *out gets the total.
 *  @param workers  1 <= workers <= RB_CORES_MAX_WORKERS (RB_ERR_ARG).
 *  @return RB_OK, RB_ERR_ARG / RB_ERR_OVERFLOW as rb_loop, RB_ERR_NOMEM,
 *  or RB_ERR_IO when a thread cannot be created (the others are joined). */
rb_status rb_loop_parallel(int64_t n, int64_t workers, int64_t *out, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Build information                                                         */

/** The compiler and flags the core was built with (constant string). */
const char *rb_build_info(void);

#ifdef __cplusplus
}
#endif
#endif /* ROUNDBENCH_H */
