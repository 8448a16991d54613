"""Round ffi: the cost of one trivial call across each boundary.

Every mechanism that reaches C calls the same callee, rb_ffi_noop (x + 1),
compiled alone in csrc/ffi.c and marked noinline. Each run calibrates its
loop to >= 100 ms, subtracts an empty loop of the same count and reports
ns per call (harness.calibrated; the C and Go harnesses use the same rule).

The buffer variants hand a 1 MiB buffer to rb_ffi_buffer, which reads its
first and last byte: with the buffer protocol (py-c-buffer) or a slice
pointer (go-c-slice) nothing is copied; py-c-bytes and go-c-copy pay for a
copy on every call, as code that converts to bytes or C memory first does.

The binding rows are the tools binding authors choose between, each a thin
wrapper written as its documentation recommends, around the same callee
compiled into the module (runtimes/aotbuild.py builds them at `make py` and
before the runs; bindings/ holds their sources): py-c-abi3 (the
METH_FASTCALL function against the limited API of 3.11), py-cython-extern
(a `cdef extern` wrapper; py-cython is round loop's compiled loop, at
another level), py-pybind11, py-nanobind and py-pyo3 (maturin), each with
a -buffer row that hands the 1 MiB over without a copy; and go-purego,
purego calling the callee in libroundbench.so. They are crossings into C: level "core",
declared, since their names would give "ecosystem".

Three more kinds of crossing go both ways through every mechanism that has
them: C calling back (rb_ffi_callback_loop calling back into Python or Go
count times, minus the same loop calling its own C callback: c-py-callback,
py-<tool>-callback, c-go-callback, go-purego-callback), four arguments of
four types into C (rb_ffi_args4: int64, double, int32 and a str, the
<binding>-args4 rows) and a string back from C (rb_ffi_str, a new str or Go
string per call: the <binding>-str rows). Every one of them is a crossing
too, declared level "core".
"""

from __future__ import annotations

import functools
import gc
import itertools
import os
from pathlib import Path
from types import SimpleNamespace

from typing import NamedTuple, Optional

from ..measure import harness
from ..runtimes import aotbuild, interp, programs
from . import first_run, Headline, needs_all, needs_aot, needs_module, Pair, Round, Variant

BUFFER_SIZE = 1 << 20
# Python counts no instructions per call: instr/call is the C and Go runners'.
# left-B: what LEFT_CALLS calls leave on the Python heap (the Go rows' are
# allocs/call).
UNITS = ["ns/call", "left-B"]
LEFT_CALLS = 1_000_000
# A callback row counts its LEFT_CALLS as this many loops of the core.
LEFT_LOOPS = 1000

# The call the args4 and str rows time: the first ffi-args4 and ffi-str
# vectors of testdata/vectors.txt, as the Go rows (go/cmd/rb-go/ffi) time it.
ARGS4 = (41, 2.5, -2, "hello, world")
ARGS4_WANT = 53
STR_X = 41
STR_WANT = "hello, world"


# What each Python mechanism needs of the interpreter it runs under, `exe`
# (None: the children's default; interp.py), and why it cannot run there
# when it lacks it. ctypes and cffi's ABI mode load the callee from the
# extension's own file (it holds the core), so they need it built too.
def _core(exe: Optional[str] = None) -> Optional[str]:
    return interp.extension_missing(exe)


def _loads_core(mechanism: str, module: str, hint: str):
    def check(exe: Optional[str] = None) -> Optional[str]:
        why = interp.module_missing(module, hint, exe)
        if why:
            return why
        why = interp.extension_missing(exe)
        return f"{mechanism} loads the callee from the extension's file: {why}" if why else None

    return check


_CTYPES = _loads_core("ctypes", "ctypes", "that Python was built without libffi")


def _cffi_api(exe: Optional[str] = None) -> Optional[str]:
    return interp.cffi_api_missing(exe)


# Each binding's module (aotbuild.MODULES), the Python module its tool is,
# and how to install it (None: the limited API needs no tool).
BINDINGS = {
    "py-c-abi3": ("ffi_abi3", None, None),
    "py-cython-extern": ("ffi_cython", "Cython", "pip install Cython"),
    "py-pybind11": ("ffi_pybind11", "pybind11", "pip install pybind11"),
    "py-nanobind": ("ffi_nanobind", "nanobind", "pip install nanobind"),
    "py-pyo3": ("ffi_pyo3", "maturin", "pip install maturin; its crates come through cargo"),
}


def _binding(impl: str):
    """The `requires` of binding `impl` and of its -buffer row: its tool is
    installed, and its module is built (aotbuild builds it here, before the
    runs, where it is missing or stale; a failed build is the reason)."""
    module, tool, hint = BINDINGS[impl]
    if tool is None:
        return needs_all(_limited_api, needs_aot(module))
    if impl == "py-pyo3":
        return needs_all(needs_module(tool, hint), _pyo3_interpreter, needs_aot(module))
    return needs_all(needs_module(tool, hint), needs_aot(module))


