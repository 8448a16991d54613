# cython: language_level=3, boundscheck=False, wraparound=False
# cython: c_string_type=unicode, c_string_encoding=utf8
# cython: freethreading_compatible=True
"""Round ffi's py-cython rows: the core's callees declared with `cdef extern`
and wrapped in `def` functions typed as Cython's documentation recommends
(C integer and float arguments, a typed memoryview for the buffer, which
takes any bytes-like object without a copy). The c_string directives are
the documentation's "auto encoding and decoding": a str argument reaches a
`const char *` as its UTF-8 and a returned `const char *` becomes a new str.
C calls back into Python through a `cdef` trampoline that gets the Python
callable as its ctx. The callees are the core's csrc/ffi.c, compiled into
this module (runtimes/aotbuild.py). The module keeps no state of its own,
so it declares itself safe without the GIL (freethreading_compatible): a
free-threaded interpreter imports it and keeps the GIL off."""

from cpython.exc cimport PyErr_Occurred
from libc.stdint cimport int32_t, int64_t, uint8_t


cdef extern from "roundbench.h":
    ctypedef enum rb_status:
        RB_OK
        RB_ERR_ARG
    ctypedef struct rb_error:
        const char *arg
        char msg[256]
    ctypedef int (*rb_ffi_callback)(void *ctx, int64_t x, int64_t *result) noexcept
    int64_t rb_ffi_noop(int64_t x)
    int64_t rb_ffi_buffer(const uint8_t *p, size_t n)
    int64_t rb_ffi_args4(int64_t a, double b, int32_t c, const char *s)
    const char *rb_ffi_str(int64_t x)
    rb_status rb_ffi_callback_loop(rb_ffi_callback cb, void *ctx, int64_t count, int64_t *sum,
                                   rb_error *err)
    int rb_ffi_noop_callback(void *ctx, int64_t x, int64_t *result) noexcept


def noop(int64_t x):
    return rb_ffi_noop(x)


def buffer(const uint8_t[::1] buf):
    if buf.shape[0] == 0:
        return rb_ffi_buffer(NULL, 0)
    return rb_ffi_buffer(&buf[0], buf.shape[0])


def args4(int64_t a, double b, int32_t c, const char *s):
    return rb_ffi_args4(a, b, c, s)


def string(int64_t x):
    return rb_ffi_str(x)


# The core calls this with the Python callable as ctx. A raised exception
# returns -1 with the exception still set (`except -1`), which stops the
# core's loop; callback_loop then lets it propagate.
cdef int trampoline(void *ctx, int64_t x, int64_t *result) except -1:
    result[0] = (<object>ctx)(x)
    return 0


cdef int raise_if_set() except -1:
    if PyErr_Occurred():
        return -1
    return 0


def callback_loop(func, int64_t count):
    """The core calls func(i) for i in range(count) and returns the sum of
    the results; func None runs the core's own C callback (the rows'
    baseline)."""
    cdef int64_t total = 0
    cdef rb_error err
    cdef rb_status st
    if func is None:
        st = rb_ffi_callback_loop(rb_ffi_noop_callback, NULL, count, &total, &err)
    else:
        st = rb_ffi_callback_loop(<rb_ffi_callback>trampoline, <void *>func, count, &total, &err)
    if st != RB_OK:
        raise_if_set()
        if st == RB_ERR_ARG and err.arg != NULL:
            raise ValueError(f"callback_loop() argument '{err.arg}' {err.msg}")
        raise RuntimeError(f"callback_loop(): {err.msg}")
    return total
