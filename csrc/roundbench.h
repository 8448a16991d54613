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
/* Round chain: N stackful coroutines in a line joined by unbuffered         */
/* channels; the first receives 0, each adds 1 (after its hop work) and      */
/* passes the value on; the last hands the value to the caller (csrc/chain.c)*/

/** The largest n (tasks per chain) and parallel (chains) rb_chain_new takes. */
#define RB_CHAIN_MAX_N (INT64_C(1) << 32)
#define RB_CHAIN_MAX_PARALLEL 4096

/** How tasks switch: the core's own context switch (x86-64, aarch64), or
 *  the C library's swapcontext (which also swaps the signal mask with a
 *  system call on every switch). Both share one stack per chain and copy a
 *  suspended task's frames out (see csrc/chain.c for why). */
typedef enum rb_chain_switch { RB_CHAIN_ASM = 0, RB_CHAIN_UCONTEXT = 1 } rb_chain_switch;

/** A set of `parallel` chains of n suspended tasks each. Opaque. */
typedef struct rb_chain rb_chain;

/** One hop: x + 1 + the sum of ((x+i) % 7)^2 % 7 for i in [0, hop_work),
 *  computed by the loop (the hop's work, which every variant repeats). */
int64_t rb_chain_hop(int64_t x, int64_t hop_work);

/** The value the last task yields, by an O(1)-per-hop closed form of the
 *  hop work: for verifying results only, never as the round's work. */
int64_t rb_chain_expected(int64_t n, int64_t hop_work);

/** Setup: builds `parallel` chains of n tasks and runs every task until it
 *  waits to receive, so all n * parallel tasks exist when it returns.
 *  @param n         1 <= n <= RB_CHAIN_MAX_N (RB_ERR_ARG / RB_ERR_OVERFLOW).
 *  @param hop_work  >= 0, and n * (1 + 6 * hop_work) must fit in int64
 *                   (RB_ERR_OVERFLOW).
 *  @param parallel  1 <= parallel <= RB_CHAIN_MAX_PARALLEL (RB_ERR_ARG).
 *  @param how       RB_CHAIN_ASM or RB_CHAIN_UCONTEXT (RB_ERR_ARG).
 *  @param out       receives the chain, which the caller frees with
 *                   rb_chain_free; must not be NULL; untouched on failure.
 *  @return RB_OK, or RB_ERR_NOMEM when the tasks do not fit in memory.
 *  Thread-safe (chains share nothing). */
rb_status rb_chain_new(int64_t n, int64_t hop_work, int64_t parallel, rb_chain_switch how,
                       rb_chain **out, rb_error *err);

/** The pass: sends 0 into every chain and runs them until each yields,
 *  chain 0 on the calling thread and the others on a thread each, and
 *  writes chain p's value into out[p] (out holds `parallel` values). A chain
 *  passes once (RB_ERR_ARG the second time). RB_ERR_IO (sys_errno set) when
 *  a thread cannot be started. Not safe to call on one chain from two
 *  threads at once. */
rb_status rb_chain_pass(rb_chain *chain, int64_t *out, rb_error *err);

/** Teardown: frees a chain, passed or not (NULL is a no-op). */
void rb_chain_free(rb_chain *chain);

/** The chain's n and parallel (0 for NULL). */
int64_t rb_chain_n(const rb_chain *chain);
int64_t rb_chain_parallel(const rb_chain *chain);

/* ------------------------------------------------------------------------ */
/* Build information                                                         */

/** The compiler and flags the core was built with (constant string). */
const char *rb_build_info(void);

#ifdef __cplusplus
}
#endif
#endif /* ROUNDBENCH_H */