# The free-threaded CPython that PyO3's pinned release (Cargo.lock) builds
# for first: its build script refuses 3.13t.
PYO3_FREE_THREADED_FROM = (3, 14)


def _pyo3_interpreter(exe: Optional[str] = None) -> Optional[str]:
    """py-pyo3's interpreter: on a free-threaded CPython, one PyO3 builds
    for (said before a build that would fail a minute in, in cargo)."""
    try:
        got = interp.info(exe or interp.executable())
    except interp.BadInterpreter as e:
        return str(e)
    if got.free_threaded and got.feature < PYO3_FREE_THREADED_FROM:
        return (
            f"PyO3 builds for a free-threaded CPython from "
            f"{'.'.join(map(str, PYO3_FREE_THREADED_FROM))} on, and {got.describe()} is older"
        )
    return None


def _limited_api(exe: Optional[str] = None) -> Optional[str]:
    """py-c-abi3's interpreter: a CPython of 3.11 or newer, the limited
    API its module asks for (PyPy's cpyext emulates the full API, not the
    stable ABI)."""
    try:
        got = interp.info(exe or interp.executable())
    except interp.BadInterpreter as e:
        return str(e)
    if got.implementation != "CPython":
        return f"the limited API (abi3) is CPython's, and {got.describe()} is not one"
    if got.feature < (3, 11):
        return f"Py_LIMITED_API 3.11 needs CPython 3.11 or newer, not {got.describe()}"
    if got.free_threaded:
        return (
            f"{got.describe()} is free-threaded, and its build refuses the limited API (abi3) that "
            "py-c-abi3 targets: an abi3 module runs only on the builds with the GIL"
        )
    return None


def _core_so(exe: Optional[str] = None) -> Optional[str]:
    path = programs.build_dir() / "libroundbench.so"
    if not path.is_file():
        return f"go-purego loads the core's shared library, and {path} is not built (make c builds it)"
    return None


class _Rows(NamedTuple):
    """A binding's rows: its variant, what its call is and what its buffer
    row hands the buffer over as; then, where it has them (None where it
    has not), how its -args4 row passes the four arguments, how its -str
    row makes the str, and its callback row as (name, how C calls back)."""

    impl: str
    call: str
    buffer: str
    args4: Optional[str] = None
    string: Optional[str] = None
    callback: Optional[tuple] = None


# The limited-API module has no -args4, -str or callback rows: its calls
# are py-c's under another API, which the py-c-abi3 row already measures.
_BINDING_ROWS = [
    _Rows(
        "py-c-abi3",
        "the extension's METH_FASTCALL function built against the limited API (Py_LIMITED_API 3.11, abi3)",
        "PyObject_GetBuffer in the limited-API module",
    ),
    _Rows(
        "py-cython-extern",
        "Cython, a `cdef extern` declaration wrapped in a def typed int64_t",
        "a const uint8_t[::1] memoryview in Cython",
        "a Cython def typed int64_t, double, int32_t and const char * (c_string_encoding=utf8: the str's own UTF-8)",
        "a Cython def returning the const char *, decoded to a str (c_string_type=unicode)",
        ("py-cython-callback", "a cdef trampoline (except -1) with the Python callable as ctx, in Cython"),
    ),
    _Rows(
        "py-pybind11",
        "pybind11, m.def of the callee's function pointer",
        "py::buffer and request() in pybind11",
        "pybind11, m.def of the callee's function pointer (the str copied into a std::string for its const char *)",
        "pybind11, m.def of the callee's function pointer, its const char * cast to a str",
        ("py-pybind11-callback", "a std::function (pybind11/functional.h) called by a function-pointer trampoline"),
    ),
    _Rows(
        "py-nanobind",
        "nanobind, m.def of the callee's function pointer",
        "an nb::ndarray<const uint8_t> in nanobind",
        "nanobind, m.def of the callee's function pointer (the str's own UTF-8 as its const char *)",
        "nanobind, m.def of the callee's function pointer, its const char * cast to a str",
        (
            "py-nanobind-callback",
            "a std::function (nanobind/stl/function.h) called by a function-pointer trampoline",
        ),
    ),
    _Rows(
        "py-pyo3",
        "PyO3 (Rust) built by maturin, a #[pyfunction] taking an i64",
        "a PyBuffer<u8> argument in PyO3",
        "a PyO3 #[pyfunction] taking i64, f64, i32 and &str (copied into a CString for its NUL)",
        "a PyO3 #[pyfunction] returning the C string checked as UTF-8 (CStr::to_str), made a str",
        ("py-pyo3-callback", 'an extern "C" trampoline calling the callable (Bound::call1) in PyO3'),
    ),
]

