# cython: language_level=3, boundscheck=False, wraparound=False
"""Round ffi's py-cython: the core's callee declared with `cdef extern` and
wrapped in two `def` functions typed as Cython's documentation recommends
(C integer arguments, a typed memoryview for the buffer, which takes any
bytes-like object without a copy). The callee is the core's csrc/ffi.c,
compiled into this module (runtimes/aotbuild.py)."""

from libc.stdint cimport int64_t, uint8_t


cdef extern from "roundbench.h":
    int64_t rb_ffi_noop(int64_t x)
    int64_t rb_ffi_buffer(const uint8_t *p, size_t n)


def noop(int64_t x):
    return rb_ffi_noop(x)


def buffer(const uint8_t[::1] buf):
    if buf.shape[0] == 0:
        return rb_ffi_buffer(NULL, 0)
    return rb_ffi_buffer(&buf[0], buf.shape[0])
