/*
 * _core.c: the CPython extension roundbench._core, the Python side of the
 * crossing into the C core (csrc/). Each entry point parses its arguments,
 * calls one core function, and converts the result or the core's error
 * record; nothing else happens here.
 *
 * Multi-phase initialisation (PEP 489), state in the module object, no
 * process-wide globals, so the module is safe under subinterpreters.
 *
 * Free-threaded CPython (3.13t and later): the module declares
 * Py_MOD_GIL_NOT_USED, so importing it leaves the GIL off. Nothing here
 * relies on the GIL for mutual exclusion (docs/freethreading.md has the
 * audit): the module state is written once at import (blas_configured is
 * an atomic flag); a chain is claimed by one call at a time with an atomic
 * compare-and-swap; an HTTPServer's pointer, started flag and its callers
 * are under the object's own mutex, and close() waits for every call that
 * uses the server before freeing it; the aspects data is immutable once
 * loaded; the C core's own state (the BLAS, the jsonl kernel choice) is
 * under its locks and atomics. What stays the caller's is what NumPy
 * leaves to its callers: two threads writing one buffer at once.
 *
 * Argument checks are the core's: an entry point converts its arguments
 * (a Python int to int64_t, a buffer to a pointer and a length) and lets
 * the core judge their values; its error record becomes an exception in
 * one place, raise_core_error.
 *
 * The type stubs live here too: each `pyi` comment holds the stub lines of
 * what is beside it, and the build (setup.py, scripts/gen_core_stub.py)
 * writes them, in order, into _core.pyi next to the built module. A test
 * checks that every public name has a stub and every stub a name.
 */

/*pyi
"""Type stubs of roundbench._core, generated from _core.c at build time."""

import os
from typing import Callable, Optional, Tuple, TypedDict, Union

from typing_extensions import Buffer
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "roundbench.h"

/* Python 3.9, the oldest the package supports, and PyPy 3.9's C-API
 * emulation (cpyext) lack three functions this file uses: Py_NewRef and
 * PyModule_AddObjectRef came in 3.10, PyType_GetModuleByDef in 3.11 (the
 * C-API's "New in version" notes). They are defined here from 3.9's own.
 * HTTPServer cannot be subclassed (no Py_TPFLAGS_BASETYPE), so the module
 * of an instance's type is the one PyType_GetModule gives. */
#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *rb_new_ref(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
/* A macro, as 3.10's is: it takes any object pointer. */
#define Py_NewRef(o) rb_new_ref((PyObject *)(o))

static int PyModule_AddObjectRef(PyObject *module, const char *name, PyObject *value)
{
    if (value == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError,
                            "PyModule_AddObjectRef() must be called with an exception set");
        return -1;
    }
    Py_INCREF(value);
    if (PyModule_AddObject(module, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}
#endif

#if PY_VERSION_HEX < 0x030B0000
static PyObject *PyType_GetModuleByDef(PyTypeObject *type, PyModuleDef *def)
{
    PyObject *module = PyType_GetModule(type);
    if (module != NULL && PyModule_GetDef(module) != def) {
        PyErr_Format(PyExc_TypeError,
                     "PyType_GetModuleByDef: no superclass of '%s' has the given module",
                     type->tp_name);
        return NULL;
    }
    return module;
}
#endif

typedef struct {
    /* Raised for core failures no builtin exception describes (a stopped
     * callback loop whose callback did not raise, an unknown code). */
    PyObject *core_error;
    PyObject *http_server_type;
    /* 1 once the BLAS's file has been chosen (roundbench._blas, or an
     * explicit blas_set_library); the core loads it on first use. Read
     * and written with atomics: two threads may configure at once, which
     * hands the core the same file twice (harmless). */
    int blas_configured;
} core_state;

static struct PyModuleDef core_module;

static inline core_state *get_state(PyObject *module)
{
    return (core_state *)PyModule_GetState(module);
}

/* OSError for a failed system call: OSError(errno, text) picks the
 * subclass (FileNotFoundError, ...) as the interpreter's own errors do. A
 * failure with no errno (a BLAS that cannot be loaded) is a plain OSError. */
static PyObject *raise_os_error(const char *func, const rb_error *e)
{
    if (!e->sys_errno)
        return PyErr_Format(PyExc_OSError, "%s(): %s", func, e->msg);
    PyObject *exc = NULL,
             *text = PyUnicode_FromFormat("%s(): %s: %s", func, e->msg, strerror(e->sys_errno));
    if (text)
        exc = PyObject_CallFunction(PyExc_OSError, "iO", e->sys_errno, text);
    if (exc)
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_XDECREF(exc);
    Py_XDECREF(text);
    return NULL;
}

/* The one place a core error becomes a Python exception: every field a
 * failure needs travels in the record (csrc/roundbench.h, rb_error). A
 * domain error reads "func() argument 'n' must be >= 0, not -1"; a status
 * this module does not know (a newer core's) is a CoreError, as
 * RB_ERR_INTERRUPTED is when no Python exception explains it. */
static PyObject *raise_core_error(PyObject *module, const char *func, const rb_error *e)
{
    PyObject *type;
    switch (e->code) {
    case RB_ERR_ARG: type = PyExc_ValueError; break;
    case RB_ERR_OVERFLOW: type = PyExc_OverflowError; break;
    case RB_ERR_TYPE: type = PyExc_TypeError; break;
    case RB_ERR_NOMEM: type = PyExc_MemoryError; break;
    case RB_ERR_IO: return raise_os_error(func, e);
    default: type = get_state(module)->core_error; break;
    }
    int domain = type == PyExc_ValueError || type == PyExc_OverflowError || type == PyExc_TypeError;
    if (!e->msg[0])
        PyErr_Format(type, "%s(): %s (status %d)", func, rb_status_name(e->code), (int)e->code);
    else if (e->arg && domain)
        PyErr_Format(type, "%s() argument '%s' %s", func, e->arg, e->msg);
    else if (e->arg)
        PyErr_Format(type, "%s() argument '%s': %s", func, e->arg, e->msg);
    else
        PyErr_Format(type, "%s(): %s", func, e->msg);
    return NULL;
}

/* Converts an integer-like argument (anything with __index__) to int64_t,
 * naming the argument in the TypeError or OverflowError it raises. */
static int int64_arg(PyObject *obj, const char *func, const char *name, int64_t *out)
{
    if (!PyLong_Check(obj) && !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be int, not %.100s", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *index = PyNumber_Index(obj);
    if (!index)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow) {
        PyErr_Format(PyExc_OverflowError, "%s() argument '%s' does not fit in 64 bits", func, name);
        return -1;
    }
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* Checks a METH_FASTCALL call's positional count; raises TypeError naming
 * the function. */
static int check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t want)
{
    if (nargs == want)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)", func, want,
                 nargs);
    return -1;
}

/* ---- round loop --------------------------------------------------------- */

/* Below this many iterations releasing the GIL costs more than it gives. */
#define LOOP_GIL_THRESHOLD (1 << 16)
/* With the GIL released, the work runs in chunks of this many iterations
 * (about 20 ms), checking for Ctrl-C between them. */
#define LOOP_CHUNK (1 << 24)

/* The sum over [lo, hi), whose bounds the core has already checked (so the
 * slices cannot fail half-way for a reason the whole call would not). */
static PyObject *loop_range_impl(PyObject *module, const char *func, int64_t lo, int64_t hi)
{
    rb_error err;
    int64_t total = 0, part = 0;
    if (hi - lo < LOOP_GIL_THRESHOLD) {
        if (rb_loop_range(lo, hi, &total, &err) != RB_OK)
            return raise_core_error(module, func, &err);
        return PyLong_FromLongLong(total);
    }
    for (int64_t start = lo; start < hi; start += LOOP_CHUNK) {
        int64_t end = hi - start > LOOP_CHUNK ? start + LOOP_CHUNK : hi;
        rb_status st;
        Py_BEGIN_ALLOW_THREADS
        st = rb_loop_range(start, end, &part, &err);
        Py_END_ALLOW_THREADS
        if (st != RB_OK)
            return raise_core_error(module, func, &err);
        total += part;
        if (PyErr_CheckSignals() < 0)
            return NULL;
    }
    return PyLong_FromLongLong(total);
}

PyDoc_STRVAR(loop_doc, "loop(n, /)\n--\n\n"
                       "Sum of i*i % 7 for i in range(n), computed by the C core.\n"
                       "Raises TypeError for a non-integer n, ValueError for n < 0 and\n"
                       "OverflowError for n > LOOP_MAX_N. Releases the GIL for large n.");

/*pyi
def loop(n: int, /) -> int: ...
*/
static PyObject *loop(PyObject *module, PyObject *arg)
{
    int64_t n;
    rb_error err;
    if (int64_arg(arg, "loop", "n", &n) < 0)
        return NULL;
    if (rb_loop_check(n, &err) != RB_OK)
        return raise_core_error(module, "loop", &err);
    return loop_range_impl(module, "loop", 0, n);
}

PyDoc_STRVAR(loop_range_doc, "loop_range(lo, hi, /)\n--\n\n"
                             "Sum of i*i % 7 for i in range(lo, hi), by the C core; the\n"
                             "unit of work one worker of the cores round does.");