# Each binding row beyond a binding's call and buffer rows, and the
# binding whose module it calls.
ROW_BINDING = {
    **{f"{r.impl}-args4": r.impl for r in _BINDING_ROWS if r.args4},
    **{f"{r.impl}-str": r.impl for r in _BINDING_ROWS if r.string},
    **{r.callback[0]: r.impl for r in _BINDING_ROWS if r.callback},
}

_ARGS4 = "4 mixed arguments into C (int64, float, int32, str)"
_STR = "a string back from C, a new str each call"
_CALLBACK = "C calling back into Python, minus a C-to-C callback loop"


def _binding_variants() -> list:
    out = []
    for r in _BINDING_ROWS:
        req = _binding(r.impl)
        out.append(V(r.impl, "python", f"{r.call}, built before the runs", requires=req, level="core"))
        out.append(
            V(
                f"{r.impl}-buffer",
                "python",
                f"1 MiB bytearray handed over zero-copy: {r.buffer}",
                requires=req,
                level="core",
            )
        )
        if r.args4:
            out.append(V(f"{r.impl}-args4", "python", f"{_ARGS4}: {r.args4}", requires=req, level="core"))
        if r.string:
            out.append(V(f"{r.impl}-str", "python", f"{_STR}: {r.string}", requires=req, level="core"))
        if r.callback:
            name, how = r.callback
            out.append(V(name, "python", f"{_CALLBACK}: {how}", requires=req, level="core"))
    return out


V = Variant
# Every row a binding tool's module runs (ffi.BINDINGS): the call, its buffer,
# args4, str and callback rows. Where the tool is missing, each is a skip row.
BINDING_VARIANTS = _binding_variants()
BINDING_ROWS = frozenset(v.name for v in BINDING_VARIANTS)
# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(2, {}, "core", "for one call into C", verb="is {x} cheaper than"),
]

# The Python rows of each kind of crossing that every mechanism has: by hand
# in the extension, through ctypes and cffi's API mode, through each binding.
_PY_ARGS4 = (
    "py-c-args4",
    "py-ctypes-args4",
    "py-cffi-api-args4",
    *(f"{r.impl}-args4" for r in _BINDING_ROWS if r.args4),
)
_PY_STR = ("py-c-str", "py-ctypes-str", "py-cffi-api-str", *(f"{r.impl}-str" for r in _BINDING_ROWS if r.string))
_PY_CALLBACKS = (
    "c-py-callback",
    "py-ctypes-callback",
    "py-cffi-callback",
    *(r.callback[0] for r in _BINDING_ROWS if r.callback),
)

# The score pairs each kind of crossing with its counterpart: a call into C
# from Python against one from Go (the round's row), then a callback from C
# into each language, four mixed arguments and a string back, then a buffer
# handed over without a copy.
PAIRS = [
    Pair(
        "a call into C",
        ("py-c-noargs", "py-c-o", "py-c-fastcall", "py-c-varargs"),
        ("go-c", "go-c-noescape", "go-c-nocallback"),
    ),
    Pair("C calling back", _PY_CALLBACKS, ("c-go-callback", "go-purego-callback")),
    Pair("4 mixed arguments into C", _PY_ARGS4, ("go-c-args4", "go-purego-args4")),
    Pair("a string back from C", _PY_STR, ("go-c-str", "go-purego-str")),
    Pair("1 MiB to C, zero-copy", ("py-c-buffer",), ("go-c-slice",)),
    Pair(
        "a call into C through a binding tool",
        ("py-c-abi3", "py-cython-extern", "py-pybind11", "py-nanobind", "py-pyo3"),
        ("go-c", "go-purego"),
    ),
    Pair(
        "1 MiB to C through a binding tool",
        (
            "py-c-abi3-buffer",
            "py-cython-extern-buffer",
            "py-pybind11-buffer",
            "py-nanobind-buffer",
            "py-pyo3-buffer",
        ),
        ("go-c-slice", "go-purego-buffer"),
    ),
]

