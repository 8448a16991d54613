/* unmarked.c: an extension module that does not declare Py_mod_gil, as
 * every extension written before free-threaded CPython does not.
 * runtimes.extbuild.build_unmarked builds it for a free-threaded interpreter
 * (the cores round's py-freethreaded-unmarked, tests/test_freethreading.py) and
 * imports it: the interpreter turns the GIL back on and warns, unless
 * PYTHON_GIL=0 keeps it off. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *answer(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromLong(42);
}

static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, "answer()\n--\n\n42."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "unmarked",
    .m_doc = "A module that does not say whether it needs the GIL.",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit_unmarked(void)
{
    return PyModuleDef_Init(&module);
}