/*pyi
def loop_range(lo: int, hi: int, /) -> int: ...
*/
static PyObject *loop_range(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t lo, hi;
    rb_error err;
    if (check_nargs("loop_range", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "loop_range", "lo", &lo) < 0 ||
        int64_arg(args[1], "loop_range", "hi", &hi) < 0)
        return NULL;
    if (rb_loop_range_check(lo, hi, &err) != RB_OK)
        return raise_core_error(module, "loop_range", &err);
    return loop_range_impl(module, "loop_range", lo, hi);
}

PyDoc_STRVAR(loop_parallel_doc,
             "loop_parallel(n, workers, /)\n--\n\n"
             "The loop round's sum over range(n) on `workers` threads of the C core\n"
             "(the cores round's c-threads variant, driven from Python), in one call\n"
             "with the GIL released: Ctrl-C is seen when it returns. ValueError for\n"
             "n < 0 or workers outside [1, 4096], OverflowError for n > LOOP_MAX_N.");

/*pyi
def loop_parallel(n: int, workers: int, /) -> int: ...
*/
static PyObject *loop_parallel(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t n, workers, sum = 0;
    rb_error err;
    rb_status st;
    if (check_nargs("loop_parallel", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "loop_parallel", "n", &n) < 0 ||
        int64_arg(args[1], "loop_parallel", "workers", &workers) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = rb_loop_parallel(n, workers, &sum, &err);
    Py_END_ALLOW_THREADS;
    if (st != RB_OK)
        return raise_core_error(module, "loop_parallel", &err);
    return PyLong_FromLongLong(sum);
}

/* ---- round ffi ---------------------------------------------------------- */
/* The same callee, rb_ffi_noop, behind each calling convention. */

/*pyi
def ffi_noargs() -> int: ...
*/
static PyObject *ffi_noargs(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(rb_ffi_noop(0));
}

/*pyi
def ffi_o(x: int, /) -> int: ...
*/
static PyObject *ffi_o(PyObject *module, PyObject *arg)
{
    (void)module;
    long long x = PyLong_AsLongLong(arg);
    if (x == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(rb_ffi_noop(x));
}

/*pyi
def ffi_fastcall(x: int, /) -> int: ...
*/
static PyObject *ffi_fastcall(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (check_nargs("ffi_fastcall", nargs, 1) < 0)
        return NULL;
    long long x = PyLong_AsLongLong(args[0]);
    if (x == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(rb_ffi_noop(x));
}

/*pyi
def ffi_varargs(x: int, /) -> int: ...
*/
static PyObject *ffi_varargs(PyObject *module, PyObject *args)
{
    (void)module;
    long long x;
    if (!PyArg_ParseTuple(args, "L:ffi_varargs", &x))
        return NULL;
    return PyLong_FromLongLong(rb_ffi_noop(x));
}

PyDoc_STRVAR(ffi_buffer_doc, "ffi_buffer(buf, /)\n--\n\n"
                             "Hands any bytes-like object to the core without copying (buffer\n"
                             "protocol); returns buf[0] + buf[-1], or 0 when it is empty.");

/*pyi
def ffi_buffer(buf: Buffer, /) -> int: ...
*/
static PyObject *ffi_buffer(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "ffi_buffer() argument 'buf' must be a bytes-like object, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    int64_t r = rb_ffi_buffer((const uint8_t *)view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromLongLong(r);
}

/* Converts a str argument to the UTF-8 the core reads up to its NUL: a str
 * that holds a NUL would reach the core cut short, so it is refused, as
 * CPython refuses one for a path. The bytes are the str's own (cached in
 * it by PyUnicode_AsUTF8AndSize), valid while the str lives. */
static const char *utf8_arg(PyObject *obj, const char *func, const char *name)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be str, not %.100s", func, name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (s && (size_t)n != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s() argument '%s' must not contain a NUL character", func,
                     name);
        return NULL;
    }
    return s;
}

PyDoc_STRVAR(ffi_args4_doc, "ffi_args4(a, b, c, s, /)\n--\n\n"
                            "rb_ffi_args4: a + trunc(b) + c + the UTF-8 length of s, wrapping;\n"
                            "a is an int64, b a float, c an int32, s a str. METH_FASTCALL.");

/*pyi
def ffi_args4(a: int, b: float, c: int, s: str, /) -> int: ...
*/
static PyObject *ffi_args4(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    int64_t a, c;
    if (check_nargs("ffi_args4", nargs, 4) < 0 || int64_arg(args[0], "ffi_args4", "a", &a) < 0)
        return NULL;
    double b = PyFloat_AsDouble(args[1]);
    if (b == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "ffi_args4() argument 'b' must be a real number, not %.100s",
                         Py_TYPE(args[1])->tp_name);
        }
        return NULL;
    }
    if (int64_arg(args[2], "ffi_args4", "c", &c) < 0)
        return NULL;
    if (c < INT32_MIN || c > INT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "ffi_args4() argument 'c' does not fit in 32 bits");
        return NULL;
    }
    const char *s = utf8_arg(args[3], "ffi_args4", "s");
    if (!s)
        return NULL;
    return PyLong_FromLongLong(rb_ffi_args4(a, b, (int32_t)c, s));
}

PyDoc_STRVAR(ffi_str_doc, "ffi_str(x, /)\n--\n\n"
                          "rb_ffi_str: the core's string chosen by x (entry x mod 4 of its\n"
                          "table), decoded from UTF-8 into a new str. METH_FASTCALL.");

/*pyi
def ffi_str(x: int, /) -> str: ...
*/
static PyObject *ffi_str(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    int64_t x;
    if (check_nargs("ffi_str", nargs, 1) < 0 || int64_arg(args[0], "ffi_str", "x", &x) < 0)
        return NULL;
    return PyUnicode_FromString(rb_ffi_str(x));
}

/* C calling back into Python: the core's loop calls this trampoline, which
 * calls the Python callable. A raised exception stops the loop. */
static int py_callback(void *ctx, int64_t x, int64_t *result)
{
    PyObject *arg = PyLong_FromLongLong(x);
    if (!arg)
        return 1;
    PyObject *r = PyObject_CallOneArg((PyObject *)ctx, arg);
    Py_DECREF(arg);
    if (!r)
        return 1;
    long long v = PyLong_AsLongLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred())
        return 1;
    *result = v;
    return 0;
}

PyDoc_STRVAR(ffi_callback_loop_doc,
             "ffi_callback_loop(func, count, /)\n--\n\n"
             "The core calls func(i) for i in range(count) and returns the sum of\n"
             "the results (wrapping at 64 bits). With func=None it calls its own C\n"
             "no-op instead: the baseline for the cost of a call back into Python.");

/*pyi
def ffi_callback_loop(func: Optional[Callable[[int], int]], count: int, /) -> int: ...
*/
static PyObject *ffi_callback_loop(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t count, sink = 0;
    rb_error err;
    if (check_nargs("ffi_callback_loop", nargs, 2) < 0)
        return NULL;
    PyObject *func = args[0];
    if (func != Py_None && !PyCallable_Check(func)) {
        PyErr_Format(PyExc_TypeError,
                     "ffi_callback_loop() argument 'func' must be callable or None, not %.100s",
                     Py_TYPE(func)->tp_name);
        return NULL;
    }
    if (int64_arg(args[1], "ffi_callback_loop", "count", &count) < 0)
        return NULL;
    rb_status st = func == Py_None
                       ? rb_ffi_callback_loop(rb_ffi_noop_callback, NULL, count, &sink, &err)
                       : rb_ffi_callback_loop(py_callback, func, count, &sink, &err);
    if (st != RB_OK) {
        if (PyErr_Occurred()) /* the callback raised: keep its exception */
            return NULL;
        return raise_core_error(module, "ffi_callback_loop", &err);
    }
    return PyLong_FromLongLong(sink);
}

/* ---- rounds matmul and temps ------------------------------------------- */
/* Both take caller-owned buffers (numpy arrays, array.array, memoryview...)
 * through the buffer protocol: no copy, and the C core writes the result in
 * place. */

/* Below this n (matmul) or element count (temps) releasing the GIL costs
 * more than it gives. */
#define MATMUL_GIL_THRESHOLD 64
#define TEMPS_GIL_THRESHOLD (1 << 16)
/* temps runs in chunks of this many elements with the GIL released,
 * checking for Ctrl-C between them (about 50 ms each). */
#define TEMPS_CHUNK (1 << 24)

/* Gets a C-contiguous buffer of 8-byte items of the given kind ('d' for
 * float64, 'q' for int64), naming the argument in the TypeError (not a
 * buffer, wrong item type) or ValueError (read-only when `writable`, not
 * C-contiguous) it raises. On success the caller releases *view. */
static int typed_buffer(PyObject *obj, const char *func, const char *name, char kind, int writable,
                        Py_buffer *view)
{
    /* A writable buffer is asked for as one: an exporter may answer a
     * read-only request with a read-only view of writable memory (PyPy's
     * cpyext does, for array.array and bytearray). */
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        if (writable && PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) == 0) {
            PyBuffer_Release(view);
            PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be writable", func, name);
            return -1;
        }
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be a buffer of %s, not %.100s", func,
                     name, kind == 'd' ? "float64" : "int64", Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *fmt = view->format ? view->format : "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    int ok_type =
        view->itemsize == 8 &&
        (kind == 'd' ? strcmp(fmt, "d") == 0 : (strcmp(fmt, "q") == 0 || strcmp(fmt, "l") == 0));
    if (!ok_type) {
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must hold %s, not format '%s'", func,
                     name, kind == 'd' ? "float64 ('d')" : "int64 ('q')",
                     view->format ? view->format : "B");
        goto fail;
    }
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError,
                     "%s() argument '%s' must be C-contiguous (a strided view or a Fortran-order "
                     "array is not; numpy.ascontiguousarray makes a copy that is)",
                     func, name);
        goto fail;
    }
    return 0;