ROUND = Round(
    name="ffi",
    title="ffi: the cost of one trivial call across each boundary",
    explain=(
        "ns per call with the loop's own cost subtracted; every mechanism that reaches C calls "
        "the same noinline callee (x + 1); buffer rows hand over 1 MiB."
    ),
    variants=[
        V("c-direct", "rb-c", "C calling the callee, statically linked"),
        V("c-so", "rb-c-so", "C calling the callee in libroundbench.so (through the PLT)"),
        V("go", "rb-go", "a Go function call (//go:noinline)"),
        V("go-c", "rb-go", "a cgo call"),
        V("go-c-noescape", "rb-go", "a cgo call with #cgo noescape"),
        V("go-c-nocallback", "rb-go", "a cgo call with #cgo nocallback"),
        V("c-go-callback", "rb-go", "C calling back into Go (//export), minus a C-to-C callback loop"),
        V("go-c-slice", "rb-go", "1 MiB Go slice handed to C by pointer (zero-copy)"),
        V("go-c-copy", "rb-go", "1 MiB Go slice copied to C memory (C.CBytes) and freed, per call"),
        V("go-c-ptr", "rb-go", "a cgo call with a pointer to a local, which the callee writes x + 1 to"),
        V("go-c-ptr-noescape", "rb-go", "the same with #cgo noescape alone (the local still escapes)"),
        V("go-c-ptr-nocallback", "rb-go", "the same with #cgo nocallback"),
        V("go-c-ptr-both", "rb-go", "the same with #cgo noescape and nocallback: the local stays on the stack"),
        V(
            "go-purego",
            "rb-go",
            "purego calling the callee in libroundbench.so (loaded at run time, no cgo wrapper)",
            requires=_core_so,
            level="core",
        ),
        V(
            "go-purego-buffer",
            "rb-go",
            "1 MiB Go slice handed by pointer through purego (zero-copy)",
            requires=_core_so,
            level="core",
        ),
        V(
            "go-c-args4",
            "rb-go",
            "4 mixed arguments into C (int64, float64, int32, string): a cgo call, the string a C.CString per call",
            level="core",
        ),
        V(
            "go-c-str",
            "rb-go",
            "a string back from C, a new Go string each call: a cgo call and C.GoString",
            level="core",
        ),
        V(
            "go-purego-args4",
            "rb-go",
            "4 mixed arguments into C (int64, float64, int32, string) through purego, which copies the string for C",
            requires=_core_so,
            level="core",
        ),
        V(
            "go-purego-str",
            "rb-go",
            "a string back from C through purego, which copies the char * into a new Go string",
            requires=_core_so,
            level="core",
        ),
        V(
            "go-purego-callback",
            "rb-go",
            "C calling back into Go through a purego.NewCallback function pointer, the loop called through purego, "
            "minus the same loop calling a C callback",
            requires=_core_so,
            level="core",
        ),
        V("py", "python", "a Python function call"),
        V("py-c-noargs", "python", "extension function, METH_NOARGS", requires=_core),
        V("py-c-o", "python", "extension function, METH_O", requires=_core),
        V("py-c-fastcall", "python", "extension function, METH_FASTCALL", requires=_core),
        V("py-c-varargs", "python", "extension function, METH_VARARGS (PyArg_ParseTuple)", requires=_core),
        V("py-ctypes", "python", "ctypes, argtypes and restype set", requires=_CTYPES),
        V(
            "py-cffi-abi",
            "python",
            "cffi ABI mode (dlopen)",
            requires=_loads_core("cffi's ABI mode", "cffi", "pip install cffi"),
        ),
        V("py-cffi-api", "python", "cffi API mode (compiled)", requires=_cffi_api),
        V(
            "c-py-callback",
            "python",
            "C calling back into Python, minus a C-to-C callback loop: the extension's C trampoline",
            requires=_core,
        ),
        V(
            "py-c-args4",
            "python",
            f"{_ARGS4}: the extension's METH_FASTCALL function (the str's own UTF-8)",
            requires=_core,
            level="core",
        ),
        V("py-c-str", "python", f"{_STR}: the extension's METH_FASTCALL function", requires=_core, level="core"),
        V(
            "py-ctypes-args4",
            "python",
            f"{_ARGS4}: ctypes, argtypes set, the str encoded by its argtype's from_param",
            requires=_CTYPES,
            level="core",
        ),
        V(
            "py-ctypes-str",
            "python",
            f"{_STR}: ctypes, restype c_char_p, the bytes decoded by errcheck",
            requires=_CTYPES,
            level="core",
        ),
        V(
            "py-ctypes-callback",
            "python",
            f"{_CALLBACK}: a ctypes.CFUNCTYPE of a Python function",
            requires=_CTYPES,
            level="core",
        ),
        V(
            "py-cffi-api-args4",
            "python",
            f"{_ARGS4}: cffi API mode, the str encoded to bytes per call",
            requires=_cffi_api,
            level="core",
        ),
        V(
            "py-cffi-api-str",
            "python",
            f"{_STR}: cffi API mode, ffi.string() decoded per call",
            requires=_cffi_api,
            level="core",
        ),
        V(
            "py-cffi-callback",
            "python",
            f'{_CALLBACK}: cffi API mode, an extern "Python" function (@ffi.def_extern)',
            requires=_cffi_api,
            level="core",
        ),
        V(
            "py-c-buffer",
            "python",
            "1 MiB bytearray handed to C by the buffer protocol (zero-copy)",
            requires=_core,
        ),
        V("py-c-bytes", "python", "1 MiB bytearray copied to bytes, then handed to C, per call", requires=_core),
        *BINDING_VARIANTS,
    ],
    sizes=[{}],
    quick=[{}],
    metric="ns/call",
    headlines=HEADLINES,
    pairs=PAIRS,
    order=4,
    units={"ns/call": "lower", "instr/call": "lower", "allocs/call": "lower", "left-B": "lower"},
    metric_explain=(
        "ns/call: time of one call, loop overhead subtracted; allocs/call (Go): heap allocations per call; "
        "left-B (Python): bytes a million calls leave on the Python heap"
    ),
    reference="c-direct",
    cross_check=False,
    # The first run of a cell counts left-B (_counts_left).
    run_index_env=True,
)


