/* ffi_abi3.c: round ffi's py-c-abi3, the extension's METH_FASTCALL
 * function (roundbench._core.ffi_fastcall) and its buffer function built
 * against the limited API of CPython 3.11: one such module (abi3) loads in
 * every CPython from 3.11 on. The callee is the core's csrc/ffi.c, compiled
 * into this module (runtimes/aotbuild.py). The limited API has no
 * vectorcall shortcuts and reaches objects through functions, not macros:
 * that is the cost this variant measures. */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "roundbench.h"

static PyObject *noop(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "noop() takes exactly one argument (%zd given)", nargs);
        return NULL;
    }
    long long x = PyLong_AsLongLong(args[0]);
    if (x == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(rb_ffi_noop(x));
}

/* The buffer protocol is in the limited API from 3.11 (PyObject_GetBuffer):
 * the bytes are handed over without a copy. */
static PyObject *buffer(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int64_t r = rb_ffi_buffer((const uint8_t *)view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromLongLong(r);
}

static PyMethodDef methods[] = {
    {"noop", (PyCFunction)(void (*)(void))noop, METH_FASTCALL, "rb_ffi_noop(x), METH_FASTCALL."},
    {"buffer", buffer, METH_O, "rb_ffi_buffer over a bytes-like object, zero-copy."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "ffi_abi3",
    "Round ffi through the limited API.",
    0,
    methods,
    slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit_ffi_abi3(void)
{
    return PyModuleDef_Init(&module_def);
}
