/*
 * roundbench.h: the public interface of the roundbench C core.
 *
 * Every round's work is one function here, implemented in csrc/<round>.c.
 * The Python extension (python/roundbench/_core.c) and the Go package
 * (go/cgo.go) call these functions and nothing else.
 *
 * Error contract: the core never prints, exits or aborts on bad input. Each
 * function that can fail returns an rb_status and, when `err` is not NULL,
 * fills it with everything a binding needs to raise its own error: the
 * code, the argument, a position, the errno of a failed system call and
 * the core's own text with the specifics (the value out of range, the
 * file's path, the loader's words). Nothing travels beside the record, so
 * each binding maps it in one place. `err` may always be NULL.
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

/** Status codes. RB_OK is zero; every failure is non-zero. A binding maps a
 *  code it does not know (a newer core's) to its generic error, never to
 *  one of these. */
typedef enum rb_status {
    RB_OK = 0,
    RB_ERR_ARG = 1,        /**< an argument is out of its domain (maps to ValueError) */
    RB_ERR_OVERFLOW = 2,   /**< a result or size would overflow (OverflowError) */
    RB_ERR_NOMEM = 3,      /**< an allocation failed (MemoryError) */
    RB_ERR_IO = 4,         /**< a system call failed; see rb_error.sys_errno (OSError) */
    RB_ERR_TYPE = 5,       /**< an argument has the wrong type or layout (TypeError) */
    RB_ERR_INTERRUPTED = 6 /**< the caller asked the work to stop */
} rb_status;

/** The size of rb_error.msg, its NUL included: messages are one line. */
#define RB_ERROR_MSG_MAX 256

/** Error record, filled by a failing function (see the error contract).
 *  - `code`: the status the function returned.
 *  - `arg`: the argument that was wrong (a constant string owned by the
 *    core), or NULL when the failure is no argument's fault.
 *  - `pos`: a byte offset, index or count where it applies, else -1 (each
 *    function says which).
 *  - `sys_errno`: the errno of the system call that failed (RB_ERR_IO),
 *    else 0. `msg` does not repeat its text: strerror() gives it.
 *  - `msg`: what was wrong, with the values that make it specific. When
 *    `arg` is set, it reads after the argument's name for the domain codes
 *    (RB_ERR_ARG, RB_ERR_OVERFLOW, RB_ERR_TYPE): "must be >= 0, not -1", so
 *    a binding prints "loop() argument 'n' must be >= 0, not -1". Always
 *    NUL-terminated; cut to RB_ERROR_MSG_MAX - 1 bytes; "" after RB_OK. */
typedef struct rb_error {
    rb_status code;
    const char *arg;
    int64_t pos;
    int sys_errno;
    char msg[RB_ERROR_MSG_MAX];
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
 *  @param lo, hi  0 <= lo <= hi <= RB_LOOP_MAX_N, else RB_ERR_ARG naming lo
 *                 (negative) or hi (below lo), or RB_ERR_OVERFLOW naming hi
 *                 (too large).
 *  @param out     must not be NULL (RB_ERR_ARG).
 *  @param err     optional error record, may be NULL.
 *  @return RB_OK or a failure code; *out is untouched on failure.
 *  The cores round splits [0, n) into ranges and calls this from each
 *  worker; it is thread-safe. */
rb_status rb_loop_range(int64_t lo, int64_t hi, int64_t *out, rb_error *err);

/** rb_loop_range(0, n, out, err), but an n out of range is named "n".
 *  @param n  0 <= n <= RB_LOOP_MAX_N, else RB_ERR_ARG or RB_ERR_OVERFLOW. */
rb_status rb_loop(int64_t n, int64_t *out, rb_error *err);

/** The argument checks of rb_loop_range and rb_loop alone, without the
 *  work: for a binding that splits one call into slices (to let Ctrl-C in
 *  between them) and must fail the whole call before the first slice, with
 *  the same error. Thread-safe. */
rb_status rb_loop_range_check(int64_t lo, int64_t hi, rb_error *err);
rb_status rb_loop_check(int64_t n, rb_error *err);

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

/** The trivial callee with a pointer argument: writes x + 1 to *out. A
 *  caller's local whose address it is handed escapes to the heap in Go
 *  unless the callee is declared `#cgo noescape`: the annotation saves an
 *  allocation, which an int64 argument never makes, so the aliases below
 *  measure it (_both carries the two annotations at once). */
void rb_ffi_noop_out(int64_t x, int64_t *out);
void rb_ffi_noop_out_noescape(int64_t x, int64_t *out);
void rb_ffi_noop_out_nocallback(int64_t x, int64_t *out);
void rb_ffi_noop_out_both(int64_t x, int64_t *out);

/** A callback as the core sees it: `ctx` is passed through untouched. It
 *  returns non-zero to stop the loop early (for example when a Python
 *  callback raised). */
typedef int (*rb_ffi_callback)(void *ctx, int64_t x, int64_t *result);

/** Calls `cb(ctx, i, &r)` for i in [0, count) and returns the wrapped sum of
 *  the results in *sum. Stops at the first non-zero return of `cb` and
 *  reports RB_ERR_INTERRUPTED with pos = the index of that call.
 *  @param cb    must not be NULL (RB_ERR_ARG).
 *  @param count >= 0 (RB_ERR_ARG). */
rb_status rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sum,
                               rb_error *err);