def _measure(args: harness.Args, op, empty, check_value, want, left: Optional[int] = None) -> None:
    harness.check(f"{args.impl} callee result", check_value, want)
    ns, count = harness.calibrated(op, empty)
    harness.result(f"{args.impl}-ok")
    metrics = {"ns/call": ns}
    if left is not None:
        metrics["left-B"] = left
    harness.emit(args, count, ns, metrics)


def left_behind(f, *callee_args, calls: int = LEFT_CALLS) -> Optional[int]:
    """The bytes that `calls` calls of f leave allocated on the Python heap
    (tracemalloc's traced total after a collection, against before): a
    binding whose conversions leak grows it, one that frees what it makes
    leaves about 0. Memory a binding takes from malloc itself is not traced;
    the row's peak RSS covers it. None where tracemalloc is missing (PyPy)."""
    try:
        import tracemalloc  # only for this count: tracing slows every allocation
    except ImportError:
        return None
    f(*callee_args)  # a first call may cache what every later one reuses
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        # repeat() makes no object per turn, as range() does past 256: each
        # would be traced, and tracing a million of them took 20 times as
        # long as the calls themselves.
        for _ in itertools.repeat(None, calls):
            f(*callee_args)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def _counts_left(count_left: bool = True) -> bool:
    """Whether this run counts left-B: its cell's first run only. The count
    is a property of the binding, not a timing, and tracing a million
    calls of a binding that allocates per call (ctypes: some 20 s) would
    cost more than every timing of the row."""
    return count_left and first_run()


def _call(args: harness.Args, f, *callee_args, want: int, count_left: bool = True) -> None:
    """Times f(*callee_args) against an empty loop and, with count_left, on
    the cell's first run, counts what LEFT_CALLS calls leave behind
    (left_behind)."""
    timer = harness.call_timer(f, *callee_args)
    left = left_behind(f, *callee_args) if _counts_left(count_left) else None
    _measure(args, timer, harness.empty_timer, f(*callee_args), want, left)


@harness.implements("ffi", "py", units=UNITS)
def run_py(args):
    from ..pure.ffi import noop

    _call(args, noop, 41, want=42)


@harness.implements("ffi", "py-c-noargs", units=UNITS)
def run_py_c_noargs(args):
    from .._core import ffi_noargs

    _call(args, ffi_noargs, want=1)


@harness.implements("ffi", "py-c-o", units=UNITS)
def run_py_c_o(args):
    from .._core import ffi_o

    _call(args, ffi_o, 41, want=42)


@harness.implements("ffi", "py-c-fastcall", units=UNITS)
def run_py_c_fastcall(args):
    from .._core import ffi_fastcall

    _call(args, ffi_fastcall, 41, want=42)


@harness.implements("ffi", "py-c-varargs", units=UNITS)
def run_py_c_varargs(args):
    from .._core import ffi_varargs

    _call(args, ffi_varargs, 41, want=42)


def _core_path() -> str:
    # the extension loads only in the variants that call it
    from .. import _core

    return _core.__file__


@harness.implements("ffi", "py-ctypes", units=UNITS)
def run_py_ctypes(args):
    import ctypes

    lib = ctypes.CDLL(_core_path())
    f = lib.rb_ffi_noop
    f.argtypes = [ctypes.c_int64]
    f.restype = ctypes.c_int64
    _call(args, f, 41, want=42)


@harness.implements("ffi", "py-cffi-abi", units=UNITS)
def run_py_cffi_abi(args):
    import cffi

    ffi = cffi.FFI()
    ffi.cdef("int64_t rb_ffi_noop(int64_t x);")
    lib = ffi.dlopen(_core_path())
    _call(args, lib.rb_ffi_noop, 41, want=42)


@harness.implements("ffi", "py-cffi-api", units=UNITS)
def run_py_cffi_api(args):
    try:
        from .._cffi_api import lib
    except ImportError as e:
        raise harness.CannotRun(f"cffi API module not built: {e}") from None
    _call(args, lib.rb_ffi_noop, 41, want=42)


