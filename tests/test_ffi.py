"""Round ffi: every entry point reaches the same callee and gets it right."""

import ctypes

import pytest

import roundbench
from roundbench import _core
from roundbench.pure.ffi import noop

from conftest import load_vectors

FFI = load_vectors("ffi")
CALLS = [roundbench.ffi_o, roundbench.ffi_fastcall, roundbench.ffi_varargs, noop]


@pytest.mark.parametrize("v", FFI, ids=lambda v: v["x"])
@pytest.mark.parametrize("f", CALLS, ids=lambda f: f.__name__)
def test_noop_vectors(f, v):
    x, want = int(v["x"]), int(v["noop"])
    got = f(x)
    if f is noop:  # Python ints do not wrap at 64 bits
        got = (got + 2**63) % 2**64 - 2**63
    assert got == want


def test_noargs():
    assert roundbench.ffi_noargs() == 1


@pytest.mark.parametrize("v", FFI, ids=lambda v: v["x"])
def test_ctypes_and_cffi_reach_the_same_callee(v):
    x, want = int(v["x"]), int(v["noop"])
    lib = ctypes.CDLL(_core.__file__)
    f = lib.rb_ffi_noop
    f.argtypes, f.restype = [ctypes.c_int64], ctypes.c_int64
    assert f(x) == want
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    ffi.cdef("int64_t rb_ffi_noop(int64_t x);")
    assert ffi.dlopen(_core.__file__).rb_ffi_noop(x) == want
    from roundbench._cffi_api import lib as api

    assert api.rb_ffi_noop(x) == want


@pytest.mark.parametrize("v", load_vectors("ffi-buffer"), ids=lambda v: v["hex"] or "empty")
def test_buffer_vectors(v):
    data = bytes.fromhex(v["hex"])
    want = int(v["result"])
    for obj in (data, bytearray(data), memoryview(data)):
        assert roundbench.ffi_buffer(obj) == want


def test_buffer_rejects_non_buffers():
    for bad in ("text", 12, None, [1, 2]):
        with pytest.raises(TypeError, match="'buf'"):
            roundbench.ffi_buffer(bad)


def test_buffer_large_zero_copy():
    buf = bytearray(1 << 20)
    buf[0], buf[-1] = 3, 4
    assert roundbench.ffi_buffer(buf) == 7
    assert roundbench.ffi_buffer(memoryview(buf)[1:]) == 4  # a slice shares the buffer


def test_bad_calls():
    with pytest.raises(OverflowError):
        roundbench.ffi_o(2**64)
    with pytest.raises(TypeError):
        roundbench.ffi_fastcall()
    with pytest.raises(TypeError):
        roundbench.ffi_fastcall(1, 2)
    with pytest.raises(TypeError):
        roundbench.ffi_varargs("x")


def test_callback_loop():
    assert roundbench.ffi_callback_loop(noop, 4) == 1 + 2 + 3 + 4
    assert roundbench.ffi_callback_loop(None, 4) == 1 + 2 + 3 + 4
    assert roundbench.ffi_callback_loop(noop, 0) == 0
    seen = []
    roundbench.ffi_callback_loop(lambda x: seen.append(x) or 0, 3)
    assert seen == [0, 1, 2]


def test_callback_exception_propagates_and_stops():
    calls = []

    def boom(x):
        calls.append(x)
        if x == 2:
            raise KeyError("stop here")
        return 0

    with pytest.raises(KeyError, match="stop here"):
        roundbench.ffi_callback_loop(boom, 100)
    assert calls == [0, 1, 2]


def test_callback_bad_input():
    with pytest.raises(TypeError, match="'func'"):
        roundbench.ffi_callback_loop(3, 1)
    with pytest.raises(ValueError, match="'count'"):
        roundbench.ffi_callback_loop(noop, -1)
    with pytest.raises(TypeError):
        roundbench.ffi_callback_loop(lambda x: "not an int", 1)