/** A callback that does what rb_ffi_noop does; the empty baseline for the
 *  callback mechanisms (the cost of the loop and an indirect C call). */
int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result);

/** The callee of four arguments of four types, whose result depends on each
 *  of them so that no binding can skip one: a + trunc(b) + c + strlen(s),
 *  wrapping at 64 bits. trunc(b) is b rounded toward zero where
 *  -2^63 <= b < 2^63, and 0 where b has no such integer part (NaN, the
 *  infinities, larger magnitudes). s is read up to its NUL (the length in
 *  bytes: a UTF-8 string's characters may count more than one); NULL
 *  counts as "". Thread-safe. */
int64_t rb_ffi_args4(int64_t a, double b, int32_t c, const char *s);

/** The number of strings rb_ffi_str chooses from. */
#define RB_FFI_STR_COUNT 4

/** The callee that returns a string, so that a binding converts a C string
 *  to its language's string on every call: entry (uint64_t)x %
 *  RB_FFI_STR_COUNT of a fixed table, so that every x, negative ones and
 *  the extremes included, chooses one. The table holds "", "hello, world",
 *  "x + 1" and "naive cafe" with an i-diaeresis and an e-acute in UTF-8
 *  ("na\xc3\xafve caf\xc3\xa9"). @return a NUL-terminated UTF-8 string
 *  in static storage: never NULL, never to be freed, the same pointer for
 *  every x that chooses it. Thread-safe. */
const char *rb_ffi_str(int64_t x);

/* ------------------------------------------------------------------------ */
/* Round matmul: C = A*B for dense row-major n x n float64 matrices.         */
/* (csrc/matmul.c)                                                           */

/** The largest n the matmul round accepts: n*n*8 bytes must stay far from
 *  overflowing size_t and int64_t. */
#define RB_MATMUL_MAX_N INT64_C(1000000)

/** The check of n that every matmul function below makes first: RB_ERR_ARG
 *  for n < 0, RB_ERR_OVERFLOW for n > RB_MATMUL_MAX_N, both naming "n". For
 *  a binding that must know n is sound before it sizes buffers from it (Go
 *  compares its slices' lengths with n*n). Thread-safe. */
rb_status rb_matmul_check(int64_t n, rb_error *err);

/** C = A*B by the naive i-k-j triple loop (the loop order that walks B and C
 *  contiguously), compiled with the core's own flags.
 *  @param n        0 <= n <= RB_MATMUL_MAX_N (RB_ERR_ARG / RB_ERR_OVERFLOW).
 *  @param a, b, c  n*n doubles each, row-major; may be NULL only when n == 0
 *                  (RB_ERR_ARG naming the argument). `c` must not overlap
 *                  `a` or `b` (RB_ERR_ARG naming c); `a` and `b` may alias.
 *  @return RB_OK, or a failure code with `c` untouched. Thread-safe. */
rb_status rb_matmul_naive(int64_t n, const double *a, const double *b, double *c, rb_error *err);

/** C = A*B by the BLAS (cblas_dgemm, row-major, alpha 1, beta 0), loaded
 *  on first use (rb_blas_load). Same arguments and errors as
 *  rb_matmul_naive, plus rb_blas_load's RB_ERR_IO; a bad argument or n == 0
 *  returns before the BLAS is loaded. The BLAS picks its own thread count
 *  (OPENBLAS_NUM_THREADS at load, or rb_blas_set_threads); see
 *  rb_blas_get_info. */