def _callback(args: harness.Args, loop, callee) -> None:
    """Times loop(callee, count), the core calling callee back count times,
    against loop(None, count), the same core loop calling its own C no-op,
    so that what remains is the crossing into Python and the Python call.
    The callee's sum over a short loop must equal the baseline's; what
    LEFT_CALLS callbacks leave behind is counted over LEFT_LOOPS loops."""

    def op(count):
        return harness.time_once(lambda: loop(callee, count))[0]

    def empty(count):
        return harness.time_once(lambda: loop(None, count))[0]

    left = left_behind(loop, callee, LEFT_CALLS // LEFT_LOOPS, calls=LEFT_LOOPS) if _counts_left() else None
    _measure(args, op, empty, loop(callee, 10), loop(None, 10), left)


@harness.implements("ffi", "c-py-callback", units=UNITS)
def run_c_py_callback(args):
    from .._core import ffi_callback_loop
    from ..pure.ffi import noop

    _callback(args, ffi_callback_loop, noop)


@harness.implements("ffi", "py-c-args4", units=UNITS)
def run_py_c_args4(args):
    from .._core import ffi_args4

    _call(args, ffi_args4, *ARGS4, want=ARGS4_WANT)


@harness.implements("ffi", "py-c-str", units=UNITS)
def run_py_c_str(args):
    from .._core import ffi_str

    _call(args, ffi_str, STR_X, want=STR_WANT)


def _crossing(args: harness.Args, core, callee) -> None:
    """Row args.impl of a binding `core` (a module, or ctypes_core's or
    cffi_core's namespace, with args4, string and callback_loop): its -args4
    row, its -str row, or its callback row with `callee` called back."""
    if args.impl.endswith("-args4"):
        _call(args, core.args4, *ARGS4, want=ARGS4_WANT)
    elif args.impl.endswith("-str"):
        _call(args, core.string, STR_X, want=STR_WANT)
    else:
        _callback(args, core.callback_loop, callee)


class _Utf8:
    """A ctypes argtype for a `const char *` that takes a str: ctypes'
    c_char_p takes only bytes, and an argtype's from_param is how ctypes'
    documentation converts an argument of another type."""

    @classmethod
    def from_param(cls, s):
        if not isinstance(s, str):
            raise TypeError(f"a str is required, not {type(s).__name__}")
        return s.encode()


def _decoded(result, func, arguments):
    """A ctypes errcheck: the c_char_p restype's bytes as a str."""
    return result.decode()


@functools.lru_cache(maxsize=None)
def ctypes_core():
    """The core's args4, string and callback_loop(func, count) through
    ctypes, from the extension's file (it holds the core), and `callee`, the
    Python callee as a C function pointer (a CFUNCTYPE: x + 1 written to
    *result). callback_loop's func is such a pointer, or None for the core's
    own C callback. A ctypes callback cannot raise into its caller (ctypes
    reports the exception as unraisable and hands C no defined result), so
    the callee must not fail; a failed loop raises RuntimeError with the
    core's status name (ctypes has no rb_error layout)."""
    import ctypes  # only in the ctypes rows' children and the tests

    lib = ctypes.CDLL(_core_path())
    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))
    args4 = lib.rb_ffi_args4
    args4.argtypes = [ctypes.c_int64, ctypes.c_double, ctypes.c_int32, _Utf8]
    args4.restype = ctypes.c_int64
    string = lib.rb_ffi_str
    string.argtypes = [ctypes.c_int64]
    string.restype = ctypes.c_char_p
    string.errcheck = _decoded
    loop = lib.rb_ffi_callback_loop
    loop.argtypes = [callback, ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p]
    loop.restype = ctypes.c_int
    status_name = lib.rb_status_name
    status_name.argtypes = [ctypes.c_int]
    status_name.restype = ctypes.c_char_p
    noop_callback = callback(("rb_ffi_noop_callback", lib))

    def callback_loop(func, count):
        total = ctypes.c_int64()
        st = loop(noop_callback if func is None else func, None, count, ctypes.byref(total), None)
        if st != 0:
            raise RuntimeError(f"rb_ffi_callback_loop(count={count}): {status_name(st).decode()} (status {st})")
        return total.value

    def callee(ctx, x, result):
        result[0] = x + 1
        return 0

    return SimpleNamespace(
        args4=args4, string=string, callback_loop=callback_loop, callback=callback, callee=callback(callee)
    )


