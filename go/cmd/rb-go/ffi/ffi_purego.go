//go:build (linux || darwin || freebsd || netbsd) && go1.25

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ebitengine/purego"

	"roundbench/go/internal/harness"
)

// go-purego and go-purego-buffer: the core's callee called through purego,
// which loads the core's shared library (libroundbench.so, as c-so calls
// it) at run time and calls it without cgo's generated wrappers. With cgo
// enabled, as in this program, purego imports runtime/cgo and uses the C
// runtime's own dlopen (its cgo.go; its README lists this fallback among
// its benefits); the binary calls the same code either way.
func init() {
	harness.Register("ffi", "go-purego", puregoCall, ffiUnits...)
	harness.Register("ffi", "go-purego-buffer", puregoBuffer, ffiUnits...)
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

// puregoCore is the core's two ffi callees bound through purego.
type puregoCore struct {
	noop   func(int64) int64
	buffer func(*byte, uintptr) int64
}

// openPurego loads the library at path with its own symbols (RTLD_LOCAL:
// this program's cgo-linked copy of the core is never the one called) and
// binds both callees; an error says which step failed.
func openPurego(path string) (*puregoCore, error) {
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("purego cannot load the core's shared library %s (make c builds it): %v", path, err)
	}
	var c puregoCore
	for name, fptr := range map[string]any{"rb_ffi_noop": &c.noop, "rb_ffi_buffer": &c.buffer} {
		sym, err := purego.Dlsym(lib, name)
		if err != nil {
			return nil, fmt.Errorf("purego finds no %s in %s: %v", name, path, err)
		}
		purego.RegisterFunc(fptr, sym)
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