rb_status rb_matmul_blas(int64_t n, const double *a, const double *b, double *c, rb_error *err);

/** Fills a and b (n*n doubles each) from a seeded generator (splitmix64)
 *  with small integers in [-4, 4]. Integer inputs make every product exact
 *  whatever the summation order (|partial sums| <= 16n < 2^53), so every
 *  variant, BLAS or naive, computes bit-identical C and the checksums agree.
 *  @return RB_ERR_ARG for n out of range or NULL a/b with n > 0. */
rb_status rb_matmul_fill(int64_t n, uint64_t seed, double *a, double *b, rb_error *err);

/** Verifies C = A*B without recomputing it: Freivalds' test with a fixed
 *  vector x of integers in [1, 8]: C*x must equal A*(B*x) within
 *  4*(n+2)*DBL_EPSILON * (|A|*(|B|*|x|)) per row, the textbook bound on the
 *  rounding of a product computed in any order (and zero for the round's
 *  integer inputs). Also computes the checksum that the runner compares
 *  across variants: the wrapping sum of round(c[i][j]) * (i*n+j+1) * 2^64/phi.
 *  O(n^2) time, O(n) memory.
 *  @param checksum  may be NULL.
 *  @return RB_OK when C is the product; RB_ERR_ARG naming "c" with pos = the
 *          first wrong row when it is not; RB_ERR_NOMEM; argument errors as
 *          rb_matmul_naive. */
rb_status rb_matmul_verify(int64_t n, const double *a, const double *b, const double *c,
                           int64_t *checksum, rb_error *err);

/* The BLAS is linked into nothing: the first function below that needs it
 * (rb_matmul_blas, rb_blas_get_info, rb_blas_set_threads, rb_blas_load)
 * dlopen()s it (RTLD_NOW | RTLD_LOCAL) and resolves its symbols, once per
 * process, so that a process that never multiplies never maps it nor starts
 * its threads. The file, first that applies:
 *   1. the path given to rb_blas_set_library;
 *   2. the environment variable ROUNDBENCH_BLAS_LIB;
 *   3. the build's default, RB_BLAS_DEFAULT_LIB (the Makefile passes its
 *      build/blas/lib/ file); without one, the library's own name
 *      ("libscipy_openblas64_.so" as the build's symbol prefix and suffix
 *      make it), looked up along the binary's run path (cgo's rpath) and
 *      the loader's usual paths.
 * A bare name is looked up by the loader; a name with a '/' is a file. */

/** Chooses the BLAS file before it is loaded. The core copies `path` (the
 *  caller keeps ownership, and may free it at once); NULL clears an
 *  earlier choice, so the environment and the default apply again.
 *  Thread-safe; meant for a binding, once, before the first BLAS call.
 *  @return RB_OK; RB_ERR_ARG naming "path" when it is empty or longer than
 *          4095 bytes, or once the BLAS is loaded, unless `path` is the
 *          very string it was loaded from (then RB_OK, a no-op). */
rb_status rb_blas_set_library(const char *path, rb_error *err);

/** Loads the BLAS now if it is not loaded yet. A failed load is not
 *  remembered: the next call tries again (so rb_blas_set_library can still
 *  fix it). Thread-safe; after the first success it costs one atomic load.
 *  @return RB_OK; RB_ERR_IO (sys_errno 0) when the file cannot be loaded or
 *          lacks one of the symbols the core needs: the message says which,
 *          in the loader's own words (dlerror(): the file and why, or the
 *          missing symbol). */
rb_status rb_blas_load(rb_error *err);

/** What the BLAS is, as it runs in this process. The strings are owned by
 *  the BLAS or the loader and live as long as the process (never freed by
 *  the caller). */
typedef struct rb_blas_info {
    const char *library;  /**< the shared object's path (dladdr), or "unknown" */
    const char *config;   /**< openblas_get_config(): version and build options */
    const char *corename; /**< the kernel chosen at run time (openblas_get_corename) */
    int threads;          /**< the thread count dgemm will use now */
} rb_blas_info;

/** Fills *info, loading the BLAS first if need be. Safe to call from any
 *  thread. @return RB_OK; RB_ERR_ARG for a NULL info; rb_blas_load's
 *  RB_ERR_IO (*info untouched). */
rb_status rb_blas_get_info(rb_blas_info *info, rb_error *err);