@functools.lru_cache(maxsize=None)
def cffi_core():
    """The core's args4, string and callback_loop(func, count) through
    cffi's API mode (roundbench._cffi_api), and `callee`, the Python callee
    as the extern "Python" function rb_cffi_callback (x + 1 written to
    *result), defined here once per process. cffi passes bytes, not str, to
    a char * and gives a char * back as cdata: args4 encodes its str and
    string decodes ffi.string(), on every call, as cffi's users write it.
    callback_loop's func is a C function pointer (the callee), or None for
    the core's own C callback. A callee that raises makes cffi print the
    exception and return 1 (def_extern's error value), which stops the
    loop: callback_loop raises RuntimeError with the core's message.
    CannotRun where the module is missing or older than these
    declarations."""
    try:
        from .._cffi_api import ffi, lib  # a build output: only where these rows run

        f_args4, f_str, f_loop = lib.rb_ffi_args4, lib.rb_ffi_str, lib.rb_ffi_callback_loop
        ok, arg_error = lib.RB_OK, lib.RB_ERR_ARG
        noop_callback = ffi.addressof(lib, "rb_ffi_noop_callback")
    except (ImportError, AttributeError) as e:
        raise harness.CannotRun(f"cffi API module not built, or built before these rows (make py): {e}") from None

    @ffi.def_extern(name="rb_cffi_callback", error=1)
    def _callee(ctx, x, result):
        result[0] = x + 1
        return 0

    def args4(a, b, c, s, f=f_args4):
        return f(a, b, c, s.encode())

    def string(x, f=f_str, text=ffi.string):
        return text(f(x)).decode()

    def callback_loop(func, count):
        total, err = ffi.new("int64_t *"), ffi.new("rb_error *")
        st = f_loop(noop_callback if func is None else func, ffi.NULL, count, total, err)
        if st != ok:
            msg = ffi.string(err.msg).decode()
            if st == arg_error and err.arg:
                raise ValueError(f"callback_loop() argument '{ffi.string(err.arg).decode()}' {msg}")
            raise RuntimeError(f"callback_loop(): {msg}")
        return total[0]

    return SimpleNamespace(args4=args4, string=string, callback_loop=callback_loop, callee=lib.rb_cffi_callback)


@harness.implements("ffi", "py-ctypes-args4", "py-ctypes-str", "py-ctypes-callback", units=UNITS)
def run_py_ctypes_crossing(args):
    core = ctypes_core()
    _crossing(args, core, core.callee)


@harness.implements("ffi", "py-cffi-api-args4", "py-cffi-api-str", "py-cffi-callback", units=UNITS)
def run_py_cffi_crossing(args):
    core = cffi_core()
    _crossing(args, core, core.callee)


def _buffer():
    buf = bytearray(os.urandom(BUFFER_SIZE))
    return buf, buf[0] + buf[-1]


@harness.implements("ffi", "py-c-buffer", units=UNITS)
def run_py_c_buffer(args):
    from .._core import ffi_buffer

    buf, want = _buffer()
    _call(args, ffi_buffer, buf, want=want)


@harness.implements("ffi", "py-c-bytes", units=UNITS)
def run_py_c_bytes(args):
    from .._core import ffi_buffer

    buf, want = _buffer()

    def copy_then_call(b=buf, f=ffi_buffer):
        return f(bytes(b))

    # The copy is the point: bytes(b) is inside the timed call.
    # A million 1 MiB copies would take a minute: the copy is freed each
    # call, and this row's peak RSS says what it holds.
    _call(args, copy_then_call, want=want, count_left=False)


def _bound(impl: str):
    """Binding `impl`'s module as aotbuild built it for this interpreter,
    its tool and build time reported as facts; CannotRun where it is not
    built."""
    try:
        module, record = aotbuild.load(BINDINGS[impl][0])
    except aotbuild.NotBuilt as e:
        raise harness.CannotRun(str(e)) from None
    harness.fact("tool", f"{record['tool']} {record['version']}")
    harness.fact("build-ns", str(record["build_ns"]))
    return module


def _binding_call(args: harness.Args, impl: str) -> None:
    _call(args, _bound(impl).noop, 41, want=42)


def _binding_buffer(args: harness.Args, impl: str) -> None:
    buf, want = _buffer()
    _call(args, _bound(impl).buffer, buf, want=want)


@harness.implements("ffi", *ROW_BINDING, units=UNITS)
def run_binding_crossing(args):
    from ..pure.ffi import noop

    _crossing(args, _bound(ROW_BINDING[args.impl]), noop)


@harness.implements("ffi", "py-c-abi3", units=UNITS)
def run_py_abi3(args):
    _binding_call(args, "py-c-abi3")


@harness.implements("ffi", "py-c-abi3-buffer", units=UNITS)
def run_py_abi3_buffer(args):
    _binding_buffer(args, "py-c-abi3")


@harness.implements("ffi", "py-cython-extern", units=UNITS)
def run_py_cython_extern(args):
    _binding_call(args, "py-cython-extern")


@harness.implements("ffi", "py-cython-extern-buffer", units=UNITS)
def run_py_cython_extern_buffer(args):
    _binding_buffer(args, "py-cython-extern")


@harness.implements("ffi", "py-pybind11", units=UNITS)
def run_py_pybind11(args):
    _binding_call(args, "py-pybind11")


@harness.implements("ffi", "py-pybind11-buffer", units=UNITS)
def run_py_pybind11_buffer(args):
    _binding_buffer(args, "py-pybind11")


@harness.implements("ffi", "py-pyo3", units=UNITS)
def run_py_pyo3(args):
    _binding_call(args, "py-pyo3")


@harness.implements("ffi", "py-pyo3-buffer", units=UNITS)
def run_py_pyo3_buffer(args):
    _binding_buffer(args, "py-pyo3")