fail:
    PyBuffer_Release(view);
    return -1;
}

/* The side of a square matrix buffer: a 2-D n x n buffer, or a 1-D one of
 * n*n items. -1 with ValueError naming the argument otherwise. */
static int64_t matrix_side(const Py_buffer *v, const char *func, const char *name)
{
    if (v->ndim == 2 && v->shape[0] == v->shape[1])
        return v->shape[0];
    if (v->ndim == 1) {
        int64_t len = v->len / 8, n = (int64_t)sqrt((double)len);
        while (n * n > len)
            n--;
        while ((n + 1) * (n + 1) <= len)
            n++;
        if (n * n == len)
            return n;
    }
    if (v->ndim == 2)
        PyErr_Format(PyExc_ValueError, "%s() argument '%s' must be square, not %zd x %zd", func,
                     name, v->shape[0], v->shape[1]);
    else
        PyErr_Format(PyExc_ValueError,
                     "%s() argument '%s' must be an n x n matrix (2-D, or 1-D of n*n items), "
                     "not %d-D with %zd items",
                     func, name, v->ndim, v->len / 8);
    return -1;
}

/* The core dlopen()s the BLAS on its first use and links nothing, so that
 * `import roundbench` stays cheap. Its file is Python's business: before
 * the first BLAS call, roundbench._blas.configure() finds the
 * scipy-openblas64 package's library and hands its path to the core (or
 * leaves ROUNDBENCH_BLAS_LIB to it). Runs once per module, with the GIL. */
static int ensure_blas(PyObject *module)
{
    core_state *state = get_state(module);
    if (__atomic_load_n(&state->blas_configured, __ATOMIC_ACQUIRE))
        return 0;
    PyObject *helper = PyImport_ImportModule("roundbench._blas");
    if (!helper)
        return -1;
    PyObject *r = PyObject_CallMethod(helper, "configure", NULL);
    Py_DECREF(helper);
    if (!r)
        return -1;
    Py_DECREF(r);
    __atomic_store_n(&state->blas_configured, 1, __ATOMIC_RELEASE);
    return 0;
}

typedef rb_status (*matmul_core_fn)(int64_t, const double *, const double *, double *, rb_error *);

/* matmul_naive / matmul_blas / matmul_verify: (a, b, c) buffers of one
 * side n; `out` is 1 when c is written. */
static PyObject *matmul_impl(PyObject *module, const char *func, PyObject *const *args,
                             Py_ssize_t nargs, matmul_core_fn fn)
{
    if (check_nargs(func, nargs, 3) < 0)
        return NULL;
    static const char *names[3] = {"a", "b", "c"};
    Py_buffer v[3];
    int64_t n[3];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 3; got++) {
        if (typed_buffer(args[got], func, names[got], 'd', got == 2 && fn != NULL, &v[got]) < 0)
            goto done;
        if ((n[got] = matrix_side(&v[got], func, names[got])) < 0) {
            got++;
            goto done;
        }
        if (got > 0 && n[got] != n[0]) {
            PyErr_Format(PyExc_ValueError, "%s() argument '%s' is %lld x %lld but a is %lld x %lld",
                         func, names[got], (long long)n[got], (long long)n[got], (long long)n[0],
                         (long long)n[0]);
            got++;
            goto done;
        }
    }
    rb_error err;
    rb_status st;
    int64_t checksum = 0;
    const double *a = v[0].buf, *b = v[1].buf;
    double *c = v[2].buf;
    if (fn == rb_matmul_blas && n[0] > 0 && ensure_blas(module) < 0)
        goto done;
    if (fn == NULL) {
        Py_BEGIN_ALLOW_THREADS
        st = rb_matmul_verify(n[0], a, b, c, &checksum, &err);
        Py_END_ALLOW_THREADS
    } else if (n[0] < MATMUL_GIL_THRESHOLD) {
        st = fn(n[0], a, b, c, &err);
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = fn(n[0], a, b, c, &err);
        Py_END_ALLOW_THREADS
    }
    if (st != RB_OK)
        raise_core_error(module, func, &err);
    else
        result = fn == NULL ? PyLong_FromLongLong(checksum) : Py_NewRef(Py_None);
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    return result;
}

PyDoc_STRVAR(matmul_blas_doc,
             "matmul_blas(a, b, c, /)\n--\n\n"
             "c = a @ b by the BLAS's dgemm, in place and without copies: a, b and\n"
             "c are C-contiguous float64 buffers (numpy arrays, array('d'), ...) of\n"
             "one square shape, 2-D n x n or 1-D of n*n items; c must be writable\n"
             "and must not overlap a or b. The GIL is released. TypeError for a\n"
             "non-buffer or another dtype, ValueError for a non-contiguous,\n"
             "read-only, non-square, mismatched or aliasing one. The BLAS is loaded\n"
             "on the first call (roundbench._blas says from where); OSError when it\n"
             "cannot be.");

/*pyi
def matmul_blas(a: Buffer, b: Buffer, c: Buffer, /) -> None: ...
*/
static PyObject *matmul_blas(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return matmul_impl(module, "matmul_blas", args, nargs, rb_matmul_blas);
}

PyDoc_STRVAR(matmul_naive_doc, "matmul_naive(a, b, c, /)\n--\n\n"
                               "c = a @ b by the core's naive i-k-j loop; as matmul_blas.");

/*pyi
def matmul_naive(a: Buffer, b: Buffer, c: Buffer, /) -> None: ...
*/
static PyObject *matmul_naive(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return matmul_impl(module, "matmul_naive", args, nargs, rb_matmul_naive);
}

PyDoc_STRVAR(matmul_verify_doc,
             "matmul_verify(a, b, c, /)\n--\n\n"
             "Checks c == a @ b (Freivalds' test within the rounding bound) and\n"
             "returns the round's checksum of c. ValueError naming 'c' when c is\n"
             "not the product.");

/*pyi
def matmul_verify(a: Buffer, b: Buffer, c: Buffer, /) -> int: ...
*/
static PyObject *matmul_verify(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return matmul_impl(module, "matmul_verify", args, nargs, NULL);
}

PyDoc_STRVAR(matmul_fill_doc,
             "matmul_fill(a, b, seed, /)\n--\n\n"
             "Fills the float64 buffers a and b (n x n each) with the round's seeded\n"
             "small integers in [-4, 4].");

/*pyi
def matmul_fill(a: Buffer, b: Buffer, seed: int, /) -> None: ...
*/
static PyObject *matmul_fill(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("matmul_fill", nargs, 3) < 0)
        return NULL;
    int64_t seed;
    if (int64_arg(args[2], "matmul_fill", "seed", &seed) < 0)
        return NULL;
    Py_buffer va, vb;
    if (typed_buffer(args[0], "matmul_fill", "a", 'd', 1, &va) < 0)
        return NULL;
    if (typed_buffer(args[1], "matmul_fill", "b", 'd', 1, &vb) < 0) {
        PyBuffer_Release(&va);
        return NULL;
    }
    PyObject *result = NULL;
    int64_t na = matrix_side(&va, "matmul_fill", "a"), nb;
    if (na >= 0 && (nb = matrix_side(&vb, "matmul_fill", "b")) >= 0) {
        rb_error err;
        if (nb != na)
            PyErr_Format(PyExc_ValueError,
                         "matmul_fill() argument 'b' is %lld x %lld but a is %lld x %lld",
                         (long long)nb, (long long)nb, (long long)na, (long long)na);
        else if (rb_matmul_fill(na, (uint64_t)seed, va.buf, vb.buf, &err) != RB_OK)
            raise_core_error(module, "matmul_fill", &err);
        else
            result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&vb);
    PyBuffer_Release(&va);
    return result;
}

PyDoc_STRVAR(blas_get_info_doc,
             "blas_get_info()\n--\n\n"
             "What the core's BLAS is, as it runs in this process (loading it if need\n"
             "be; OSError when it cannot be): a dict with library (its file), config\n"
             "(version and build options), corename (the kernel chosen at run time)\n"
             "and threads.");

/*pyi
class _BlasInfo(TypedDict):
    library: str
    config: str
    corename: str
    threads: int

def blas_get_info() -> _BlasInfo: ...
*/
static PyObject *blas_get_info(PyObject *module, PyObject *unused)
{
    (void)unused;
    if (ensure_blas(module) < 0)
        return NULL;
    rb_blas_info info;
    rb_error err;
    if (rb_blas_get_info(&info, &err) != RB_OK)
        return raise_core_error(module, "blas_get_info", &err);
    return Py_BuildValue("{s:s,s:s,s:s,s:i}", "library", info.library, "config",
                         info.config ? info.config : "", "corename",
                         info.corename ? info.corename : "", "threads", info.threads);
}

PyDoc_STRVAR(blas_set_threads_doc,
             "blas_set_threads(n, /)\n--\n\n"
             "Sets the core's BLAS thread count (n >= 1) for the process, loading the\n"
             "BLAS if need be.");