/** The most threads rb_blas_set_threads accepts. */
#define RB_BLAS_MAX_THREADS (1 << 20)

/** Sets the BLAS's thread count for the whole process (1 <= n <=
 *  RB_BLAS_MAX_THREADS), as openblas_set_num_threads does, loading the BLAS
 *  first if need be (a bad n fails before). Not thread-safe with a running
 *  dgemm. @return RB_OK; RB_ERR_ARG naming "n"; rb_blas_load's RB_ERR_IO. */
rb_status rb_blas_set_threads(int64_t n, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round temps: the sum of a[i]*a[i] % 7 over an int64 array, one fused pass. */
/* (csrc/temps.c)                                                            */

/** The largest |a[i]| rb_temps accepts: a[i]*a[i] must fit in int64_t. */
#define RB_TEMPS_MAX_ABS INT64_C(3037000499)

/** Computes the sum of a[i]*a[i] % 7 for i in [0, n) in one pass over `a`.
 *  @param a    n int64 values; may be NULL only when n == 0 (RB_ERR_ARG).
 *  @param n    >= 0 (RB_ERR_ARG).
 *  @param out  must not be NULL (RB_ERR_ARG).
 *  @return RB_OK; RB_ERR_OVERFLOW naming "a" with pos = the index of the
 *          first |a[i]| > RB_TEMPS_MAX_ABS. Thread-safe. */
rb_status rb_temps(const int64_t *a, int64_t n, int64_t *out, rb_error *err);

/** The same sum over a[lo, hi) only, with the same errors, indices counted
 *  from `a`: for a binding that goes through a large array in slices (to
 *  let Ctrl-C in between them) and must still name the element that
 *  overflows by its place in the whole array.
 *  @param lo, hi  0 <= lo <= hi (RB_ERR_ARG); `a` holds at least hi values. */
rb_status rb_temps_range(const int64_t *a, int64_t lo, int64_t hi, int64_t *out, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round http: the core's HTTP/1.1 server (csrc/http.c). An epoll event loop */
/* per worker thread, a hand-written request parser, keep-alive and         */
/* pipelining; the response body comes from a handler (C, Python or Go).    */

/** What the parser found in a request head. Pointers point into the
 *  caller's buffer and live as long as it does. */
typedef struct rb_http_request {
    const char *method;
    size_t method_len;
    const char *path; /**< the request target as sent (origin-form) */
    size_t path_len;
    int minor_version;      /**< HTTP/1.<minor_version>: 0 or 1 */
    int keep_alive;         /**< 1 unless "Connection: close" or HTTP/1.0 without keep-alive */
    int64_t content_length; /**< 0 when absent */
    size_t head_len;        /**< bytes of the head, including the empty line */
} rb_http_request;

/** Results of rb_http_parse: a complete head, more bytes needed, or the
 *  HTTP status the server answers before it closes the connection. */
enum {
    RB_HTTP_PARTIAL = 0,
    RB_HTTP_COMPLETE = 1,
    RB_HTTP_BAD = 400,        /**< malformed request line or header */
    RB_HTTP_TOO_LARGE = 431,  /**< head longer than the limit, or too many headers */
    RB_HTTP_UNSUPPORTED = 501 /**< Transfer-Encoding (request bodies are Content-Length only) */
};

/** The most headers a request may carry (more: RB_HTTP_TOO_LARGE). */
#define RB_HTTP_MAX_HEADERS 64

/** Parses the request head at the start of buf[0, len).
 *  @param max_head  the longest head accepted, in bytes (> 0).
 *  @return RB_HTTP_COMPLETE (and fills *req), RB_HTTP_PARTIAL when the head
 *          is a valid prefix so far and not longer than max_head, else the
 *          status to answer with (400, 431, 501). Thread-safe; never reads
 *          past buf + len. */
int rb_http_parse(const char *buf, size_t len, size_t max_head, rb_http_request *req);

/** What a handler fills in: the status (preset to 200) and the body, written
 *  into `body` (a buffer of `body_cap` bytes owned by the server). */
typedef struct rb_http_response {
    int status;
    char *body;
    size_t body_cap;
    size_t body_len;
} rb_http_response;

/** A request handler. Called on a worker thread, once per request, in the
 *  order requests arrive on each connection; several workers may call it at
 *  once. Returns 0, or non-zero to have the server answer 500 and close. */
typedef int (*rb_http_handler)(void *ctx, const rb_http_request *req, rb_http_response *resp);

/** The core's own handler: 200 "Hello, World!" for GET or HEAD of "/", 404
 *  for any other path, 405 for any other method. `ctx` is unused. */
int rb_http_hello_handler(void *ctx, const rb_http_request *req, rb_http_response *resp);

/** The body every server of the round answers "GET /" with. */
#define RB_HTTP_HELLO "Hello, World!"

/** Server settings; zero fields take the defaults given. */
typedef struct rb_http_config {
    const char *host;        /**< a loopback IPv4 address (127.0.0.0/8); NULL: 127.0.0.1 */
    int port;                /**< 0..65535; 0 lets the kernel choose (see rb_http_server_port) */
    int threads;             /**< worker threads, 1..256; 0: 1 */
    int header_timeout_ms;   /**< a request head must arrive within this; 0: 10000 */
    int idle_timeout_ms;     /**< an idle keep-alive connection is closed after this; 0: 60000 */
    size_t max_head;         /**< longest request head; 0: 8192 (max 65536) */
    rb_http_handler handler; /**< NULL: rb_http_hello_handler */
    void *handler_ctx;
} rb_http_config;

/** Counters of a server, summed over its workers. */
typedef struct rb_http_stats {
    int64_t requests;     /**< requests answered by the handler */
    int64_t bad_requests; /**< answered 400, 431 or 501 and closed */
    int64_t timeouts;     /**< connections closed by the header or idle timeout */
    int64_t accepted;     /**< connections accepted */
    int64_t open;         /**< connections open now */
} rb_http_stats;

typedef struct rb_http_server rb_http_server;

/** Binds and listens (loopback only: any other host is RB_ERR_ARG) and
 *  returns a server in *out that is not yet serving.
 *  @return RB_OK, RB_ERR_ARG, RB_ERR_NOMEM or RB_ERR_IO (sys_errno set). */
rb_status rb_http_server_open(const rb_http_config *cfg, rb_http_server **out, rb_error *err);

/** The port the server listens on. */
int rb_http_server_port(const rb_http_server *s);

/** Starts the worker threads; returns at once. RB_ERR_IO if a thread could
 *  not start (those that did are stopped again), RB_ERR_ARG if started twice. */
rb_status rb_http_server_start(rb_http_server *s, rb_error *err);

/** Asks the workers to stop: they close every connection and exit.
 *  Async-signal-safe (one write to an eventfd) and idempotent. */
void rb_http_server_stop(rb_http_server *s);

/** Waits up to timeout_ms (< 0: forever) for the workers to finish after a
 *  stop. Returns 1 when they have, 0 on timeout (and at once, 0, for a server
 *  that was never started; 1 for NULL). */
int rb_http_server_wait(rb_http_server *s, int timeout_ms);

/** Fills *st with the server's counters (may be called while it serves). */
void rb_http_server_stats(const rb_http_server *s, rb_http_stats *st);

/** Stops the server if it runs, joins its threads and frees it. NULL is a
 *  no-op. */
void rb_http_server_close(rb_http_server *s);

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

/** The value the last of n tasks yields into *out, by an O(1)-per-hop
 *  closed form of the hop work: for verifying results only, never as the
 *  round's work. @return RB_OK; RB_ERR_ARG for n < 0 or hop_work < 0;
 *  RB_ERR_OVERFLOW naming hop_work when the value would not fit in int64
 *  (the check rb_chain_new makes); *out untouched on failure. */
rb_status rb_chain_expected(int64_t n, int64_t hop_work, int64_t *out, rb_error *err);

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
/* Round jsonl: count HTTP statuses in a JSON Lines log (docs/rounds/jsonl.md */
/* states the rules; testdata/jsonl_vectors.txt encodes them).              */

/** Why a line is invalid. */
typedef enum rb_jsonl_reason {
    RB_JSONL_VALID = 0,
    RB_JSONL_INVALID_JSON =
        1, /**< not RFC 8259 JSON (or not UTF-8, or nested > RB_JSONL_MAX_DEPTH) */
    RB_JSONL_NOT_OBJECT = 2, /**< JSON, but not an object */
    RB_JSONL_NO_STATUS = 3   /**< an object without an int64 top-level "status" (last one wins) */
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
    int64_t bytes;            /**< bytes consumed so far */
    size_t nstatuses;         /**< entries in `statuses`, sorted by status */
    rb_jsonl_count *statuses; /**< owned by the result */
    size_t nreported;         /**< entries in `reported` (<= RB_JSONL_MAX_REPORTED) */
    rb_jsonl_invalid reported[RB_JSONL_MAX_REPORTED];
    size_t cap_; /**< private: capacity of `statuses` */
} rb_jsonl_result;

/** Zeroes `res` (not NULL). */
void rb_jsonl_result_init(rb_jsonl_result *res);
/** Frees what `res` owns and zeroes it; NULL and repeated calls are fine. */
void rb_jsonl_result_free(rb_jsonl_result *res);

/** A constant name for a reason: "valid", "invalid-json", "not-object",
 *  "no-status" (the words every variant prints). */
const char *rb_jsonl_reason_name(rb_jsonl_reason reason);

/** Adds `count` lines of `status` to res->statuses, kept sorted (the
 *  other counts are the caller's): for a counter outside the core that
 *  reports in the core's result, as the c-simdjson variant does.
 *  @return RB_OK; RB_ERR_ARG (res NULL, count < 0); RB_ERR_NOMEM, with
 *          res unchanged. Thread-safe for distinct results. */
rb_status rb_jsonl_add_status(rb_jsonl_result *res, int64_t status, int64_t count, rb_error *err);

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

/* The kernel, which decides how fast (never what) the count is; every one
 * gives the same result on every input (the tests run each):
 *   "scan": a line scanner, one pass per line, no recursion (SSE2 masks
 *           where the build has SSE2, bytes one by one otherwise);
 *   "sse2", "avx2", "avx512": a block index first (bit masks of 64 bytes
 *           at a time: quotes, strings, digits, structure), from which
 *           lines that are a flat compact object of plain strings and
 *           numbers (what a JSON Lines log mostly holds) are validated
 *           whole, a few bit operations per byte; every other line goes to
 *           "scan". "sse2" and "avx2" make the masks with compares
 *           gathered by movemask and run the rules on one block at a
 *           time; "avx512" makes each mask with one AVX-512BW compare and
 *           runs the rules on eight blocks at once, one 64-bit lane each
 *           (it also needs BMI1 and BMI2).
 * "auto" (the default) takes $ROUNDBENCH_JSONL_KERNEL when it names one,
 * else the fastest this CPU runs ("avx512", else "avx2", checked at run
 * time, so the portable build has them too). */

/** Chooses the kernel for later counts in this process: "auto", "scan",
 *  "sse2", "avx2" or "avx512"; NULL means "auto". Meant for a binding or a test,
 *  before counting (the choice is one atomic value).
 *  @return RB_OK; RB_ERR_ARG for an unknown name (the message lists the
 *          kernels) or one this CPU or build cannot run (the message says
 *          what it needs). */
rb_status rb_jsonl_set_kernel(const char *name, rb_error *err);

/** The kernel counts use now, resolved ("scan", "sse2", "avx2" or "avx512"; never
 *  "auto"). NULL, with err (may be NULL) set to RB_ERR_ARG (no argument:
 *  the message names $ROUNDBENCH_JSONL_KERNEL), when under "auto" that
 *  variable names no kernel this CPU runs: then every count fails the same
 *  way, rather than run a kernel nobody asked for. */
const char *rb_jsonl_kernel(rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round sleep: N tasks, all alive at once, each waiting until a            */
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
rb_status rb_thread_limit_now(int64_t touched_bytes, int64_t maps_per_thread, rb_thread_limit *out,
                              rb_error *err);

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
rb_status rb_sleep_threads(int64_t n, int64_t wait_ns, int64_t stack_bytes, rb_sleep_stats *stats,
                           rb_error *err);

/* ------------------------------------------------------------------------ */
/* Round cores: the loop round's work on T threads. csrc/cores.c.            */

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
/* Round aspects: an ephemeris of daily longitudes, dated events, and for    */
/* each event its chart, its aspects and a search for a combination of      */
/* them (docs/rounds/aspects.md has the formulas and the output). csrc/aspects.c */

/** The ten bodies of the ephemeris (Sun, Moon, Mercury .. Pluto), then the
 *  Ascendant and the Midheaven: the twelve points, in this order. */
#define RB_ASPECTS_BODIES 10
#define RB_ASPECTS_POINTS 12
#define RB_ASPECTS_ASC 10
#define RB_ASPECTS_MC 11
/** The pairs of points (i < j), numbered in that order: 0 is Sun-Moon. */
#define RB_ASPECTS_PAIRS 66
/** The aspects: 0, 60, 90, 120 and 180 degrees, each within an orb of 8. */
#define RB_ASPECTS_ANGLES 5
/** The most terms a combination may have. */
#define RB_ASPECTS_MAX_TERMS 64
/** Beyond this latitude (the polar circles) the Ascendant is undefined at
 *  some times: an event there is an error. */
#define RB_ASPECTS_MAX_LAT 66.0
/** The combination the round searches for by default. */
#define RB_ASPECTS_DEFAULT_COMBO "Moon-120-Jupiter,Asc-90-Mars"

/** A growable output buffer: the core appends to data[len, cap), growing
 *  it with realloc. Start from {0} (or any malloc'd data); free with
 *  rb_buf_free. */
typedef struct rb_buf {
    char *data;
    size_t len;
    size_t cap;
} rb_buf;

/** Frees the buffer's data and zeroes it; NULL is allowed. */
void rb_buf_free(rb_buf *buf);

/** The ephemeris: one row of ten longitudes a day, in order, no day
 *  missing. Immutable once parsed: any number of threads may search it. */
typedef struct rb_aspects_ephemeris rb_aspects_ephemeris;

/** The events: time (whole seconds, UTC), latitude, longitude, name, and
 *  the line each came from. Immutable once parsed. */
typedef struct rb_aspects_events rb_aspects_events;

/* Bad input in the files is RB_ERR_ARG with arg NULL, pos the 1-based line
 * (the header is line 1) and a message `PATH:LINE: what was wrong`, in the
 * words of the plain Python variant (python/roundbench/pure/aspects.py),
 * so that every language says the same. Lines end with "\n"; a last line
 * without one is a line. Numbers are -?[0-9]+(\.[0-9]+)? (no exponent, no
 * nan or inf, nothing around them). */

/** Parses an ephemeris text: the header line
 *  `date<TAB>sun<TAB>moon<TAB>...<TAB>pluto`, then one row a day,
 *  `YYYY-MM-DD` and ten longitudes in degrees, each date one day after the
 *  previous row's. A header alone is a table without rows (every event is
 *  outside it).
 *  @param text  len bytes; may be NULL only when len == 0.
 *  @param name  the file's name for messages (NULL: "ephemeris").
 *  @param out   gets the table, which the caller frees with
 *               rb_aspects_ephemeris_free; untouched on failure.
 *  @return RB_OK; RB_ERR_ARG for a bad header, a row with the wrong number
 *          of columns, a bad date or one that is not the day after the
 *          previous row's, a field that is not a number; RB_ERR_NOMEM. */
rb_status rb_aspects_ephemeris_parse(const char *text, size_t len, const char *name,
                                     rb_aspects_ephemeris **out, rb_error *err);

/** Reads the file at `path` and parses it (its path names it in messages).
 *  @return as rb_aspects_ephemeris_parse, or RB_ERR_IO (sys_errno set)
 *          naming "path" when it cannot be read. */
rb_status rb_aspects_ephemeris_load(const char *path, rb_aspects_ephemeris **out, rb_error *err);

/** Frees an ephemeris; NULL is allowed. */
void rb_aspects_ephemeris_free(rb_aspects_ephemeris *eph);

/** The number of rows (days) of an ephemeris. */
int64_t rb_aspects_ephemeris_rows(const rb_aspects_ephemeris *eph);

/** Parses an events text for the table `eph`: the header
 *  `time<TAB>lat<TAB>lon<TAB>name`, then one event a line:
 *  `YYYY-MM-DDTHH:MM:SSZ`, latitude in [-90, 90], longitude in [-180, 180]
 *  (east positive), a name of letters, digits, '_' and '-'. Each event
 *  must lie inside the table (the row of its day and the next exist: never
 *  extrapolated) and within the polar circles (|lat| <= 66: beyond them the
 *  Ascendant is undefined at some times). An empty text or a header alone
 *  is an empty list. Errors are checked line by line, in this order, the
 *  first one reported.
 *  @param eph  the table the events will be searched in (RB_ERR_ARG if NULL).
 *  Other arguments, result and errors as rb_aspects_ephemeris_parse (name
 *  NULL: "events"). */
rb_status rb_aspects_events_parse(const char *text, size_t len, const char *name,
                                  const rb_aspects_ephemeris *eph, rb_aspects_events **out,
                                  rb_error *err);

/** Reads the file at `path` and parses it; as rb_aspects_ephemeris_load. */
rb_status rb_aspects_events_load(const char *path, const rb_aspects_ephemeris *eph,
                                 rb_aspects_events **out, rb_error *err);

/** Frees an events list; NULL is allowed. */
void rb_aspects_events_free(rb_aspects_events *events);

/** The number of events. */
int64_t rb_aspects_events_count(const rb_aspects_events *events);

/** The printed name of a point ("Sun" .. "Pluto", "Asc", "MC"), or NULL
 *  for an index outside [0, RB_ASPECTS_POINTS). */
const char *rb_aspects_point_name(int point);

/** One term of a combination: points p1 and p2 (indices, p1 != p2, in the
 *  order written) form the aspect `angle` (0, 60, 90, 120 or 180). */
typedef struct rb_aspects_term {
    int p1, angle, p2;
} rb_aspects_term;

/** A combination: it holds for an event when every term does. */
typedef struct rb_aspects_combo {
    int nterms;
    rb_aspects_term terms[RB_ASPECTS_MAX_TERMS];
} rb_aspects_combo;

/** Parses a combination: terms `POINT-ANGLE-POINT` joined by commas
 *  (RB_ASPECTS_DEFAULT_COMBO), with the points' printed names.
 *  @return RB_OK; RB_ERR_ARG naming "combo" (pos = the term's 0-based
 *          index) with the bad term in the message: not three parts, an
 *          unknown point, an angle that is not one of the five, a point
 *          with itself, more than RB_ASPECTS_MAX_TERMS terms. *out is
 *          untouched on failure. */
rb_status rb_aspects_combo_parse(const char *text, rb_aspects_combo *out, rb_error *err);

/** One event's chart: the twelve points' longitudes (degrees in [0, 360),
 *  bodies interpolated between the two rows around the time, then Asc and
 *  MC) and the twelve Porphyry house cusps (cusp[0] is the first house's,
 *  the Ascendant). */
typedef struct rb_aspects_chart {
    double point[RB_ASPECTS_POINTS];
    double cusp[12];
} rb_aspects_chart;

/** The chart at `seconds` since 1900-01-01T00:00:00Z for latitude `lat`
 *  and east longitude `lon` (degrees).
 *  @return RB_OK; RB_ERR_ARG naming "seconds" when the time is outside
 *          the ephemeris (before its first row, at or after its last),
 *          "lat" when |lat| > RB_ASPECTS_MAX_LAT, "lon" outside [-180, 180],
 *          "eph" or "out" when NULL. */
rb_status rb_aspects_chart_at(const rb_aspects_ephemeris *eph, int64_t seconds, double lat,
                              double lon, rb_aspects_chart *out, rb_error *err);

/** The search (test 1) or the search and print (test 2) over the events
 *  [first, first + count), appended to `out`, in the table `eph` the
 *  events were parsed for. Test 1 writes, for each
 *  event where every term of the combination holds, a `match` line, and
 *  at the end the `count` line; test 2 writes every event's block (its
 *  angles and cusps and its 20 most exact aspects) first, then test 1's
 *  lines. docs/rounds/aspects.md has the exact bytes.
 *  @param matches  may be NULL; gets the number of matching events.
 *  @return RB_OK; RB_ERR_ARG naming an argument that is NULL, a range
 *          outside the events, a test other than 1 or 2, a combination
 *          with a bad term; RB_ERR_ARG as rb_aspects_events_parse's (arg
 *          NULL, pos the line) for an event outside `eph` when it is not
 *          the table the events were parsed for; RB_ERR_NOMEM. On
 *          failure out->len and *matches are as they were (out->data may
 *          have been reallocated). Thread-safe for distinct `out`. */
rb_status rb_aspects_search(const rb_aspects_ephemeris *eph, const rb_aspects_events *events,
                            int64_t first, int64_t count, const rb_aspects_combo *combo, int test,
                            rb_buf *out, int64_t *matches, rb_error *err);

/* ------------------------------------------------------------------------ */
/* Build information                                                         */

/** The compiler and flags the core was built with (constant string). */
const char *rb_build_info(void);

#ifdef __cplusplus
}
#endif
#endif /* ROUNDBENCH_H */