@harness.implements("ffi", "py-nanobind", units=UNITS)
def run_py_nanobind(args):
    _binding_call(args, "py-nanobind")


@harness.implements("ffi", "py-nanobind-buffer", units=UNITS)
def run_py_nanobind_buffer(args):
    _binding_buffer(args, "py-nanobind")


def report_section(size: dict, cells: dict, config: dict) -> str:
    """Why the instr/call column is empty, where it is."""
    perf = config.get("perf-instructions", "unknown")
    if perf.startswith("yes"):
        return ""
    return f"Instructions per call (instr/call) are not reported: {perf}.\n"


# ---- the round's pictures -----------------------------------------------------------


def _ffi_direction(impl: str) -> str:
    lang, _, how = impl.partition("-")
    names = {"py": "Python", "go": "Go", "c": "C"}
    if lang == "c" and how.endswith("-callback"):
        return f"C → {names[how.split('-')[0]]}"
    if how.endswith("-callback"):  # py-cffi-callback, go-purego-callback: C calls back
        return f"C → {names[lang]}"
    if lang == "c":
        return "C → C"
    if not how:
        return f"{names[lang]} → {names[lang]}"
    if any(w in how for w in ("buffer", "bytes", "slice", "copy")):
        return f"{names[lang]} → C, 1 MiB"
    return f"{names[lang]} → C"


DIRECTION_COLOURS = {
    "C → C": "#4d4d4d",
    "Go → Go": "#2ca02c",
    "Python → Python": "#98df8a",
    "Go → C": "#1f77b4",
    "Python → C": "#aec7e8",
    "C → Go": "#9467bd",
    "C → Python": "#c5b0d5",
    "Go → C, 1 MiB": "#8c564b",
    "Python → C, 1 MiB": "#c49c94",
}


def charts(sizes: dict, out_dir: Path) -> list:
    """The round's own pictures (report.draw calls it with the round's
    size -> variant -> Cell)."""
    cells = next(iter(sizes.values()))
    rows = [(c.impl, c.summary("ns/call")) for c in cells.values()]
    return ladder(
        rows,
        out_dir,
        "ffi-ladder",
        "ffi: the cost of one call across each boundary, both directions",
        "ffi: ns per call by mechanism",
        "Each mechanism's median ns per call with its 95% CI, coloured by direction (caller → callee); "
        "the 1 MiB rows hand a buffer over. Lower is better.",
    )


def ladder(rows: list, out_dir: Path, name: str, title: str, alt: str, caption: str) -> list:
    """The ladder: one bar per mechanism, (variant name, stats.Summary of
    its ns/call) each, fastest at the top, with its 95% CI and coloured by
    direction (_ffi_direction reads it from the name). `roundbench crossing`
    draws its symbol's with it too."""
    # the pictures (matplotlib) load only when the report draws them
    from ..results import charts as drawing

    rows = sorted([(i, s) for i, s in rows if s is not None], key=lambda r: r[1].median)
    if not rows:
        return []
    plt = drawing.pyplot()
    # the pictures (matplotlib) load only when the report draws them
    from matplotlib.patches import Patch

    heights = [0.27 * len(rows) + 0.2]
    width, height = 8.0, drawing.TOP_IN + drawing.BOTTOM_IN + 0.25 + heights[0]
    fig, ax = plt.subplots(figsize=(width, height))
    drawing.layout(fig, width, height, 0.3 + drawing.CHAR_IN * max(len(i) for i, _ in rows), heights)
    ys = list(range(len(rows)))[::-1]
    seen = []
    for y, (impl, s) in zip(ys, rows):
        d = _ffi_direction(impl)
        if d not in seen:
            seen.append(d)
        err = [[max(s.median - s.ci_low, 0)], [max(s.ci_high - s.median, 0)]] if s.ci_low is not None else None
        ax.barh(y, s.median, color=DIRECTION_COLOURS.get(d, "#888888"), xerr=err, error_kw={"capsize": 2})
        top = s.ci_high if s.ci_high is not None else s.median
        ax.annotate(
            f"{drawing.short(s.median)} ns",
            (top, y),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    ax.set_yticks(ys)
    ax.set_yticklabels([impl for impl, _ in rows])
    if not drawing.log_if_spread(ax, [s.median for _, s in rows]):
        ax.set_xlim(0, max(s.median for _, s in rows) * 1.25)
    else:
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 1.8)
    ax.set_xlabel("ns per call, loop overhead subtracted (lower is better)")
    ax.set_title(f"{title}\nns per call: lower is better")
    ax.grid(axis="x", alpha=0.3)
    drawing.figure_legend(fig, [Patch(color=DIRECTION_COLOURS.get(d, "#888888"), label=d) for d in seen])
    return [drawing.figure(plt, fig, out_dir, name, alt, caption)]