/*pyi
def blas_set_threads(n: int, /) -> None: ...
*/
static PyObject *blas_set_threads(PyObject *module, PyObject *arg)
{
    int64_t n;
    rb_error err;
    if (int64_arg(arg, "blas_set_threads", "n", &n) < 0)
        return NULL;
    if (ensure_blas(module) < 0)
        return NULL;
    if (rb_blas_set_threads(n, &err) != RB_OK)
        return raise_core_error(module, "blas_set_threads", &err);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(blas_set_library_doc,
             "blas_set_library(path, /)\n--\n\n"
             "Names the BLAS file (str, bytes or os.PathLike) the core loads on first\n"
             "use, over ROUNDBENCH_BLAS_LIB and the scipy-openblas64 package that\n"
             "roundbench._blas finds; None clears an earlier choice. ValueError when\n"
             "it is empty or the BLAS is already loaded from another file.");

/*pyi
def blas_set_library(path: Union[str, bytes, os.PathLike, None], /) -> None: ...
*/
static PyObject *blas_set_library(PyObject *module, PyObject *arg)
{
    PyObject *bytes = NULL;
    if (arg != Py_None) {
        PyObject *fs = PyOS_FSPath(arg);
        if (!fs) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError))
                return NULL;
            PyErr_Clear();
            return PyErr_Format(PyExc_TypeError,
                                "blas_set_library() argument 'path' must be str, bytes, "
                                "os.PathLike or None, not %.100s",
                                Py_TYPE(arg)->tp_name);
        }
        int ok = PyUnicode_FSConverter(fs, &bytes);
        Py_DECREF(fs);
        if (!ok)
            return NULL;
    }
    rb_error err;
    rb_status st = rb_blas_set_library(bytes ? PyBytes_AS_STRING(bytes) : NULL, &err);
    Py_XDECREF(bytes);
    if (st != RB_OK)
        return raise_core_error(module, "blas_set_library", &err);
    /* An explicit choice stands: roundbench._blas must not replace it. */
    __atomic_store_n(&get_state(module)->blas_configured, arg != Py_None, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(temps_doc, "temps(a, /)\n--\n\n"
                        "Sum of a[i]*a[i] % 7 over a C-contiguous int64 buffer (a numpy array,\n"
                        "array('q'), ...) in one fused pass, without copying it. The GIL is\n"
                        "released for large arrays and Ctrl-C is checked between chunks.\n"
                        "TypeError for a non-buffer or another dtype, ValueError for a\n"
                        "non-contiguous one, OverflowError when some |a[i]| > 3037000499.");

/*pyi
def temps(a: Buffer, /) -> int: ...
*/
static PyObject *temps(PyObject *module, PyObject *arg)
{
    Py_buffer v;
    if (typed_buffer(arg, "temps", "a", 'q', 0, &v) < 0)
        return NULL;
    const int64_t *a = v.buf;
    int64_t n = v.len / 8, total = 0, part = 0;
    rb_error err;
    rb_status st = RB_OK;
    if (n < TEMPS_GIL_THRESHOLD) {
        st = rb_temps(n ? a : NULL, n, &total, &err);
    } else {
        /* The range form names a bad element by its index in the whole
         * array, whichever chunk finds it. */
        for (int64_t start = 0; start < n; start += TEMPS_CHUNK) {
            int64_t end = n - start > TEMPS_CHUNK ? start + TEMPS_CHUNK : n;
            Py_BEGIN_ALLOW_THREADS
            st = rb_temps_range(a, start, end, &part, &err);
            Py_END_ALLOW_THREADS
            if (st != RB_OK)
                break;
            total += part;
            if (PyErr_CheckSignals() < 0) {
                PyBuffer_Release(&v);
                return NULL;
            }
        }
    }
    PyBuffer_Release(&v);
    if (st != RB_OK)
        return raise_core_error(module, "temps", &err);
    return PyLong_FromLongLong(total);
}
/* ---- round http --------------------------------------------------------- */
/* HTTPServer: the core's HTTP/1.1 server. Its worker threads run without the
 * GIL; with a Python handler each request takes the GIL, calls
 * handler(method, path) and releases it: the crossing on the hot path. */

/* Threads may share one server object (serve_forever on one, stop() and
 * stats() on others; on a free-threaded interpreter, any call at once), so
 * `s`, `started` and `users` are under `mu`. A call that uses the server
 * with the mutex released (wait) counts itself in `users`; close() takes
 * `s` away, stops it, and frees it only once `users` is back to 0. The
 * mutex is held only around a few stores and core calls that neither
 * block nor touch Python, so holding it never waits for the GIL. */
typedef struct {
    PyObject_HEAD rb_http_server *s; /* NULL once closed */
    PyObject *handler;               /* NULL: the core's own C handler */
    int started;
    int users;
    pthread_mutex_t mu;
    int mu_ready;
} HttpServerObject;

/* The live server for a call that uses it with `mu` released (end it with
 * http_server_put), or NULL with ValueError set. */
static rb_http_server *http_server_get(HttpServerObject *self, int need_started, const char *func)
{
    pthread_mutex_lock(&self->mu);
    rb_http_server *s = self->s;
    const char *why = !s                               ? "HTTPServer is closed"
                      : need_started && !self->started ? "the server was not started"
                                                       : NULL;
    if (!why)
        self->users++;
    pthread_mutex_unlock(&self->mu);
    if (why) {
        if (func)
            PyErr_Format(PyExc_ValueError, "%s(): %s", func, why);
        else
            PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    return s;
}

static void http_server_put(HttpServerObject *self)
{
    pthread_mutex_lock(&self->mu);
    self->users--;
    pthread_mutex_unlock(&self->mu);
}

/* Called on a worker thread without the GIL. */
static int py_http_handler(void *ctx, const rb_http_request *req, rb_http_response *resp)
{
    HttpServerObject *self = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = 1;
    PyObject *r = NULL, *args[2] = {NULL, NULL};
    args[0] = PyUnicode_DecodeLatin1(req->method, (Py_ssize_t)req->method_len, NULL);
    args[1] = PyUnicode_DecodeLatin1(req->path, (Py_ssize_t)req->path_len, NULL);
    if (!args[0] || !args[1])
        goto done;
    r = PyObject_Vectorcall(self->handler, args, 2, NULL);
    if (!r)
        goto done;
    PyObject *status_obj, *body;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2 ||
        !PyLong_Check(status_obj = PyTuple_GET_ITEM(r, 0)) ||
        !PyBytes_Check(body = PyTuple_GET_ITEM(r, 1))) {
        PyErr_Format(PyExc_TypeError, "HTTPServer handler must return (int, bytes), not %.100s",
                     Py_TYPE(r)->tp_name);
        goto done;
    }
    long status = PyLong_AsLong(status_obj);
    if (status == -1 && PyErr_Occurred())
        goto done;
    Py_ssize_t n = PyBytes_GET_SIZE(body);
    if ((size_t)n > resp->body_cap) {
        PyErr_Format(PyExc_ValueError, "HTTPServer handler body is longer than %zu bytes",
                     resp->body_cap);
        goto done;
    }
    memcpy(resp->body, PyBytes_AS_STRING(body), (size_t)n);
    resp->body_len = (size_t)n;
    resp->status = (int)status;
    rc = 0;
done:
    /* No caller to raise to on a worker thread: report it the way Python
     * reports errors in callbacks, and the server answers 500. */
    if (rc != 0)
        PyErr_WriteUnraisable(self->handler);
    Py_XDECREF(r);
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    PyGILState_Release(g);
    return rc;
}

static PyObject *http_server_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"handler", "host", "port", "threads", "header_timeout_ms", NULL};
    PyObject *handler = Py_None;
    const char *host = "127.0.0.1";
    int port = 0, threads = 1, timeout = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$siii:HTTPServer", kwlist, &handler, &host,
                                     &port, &threads, &timeout))
        return NULL;
    if (handler != Py_None && !PyCallable_Check(handler))
        return PyErr_Format(PyExc_TypeError,
                            "HTTPServer() argument 'handler' must be callable or None, not %.100s",
                            Py_TYPE(handler)->tp_name);
    HttpServerObject *self = (HttpServerObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    if (pthread_mutex_init(&self->mu, NULL) != 0) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->mu_ready = 1;
    rb_http_config cfg = {
        .host = host, .port = port, .threads = threads, .header_timeout_ms = timeout};
    if (handler != Py_None) {
        self->handler = Py_NewRef(handler);
        cfg.handler = py_http_handler;
        cfg.handler_ctx = self;
    }
    rb_error err;
    rb_status st;
    Py_BEGIN_ALLOW_THREADS
    st = rb_http_server_open(&cfg, &self->s, &err);
    Py_END_ALLOW_THREADS
    if (st != RB_OK) {
        Py_DECREF(self);
        return raise_core_error(PyType_GetModuleByDef(type, &core_module), "HTTPServer", &err);
    }
    return (PyObject *)self;
}

/* Stops and frees the server, once no other call is using it (a wait()
 * on another thread returns as the workers exit). The GIL is released
 * while the workers are joined: a worker may be waiting for it to finish
 * a handler call. */
static void http_server_close_impl(HttpServerObject *self)
{
    if (!self->mu_ready)
        return;
    pthread_mutex_lock(&self->mu);
    rb_http_server *s = self->s;
    self->s = NULL;
    pthread_mutex_unlock(&self->mu);
    if (!s)
        return;
    Py_BEGIN_ALLOW_THREADS
    rb_http_server_stop(s);
    for (;;) {
        pthread_mutex_lock(&self->mu);
        int users = self->users;
        pthread_mutex_unlock(&self->mu);
        if (!users)
            break;
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    rb_http_server_close(s);
    Py_END_ALLOW_THREADS
}

static int http_server_traverse(HttpServerObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->handler);
    return 0;
}

