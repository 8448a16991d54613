"""cffi API-mode build of the ffi round's callees (py-cffi-api and its
-args4 and -str rows, py-cffi-callback).

API mode compiles a real extension that calls rb_ffi_noop directly, so it
measures cffi's own call path rather than a dlopen'ed symbol (ABI mode,
variant py-cffi-abi). C calls back into Python through an `extern "Python"`
function, which cffi's documentation recommends over ffi.callback() in API
mode; rounds/ffi.py defines it (@ffi.def_extern). rb_error's fields are
declared with `...`, so the compiler lays it out. Built by setup.py
through cffi_modules.
"""

import os
import runpy
import sysconfig

from cffi import FFI

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.relpath(os.path.join(_HERE, "..", ".."))
# An interpreter in a Debian root: its pyconfig.h includes the multiarch one
# (runtimes/buildtable.py, loaded by its path: the package is not built yet).
_MULTIARCH = runpy.run_path(os.path.join(_HERE, "runtimes", "buildtable.py"))["multiarch_flags"](
    sysconfig.get_paths()["include"]
)

ffibuilder = FFI()
ffibuilder.cdef("""
    int64_t rb_ffi_noop(int64_t x);
    int64_t rb_ffi_args4(int64_t a, double b, int32_t c, const char *s);
    const char *rb_ffi_str(int64_t x);
    static const int RB_OK;
    static const int RB_ERR_ARG;
    typedef struct { const char *arg; char msg[...]; ...; } rb_error;
    typedef int (*rb_ffi_callback)(void *ctx, int64_t x, int64_t *result);
    int rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sum, rb_error *err);
    int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result);
    extern "Python" int rb_cffi_callback(void *ctx, int64_t x, int64_t *result);
    """)
ffibuilder.set_source(
    "roundbench._cffi_api",
    '#include "roundbench.h"',
    sources=[os.path.join(_ROOT, "csrc", "ffi.c"), os.path.join(_ROOT, "csrc", "common.c")],
    include_dirs=[os.path.join(_ROOT, "csrc")],
    extra_compile_args=["-O2", *_MULTIARCH],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
