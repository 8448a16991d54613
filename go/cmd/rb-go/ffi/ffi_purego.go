//go:build (linux || darwin || freebsd || netbsd) && go1.25

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-purego and its -buffer, -args4, -str and -callback rows: the core's
// callees called through purego, which loads the core's shared library
// (libroundbench.so, as c-so calls it) at run time and calls it without
// cgo's generated wrappers. With cgo enabled, as in this program, purego
// imports runtime/cgo and uses the C runtime's own dlopen (its cgo.go; its
// README lists this fallback among its benefits); the binary calls the same
// code either way.
func init() {
	harness.Register("ffi", "go-purego", puregoCall, ffiUnits...)
	harness.Register("ffi", "go-purego-buffer", puregoBuffer, ffiUnits...)
	harness.Register("ffi", "go-purego-args4", puregoArgs4, ffiUnits...)
	harness.Register("ffi", "go-purego-str", puregoStr, ffiUnits...)
	harness.Register("ffi", "go-purego-callback", puregoCallback, ffiUnits...)
}

// coreSharedLibEnv names the core's shared library where it is not beside
// the program (the tests set it).
const coreSharedLibEnv = "ROUNDBENCH_CORE_SO"

// coreSharedLib is where libroundbench.so is: $ROUNDBENCH_CORE_SO, else
// beside this program (make builds both into build/).
func coreSharedLib() string {
	if p := os.Getenv(coreSharedLibEnv); p != "" {
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		return "libroundbench.so"
	}
	return filepath.Join(filepath.Dir(exe), "libroundbench.so")
}

// puregoCore is the core's ffi callees bound through purego. purego
// converts a Go string argument to a NUL-terminated copy for the call, and
// a returned char * to a new Go string (its RegisterFunc documentation).
type puregoCore struct {
	noop   func(int64) int64
	buffer func(*byte, uintptr) int64
	args4  func(a int64, b float64, c int32, s string) int64
	str    func(int64) string
	// rb_ffi_callback_loop; err may be nil (csrc/roundbench.h), and is.
	callbackLoop func(cb uintptr, ctx unsafe.Pointer, count int64, sum *int64, err unsafe.Pointer) int32
	statusName   func(int32) string
	// rb_ffi_noop_callback's address: the C callback the baseline runs.
	noopCallback uintptr
}

// openPurego loads the library at path with its own symbols (RTLD_LOCAL:
// this program's cgo-linked copy of the core is never the one called) and
// binds the callees; an error says which step failed.
func openPurego(path string) (*puregoCore, error) {
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("purego cannot load the core's shared library %s (make c builds it): %v", path, err)
	}
	var c puregoCore
	for name, fptr := range map[string]any{
		"rb_ffi_noop":          &c.noop,
		"rb_ffi_buffer":        &c.buffer,
		"rb_ffi_args4":         &c.args4,
		"rb_ffi_str":           &c.str,
		"rb_ffi_callback_loop": &c.callbackLoop,
		"rb_status_name":       &c.statusName,
	} {
		sym, err := purego.Dlsym(lib, name)
		if err != nil {
			return nil, fmt.Errorf("purego finds no %s in %s: %v", name, path, err)
		}
		purego.RegisterFunc(fptr, sym)
	}
	if c.noopCallback, err = purego.Dlsym(lib, "rb_ffi_noop_callback"); err != nil {
		return nil, fmt.Errorf("purego finds no rb_ffi_noop_callback in %s: %v", path, err)
	}
	return &c, nil
}

func mustOpenPurego() *puregoCore {
	c, err := openPurego(coreSharedLib())
	if err != nil {
		harness.Exit(harness.ExitCannot, "%v", err)
	}
	return c
}

func puregoCall(a *harness.Args) {
	callVariant(mustOpenPurego().noop)(a)
}

func puregoBuffer(a *harness.Args) {
	bufferVariant(mustOpenPurego().Buffer)(a)
}

func puregoArgs4(a *harness.Args) {
	c := mustOpenPurego()
	args4Variant(func(a int64, b float64, x int32, s string) (int64, error) { return c.args4(a, b, x, s), nil })(a)
}

func puregoStr(a *harness.Args) {
	str := mustOpenPurego().str
	strVariant(str)(a)
}

// Buffer hands b to rb_ffi_buffer by pointer, without a copy.
func (c *puregoCore) Buffer(b []byte) int64 {
	if len(b) == 0 {
		return c.buffer(nil, 0)
	}
	r := c.buffer(&b[0], uintptr(len(b)))
	// C reads b through the pointer during the call only; keep the slice
	// alive until the call has returned (as go/cgo.go does).
	runtime.KeepAlive(b)
	return r
}

// goCallback is the Go function the core calls back through purego: x + 1
// (roundbench.PureNoop, the callee c-go-callback's //export calls) written
// to *result. purego.NewCallback makes a C function pointer of it once per
// process: the pointers it makes are never freed, and there are at most
// 2000 (its documentation).
var goCallback = sync.OnceValue(func() uintptr {
	return purego.NewCallback(func(ctx unsafe.Pointer, x int64, result *int64) int32 {
		*result = roundbench.PureNoop(x)
		return 0
	})
})

// CallbackLoop has the core call back into Go count times through purego
// (C to Go, a purego.NewCallback function pointer) and returns the sum of
// the results.
func (c *puregoCore) CallbackLoop(count int64) (int64, error) {
	return c.loop(goCallback(), count)
}

// CallbackLoopC runs the same core loop, called the same way, with the
// core's own C callback: the baseline that CallbackLoop is measured
// against.
func (c *puregoCore) CallbackLoopC(count int64) (int64, error) {
	return c.loop(c.noopCallback, count)
}

func (c *puregoCore) loop(cb uintptr, count int64) (int64, error) {
	var sum int64
	if st := c.callbackLoop(cb, nil, count, &sum, nil); st != 0 {
		return 0, fmt.Errorf("rb_ffi_callback_loop(count=%d) through purego: %s (status %d)", count, c.statusName(st), st)
	}
	return sum, nil
}

func puregoCallback(a *harness.Args) {
	c := mustOpenPurego()
	got, err := c.CallbackLoop(10)
	harness.Must(err)
	want, err := c.CallbackLoopC(10)
	harness.Must(err)
	harness.Check("purego callback loop sum", got, want)
	report(a, timedLoop(c.CallbackLoop), timedLoop(c.CallbackLoopC))
}
