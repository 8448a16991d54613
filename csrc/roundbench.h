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
/* Round jsonl: count HTTP statuses in a JSON Lines log (README.md, "jsonl",  */
/* states the rules; testdata/jsonl_vectors.txt encodes them).               */

/** Why a line is invalid. */
typedef enum rb_jsonl_reason {
    RB_JSONL_VALID = 0,
    RB_JSONL_INVALID_JSON = 1, /**< not RFC 8259 JSON (or not UTF-8, or nested > RB_JSONL_MAX_DEPTH) */
    RB_JSONL_NOT_OBJECT = 2,   /**< JSON, but not an object */
    RB_JSONL_NO_STATUS = 3     /**< an object without an int64 top-level "status" (last one wins) */
} rb_jsonl_reason;

/** How many invalid lines are reported with their line number and reason. */
#define RB_JSONL_MAX_REPORTED 100
/** The deepest nesting of arrays and objects a valid line may have: RFC 8259
 *  section 9 lets a parser set this limit; every variant applies the same. */
#define RB_JSONL_MAX_DEPTH 512

/** One status and how many lines had it. */
typedef struct rb_jsonl_count {
    int64_t status;
    int64_t count;
} rb_jsonl_count;

/** One reported invalid line: its 1-based number and its reason. */
typedef struct rb_jsonl_invalid {
    int64_t line;
    rb_jsonl_reason reason;
} rb_jsonl_invalid;

/** The tally. Initialise with rb_jsonl_result_init, release with
 *  rb_jsonl_result_free (which frees `statuses`). lines = blank + valid +
 *  invalid; a final line without a newline counts; nothing after the last
 *  newline is no line. */
typedef struct rb_jsonl_result {
    int64_t lines, blank, valid, invalid;
    int64_t bytes;             /**< bytes consumed so far */
    size_t nstatuses;          /**< entries in `statuses`, sorted by status */
    rb_jsonl_count *statuses;  /**< owned by the result */
    size_t nreported;          /**< entries in `reported` (<= RB_JSONL_MAX_REPORTED) */
    rb_jsonl_invalid reported[RB_JSONL_MAX_REPORTED];
    size_t cap_;               /**< private: capacity of `statuses` */
} rb_jsonl_result;

/** Zeroes `res` (not NULL). */
void rb_jsonl_result_init(rb_jsonl_result *res);
/** Frees what `res` owns and zeroes it; NULL and repeated calls are fine. */
void rb_jsonl_result_free(rb_jsonl_result *res);

/** A constant name for a reason: "valid", "invalid-json", "not-object",
 *  "no-status" (the words every variant prints). */
const char *rb_jsonl_reason_name(rb_jsonl_reason reason);

/** Counts the lines of buf[0, len) into `res` (initialised by the caller;
 *  counts add up across calls, line numbers go on from res->lines).
 *  @param buf   may be NULL when len == 0.
 *  @return RB_OK, or RB_ERR_NOMEM / RB_ERR_ARG (res NULL). Thread-safe for
 *          distinct results. */
rb_status rb_jsonl_count_buffer(const uint8_t *buf, size_t len, rb_jsonl_result *res,
                                rb_error *err);

/** Reads the file at `path` (read(2) in 256 KiB chunks, which stay in L2; lines of any length)
 *  and counts its lines into `res` (initialised by the caller).
 *  @return RB_OK; RB_ERR_IO (sys_errno set) when it cannot be opened or a
 *          read fails: then err->pos and res->bytes say how many bytes were
 *          counted, and res holds the counts so far; RB_ERR_NOMEM;
 *          RB_ERR_ARG for a NULL path or res. Thread-safe. */
rb_status rb_jsonl_count_file(const char *path, rb_jsonl_result *res, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Build information                                                         */

/** The compiler and flags the core was built with (constant string). */
const char *rb_build_info(void);

#ifdef __cplusplus
}
#endif
#endif /* ROUNDBENCH_H */
