"""`python -m roundbench.crossing.child crossing IMPL sym=NAME`: the Python
caller of `roundbench crossing`, one mechanism per run, with the suite's
Python harness (the same calibrated loop, empty-loop subtraction and result
line as the ffi round's Python variants).

What it calls comes from the environment (gen.py's ENV_*): the
declaration, the library, the arguments, the buffer's size, and the folder
of the modules built for this interpreter (the extension, cffi's API
module, and the pybind11, nanobind, Cython and PyO3 modules). Each
mechanism is set up as its documentation and a binding author would:
ctypes with argtypes and restype, cffi's cdef in ABI mode, cffi's compiled
module in API mode, each compiled module's function; a buffer is made
once, before the loop, in the form each mechanism passes without a copy
(bytes for the compiled modules, which take it through the buffer
protocol, a ctypes array over a bytearray, cffi's from_buffer). In Python no call can be dropped by the
interpreter, so the loop is the ffi round's (harness.call_timer): the
result is not folded into an accumulator, which would time an addition of
Python integers too.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

from ..measure import harness
from ..run import child as child_main
from . import decl as d
from . import gen

UNITS = ["ns/call"]


class _Setup:
    """The declaration, the library, the values and the buffer, from the
    environment."""

    def __init__(self):
        try:
            self.decl = d.parse(os.environ[gen.ENV_DECLARATION])
            self.library = os.environ[gen.ENV_LIBRARY]
            raw = os.environ.get(gen.ENV_ARGS, "").split()
        except KeyError as e:
            raise harness.UsageError(f"crossing: {e.args[0]} is not set") from None
        except d.Unsupported as e:
            raise harness.UsageError(f"crossing: {e}") from None
        try:
            self.values = d.values(self.decl, raw)
        except ValueError as e:
            raise harness.UsageError(f"crossing: {e}") from None
        self.size = 0
        if self.decl.buffer is not None:
            try:
                self.size = int(os.environ[gen.ENV_BUFFER])
            except (KeyError, ValueError):
                raise harness.UsageError(f"crossing: {gen.ENV_BUFFER} must hold the buffer's size") from None
        self.modules = os.environ.get(gen.ENV_MODULES, "")

    def buffer(self) -> bytearray:
        """gen.BUFFER_RULE's bytes."""
        pattern = bytes((i * 7 + 3) & 0xFF for i in range(256))
        whole, rest = divmod(self.size, 256)
        return bytearray(pattern * whole + pattern[:rest])

    def call_args(self, make_buffer) -> list:
        """The arguments in Python's order, the buffer as make_buffer makes
        it (its pointer, then its length)."""
        out, values = [], iter(self.values)
        for p in self.decl.params:
            if isinstance(p.type, d.Buffer):
                out += [make_buffer(self.buffer()), self.size]
            else:
                out.append(next(values))
        return out

    def load(self, module: str):
        """A module built for this interpreter, from the modules' folder."""
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(self.modules, module + suffix)
            if os.path.exists(path):
                spec = importlib.util.spec_from_file_location(module, path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                return mod
        raise harness.CannotRun(f"{module} is not built for {sys.executable} (in {self.modules or 'no folder'})")


def _measure(args: harness.Args, s: _Setup, f, call_args: list) -> None:
    harness.result_unchecked(d.result_text(s.decl.ret, f(*call_args)))
    ns, count = harness.calibrated(harness.call_timer(f, *call_args), harness.empty_timer)
    harness.emit(args, count, ns, {"ns/call": ns})


_CTYPES_ELEMENT = {"uint8_t": "c_uint8", "int8_t": "c_int8", "char": "c_char", "void": "c_uint8"}


@harness.implements("crossing", "py-ctypes", units=UNITS)
def run_ctypes(args):
    # ctypes in its own variant only: its libffi would count in every other child's peak RSS
    import ctypes

    s = _Setup()
    f = ctypes.CDLL(s.library)[s.decl.name]
    argtypes = []
    for p in s.decl.params:
        if isinstance(p.type, d.Buffer):
            elem = getattr(ctypes, _CTYPES_ELEMENT[p.type.element])
            argtypes += [ctypes.c_void_p if p.type.element == "void" else ctypes.POINTER(elem), ctypes.c_size_t]
        else:
            argtypes.append(getattr(ctypes, p.type.ctypes_name))
    f.argtypes = argtypes
    f.restype = getattr(ctypes, s.decl.ret.ctypes_name) if s.decl.ret else None
    buf_elem = next((_CTYPES_ELEMENT[p.type.element] for p in s.decl.params if isinstance(p.type, d.Buffer)), None)

    def make(b: bytearray):
        # An array over the bytearray's own memory: passed by pointer, no copy.
        return (getattr(ctypes, buf_elem) * len(b)).from_buffer(b) if len(b) else None

    _measure(args, s, f, s.call_args(make))


def _cffi_buffer(ffi, s: _Setup):
    elem = next(p.type.element for p in s.decl.params if isinstance(p.type, d.Buffer))

    def make(b: bytearray):
        # A cdata over the bytearray's own memory, made once: no copy per call.
        return ffi.from_buffer(f"{elem}[]" if elem != "void" else "char[]", b)

    return make


@harness.implements("crossing", "py-cffi-abi", units=UNITS)
def run_cffi_abi(args):
    cffi = harness.require("cffi")
    s = _Setup()
    ffi = cffi.FFI()
    ffi.cdef(gen.cffi_cdef(s.decl))
    lib = ffi.dlopen(s.library)
    make = _cffi_buffer(ffi, s) if s.decl.buffer else None
    _measure(args, s, getattr(lib, s.decl.name), s.call_args(make))


@harness.implements("crossing", "py-cffi-api", units=UNITS)
def run_cffi_api(args):
    s = _Setup()
    mod = s.load(gen.CFFI_MODULE)
    make = _cffi_buffer(mod.ffi, s) if s.decl.buffer else None
    _measure(args, s, mod.lib.crossing_callee, s.call_args(make))


def _one_object(args, module: str, name=gen.py_name) -> None:
    """A compiled module's function (named name(declaration)), called with
    a buffer as one object: bytes, which each module takes through the
    buffer protocol without a copy."""
    s = _Setup()
    mod = s.load(module)
    out, values = [], iter(s.values)
    for p in s.decl.params:
        out.append(bytes(s.buffer()) if isinstance(p.type, d.Buffer) else next(values))
    _measure(args, s, getattr(mod, name(s.decl)), out)


@harness.implements("crossing", "py-ext", units=UNITS)
def run_ext(args):
    _one_object(args, gen.EXT_MODULE, lambda decl: decl.name)


@harness.implements("crossing", "py-pybind11", units=UNITS)
def run_pybind11(args):
    _one_object(args, gen.PYBIND11_MODULE)


@harness.implements("crossing", "py-nanobind", units=UNITS)
def run_nanobind(args):
    _one_object(args, gen.NANOBIND_MODULE)


@harness.implements("crossing", "py-cython-extern", units=UNITS)
def run_cython(args):
    _one_object(args, gen.CYTHON_MODULE)


@harness.implements("crossing", "py-pyo3", units=UNITS)
def run_pyo3(args):
    _one_object(args, gen.PYO3_MODULE)


if __name__ == "__main__":
    argv = sys.argv[1:]
    if len(argv) < 2:
        print("usage: python -m roundbench.crossing.child crossing IMPL [key=value...]", file=sys.stderr)
        sys.exit(harness.EXIT_USAGE)
    sys.exit(child_main.run(argv[0], argv[1], argv[2:]))