static int http_server_clear(HttpServerObject *self)
{
    http_server_close_impl(self);
    Py_CLEAR(self->handler);
    return 0;
}

static void http_server_dealloc(HttpServerObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    http_server_clear(self);
    if (self->mu_ready)
        pthread_mutex_destroy(&self->mu);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

/* Starts the workers once: a second start() (or serve_forever) on a
 * started server returns. Under `mu`: rb_http_server_start only creates
 * threads. */
static PyObject *http_server_start(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    rb_error err;
    rb_status st = RB_OK;
    pthread_mutex_lock(&self->mu);
    int closed = !self->s;
    if (!closed && !self->started) {
        st = rb_http_server_start(self->s, &err);
        if (st == RB_OK)
            self->started = 1;
    }
    pthread_mutex_unlock(&self->mu);
    if (closed) {
        PyErr_SetString(PyExc_ValueError, "HTTPServer is closed");
        return NULL;
    }
    if (st != RB_OK)
        return raise_core_error(PyType_GetModuleByDef(Py_TYPE(self), &core_module),
                                "HTTPServer.start", &err);
    Py_RETURN_NONE;
}

static PyObject *http_server_stop(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    pthread_mutex_lock(&self->mu);
    rb_http_server_stop(self->s); /* NULL (closed): nothing to stop */
    pthread_mutex_unlock(&self->mu);
    Py_RETURN_NONE;
}

/* Waits without the GIL in 100 ms slices, running signal handlers between
 * them: a handler that raises (Ctrl-C) stops the server and propagates. */
static PyObject *http_server_wait_impl(HttpServerObject *self, double timeout, const char *func)
{
    rb_http_server *s = http_server_get(self, 1, func);
    if (!s)
        return NULL;
    double left = timeout;
    PyObject *r = NULL;
    for (;;) {
        int slice = timeout < 0 || left > 0.1 ? 100 : (int)(left * 1000);
        int done;
        Py_BEGIN_ALLOW_THREADS
        done = rb_http_server_wait(s, slice);
        Py_END_ALLOW_THREADS
        if (done) {
            r = Py_NewRef(Py_True);
            break;
        }
        if (PyErr_CheckSignals() < 0) {
            rb_http_server_stop(s);
            Py_BEGIN_ALLOW_THREADS
            rb_http_server_wait(s, -1);
            Py_END_ALLOW_THREADS
            break;
        }
        if (timeout >= 0 && (left -= 0.1) <= 0) {
            r = Py_NewRef(Py_False);
            break;
        }
    }
    http_server_put(self);
    return r;
}

static PyObject *http_server_wait(HttpServerObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    double timeout = -1;
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "wait() takes at most 1 argument (%zd given)", nargs);
    if (nargs == 1 && args[0] != Py_None) {
        timeout = PyFloat_AsDouble(args[0]);
        if (timeout == -1 && PyErr_Occurred())
            return NULL;
        if (timeout < 0)
            return PyErr_Format(PyExc_ValueError, "wait() argument 'timeout' must be >= 0");
    }
    return http_server_wait_impl(self, timeout, "HTTPServer.wait");
}

