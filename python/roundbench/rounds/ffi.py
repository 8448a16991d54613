"""Round ffi: the cost of one trivial call across each boundary.

Every mechanism that reaches C calls the same callee, rb_ffi_noop (x + 1),
compiled alone in csrc/ffi.c and marked noinline. Each run calibrates its
loop to >= 100 ms, subtracts an empty loop of the same count and reports
ns per call (harness.calibrated; the C and Go harnesses use the same rule).

The buffer variants hand a 1 MiB buffer to rb_ffi_buffer, which reads its
first and last byte: with the buffer protocol (py-c-buffer) or a slice
pointer (go-c-slice) nothing is copied; py-c-bytes and go-c-copy pay for a
copy on every call, as code that converts to bytes or C memory first does.
"""

from __future__ import annotations

import os

from .. import harness
from . import Round, Variant, needs_module

BUFFER_SIZE = 1 << 20


def _cffi_api() -> str | None:
    return needs_module("roundbench._cffi_api", "rebuild with cffi installed: make build")()


V = Variant
ROUND = Round(
    name="ffi",
    title="ffi: the cost of one trivial call across each boundary",
    explain=(
        "ns per call with the loop's own cost subtracted; every mechanism that reaches C calls "
        "the same noinline callee (x + 1); buffer rows hand over 1 MiB."
    ),
    variants=[
        V("c-direct", "c", "C calling the callee, statically linked"),
        V("c-so", "c", "C calling the callee in libroundbench.so (through the PLT)", program="rb-c-so"),
        V("go", "go", "a Go function call (//go:noinline)"),
        V("go-c", "go", "a cgo call"),
        V("go-c-noescape", "go", "a cgo call with #cgo noescape"),
        V("go-c-nocallback", "go", "a cgo call with #cgo nocallback"),
        V("c-go-callback", "go", "C calling back into Go (//export), minus a C-to-C callback loop"),
        V("go-c-slice", "go", "1 MiB Go slice handed to C by pointer (zero-copy)"),
        V("go-c-copy", "go", "1 MiB Go slice copied to C memory (C.CBytes) and freed, per call"),
        V("py", "py", "a Python function call"),
        V("py-c-noargs", "py", "extension function, METH_NOARGS"),
        V("py-c-o", "py", "extension function, METH_O"),
        V("py-c-fastcall", "py", "extension function, METH_FASTCALL"),
        V("py-c-varargs", "py", "extension function, METH_VARARGS (PyArg_ParseTuple)"),
        V("py-ctypes", "py", "ctypes, argtypes and restype set"),
        V("py-cffi-abi", "py", "cffi ABI mode (dlopen)", requires=needs_module("cffi", "pip install cffi")),
        V("py-cffi-api", "py", "cffi API mode (compiled)", requires=_cffi_api),
        V("c-py-callback", "py", "C calling back into Python, minus a C-to-C callback loop"),
        V("py-c-buffer", "py", "1 MiB bytearray handed to C by the buffer protocol (zero-copy)"),
        V("py-c-bytes", "py", "1 MiB bytearray copied to bytes, then handed to C, per call"),
    ],
    sizes=[{}],
    quick=[{}],
    metric="ns/call",
    units={"ns/call": "lower", "instr/call": "lower"},
    metric_explain="ns/call: time of one call, loop overhead subtracted",
    reference="c-direct",
    cross_check=False,
)


def _measure(args: harness.Args, op, empty, check_value, want) -> None:
    harness.check(f"{args.impl} callee result", check_value, want)
    ns, count = harness.calibrated(op, empty)
    harness.result(f"{args.impl}-ok")
    harness.emit(args, count, ns, {"ns/call": ns})


def _call(args: harness.Args, f, *callee_args, want: int) -> None:
    _measure(args, harness.call_timer(f, *callee_args), harness.empty_timer, f(*callee_args), want)


def run_py(args):
    from ..pure.ffi import noop

    _call(args, noop, 41, want=42)


def run_py_c_noargs(args):
    from .._core import ffi_noargs

    _call(args, ffi_noargs, want=1)


def run_py_c_o(args):
    from .._core import ffi_o

    _call(args, ffi_o, 41, want=42)


def run_py_c_fastcall(args):
    from .._core import ffi_fastcall

    _call(args, ffi_fastcall, 41, want=42)


def run_py_c_varargs(args):
    from .._core import ffi_varargs

    _call(args, ffi_varargs, 41, want=42)


def _core_path() -> str:
    from .. import _core

    return _core.__file__


def run_py_ctypes(args):
    import ctypes

    lib = ctypes.CDLL(_core_path())
    f = lib.rb_ffi_noop
    f.argtypes = [ctypes.c_int64]
    f.restype = ctypes.c_int64
    _call(args, f, 41, want=42)


def run_py_cffi_abi(args):
    import cffi

    ffi = cffi.FFI()
    ffi.cdef("int64_t rb_ffi_noop(int64_t x);")
    lib = ffi.dlopen(_core_path())
    _call(args, lib.rb_ffi_noop, 41, want=42)


def run_py_cffi_api(args):
    try:
        from .._cffi_api import lib
    except ImportError as e:
        raise harness.CannotRun(f"cffi API module not built: {e}") from None
    _call(args, lib.rb_ffi_noop, 41, want=42)


def run_c_py_callback(args):
    from .._core import ffi_callback_loop
    from ..pure.ffi import noop

    # The core calls noop(i) `count` times; the baseline is the same core
    # loop calling its own C no-op, so what remains is the crossing into
    # Python and the Python call.
    def op(count):
        return harness.time_once(lambda: ffi_callback_loop(noop, count))[0]

    def empty(count):
        return harness.time_once(lambda: ffi_callback_loop(None, count))[0]

    got = ffi_callback_loop(noop, 10)
    _measure(args, op, empty, got, ffi_callback_loop(None, 10))


def _buffer():
    buf = bytearray(os.urandom(BUFFER_SIZE))
    return buf, buf[0] + buf[-1]


def run_py_c_buffer(args):
    from .._core import ffi_buffer

    buf, want = _buffer()
    _call(args, ffi_buffer, buf, want=want)


def run_py_c_bytes(args):
    from .._core import ffi_buffer

    buf, want = _buffer()

    def copy_then_call(b=buf, f=ffi_buffer):
        return f(bytes(b))

    # The copy is the point: bytes(b) is inside the timed call.
    _call(args, copy_then_call, want=want)


PY_VARIANTS = {
    "py": run_py,
    "py-c-noargs": run_py_c_noargs,
    "py-c-o": run_py_c_o,
    "py-c-fastcall": run_py_c_fastcall,
    "py-c-varargs": run_py_c_varargs,
    "py-ctypes": run_py_ctypes,
    "py-cffi-abi": run_py_cffi_abi,
    "py-cffi-api": run_py_cffi_api,
    "c-py-callback": run_c_py_callback,
    "py-c-buffer": run_py_c_buffer,
    "py-c-bytes": run_py_c_bytes,
}
