package roundbench

// This is the package's only cgo file: every crossing into the C core is
// here, and each function only converts arguments, calls, and converts the
// result or the core's error record. The preamble holds declarations only,
// as a file with //export requires (cmd/cgo documentation, "C references
// to Go").

/*
#cgo CFLAGS: -O2 -std=gnu11 -DRB_CGO
#cgo noescape rb_ffi_noop_noescape
#cgo nocallback rb_ffi_noop_nocallback
// ---- issue 3 (matmul): the OpenBLAS at build/blas (the scipy-openblas64
// package, the library numpy bundles; README, "The BLAS"), which the core
// dlopen()s on first use and nothing links. cgo refuses a string in a -D
// flag, so the core's default is the library's bare name and this rpath is
// where the loader finds it (ROUNDBENCH_BLAS_LIB or BlasSetLibrary win).
#cgo CFLAGS: -DBLAS_SYMBOL_PREFIX=scipy_ -DBLAS_SYMBOL_SUFFIX=64_ -DBLAS_ILP64
#cgo LDFLAGS: -Wl,-rpath,${SRCDIR}/../build/blas/lib -ldl -lm
// ---- end issue 3
#include <stdlib.h>
#include "roundbench.h"
int rbGoCallback(void *ctx, int64_t x, int64_t *result);
// round http
int rbGoHTTPHandler(void *ctx, rb_http_request *req, rb_http_response *resp);
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// coreError converts the core's error record into an *Error.
func coreError(fn string, st C.rb_status, e *C.rb_error) error {
	kind := ErrInterrupted
	switch st {
	case C.RB_ERR_ARG:
		kind = ErrArg
	case C.RB_ERR_OVERFLOW:
		kind = ErrOverflow
	case C.RB_ERR_NOMEM:
		kind = ErrNoMem
	case C.RB_ERR_IO:
		kind = ErrIO
	case C.RB_ERR_TYPE:
		kind = ErrType
	}
	out := &Error{Func: fn, Msg: C.GoString(C.rb_status_name(st)), Pos: int64(e.pos), Kind: kind}
	if e.msg != nil {
		out.Msg = C.GoString(e.msg)
	}
	if e.arg != nil {
		out.Arg = C.GoString(e.arg)
	}
	return out
}

// Loop returns the sum of i*i % 7 for i in [0, n), computed by the C core in
// one call.
func Loop(n int64) (int64, error) {
	if err := checkLoopN("Loop", n); err != nil {
		return 0, err
	}
	var sum C.int64_t
	var e C.rb_error
	if st := C.rb_loop(C.int64_t(n), &sum, &e); st != C.RB_OK {
		return 0, coreError("Loop", st, &e)
	}
	return int64(sum), nil
}

// LoopRange returns the sum of i*i % 7 for i in [lo, hi), computed by the C
// core: one worker's share in the cores round. Safe for concurrent use.
func LoopRange(lo, hi int64) (int64, error) {
	var sum C.int64_t
	var e C.rb_error
	if st := C.rb_loop_range(C.int64_t(lo), C.int64_t(hi), &sum, &e); st != C.RB_OK {
		return 0, coreError("LoopRange", st, &e)
	}
	return int64(sum), nil
}

// FfiNoop calls the core's trivial callee rb_ffi_noop: a plain cgo call.
func FfiNoop(x int64) int64 { return int64(C.rb_ffi_noop(C.int64_t(x))) }

// FfiNoopNoescape calls the same callee declared `#cgo noescape`.
func FfiNoopNoescape(x int64) int64 { return int64(C.rb_ffi_noop_noescape(C.int64_t(x))) }

// FfiNoopNocallback calls the same callee declared `#cgo nocallback`.
func FfiNoopNocallback(x int64) int64 { return int64(C.rb_ffi_noop_nocallback(C.int64_t(x))) }

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

//export rbGoCallback
func rbGoCallback(ctx unsafe.Pointer, x C.int64_t, result *C.int64_t) C.int {
	*result = C.int64_t(PureNoop(int64(x)))
	return 0
}

// FfiCallbackLoop has the core call back into Go count times (C to Go, the
// //export rbGoCallback above) and returns the sum of the results.
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
	if st := C.rb_ffi_callback_loop(cb, nil, C.int64_t(count), &sink, &e); st != C.RB_OK {
		return 0, coreError(fn, st, &e)
	}
	return int64(sink), nil
}

// ---- round http ----

//export rbGoHTTPHandler
func rbGoHTTPHandler(ctx unsafe.Pointer, req *C.rb_http_request, resp *C.rb_http_response) C.int {
	h := cgo.Handle(*(*C.uintptr_t)(ctx)).Value().(HTTPHandler)
	// Views of the core's buffers, valid for this call only: no copies.
	method := unsafe.Slice((*byte)(unsafe.Pointer(req.method)), int(req.method_len))
	path := unsafe.Slice((*byte)(unsafe.Pointer(req.path)), int(req.path_len))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(resp.body)), int(resp.body_cap))
	status, n := h(method, path, buf)
	if n < 0 || n > len(buf) {
		return 1
	}
	resp.status = C.int(status)
	resp.body_len = C.size_t(n)
	return 0
}

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
// the core answer with its own C handler (rb_http_hello_handler).
func NewHTTPServer(cfg HTTPConfig, h HTTPHandler) (*HTTPServer, error) {
	if err := cfg.check("NewHTTPServer"); err != nil {
		return nil, err
	}
	host := C.CString(cfg.host())
	defer C.free(unsafe.Pointer(host))
	c := C.rb_http_config{
		host:              host,
		port:              C.int(cfg.Port),
		threads:           C.int(cfg.Threads),
		header_timeout_ms: C.int(cfg.HeaderTimeout.Milliseconds()),
		max_head:          C.size_t(cfg.MaxHead),
	}
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
	if st := C.rb_http_server_open(&c, &srv.s, &e); st != C.RB_OK {
		srv.free()
		return nil, coreError("NewHTTPServer", st, &e)
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
	if st := C.rb_http_server_start(s.s, &e); st != C.RB_OK {
		return coreError("HTTPServer.Start", st, &e)
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

// ---- issue 5: round sleep ----

// Sleep runs the sleep round on the core's single-threaded event loop, in
// one cgo call that blocks its OS thread for about wait: n tasks, all live
// at once, each waking at a common start + wait.
func Sleep(n int64, wait time.Duration) (SleepStats, error) {
	if err := checkSleepArgs("Sleep", n, wait); err != nil {
		return SleepStats{}, err
	}
	var s C.rb_sleep_stats
	var e C.rb_error
	if st := C.rb_sleep(C.int64_t(n), C.int64_t(wait.Nanoseconds()), &s, &e); st != C.RB_OK {
		return SleepStats{}, coreError("Sleep", st, &e)
	}
	return SleepStats{N: int64(s.n), SetupNs: int64(s.setup_ns), RunNs: int64(s.run_ns),
		OverheadNs: int64(s.overhead_ns), PeakLive: int64(s.peak_live),
		Completed: int64(s.completed), Early: int64(s.early)}, nil
}

// ---- end of round sleep ----

// BuildInfo returns the compiler and flags the core was built with.
func BuildInfo() string { return C.GoString(C.rb_build_info()) }

// ---- issue 3: rounds matmul and temps ------------------------------------

// matmulCall hands three Go slices to a core matmul function without
// copying them: C reads a and b and writes c in place.
func matmulCall(fn string, n int, a, b, c []float64, call func(n C.int64_t, a, b, c *C.double, e *C.rb_error) C.rb_status) error {
	if err := checkMatmul(fn, n, a, b, c); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var e C.rb_error
	st := call(C.int64_t(n), (*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&b[0])), (*C.double)(unsafe.Pointer(&c[0])), &e)
	// cgo pins the slices for the call; KeepAlive says that the core uses
	// their memory up to here.
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	if st != C.RB_OK {
		return blasError(fn, st, &e)
	}
	return nil
}

// blasError is coreError plus, when the BLAS could not be loaded, the
// loader's own words (which file, which symbol, why).
func blasError(fn string, st C.rb_status, e *C.rb_error) error {
	err := coreError(fn, st, e)
	if st == C.RB_ERR_IO {
		var buf [1024]C.char
		C.rb_blas_load_error(&buf[0], C.size_t(len(buf)))
		if detail := C.GoString(&buf[0]); detail != "" {
			err.(*Error).Msg += ": " + detail
		}
	}
	return err
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
	if st := C.rb_blas_set_library(cpath, &e); st != C.RB_OK {
		return coreError("BlasSetLibrary", st, &e)
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
	if err := checkMatmulSizes("MatmulVerify", n, a, b, c); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var sum C.int64_t
	var e C.rb_error
	st := C.rb_matmul_verify(C.int64_t(n), (*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&b[0])), (*C.double)(unsafe.Pointer(&c[0])), &sum, &e)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	if st != C.RB_OK {
		return 0, coreError("MatmulVerify", st, &e)
	}
	return int64(sum), nil
}

// MatmulFill fills a and b (n*n each) with the round's seeded small
// integers, the same values in every language.
func MatmulFill(n int, seed uint64, a, b []float64) error {
	if err := checkMatmulSizes("MatmulFill", n, a, b, a); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var e C.rb_error
	st := C.rb_matmul_fill(C.int64_t(n), C.uint64_t(seed), (*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&b[0])), &e)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	if st != C.RB_OK {
		return coreError("MatmulFill", st, &e)
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

// GetBlasInfo returns what the core's BLAS is and does in this process,
// loading it if need be (ErrIO when it cannot be loaded).
func GetBlasInfo() (BlasInfo, error) {
	var info C.rb_blas_info
	var e C.rb_error
	if st := C.rb_blas_get_info(&info, &e); st != C.RB_OK {
		return BlasInfo{}, blasError("GetBlasInfo", st, &e)
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
	if n < 1 || n > 1<<20 {
		return argError("BlasSetThreads", "n", ErrArg, "must be in [1, 1048576], not %d", n)
	}
	var e C.rb_error
	if st := C.rb_blas_set_threads(C.int(n), &e); st != C.RB_OK {
		return blasError("BlasSetThreads", st, &e)
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
		return 0, coreError("Temps", st, &e)
	}
	return int64(sum), nil
}

// ---- end issue 3 ----------------------------------------------------------
// --- round chain (issue 5) ---

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
	if err := checkChain("NewChain", n, hopWork, parallel); err != nil {
		return nil, err
	}
	how := C.rb_chain_switch(C.RB_CHAIN_ASM)
	if ucontext {
		how = C.RB_CHAIN_UCONTEXT
	}
	var c *C.rb_chain
	var e C.rb_error
	if st := C.rb_chain_new(C.int64_t(n), C.int64_t(hopWork), C.int64_t(parallel), how, &c, &e); st != C.RB_OK {
		return nil, coreError("NewChain", st, &e)
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
	if st != C.RB_OK {
		return nil, coreError("Chain.Pass", st, &e)
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

// --- end round chain ---
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
// C core, which opens and reads the file itself (README.md, "jsonl", has
// the rules). A read error returns the counts so far with an *Error whose
// Pos is how many bytes were counted.
func JsonlCountFile(path string) (*JsonlResult, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var res C.rb_jsonl_result
	var e C.rb_error
	C.rb_jsonl_result_init(&res)
	defer C.rb_jsonl_result_free(&res)
	if st := C.rb_jsonl_count_file(cpath, &res, &e); st != C.RB_OK {
		err := coreError("JsonlCountFile", st, &e)
		if st == C.RB_ERR_IO {
			err.(*Error).Msg += ": " + syscall.Errno(e.sys_errno).Error()
			return jsonlResult(&res), err
		}
		return nil, err
	}
	return jsonlResult(&res), nil
}

// JsonlCountBytes counts the statuses of the JSON Lines in b with the C
// core, without copying b.
func JsonlCountBytes(b []byte) (*JsonlResult, error) {
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
		return nil, coreError("JsonlCountBytes", st, &e)
	}
	return jsonlResult(&res), nil
}

// JsonlKernel names the kernel the jsonl counts of this process use:
// "scan", "sse2" or "avx2" (csrc/roundbench.h says what each is). An error
// of kind ErrArg when $ROUNDBENCH_JSONL_KERNEL names none this CPU runs.
func JsonlKernel() (string, error) {
	var e C.rb_error
	k := C.rb_jsonl_kernel(&e)
	if k == nil {
		return "", coreError("JsonlKernel", C.RB_ERR_ARG, &e)
	}
	return C.GoString(k), nil
}

// SetJsonlKernel chooses the kernel for later counts in this process:
// "auto" (or ""), "scan", "sse2" or "avx2". An error of kind ErrArg for a
// name that is none, or one this CPU cannot run.
func SetJsonlKernel(name string) error {
	var e C.rb_error
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	if st := C.rb_jsonl_set_kernel(cname, &e); st != C.RB_OK {
		return coreError("SetJsonlKernel", st, &e)
	}
	return nil
}
