"""cffi API-mode build of the ffi round's callee (variant py-cffi-api).

API mode compiles a real extension that calls rb_ffi_noop directly, so it
measures cffi's own call path rather than a dlopen'ed symbol (ABI mode,
variant py-cffi-abi). Built by setup.py through cffi_modules.
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
ffibuilder.cdef("int64_t rb_ffi_noop(int64_t x);")
ffibuilder.set_source(
    "roundbench._cffi_api",
    '#include "roundbench.h"',
    sources=[os.path.join(_ROOT, "csrc", "ffi.c"), os.path.join(_ROOT, "csrc", "common.c")],
    include_dirs=[os.path.join(_ROOT, "csrc")],
    extra_compile_args=["-O2", *_MULTIARCH],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