static PyObject *http_server_serve_forever(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *started = http_server_start(self, NULL);
    if (!started)
        return NULL;
    Py_DECREF(started);
    PyObject *r = http_server_wait_impl(self, -1, NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

static PyObject *http_server_stats(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    rb_http_stats st;
    pthread_mutex_lock(&self->mu);
    rb_http_server_stats(self->s, &st); /* NULL (closed): zeros */
    pthread_mutex_unlock(&self->mu);
    return Py_BuildValue("{sLsLsLsLsL}", "requests", (long long)st.requests, "bad_requests",
                         (long long)st.bad_requests, "timeouts", (long long)st.timeouts, "accepted",
                         (long long)st.accepted, "open", (long long)st.open);
}

static PyObject *http_server_close(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    http_server_close_impl(self);
    Py_RETURN_NONE;
}

static PyObject *http_server_enter(HttpServerObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *http_server_exit(HttpServerObject *self, PyObject *args)
{
    (void)args;
    http_server_close_impl(self);
    Py_RETURN_FALSE;
}

static PyObject *http_server_port(HttpServerObject *self, void *closure)
{
    (void)closure;
    pthread_mutex_lock(&self->mu);
    int port = self->s ? rb_http_server_port(self->s) : -1;
    pthread_mutex_unlock(&self->mu);
    if (port < 0) {
        PyErr_SetString(PyExc_ValueError, "HTTPServer is closed");
        return NULL;
    }
    return PyLong_FromLong(port);
}

static PyMethodDef http_server_methods[] = {
    {"start", (PyCFunction)http_server_start, METH_NOARGS,
     "start()\n--\n\nStarts the worker threads and returns."},
    {"serve_forever", (PyCFunction)http_server_serve_forever, METH_NOARGS,
     "serve_forever()\n--\n\nStarts if needed and serves until stop() (from a signal handler\n"
     "or another thread); an exception raised by a signal handler stops the\n"
     "server and propagates."},
    {"stop", (PyCFunction)http_server_stop, METH_NOARGS,
     "stop()\n--\n\nAsks the workers to close every connection and exit."},
    {"wait", (PyCFunction)(void (*)(void))http_server_wait, METH_FASTCALL,
     "wait(timeout=None, /)\n--\n\nWaits for the workers to exit after stop(); True once they "
     "have."},
    {"stats", (PyCFunction)http_server_stats, METH_NOARGS,
     "stats()\n--\n\nThe counters: requests, bad_requests, timeouts, accepted, open."},
    {"close", (PyCFunction)http_server_close, METH_NOARGS,
     "close()\n--\n\nStops the server, joins its workers, frees it; idempotent."},
    {"__enter__", (PyCFunction)http_server_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)http_server_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef http_server_getset[] = {
    {"port", (getter)http_server_port, NULL, "The port the server listens on.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot http_server_slots[] = {
    {Py_tp_new, http_server_new},
    {Py_tp_dealloc, http_server_dealloc},
    {Py_tp_traverse, http_server_traverse},
    {Py_tp_clear, http_server_clear},
    {Py_tp_methods, http_server_methods},
    {Py_tp_getset, http_server_getset},
    {Py_tp_doc, "HTTPServer(handler=None, *, host='127.0.0.1', port=0, threads=1, "
                "header_timeout_ms=0)\n--\n\n"
                "The core's HTTP/1.1 server on a loopback address. handler(method, path)\n"
                "returns (status, body_bytes) and is called for every request with the\n"
                "GIL taken; None answers with the core's own C handler."},
    {0, NULL},
};

/*pyi
HTTP_HELLO: str

class HTTPServer:
    def __init__(
        self,
        handler: Optional[Callable[[str, str], Tuple[int, bytes]]] = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        threads: int = 1,
        header_timeout_ms: int = 0,
    ) -> None: ...
    @property
    def port(self) -> int: ...
    def start(self) -> None: ...
    def serve_forever(self) -> None: ...
    def stop(self) -> None: ...
    def wait(self, timeout: Optional[float] = None, /) -> bool: ...
    def stats(self) -> dict[str, int]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "HTTPServer": ...
    def __exit__(self, *exc: object) -> bool: ...
*/
static PyType_Spec http_server_spec = {
    .name = "roundbench._core.HTTPServer",
    .basicsize = sizeof(HttpServerObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = http_server_slots,
};
/* ---- round chain -------------------------------------------------------- */
/* A chain is a capsule around the core's rb_chain: setup (chain_new), the
 * pass (chain_pass) and teardown (chain_free) are separate calls so that
 * each can be timed from Python; all three release the GIL. */

#define CHAIN_CAPSULE "roundbench._core.chain"

typedef struct {
    rb_chain *chain; /* NULL once freed; read and written only by the claimer */
    int busy;        /* 1 while a call has claimed it (atomic compare-and-swap) */
} chain_box;

static void chain_capsule_free(PyObject *capsule)
{
    chain_box *box = PyCapsule_GetPointer(capsule, CHAIN_CAPSULE);
    if (!box)
        return;
    rb_chain_free(box->chain); /* only when no call holds the capsule */
    PyMem_Free(box);
}

/* The chain in a capsule, claimed for this call (chain_release ends the
 * claim), or NULL with TypeError/ValueError set. */
static chain_box *chain_arg(PyObject *obj, const char *func)
{
    if (!PyCapsule_IsValid(obj, CHAIN_CAPSULE)) {
        PyErr_Format(PyExc_TypeError,
                     "%s() argument 'chain' must be a chain from chain_new(), not %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    chain_box *box = PyCapsule_GetPointer(obj, CHAIN_CAPSULE);
    /* The claim: the GIL released inside a call (and no GIL at all on a
     * free-threaded interpreter) lets another thread reach the same
     * chain, so exactly one call may hold it, and the loser is told. */
    int idle = 0;
    if (!__atomic_compare_exchange_n(&box->busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        PyErr_Format(PyExc_ValueError, "%s() argument 'chain' is in use by another thread", func);
        return NULL;
    }
    return box;
}

static void chain_release(chain_box *box)
{
    __atomic_store_n(&box->busy, 0, __ATOMIC_RELEASE);
}

PyDoc_STRVAR(chain_new_doc,
             "chain_new(n, hop_work, parallel, ucontext, /)\n--\n\n"
             "Setup: builds `parallel` chains of n coroutines in the C core, each\n"
             "waiting to receive, and returns them (free with chain_free, or let\n"
             "the object go). ucontext=True switches with swapcontext instead of\n"
             "the core's own switch. ValueError for n < 1, hop_work < 0 or parallel\n"
             "outside [1, 4096]; OverflowError when the result would not fit in\n"
             "64 bits; MemoryError when the tasks do not fit. Releases the GIL.");

/*pyi
class _Chain: ...  # an opaque capsule around the core's rb_chain

def chain_new(n: int, hop_work: int, parallel: int, ucontext: bool, /) -> _Chain: ...
*/
static PyObject *chain_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t n, k, p;
    if (check_nargs("chain_new", nargs, 4) < 0)
        return NULL;
    if (int64_arg(args[0], "chain_new", "n", &n) < 0 ||
        int64_arg(args[1], "chain_new", "hop_work", &k) < 0 ||
        int64_arg(args[2], "chain_new", "parallel", &p) < 0)
        return NULL;
    int uc = PyObject_IsTrue(args[3]);
    if (uc < 0)
        return NULL;
    chain_box *box = PyMem_Calloc(1, sizeof *box);
    if (!box)
        return PyErr_NoMemory();
    rb_error err;
    rb_status st;
    Py_BEGIN_ALLOW_THREADS
    st = rb_chain_new(n, k, p, uc ? RB_CHAIN_UCONTEXT : RB_CHAIN_ASM, &box->chain, &err);
    Py_END_ALLOW_THREADS
    if (st != RB_OK) {
        PyMem_Free(box);
        return raise_core_error(module, "chain_new", &err);
    }
    PyObject *capsule = PyCapsule_New(box, CHAIN_CAPSULE, chain_capsule_free);
    if (!capsule) {
        rb_chain_free(box->chain);
        PyMem_Free(box);
    }
    return capsule;
}

PyDoc_STRVAR(chain_pass_doc,
             "chain_pass(chain, /)\n--\n\n"
             "The pass: sends 0 into every chain (chain 0 on this thread, the others\n"
             "on a thread each) and returns the list of what each chain's last task\n"
             "yields. A chain passes once (ValueError after). Releases the GIL.");

/*pyi
def chain_pass(chain: _Chain, /) -> list[int]: ...
*/
static PyObject *chain_pass(PyObject *module, PyObject *arg)
{
    chain_box *box = chain_arg(arg, "chain_pass");
    if (!box)
        return NULL;
    if (!box->chain) {
        chain_release(box);
        return PyErr_Format(PyExc_ValueError, "chain_pass() argument 'chain' was freed");
    }
    int64_t p = rb_chain_parallel(box->chain);
    int64_t *out = PyMem_Calloc((size_t)p, sizeof *out);
    if (!out) {
        chain_release(box);
        return PyErr_NoMemory();
    }
    rb_error err;
    rb_status st;
    Py_BEGIN_ALLOW_THREADS
    st = rb_chain_pass(box->chain, out, &err);
    Py_END_ALLOW_THREADS
    chain_release(box);
    if (st != RB_OK) {
        PyMem_Free(out);
        return raise_core_error(module, "chain_pass", &err);
    }
    PyObject *list = PyList_New((Py_ssize_t)p);
    for (int64_t i = 0; list && i < p; i++) {
        PyObject *v = PyLong_FromLongLong(out[i]);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    PyMem_Free(out);
    return list;
}

PyDoc_STRVAR(chain_free_doc,
             "chain_free(chain, /)\n--\n\n"
             "Teardown: frees the chain's tasks now (idempotent). Releases the GIL.");

/*pyi
def chain_free(chain: _Chain, /) -> None: ...
*/
static PyObject *chain_free(PyObject *module, PyObject *arg)
{
    (void)module;
    chain_box *box = chain_arg(arg, "chain_free");
    if (!box)
        return NULL;
    rb_chain *c = box->chain;
    box->chain = NULL;
    Py_BEGIN_ALLOW_THREADS
    rb_chain_free(c);
    Py_END_ALLOW_THREADS
    chain_release(box);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(chain_expected_doc,
             "chain_expected(n, hop_work, /)\n--\n\n"
             "What the last of n tasks yields, by the core's O(1)-per-hop closed\n"
             "form (to verify results; not the round's work).");

/*pyi
def chain_expected(n: int, hop_work: int, /) -> int: ...
*/
static PyObject *chain_expected(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t n, k, value;
    rb_error err;
    if (check_nargs("chain_expected", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "chain_expected", "n", &n) < 0 ||
        int64_arg(args[1], "chain_expected", "hop_work", &k) < 0)
        return NULL;
    if (rb_chain_expected(n, k, &value, &err) != RB_OK)
        return raise_core_error(module, "chain_expected", &err);
    return PyLong_FromLongLong(value);
}

/* ---- round jsonl -------------------------------------------------------- */

/* The core's tally as the dict every Python variant returns: lines, blank,
 * valid, invalid, bytes, statuses ({status: count}), reported ([(line,
 * reason)] for the first 100 invalid lines). */
static PyObject *jsonl_result_dict(const rb_jsonl_result *r)
{
    PyObject *statuses = PyDict_New(), *reported = PyList_New((Py_ssize_t)r->nreported);
    PyObject *out = NULL;
    if (!statuses || !reported)
        goto done;
    for (size_t i = 0; i < r->nstatuses; i++) {
        PyObject *k = PyLong_FromLongLong(r->statuses[i].status);
        PyObject *v = PyLong_FromLongLong(r->statuses[i].count);
        int bad = !k || !v || PyDict_SetItem(statuses, k, v) < 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (bad)
            goto done;
    }
    for (size_t i = 0; i < r->nreported; i++) {
        PyObject *item = Py_BuildValue("(Ls)", (long long)r->reported[i].line,
                                       rb_jsonl_reason_name(r->reported[i].reason));
        if (!item)
            goto done;
        PyList_SET_ITEM(reported, (Py_ssize_t)i, item);
    }
    out = Py_BuildValue("{sLsLsLsLsLsOsO}", "lines", (long long)r->lines, "blank",
                        (long long)r->blank, "valid", (long long)r->valid, "invalid",
                        (long long)r->invalid, "bytes", (long long)r->bytes, "statuses", statuses,
                        "reported", reported);
done:
    Py_XDECREF(statuses);
    Py_XDECREF(reported);
    return out;
}

PyDoc_STRVAR(jsonl_count_file_doc,
             "jsonl_count_file(path, /)\n--\n\n"
             "Counts the top-level \"status\" of every line of the JSON Lines file at\n"
             "path, validating each line (docs/rounds/jsonl.md has the rules). The core\n"
             "opens and reads the file itself, with the GIL released. Returns a dict:\n"
             "lines, blank, valid, invalid, bytes, statuses {status: count} and\n"
             "reported [(line, reason)] for the first 100 invalid lines. Raises\n"
             "OSError (with how many bytes were counted when a read fails).");

/*pyi
JSONL_MAX_DEPTH: int
JSONL_MAX_REPORTED: int

def jsonl_count_file(path: Union[str, bytes, os.PathLike], /) -> dict: ...
*/
static PyObject *jsonl_count_file(PyObject *module, PyObject *arg)
{
    PyObject *encoded = NULL, *out = NULL;
    if (!PyUnicode_FSConverter(arg, &encoded))
        return NULL;
    const char *path = PyBytes_AS_STRING(encoded);
    rb_jsonl_result res;
    rb_error err;
    rb_status st;
    rb_jsonl_result_init(&res);
    Py_BEGIN_ALLOW_THREADS
    st = rb_jsonl_count_file(path, &res, &err);
    Py_END_ALLOW_THREADS;
    out =
        st == RB_OK ? jsonl_result_dict(&res) : raise_core_error(module, "jsonl_count_file", &err);
    rb_jsonl_result_free(&res);
    Py_DECREF(encoded);
    return out;
}

PyDoc_STRVAR(jsonl_count_buffer_doc,
             "jsonl_count_buffer(buf, /)\n--\n\n"
             "jsonl_count_file over a bytes-like object (buffer protocol, no copy;\n"
             "the GIL is released above 64 KiB).");

/*pyi
def jsonl_count_buffer(buf: Buffer, /) -> dict: ...
*/
static PyObject *jsonl_count_buffer(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError,
                            "jsonl_count_buffer() argument 'buf' must be a bytes-like object, "
                            "not %.100s",
                            Py_TYPE(arg)->tp_name);
    }
    rb_jsonl_result res;
    rb_error err;
    rb_status st;
    rb_jsonl_result_init(&res);
    if (view.len > (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        st = rb_jsonl_count_buffer((const uint8_t *)view.buf, (size_t)view.len, &res, &err);
        Py_END_ALLOW_THREADS
    } else {
        st = rb_jsonl_count_buffer((const uint8_t *)view.buf, (size_t)view.len, &res, &err);
    }
    PyBuffer_Release(&view);
    PyObject *out = st == RB_OK ? jsonl_result_dict(&res)
                                : raise_core_error(module, "jsonl_count_buffer", &err);
    rb_jsonl_result_free(&res);
    return out;
}
PyDoc_STRVAR(jsonl_kernel_doc,
             "jsonl_kernel(name=None, /)\n--\n\n"
             "The kernel the jsonl counts of this process use: \"scan\", \"sse2\",\n"
             "\"avx2\" or \"avx512\" (csrc/roundbench.h says what each is). With a name\n"
             "(\"auto\", \"scan\", \"sse2\", \"avx2\", \"avx512\") chooses it first;\n"
             "ValueError for a name that is no kernel or one this CPU cannot run (the\n"
             "message says what it needs), or when $ROUNDBENCH_JSONL_KERNEL does so\n"
             "under \"auto\".");

/*pyi
def jsonl_kernel(name: Optional[str] = None, /) -> str: ...
*/
static PyObject *jsonl_kernel(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "jsonl_kernel() takes at most 1 argument (%zd given)",
                            nargs);
    rb_error err;
    if (nargs == 1 && args[0] != Py_None) {
        if (!PyUnicode_Check(args[0]))
            return PyErr_Format(PyExc_TypeError,
                                "jsonl_kernel() argument 'name' must be str or None, not %.100s",
                                Py_TYPE(args[0])->tp_name);
        const char *name = PyUnicode_AsUTF8(args[0]);
        if (!name)
            return NULL;
        if (rb_jsonl_set_kernel(name, &err) != RB_OK)
            return raise_core_error(module, "jsonl_kernel", &err);
    }
    const char *k = rb_jsonl_kernel(&err);
    if (!k)
        return raise_core_error(module, "jsonl_kernel", &err);
    return PyUnicode_FromString(k);
}

/* ---- round sleep -------------------------------------------------------- */

PyDoc_STRVAR(sleep_doc, "sleep(n, wait_ns, /)\n--\n\n"
                        "The sleep round on the core's event loop: n tasks, all live at once,\n"
                        "each waiting wait_ns from a common start. Returns a dict: n, setup_ns,\n"
                        "run_ns, overhead_ns, peak_live, completed, early. The GIL is released\n"
                        "for the whole run (about wait_ns); Ctrl-C is seen when it returns.");

/*pyi
SLEEP_MAX_N: int

def sleep(n: int, wait_ns: int, /) -> dict[str, int]: ...
*/
static PyObject *sleep_(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t n, wait_ns;
    if (check_nargs("sleep", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "sleep", "n", &n) < 0 ||
        int64_arg(args[1], "sleep", "wait_ns", &wait_ns) < 0)
        return NULL;
    rb_sleep_stats s;
    rb_error err;
    rb_status st;
    Py_BEGIN_ALLOW_THREADS
    st = rb_sleep(n, wait_ns, &s, &err);
    Py_END_ALLOW_THREADS
    if (st != RB_OK)
        return raise_core_error(module, "sleep", &err);
    return Py_BuildValue("{sLsLsLsLsLsLsL}", "n", (long long)s.n, "setup_ns", (long long)s.setup_ns,
                         "run_ns", (long long)s.run_ns, "overhead_ns", (long long)s.overhead_ns,
                         "peak_live", (long long)s.peak_live, "completed", (long long)s.completed,
                         "early", (long long)s.early);
}

PyDoc_STRVAR(thread_limit_doc,
             "thread_limit(touched_bytes, maps_per_thread, /)\n--\n\n"
             "How many more threads this process could create now, each making\n"
             "touched_bytes resident and adding maps_per_thread memory mappings:\n"
             "(limit name, its setting, threads it allows), for the tightest of\n"
             "kernel.pid_max, kernel.threads-max, RLIMIT_NPROC, vm.max_map_count and\n"
             "MemAvailable.");

/*pyi
def thread_limit(touched_bytes: int, maps_per_thread: int, /) -> tuple[str, int, int]: ...
*/
static PyObject *thread_limit(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t touched, maps;
    if (check_nargs("thread_limit", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "thread_limit", "touched_bytes", &touched) < 0 ||
        int64_arg(args[1], "thread_limit", "maps_per_thread", &maps) < 0)
        return NULL;
    rb_thread_limit lim;
    rb_error err;
    if (rb_thread_limit_now(touched, maps, &lim, &err) != RB_OK)
        return raise_core_error(module, "thread_limit", &err);
    return Py_BuildValue("(sLL)", lim.name, (long long)lim.value, (long long)lim.max_threads);
}

/* ---- round aspects ------------------------------------------------------- */

/* The loaded data is a capsule around the core's ephemeris and events:
 * loading (untimed in the round) and searching are separate calls. The
 * data is immutable once loaded, so searches may run in several threads
 * at once; the capsule frees it when the last reference goes. */

#define ASPECTS_CAPSULE "roundbench._core.aspects"
/* Below this many events releasing the GIL costs more than it gives. */
#define ASPECTS_GIL_THRESHOLD 64

typedef struct {
    rb_aspects_ephemeris *eph;
    rb_aspects_events *events;
} aspects_box;

static void aspects_box_free(aspects_box *box)
{
    rb_aspects_events_free(box->events);
    rb_aspects_ephemeris_free(box->eph);
    PyMem_Free(box);
}

static void aspects_capsule_free(PyObject *capsule)
{
    aspects_box *box = PyCapsule_GetPointer(capsule, ASPECTS_CAPSULE);
    if (box)
        aspects_box_free(box);
}

/* The data in a capsule, or NULL with TypeError set. */
static aspects_box *aspects_arg(PyObject *obj, const char *func)
{
    if (!PyCapsule_IsValid(obj, ASPECTS_CAPSULE)) {
        PyErr_Format(PyExc_TypeError,
                     "%s() argument 'data' must be the data from aspects_load(), not %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return PyCapsule_GetPointer(obj, ASPECTS_CAPSULE);
}

PyDoc_STRVAR(aspects_load_doc,
             "aspects_load(ephemeris, events, /)\n--\n\n"
             "Has the C core read and parse an ephemeris file and an events file\n"
             "(docs/rounds/aspects.md has their format) and returns the data for\n"
             "aspects_search. ValueError naming the file and the line for bad\n"
             "input, OSError when a file cannot be read. Releases the GIL.");

/*pyi
class _Aspects: ...  # an opaque capsule around the core's ephemeris and events

def aspects_load(
    ephemeris: Union[str, bytes, os.PathLike], events: Union[str, bytes, os.PathLike], /
) -> _Aspects: ...
*/
static PyObject *aspects_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *eph_path = NULL, *ev_path = NULL, *capsule = NULL;
    if (check_nargs("aspects_load", nargs, 2) < 0)
        return NULL;
    if (!PyUnicode_FSConverter(args[0], &eph_path) || !PyUnicode_FSConverter(args[1], &ev_path))
        goto done;
    aspects_box *box = PyMem_Calloc(1, sizeof *box);
    if (!box) {
        PyErr_NoMemory();
        goto done;
    }
    rb_error err;
    rb_status st;
    Py_BEGIN_ALLOW_THREADS
    st = rb_aspects_ephemeris_load(PyBytes_AS_STRING(eph_path), &box->eph, &err);
    if (st == RB_OK)
        st = rb_aspects_events_load(PyBytes_AS_STRING(ev_path), box->eph, &box->events, &err);
    Py_END_ALLOW_THREADS;
    if (st != RB_OK) {
        aspects_box_free(box);
        raise_core_error(module, "aspects_load", &err);
        goto done;
    }
    capsule = PyCapsule_New(box, ASPECTS_CAPSULE, aspects_capsule_free);
    if (!capsule)
        aspects_box_free(box);
done:
    Py_XDECREF(eph_path);
    Py_XDECREF(ev_path);
    return capsule;
}

PyDoc_STRVAR(aspects_events_doc, "aspects_events(data, /)\n--\n\n"
                                 "The number of events aspects_load loaded.");

/*pyi
def aspects_events(data: _Aspects, /) -> int: ...
*/
static PyObject *aspects_events(PyObject *module, PyObject *arg)
{
    (void)module;
    aspects_box *box = aspects_arg(arg, "aspects_events");
    return box ? PyLong_FromLongLong(rb_aspects_events_count(box->events)) : NULL;
}

PyDoc_STRVAR(aspects_search_doc,
             "aspects_search(data, combo, test, first=0, count=None, /)\n--\n\n"
             "The C core's search (test 1) or search and print (test 2) for the\n"
             "combination combo (\"Moon-120-Jupiter,Asc-90-Mars\": POINT-ANGLE-POINT\n"
             "terms joined by commas) over the events [first, first + count) (count\n"
             "None: to the last). Returns (output, matches): the output's bytes, as\n"
             "docs/rounds/aspects.md states them, and the number of matching events.\n"
             "ValueError naming the combination's bad term, the events file's line of\n"
             "an event outside the ephemeris or beyond the polar circles, or a range\n"
             "outside the events. Releases the GIL above 64 events.");

/*pyi
def aspects_search(
    data: _Aspects, combo: str, test: int, first: int = 0, count: Optional[int] = None, /
) -> Tuple[bytes, int]: ...
*/
static PyObject *aspects_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 3 || nargs > 5) {
        PyErr_Format(PyExc_TypeError, "aspects_search() takes from 3 to 5 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    aspects_box *box = aspects_arg(args[0], "aspects_search");
    if (!box)
        return NULL;
    if (!PyUnicode_Check(args[1]))
        return PyErr_Format(PyExc_TypeError,
                            "aspects_search() argument 'combo' must be str, not %.100s",
                            Py_TYPE(args[1])->tp_name);
    const char *combo_text = PyUnicode_AsUTF8(args[1]);
    int64_t test, first = 0, count;
    if (!combo_text || int64_arg(args[2], "aspects_search", "test", &test) < 0 ||
        (nargs > 3 && int64_arg(args[3], "aspects_search", "first", &first) < 0))
        return NULL;
    if (nargs > 4 && args[4] != Py_None) {
        if (int64_arg(args[4], "aspects_search", "count", &count) < 0)
            return NULL;
    } else {
        count = rb_aspects_events_count(box->events) - first;
    }
    rb_error err;
    rb_aspects_combo combo;
    if (rb_aspects_combo_parse(combo_text, &combo, &err) != RB_OK)
        return raise_core_error(module, "aspects_search", &err);
    rb_buf out = {0};
    int64_t matches = 0;
    rb_status st;
    int t = test < INT_MIN || test > INT_MAX ? 0 : (int)test; /* 0: the core refuses it */
    if (count > ASPECTS_GIL_THRESHOLD) {
        Py_BEGIN_ALLOW_THREADS
        st =
            rb_aspects_search(box->eph, box->events, first, count, &combo, t, &out, &matches, &err);
        Py_END_ALLOW_THREADS
    } else {
        st =
            rb_aspects_search(box->eph, box->events, first, count, &combo, t, &out, &matches, &err);
    }
    PyObject *result = NULL;
    if (st != RB_OK)
        raise_core_error(module, "aspects_search", &err);
    else
        result = Py_BuildValue("(y#L)", out.data ? out.data : "", (Py_ssize_t)out.len,
                               (long long)matches);
    rb_buf_free(&out);
    return result;
}

/* ---- the module ---------------------------------------------------------- */

/*pyi
def build_info() -> str: ...
*/
static PyObject *build_info(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(rb_build_info());
}

/* Raises what raise_core_error makes of a record with only these fields:
 * the tests reach the mapper through it, for every status, unknown ones
 * included. Private: no stub, not re-exported. */
static PyObject *raise_status(PyObject *module, PyObject *args)
{
    int code;
    const char *arg, *msg;
    if (!PyArg_ParseTuple(args, "izs:_raise_status", &code, &arg, &msg))
        return NULL;
    rb_error err;
    rb_error_clear(&err);
    err.code = (rb_status)code;
    err.arg = arg;
    snprintf(err.msg, sizeof err.msg, "%s", msg);
    return raise_core_error(module, "_raise_status", &err);
}

static PyMethodDef core_methods[] = {
    {"loop", loop, METH_O, loop_doc},
    {"loop_range", (PyCFunction)(void (*)(void))loop_range, METH_FASTCALL, loop_range_doc},
    {"loop_parallel", (PyCFunction)(void (*)(void))loop_parallel, METH_FASTCALL, loop_parallel_doc},
    {"ffi_noargs", ffi_noargs, METH_NOARGS, "ffi_noargs()\n--\n\nrb_ffi_noop(0), METH_NOARGS."},
    {"ffi_o", ffi_o, METH_O, "ffi_o(x, /)\n--\n\nrb_ffi_noop(x), METH_O."},
    {"ffi_fastcall", (PyCFunction)(void (*)(void))ffi_fastcall, METH_FASTCALL,
     "ffi_fastcall(x, /)\n--\n\nrb_ffi_noop(x), METH_FASTCALL."},
    {"ffi_varargs", ffi_varargs, METH_VARARGS,
     "ffi_varargs(x, /)\n--\n\nrb_ffi_noop(x), METH_VARARGS with PyArg_ParseTuple."},
    {"ffi_buffer", ffi_buffer, METH_O, ffi_buffer_doc},
    {"ffi_args4", (PyCFunction)(void (*)(void))ffi_args4, METH_FASTCALL, ffi_args4_doc},
    {"ffi_str", (PyCFunction)(void (*)(void))ffi_str, METH_FASTCALL, ffi_str_doc},
    {"ffi_callback_loop", (PyCFunction)(void (*)(void))ffi_callback_loop, METH_FASTCALL,
     ffi_callback_loop_doc},
    {"matmul_blas", (PyCFunction)(void (*)(void))matmul_blas, METH_FASTCALL, matmul_blas_doc},
    {"matmul_naive", (PyCFunction)(void (*)(void))matmul_naive, METH_FASTCALL, matmul_naive_doc},
    {"matmul_verify", (PyCFunction)(void (*)(void))matmul_verify, METH_FASTCALL, matmul_verify_doc},
    {"matmul_fill", (PyCFunction)(void (*)(void))matmul_fill, METH_FASTCALL, matmul_fill_doc},
    {"blas_get_info", blas_get_info, METH_NOARGS, blas_get_info_doc},
    {"blas_set_threads", blas_set_threads, METH_O, blas_set_threads_doc},
    {"blas_set_library", blas_set_library, METH_O, blas_set_library_doc},
    {"temps", temps, METH_O, temps_doc},
    {"chain_new", (PyCFunction)(void (*)(void))chain_new, METH_FASTCALL, chain_new_doc},
    {"chain_pass", chain_pass, METH_O, chain_pass_doc},
    {"chain_free", chain_free, METH_O, chain_free_doc},
    {"chain_expected", (PyCFunction)(void (*)(void))chain_expected, METH_FASTCALL,
     chain_expected_doc},
    {"jsonl_count_file", jsonl_count_file, METH_O, jsonl_count_file_doc},
    {"jsonl_count_buffer", jsonl_count_buffer, METH_O, jsonl_count_buffer_doc},
    {"jsonl_kernel", (PyCFunction)(void (*)(void))jsonl_kernel, METH_FASTCALL, jsonl_kernel_doc},
    {"sleep", (PyCFunction)(void (*)(void))sleep_, METH_FASTCALL, sleep_doc},
    {"thread_limit", (PyCFunction)(void (*)(void))thread_limit, METH_FASTCALL, thread_limit_doc},
    {"aspects_load", (PyCFunction)(void (*)(void))aspects_load, METH_FASTCALL, aspects_load_doc},
    {"aspects_events", aspects_events, METH_O, aspects_events_doc},
    {"aspects_search", (PyCFunction)(void (*)(void))aspects_search, METH_FASTCALL,
     aspects_search_doc},
    {"_raise_status", raise_status, METH_VARARGS, NULL},
    {"build_info", build_info, METH_NOARGS,
     "build_info()\n--\n\nThe compiler and flags the core was built with."},
    {NULL, NULL, 0, NULL},
};

/*pyi
ASPECTS_DEFAULT_COMBO: str
LOOP_MAX_N: int
MATMUL_MAX_N: int
TEMPS_MAX_ABS: int

class CoreError(RuntimeError): ...
*/
static int core_exec(PyObject *module)
{
    core_state *st = get_state(module);
    st->core_error = PyErr_NewExceptionWithDoc(
        "roundbench._core.CoreError", "A failure of the C core that no builtin exception names.",
        PyExc_RuntimeError, NULL);
    if (!st->core_error)
        return -1;
    if (PyModule_AddObjectRef(module, "CoreError", st->core_error) < 0)
        return -1;
    if (PyModule_AddIntConstant(module, "LOOP_MAX_N", (long)RB_LOOP_MAX_N) < 0)
        return -1;
    if (PyModule_AddIntConstant(module, "MATMUL_MAX_N", (long)RB_MATMUL_MAX_N) < 0 ||
        PyModule_AddIntConstant(module, "TEMPS_MAX_ABS", (long)RB_TEMPS_MAX_ABS) < 0)
        return -1;
    st->http_server_type = PyType_FromModuleAndSpec(module, &http_server_spec, NULL);
    if (!st->http_server_type ||
        PyModule_AddObjectRef(module, "HTTPServer", st->http_server_type) < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "HTTP_HELLO", RB_HTTP_HELLO) < 0)
        return -1;
    if (PyModule_AddIntConstant(module, "JSONL_MAX_DEPTH", RB_JSONL_MAX_DEPTH) < 0 ||
        PyModule_AddIntConstant(module, "JSONL_MAX_REPORTED", RB_JSONL_MAX_REPORTED) < 0)
        return -1;
    if (PyModule_AddIntConstant(module, "SLEEP_MAX_N", (long)RB_SLEEP_MAX_N) < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "ASPECTS_DEFAULT_COMBO", RB_ASPECTS_DEFAULT_COMBO) < 0)
        return -1;
    return 0;
}

static int core_traverse(PyObject *module, visitproc visit, void *arg)
{
    Py_VISIT(get_state(module)->core_error);
    Py_VISIT(get_state(module)->http_server_type);
    return 0;
}

static int core_clear(PyObject *module)
{
    Py_CLEAR(get_state(module)->core_error);
    Py_CLEAR(get_state(module)->http_server_type);
    return 0;
}

static void core_free(void *module)
{
    core_clear((PyObject *)module);
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
#if PY_VERSION_HEX >= 0x030D0000 && !defined(PYPY_VERSION)
    /* The audit at the top of this file: importing it keeps the GIL off. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "roundbench._core",
    .m_doc = "The roundbench C core, bound for Python. Use the roundbench package.",
    .m_size = sizeof(core_state),
    .m_methods = core_methods,
    .m_slots = core_slots,
    .m_traverse = core_traverse,
    .m_clear = core_clear,
    .m_free = core_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&core_module);
}
