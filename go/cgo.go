package roundbench

// This is the package's cgo file: every crossing into the C core is here
// (but for the two annotated calls of cgo_noescape.go, which need Go 1.24),
// and each function only converts arguments, calls, and converts the
// result or the core's error record. The core checks every argument's
// value; what is checked here is only what conversion needs (a slice's
// length, a number that must fit in a C int). The functions the core
// calls back (//export) are in cgo_export.go: a file with //export may hold
// declarations only in its preamble (cmd/cgo documentation, "C references
// to Go"), and that file keeps this one's preamble free of the rule.

/*
// No -O here: cgo puts CGO_CFLAGS (Go's default -O2 -g; the Makefile's
// TUNE=1 gives the build table's tuned flags, as the C programs and the
// extension get) before these, and the last -O would win (cmd/go
// documentation, "Calling between Go and C").
#cgo CFLAGS: -std=gnu11 -DRB_CGO
// The matmul round's BLAS: the OpenBLAS at build/blas (the scipy-openblas64
// package, the library numpy bundles; docs/rounds/matmul.md, "The BLAS"), which the core
// dlopen()s on first use and nothing links. cgo refuses a string in a -D
// flag, so the core's default is the library's bare name and this rpath is
// where the loader finds it (ROUNDBENCH_BLAS_LIB or BlasSetLibrary win).
// -ldl is for that dlopen. No -lm: the core calls no libm function, since
// libm mapped would add 0.3 MiB to every Go child's peak RSS (csrc/matmul.c,
// round_even), and one called by mistake then fails the link here.
#cgo CFLAGS: -DBLAS_SYMBOL_PREFIX=scipy_ -DBLAS_SYMBOL_SUFFIX=64_ -DBLAS_ILP64
#cgo LDFLAGS: -Wl,-rpath,${SRCDIR}/../build/blas/lib -ldl
#include <stdlib.h>
#include "roundbench.h"
int rbGoCallback(void *ctx, int64_t x, int64_t *result);
int rbGoHTTPHandler(void *ctx, rb_http_request *req, rb_http_response *resp);
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// coreKinds is the kind of each error status of the core.
var coreKinds = map[C.rb_status]error{
	C.RB_ERR_ARG:         ErrArg,
	C.RB_ERR_OVERFLOW:    ErrOverflow,
	C.RB_ERR_NOMEM:       ErrNoMem,
	C.RB_ERR_IO:          ErrIO,
	C.RB_ERR_TYPE:        ErrType,
	C.RB_ERR_INTERRUPTED: ErrInterrupted,
}

// coreError is the one place the core's error record becomes a Go error:
// everything it needs travels in the record (csrc/roundbench.h, rb_error).
// A status this package does not know (a newer core's) is an ErrCore.
func coreError(fn string, e *C.rb_error) error {
	kind, ok := coreKinds[e.code]
	if !ok {
		kind = ErrCore
	}
	out := &Error{Func: fn, Msg: C.GoString(&e.msg[0]), Pos: int64(e.pos), Kind: kind,
		Errno: syscall.Errno(e.sys_errno)}
	if out.Msg == "" {
		out.Msg = fmt.Sprintf("%s (status %d)", C.GoString(C.rb_status_name(e.code)), int(e.code))
	}
	if e.arg != nil {
		out.Arg = C.GoString(e.arg)
	}
	return out
}

// statusError runs coreError on a record holding only these fields: the
// tests reach the mapper through it (a _test.go file cannot use cgo), for
// every status, unknown ones included.
func statusError(fn string, code int, arg, msg string) error {
	var e C.rb_error
	e.code = C.rb_status(code)
	e.pos = -1
	for i := 0; i < len(msg) && i < len(e.msg)-1; i++ {
		e.msg[i] = C.char(msg[i])
	}
	if arg != "" {
		e.arg = C.CString(arg)
		defer C.free(unsafe.Pointer(e.arg))
	}
	return coreError(fn, &e)
}

// cInt converts v to a C int for argument arg of fn: a value that does not
// fit is refused here, since the core would see another number.
func cInt(fn, arg string, v int64) (C.int, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, argError(fn, arg, ErrOverflow, "%d does not fit in a C int", v)
	}
	return C.int(v), nil
}

// Loop returns the sum of i*i % 7 for i in [0, n), computed by the C core in
// one call.
func Loop(n int64) (int64, error) {
	var sum C.int64_t
	var e C.rb_error
	if C.rb_loop(C.int64_t(n), &sum, &e) != C.RB_OK {
		return 0, coreError("Loop", &e)
	}
	return int64(sum), nil
}

// LoopRange returns the sum of i*i % 7 for i in [lo, hi), computed by the C
// core: one worker's share in the cores round. Safe for concurrent use.
func LoopRange(lo, hi int64) (int64, error) {
	var sum C.int64_t
	var e C.rb_error
	if C.rb_loop_range(C.int64_t(lo), C.int64_t(hi), &sum, &e) != C.RB_OK {
		return 0, coreError("LoopRange", &e)
	}
	return int64(sum), nil
}

// FfiNoop calls the core's trivial callee rb_ffi_noop: a plain cgo call.
func FfiNoop(x int64) int64 { return int64(C.rb_ffi_noop(C.int64_t(x))) }

// FfiNoopOut has the core write x + 1 to a local through a pointer: a
// plain cgo call with a pointer argument, whose local escapes to the heap
// (cgo cannot tell that C keeps no copy of the pointer).
func FfiNoopOut(x int64) int64 {
	var out C.int64_t
	C.rb_ffi_noop_out(C.int64_t(x), &out)
	return int64(out)
}

// FfiBuffer hands b to the core without copying (a pointer to its first
// element) and returns b[0] + b[len(b)-1], or 0 for an empty slice.
func FfiBuffer(b []byte) int64 {
	if len(b) == 0 {
		return int64(C.rb_ffi_buffer(nil, 0))
	}
	r := C.rb_ffi_buffer((*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b)))
	// cgo keeps b alive for the call already; KeepAlive states that the
	// core reads b's memory up to this point.
	runtime.KeepAlive(b)
	return int64(r)
}

// FfiBufferCopy copies b into C memory (C.CBytes), hands the copy to the
// core and frees it: what code that may not share Go memory with C pays.
func FfiBufferCopy(b []byte) int64 {
	p := C.CBytes(b)
	defer C.free(p)
	return int64(C.rb_ffi_buffer((*C.uint8_t)(p), C.size_t(len(b))))
}

// FfiArgs4 hands the core four arguments of four types (rb_ffi_args4:
// a + trunc(b) + c + len(s), wrapping), s as a NUL-terminated copy in C
// memory (C.CString) freed after the call: what cgo asks of every Go
// string a C function reads. A string holding a NUL byte is refused (the
// core would read it cut short).
func FfiArgs4(a int64, b float64, c int32, s string) (int64, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return 0, argError("FfiArgs4", "s", ErrArg, "holds a NUL byte at %d", i)
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return int64(C.rb_ffi_args4(C.int64_t(a), C.double(b), C.int32_t(c), cs)), nil
}

// FfiStr returns the core's string chosen by x (rb_ffi_str), copied into a
// new Go string (C.GoString): the core's own is static and never freed.
func FfiStr(x int64) string { return C.GoString(C.rb_ffi_str(C.int64_t(x))) }

// FfiCallbackLoop has the core call back into Go count times (C to Go, the
// //export rbGoCallback of cgo_export.go) and returns the sum of the results.
func FfiCallbackLoop(count int64) (int64, error) {
	return callbackLoop("FfiCallbackLoop", C.rb_ffi_callback(C.rbGoCallback), count)
}

// FfiCallbackLoopC runs the same core loop with the core's own C callback:
// the baseline that FfiCallbackLoop's crossing is measured against.
func FfiCallbackLoopC(count int64) (int64, error) {
	return callbackLoop("FfiCallbackLoopC", C.rb_ffi_callback(C.rb_ffi_noop_callback), count)
}

func callbackLoop(fn string, cb C.rb_ffi_callback, count int64) (int64, error) {
	var sink C.int64_t
	var e C.rb_error
	if C.rb_ffi_callback_loop(cb, nil, C.int64_t(count), &sink, &e) != C.RB_OK {
		return 0, coreError(fn, &e)
	}
	return int64(sink), nil
}

// ---- round http ----------------------------------------------------------

// HTTPServer is the core's HTTP/1.1 server (csrc/http.c), answering either
// with the core's own C handler or through a Go HTTPHandler called back
// from the core's worker threads. Close it when done.
type HTTPServer struct {
	mu     sync.Mutex
	s      *C.rb_http_server
	ctx    unsafe.Pointer // C memory holding the handler's cgo.Handle
	handle cgo.Handle
}

// NewHTTPServer binds and listens on cfg.Host:cfg.Port (loopback only) and
// returns a server that is not yet serving; Start starts it. A nil h makes
// the core answer with its own C handler (rb_http_hello_handler). The core
// checks the configuration; its errors name the C fields (max_head for
// MaxHead).
func NewHTTPServer(cfg HTTPConfig, h HTTPHandler) (*HTTPServer, error) {
	const fn = "NewHTTPServer"
	var c C.rb_http_config
	var err error
	if c.port, err = cInt(fn, "Port", int64(cfg.Port)); err != nil {
		return nil, err
	}
	if c.threads, err = cInt(fn, "Threads", int64(cfg.Threads)); err != nil {
		return nil, err
	}
	if c.header_timeout_ms, err = cInt(fn, "HeaderTimeout", cfg.HeaderTimeout.Milliseconds()); err != nil {
		return nil, err
	}
	if cfg.MaxHead < 0 {
		return nil, argError(fn, "MaxHead", ErrArg, "%d does not fit in a C size_t", cfg.MaxHead)
	}
	c.max_head = C.size_t(cfg.MaxHead)
	host := C.CString(cfg.host())
	defer C.free(unsafe.Pointer(host))
	c.host = host
	srv := &HTTPServer{}
	if h != nil {
		// The core keeps ctx for the server's lifetime, so it is C memory
		// holding a cgo.Handle: Go memory may not be kept by C (cmd/cgo,
		// "Passing pointers").
		srv.handle = cgo.NewHandle(h)
		srv.ctx = C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
		*(*C.uintptr_t)(srv.ctx) = C.uintptr_t(srv.handle)
		c.handler = C.rb_http_handler(C.rbGoHTTPHandler)
		c.handler_ctx = srv.ctx
	}
	var e C.rb_error
	if C.rb_http_server_open(&c, &srv.s, &e) != C.RB_OK {
		srv.free()
		return nil, coreError(fn, &e)
	}
	return srv, nil
}

func (s *HTTPServer) free() {
	if s.ctx != nil {
		C.free(s.ctx)
		s.handle.Delete()
		s.ctx = nil
	}
}

// Port is the port the server listens on.
func (s *HTTPServer) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return -1
	}
	return int(C.rb_http_server_port(s.s))
}

// Start starts the worker threads and returns.
func (s *HTTPServer) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return argError("HTTPServer.Start", "s", ErrArg, "server is closed")
	}
	var e C.rb_error
	if C.rb_http_server_start(s.s, &e) != C.RB_OK {
		return coreError("HTTPServer.Start", &e)
	}
	return nil
}

// Stop asks the workers to close every connection and exit; Wait waits
// for them. Safe to call from any goroutine, more than once.
func (s *HTTPServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.rb_http_server_stop(s.s)
	}
}

// Wait waits up to timeout (negative: forever) for the workers to exit
// after Stop and reports whether they have.
func (s *HTTPServer) Wait(timeout time.Duration) bool {
	s.mu.Lock()
	p := s.s
	s.mu.Unlock()
	if p == nil {
		return true
	}
	ms := C.int(-1)
	if timeout >= 0 {
		ms = C.int(timeout.Milliseconds())
	}
	// Close is the only thing that frees p, and it waits for the workers
	// first; a Wait racing with Close is the caller's error, as with
	// any Close.
	return C.rb_http_server_wait(p, ms) != 0
}

// Stats returns the server's counters.
func (s *HTTPServer) Stats() HTTPStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st C.rb_http_stats
	if s.s != nil {
		C.rb_http_server_stats(s.s, &st)
	}
	return HTTPStats{Requests: int64(st.requests), BadRequests: int64(st.bad_requests),
		Timeouts: int64(st.timeouts), Accepted: int64(st.accepted), Open: int64(st.open)}
}

// Close stops the server, waits for its workers and frees it. It is
// idempotent.
func (s *HTTPServer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.rb_http_server_close(s.s)
		s.s = nil
	}
	s.free()
	return nil
}

// ---- round sleep ---------------------------------------------------------

// Sleep runs the sleep round on the core's single-threaded event loop, in
// one cgo call that blocks its OS thread for about wait: n tasks, all live
// at once, each waking at a common start + wait.
func Sleep(n int64, wait time.Duration) (SleepStats, error) {
	var s C.rb_sleep_stats
	var e C.rb_error
	if C.rb_sleep(C.int64_t(n), C.int64_t(wait.Nanoseconds()), &s, &e) != C.RB_OK {
		return SleepStats{}, coreError("Sleep", &e)
	}
	return SleepStats{N: int64(s.n), SetupNs: int64(s.setup_ns), RunNs: int64(s.run_ns),
		OverheadNs: int64(s.overhead_ns), PeakLive: int64(s.peak_live),
		Completed: int64(s.completed), Early: int64(s.early)}, nil
}

// BuildInfo returns the compiler and flags the core was built with.
func BuildInfo() string { return C.GoString(C.rb_build_info()) }

// ---- rounds matmul and temps ---------------------------------------------

// matrix is one n x n argument of a matmul function.
type matrix struct {
	name string
	m    []float64
}

// matrixPointers has the core check n, then converts each slice to a C
// pointer to its first element (nil when n == 0). C cannot see a slice's
// length, so a slice that does not hold n*n values is refused here.
func matrixPointers(fn string, n int, ms ...matrix) ([]*C.double, error) {
	var e C.rb_error
	if C.rb_matmul_check(C.int64_t(n), &e) != C.RB_OK {
		return nil, coreError(fn, &e)
	}
	ps := make([]*C.double, len(ms))
	for i, x := range ms {
		if len(x.m) != n*n {
			return nil, argError(fn, x.name, ErrArg, "has %d elements; want n*n = %d", len(x.m), n*n)
		}
		if n > 0 {
			ps[i] = (*C.double)(unsafe.Pointer(&x.m[0]))
		}
	}
	return ps, nil
}

// matmulCall hands three Go slices to a core matmul function without
// copying them: C reads a and b and writes c in place.
func matmulCall(fn string, n int, a, b, c []float64, call func(n C.int64_t, a, b, c *C.double, e *C.rb_error) C.rb_status) error {
	p, err := matrixPointers(fn, n, matrix{"a", a}, matrix{"b", b}, matrix{"c", c})
	if err != nil {
		return err
	}
	var e C.rb_error
	st := call(C.int64_t(n), p[0], p[1], p[2], &e)
	// cgo pins the slices for the call; KeepAlive says that the core uses
	// their memory up to here.
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	if st != C.RB_OK {
		return coreError(fn, &e)
	}
	return nil
}

// BlasSetLibrary names the BLAS file the core loads on first use, instead
// of ROUNDBENCH_BLAS_LIB or the build's default (build/blas/lib through the
// package's rpath); "" clears an earlier choice. It fails with ErrArg once
// the BLAS is loaded from another file. Safe for concurrent use.
func BlasSetLibrary(path string) error {
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	var e C.rb_error
	if C.rb_blas_set_library(cpath, &e) != C.RB_OK {
		return coreError("BlasSetLibrary", &e)
	}
	return nil
}

// MatmulBlas sets c = a*b (n x n, row-major) with the BLAS's dgemm, which
// the core loads on the first call, in place, without copying the slices.
// c must not overlap a or b. Safe for concurrent use; the BLAS's own
// thread count applies. A BLAS that cannot be loaded is an ErrIO.
func MatmulBlas(n int, a, b, c []float64) error {
	return matmulCall("MatmulBlas", n, a, b, c, func(n C.int64_t, a, b, c *C.double, e *C.rb_error) C.rb_status {
		return C.rb_matmul_blas(n, a, b, c, e)
	})
}

// MatmulNaive sets c = a*b by the core's naive i-k-j loop; as MatmulBlas.
func MatmulNaive(n int, a, b, c []float64) error {
	return matmulCall("MatmulNaive", n, a, b, c, func(n C.int64_t, a, b, c *C.double, e *C.rb_error) C.rb_status {
		return C.rb_matmul_naive(n, a, b, c, e)
	})
}

// MatmulVerify checks c == a*b (Freivalds' test within the rounding bound
// stated in csrc/roundbench.h) and returns the round's checksum of c. A
// wrong c is an *Error with Arg "c" and Pos the first wrong row.
func MatmulVerify(n int, a, b, c []float64) (int64, error) {
	p, err := matrixPointers("MatmulVerify", n, matrix{"a", a}, matrix{"b", b}, matrix{"c", c})
	if err != nil {
		return 0, err
	}
	var sum C.int64_t
	var e C.rb_error
	st := C.rb_matmul_verify(C.int64_t(n), p[0], p[1], p[2], &sum, &e)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	if st != C.RB_OK {
		return 0, coreError("MatmulVerify", &e)
	}
	return int64(sum), nil
}

// MatmulFill fills a and b (n*n each) with the round's seeded small
// integers, the same values in every language.
func MatmulFill(n int, seed uint64, a, b []float64) error {
	p, err := matrixPointers("MatmulFill", n, matrix{"a", a}, matrix{"b", b})
	if err != nil {
		return err
	}
	var e C.rb_error
	st := C.rb_matmul_fill(C.int64_t(n), C.uint64_t(seed), p[0], p[1], &e)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	if st != C.RB_OK {
		return coreError("MatmulFill", &e)
	}
	return nil
}

// BlasInfo describes the core's BLAS as it runs in this process.
type BlasInfo struct {
	Library  string // the shared object's file
	Config   string // version and build options
	CoreName string // the kernel chosen at run time
	Threads  int    // the thread count dgemm uses now
}

// BlasGetInfo returns what the core's BLAS is and does in this process,
// loading it if need be (ErrIO when it cannot be loaded).
func BlasGetInfo() (BlasInfo, error) {
	var info C.rb_blas_info
	var e C.rb_error
	if C.rb_blas_get_info(&info, &e) != C.RB_OK {
		return BlasInfo{}, coreError("BlasGetInfo", &e)
	}
	return BlasInfo{
		Library:  C.GoString(info.library),
		Config:   C.GoString(info.config),
		CoreName: C.GoString(info.corename),
		Threads:  int(info.threads),
	}, nil
}

// BlasSetThreads sets the core's BLAS thread count (n >= 1) for the
// process, loading the BLAS if need be.
func BlasSetThreads(n int) error {
	var e C.rb_error
	if C.rb_blas_set_threads(C.int64_t(n), &e) != C.RB_OK {
		return coreError("BlasSetThreads", &e)
	}
	return nil
}

// Temps returns the sum of a[i]*a[i] % 7 over a, by the core's fused pass
// over the slice itself (no copy). An |a[i]| > TempsMaxAbs is an *Error
// matching ErrOverflow with Pos i.
func Temps(a []int64) (int64, error) {
	if len(a) == 0 {
		return 0, nil
	}
	var sum C.int64_t
	var e C.rb_error
	st := C.rb_temps((*C.int64_t)(unsafe.Pointer(&a[0])), C.int64_t(len(a)), &sum, &e)
	runtime.KeepAlive(a)
	if st != C.RB_OK {
		return 0, coreError("Temps", &e)
	}
	return int64(sum), nil
}

// ---- round chain ---------------------------------------------------------

// Chain is `parallel` chains of n coroutines in the C core (rb_chain).
// NewChain is the setup, Pass the pass, Close the teardown. Not safe for
// concurrent use; Close is idempotent and a finalizer is only a backstop.
type Chain struct {
	c        *C.rb_chain
	parallel int64
}

// NewChain builds the chains in the core and runs every task until it
// waits to receive. ucontext selects swapcontext over the core's own
// context switch.
func NewChain(n, hopWork, parallel int64, ucontext bool) (*Chain, error) {
	how := C.rb_chain_switch(C.RB_CHAIN_ASM)
	if ucontext {
		how = C.RB_CHAIN_UCONTEXT
	}
	var c *C.rb_chain
	var e C.rb_error
	if C.rb_chain_new(C.int64_t(n), C.int64_t(hopWork), C.int64_t(parallel), how, &c, &e) != C.RB_OK {
		return nil, coreError("NewChain", &e)
	}
	ch := &Chain{c: c, parallel: parallel}
	runtime.SetFinalizer(ch, (*Chain).Close)
	return ch, nil
}

// Pass sends 0 into every chain (chain 0 on this goroutine's thread, the
// others on threads the core starts) and returns what each chain yields.
func (c *Chain) Pass() ([]int64, error) {
	if c.c == nil {
		return nil, argError("Chain.Pass", "chain", ErrArg, "the chain was closed")
	}
	out := make([]int64, c.parallel)
	var e C.rb_error
	// out holds no Go pointers, so the core may write into it for the call.
	st := C.rb_chain_pass(c.c, (*C.int64_t)(unsafe.Pointer(&out[0])), &e)
	runtime.KeepAlive(out)
	runtime.KeepAlive(c) // the finalizer frees c.c: not before the pass returns

	if st != C.RB_OK {
		return nil, coreError("Chain.Pass", &e)
	}
	return out, nil
}

// Close frees the chain's tasks. Idempotent.
func (c *Chain) Close() {
	if c.c != nil {
		C.rb_chain_free(c.c)
		c.c = nil
		runtime.SetFinalizer(c, nil)
	}
}

// ---- round jsonl ----------------------------------------------------------

// jsonlResult converts the core's tally (statuses sorted, reasons by name).
func jsonlResult(r *C.rb_jsonl_result) *JsonlResult {
	out := &JsonlResult{
		Lines: int64(r.lines), Blank: int64(r.blank), Valid: int64(r.valid),
		Invalid: int64(r.invalid), Bytes: int64(r.bytes),
		Statuses: make(map[int64]int64, int(r.nstatuses)),
	}
	if r.nstatuses > 0 {
		for _, c := range unsafe.Slice(r.statuses, int(r.nstatuses)) {
			out.Statuses[int64(c.status)] = int64(c.count)
		}
	}
	for _, inv := range r.reported[:int(r.nreported)] {
		out.Reported = append(out.Reported, JsonlInvalid{Line: int64(inv.line),
			Reason: C.GoString(C.rb_jsonl_reason_name(inv.reason))})
	}
	return out
}

// JsonlCountFile counts the statuses of the JSON Lines file at path with the
// C core, which opens and reads the file itself (docs/rounds/jsonl.md has
// the rules). A read error returns the counts so far with an *Error whose
// Pos is how many bytes were counted (errors.Is(err, fs.ErrNotExist) and
// the like work).
func JsonlCountFile(path string) (*JsonlResult, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var res C.rb_jsonl_result
	var e C.rb_error
	C.rb_jsonl_result_init(&res)
	defer C.rb_jsonl_result_free(&res)
	if st := C.rb_jsonl_count_file(cpath, &res, &e); st != C.RB_OK {
		if st == C.RB_ERR_IO {
			return jsonlResult(&res), coreError("JsonlCountFile", &e)
		}
		return nil, coreError("JsonlCountFile", &e)
	}
	return jsonlResult(&res), nil
}

// JsonlCountBuffer counts the statuses of the JSON Lines in b with the C
// core, without copying b.
func JsonlCountBuffer(b []byte) (*JsonlResult, error) {
	var res C.rb_jsonl_result
	var e C.rb_error
	C.rb_jsonl_result_init(&res)
	defer C.rb_jsonl_result_free(&res)
	var p *C.uint8_t
	if len(b) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&b[0]))
	}
	st := C.rb_jsonl_count_buffer(p, C.size_t(len(b)), &res, &e)
	// The core reads b until it returns.
	runtime.KeepAlive(b)
	if st != C.RB_OK {
		return nil, coreError("JsonlCountBuffer", &e)
	}
	return jsonlResult(&res), nil
}

// JsonlKernel names the kernel the jsonl counts of this process use:
// "scan", "sse2", "avx2" or "avx512" (csrc/roundbench.h says what each is). An error
// of kind ErrArg when $ROUNDBENCH_JSONL_KERNEL names none this CPU runs.
func JsonlKernel() (string, error) {
	var e C.rb_error
	k := C.rb_jsonl_kernel(&e)
	if k == nil {
		return "", coreError("JsonlKernel", &e)
	}
	return C.GoString(k), nil
}

// JsonlSetKernel chooses the kernel for later counts in this process:
// "auto" (or ""), "scan", "sse2", "avx2" or "avx512". An error of kind
// ErrArg for a name that is none, or one this CPU cannot run (the message
// says what it needs).
func JsonlSetKernel(name string) error {
	var e C.rb_error
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	if C.rb_jsonl_set_kernel(cname, &e) != C.RB_OK {
		return coreError("JsonlSetKernel", &e)
	}
	return nil
}

// ---- round aspects --------------------------------------------------------

// Aspects is an ephemeris and a list of events as the C core holds them
// (rb_aspects_ephemeris, rb_aspects_events), for Search. The core's data
// is immutable once loaded, so Searches may run concurrently; Close is
// idempotent and a finalizer is only a backstop.
type Aspects struct {
	eph *C.rb_aspects_ephemeris
	ev  *C.rb_aspects_events
}

// AspectsLoad has the core read and parse the ephemeris and the events
// files (errors name the file and line, as AspectsParseEphemeris's).
func AspectsLoad(ephemerisPath, eventsPath string) (*Aspects, error) {
	var e C.rb_error
	a := &Aspects{}
	cpath := C.CString(ephemerisPath)
	st := C.rb_aspects_ephemeris_load(cpath, &a.eph, &e)
	C.free(unsafe.Pointer(cpath))
	if st != C.RB_OK {
		return nil, coreError("AspectsLoad", &e)
	}
	cpath = C.CString(eventsPath)
	st = C.rb_aspects_events_load(cpath, a.eph, &a.ev, &e)
	C.free(unsafe.Pointer(cpath))
	if st != C.RB_OK {
		C.rb_aspects_ephemeris_free(a.eph)
		return nil, coreError("AspectsLoad", &e)
	}
	runtime.SetFinalizer(a, (*Aspects).Close)
	return a, nil
}

// AspectsParse has the core parse an ephemeris text and an events text
// read for it (an empty events text is no events), as AspectsLoad does the
// files; ephemerisName and eventsName name them in messages. The core
// reads the texts in place, without copying them.
func AspectsParse(ephemeris, events []byte, ephemerisName, eventsName string) (*Aspects, error) {
	var e C.rb_error
	a := &Aspects{}
	cname := C.CString(ephemerisName)
	st := C.rb_aspects_ephemeris_parse(textPointer(ephemeris), C.size_t(len(ephemeris)), cname, &a.eph, &e)
	C.free(unsafe.Pointer(cname))
	runtime.KeepAlive(ephemeris)
	if st != C.RB_OK {
		return nil, coreError("AspectsParse", &e)
	}
	cname = C.CString(eventsName)
	st = C.rb_aspects_events_parse(textPointer(events), C.size_t(len(events)), cname, a.eph, &a.ev, &e)
	C.free(unsafe.Pointer(cname))
	runtime.KeepAlive(events)
	if st != C.RB_OK {
		C.rb_aspects_ephemeris_free(a.eph)
		return nil, coreError("AspectsParse", &e)
	}
	runtime.SetFinalizer(a, (*Aspects).Close)
	return a, nil
}

// textPointer is b's first byte for the core, or NULL when b is empty.
func textPointer(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// Rows is the number of days of the ephemeris.
func (a *Aspects) Rows() int {
	n := int(C.rb_aspects_ephemeris_rows(a.eph))
	runtime.KeepAlive(a) // the finalizer frees a.eph: not before the call returns
	return n
}

// ChartAt is the core's chart at `seconds` since 1900-01-01T00:00:00Z for
// latitude lat and east longitude lon, as PureAspectsChartAt is the go
// variant's (the same arguments refused: outside the table, |lat| > 66,
// lon outside [-180, 180]).
func (a *Aspects) ChartAt(seconds int64, lat, lon float64) (AspectsChart, error) {
	var out AspectsChart
	if a.eph == nil {
		return out, argError("Aspects.ChartAt", "a", ErrArg, "the data was closed")
	}
	var c C.rb_aspects_chart
	var e C.rb_error
	st := C.rb_aspects_chart_at(a.eph, C.int64_t(seconds), C.double(lat), C.double(lon), &c, &e)
	runtime.KeepAlive(a) // the finalizer frees a.eph: not before the call returns
	if st != C.RB_OK {
		return out, coreError("Aspects.ChartAt", &e)
	}
	for i := range out.Point {
		out.Point[i] = float64(c.point[i])
	}
	for i := range out.Cusp {
		out.Cusp[i] = float64(c.cusp[i])
	}
	return out, nil
}

// Events is the number of events loaded.
func (a *Aspects) Events() int {
	n := int(C.rb_aspects_events_count(a.ev))
	runtime.KeepAlive(a) // the finalizer frees a.ev: not before the call returns
	return n
}

// Search runs the core's search (test 1) or search and print (test 2) for
// the combination combo over the events [first, first+count) and appends
// its output to dst; it returns the output and the number of matching
// events. The core writes into a buffer of its own, copied onto dst.
func (a *Aspects) Search(first, count int, combo string, test int, dst []byte) ([]byte, int, error) {
	if a.eph == nil {
		return dst, 0, argError("Aspects.Search", "a", ErrArg, "the data was closed")
	}
	ctest, err := cInt("Aspects.Search", "test", int64(test))
	if err != nil {
		return dst, 0, err
	}
	var e C.rb_error
	var c C.rb_aspects_combo
	ccombo := C.CString(combo)
	st := C.rb_aspects_combo_parse(ccombo, &c, &e)
	C.free(unsafe.Pointer(ccombo))
	if st != C.RB_OK {
		return dst, 0, coreError("Aspects.Search", &e)
	}
	var buf C.rb_buf
	var matches C.int64_t
	st = C.rb_aspects_search(a.eph, a.ev, C.int64_t(first), C.int64_t(count), &c, ctest, &buf, &matches, &e)
	// Once its tables are passed, a is unreachable, and a garbage collection
	// during the search could run its finalizer, freeing the tables the core
	// is reading (a SIGSEGV in rb_aspects_search, seen with several values
	// a process, whose earlier values leave garbage to collect).
	runtime.KeepAlive(a)
	defer C.rb_buf_free(&buf)
	if st != C.RB_OK {
		return dst, 0, coreError("Aspects.Search", &e)
	}
	if buf.len > 0 {
		out := unsafe.Slice((*byte)(unsafe.Pointer(buf.data)), int(buf.len))
		dst = append(dst, out...)
	}
	return dst, int(matches), nil
}

// Close frees the core's data. Idempotent.
func (a *Aspects) Close() {
	if a.eph != nil {
		C.rb_aspects_events_free(a.ev)
		C.rb_aspects_ephemeris_free(a.eph)
		a.eph, a.ev = nil, nil
		runtime.SetFinalizer(a, nil)
	}
}
