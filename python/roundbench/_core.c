/*
 * _core.c: the CPython extension roundbench._core, the Python side of the
 * crossing into the C core (csrc/). Each entry point parses its arguments,
 * calls one core function, and converts the result or the core's error
 * record; nothing else happens here.
 *
 * Multi-phase initialisation (PEP 489), state in the module object, no
 * process-wide globals, so the module is safe under subinterpreters.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "roundbench.h"

typedef struct {
    /* Raised for core failures no builtin exception describes (a stopped
     * callback loop whose callback did not raise, an unknown code). */
    PyObject *core_error;
} core_state;

static inline core_state *get_state(PyObject *module)
{
    return (core_state *)PyModule_GetState(module);
}

/* The one place a core error becomes a Python exception. `func` is the
 * Python-visible function name; the core names the argument. */
static PyObject *raise_core_error(PyObject *module, const char *func, const rb_error *e)
{
    PyObject *type;
    switch (e->code) {
    case RB_ERR_ARG: type = PyExc_ValueError; break;
    case RB_ERR_OVERFLOW: type = PyExc_OverflowError; break;
    case RB_ERR_NOMEM: return PyErr_NoMemory();
    case RB_ERR_TYPE: type = PyExc_TypeError; break;
    case RB_ERR_IO:
        errno = e->sys_errno;
        return PyErr_SetFromErrno(PyExc_OSError);
    default: type = get_state(module)->core_error; break;
    }
    if (e->arg)
        PyErr_Format(type, "%s() argument '%s': %s", func, e->arg, e->msg ? e->msg : "");
    else
        PyErr_Format(type, "%s(): %s", func, e->msg ? e->msg : rb_status_name(e->code));
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
        PyErr_Format(PyExc_OverflowError, "%s() argument '%s' does not fit in 64 bits", func,
                     name);
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

static PyObject *loop_range_impl(PyObject *module, const char *func, int64_t lo, int64_t hi)
{
    rb_error err;
    int64_t total = 0, part = 0;
    if (hi - lo < LOOP_GIL_THRESHOLD || lo < 0 || hi < lo) {
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

static PyObject *loop(PyObject *module, PyObject *arg)
{
    int64_t n;
    if (int64_arg(arg, "loop", "n", &n) < 0)
        return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "loop() argument 'n' must be >= 0, not %lld",
                            (long long)n);
    if (n > RB_LOOP_MAX_N)
        return PyErr_Format(PyExc_OverflowError,
                            "loop() argument 'n' is too large: %lld > LOOP_MAX_N (%lld)",
                            (long long)n, (long long)RB_LOOP_MAX_N);
    return loop_range_impl(module, "loop", 0, n);
}

PyDoc_STRVAR(loop_range_doc, "loop_range(lo, hi, /)\n--\n\n"
                             "Sum of i*i % 7 for i in range(lo, hi), by the C core; the\n"
                             "unit of work one worker of the cores round does.");

static PyObject *loop_range(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t lo, hi;
    if (check_nargs("loop_range", nargs, 2) < 0)
        return NULL;
    if (int64_arg(args[0], "loop_range", "lo", &lo) < 0 ||
        int64_arg(args[1], "loop_range", "hi", &hi) < 0)
        return NULL;
    return loop_range_impl(module, "loop_range", lo, hi);
}

/* ---- round ffi ---------------------------------------------------------- */
/* The same callee, rb_ffi_noop, behind each calling convention. */

static PyObject *ffi_noargs(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(rb_ffi_noop(0));
}

static PyObject *ffi_o(PyObject *module, PyObject *arg)
{
    (void)module;
    long long x = PyLong_AsLongLong(arg);
    if (x == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(rb_ffi_noop(x));
}

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

/* ---- round sleep (issue 5) ---------------------------------------------- */

PyDoc_STRVAR(sleep_doc,
             "sleep(n, wait_ns, /)\n--\n\n"
             "The sleep round on the core's event loop: n tasks, all live at once,\n"
             "each waiting wait_ns from a common start. Returns a dict: n, setup_ns,\n"
             "run_ns, overhead_ns, peak_live, completed, early. The GIL is released\n"
             "for the whole run (about wait_ns); Ctrl-C is seen when it returns.");

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
    return Py_BuildValue("{sLsLsLsLsLsLsL}", "n", (long long)s.n, "setup_ns",
                         (long long)s.setup_ns, "run_ns", (long long)s.run_ns, "overhead_ns",
                         (long long)s.overhead_ns, "peak_live", (long long)s.peak_live,
                         "completed", (long long)s.completed, "early", (long long)s.early);
}

PyDoc_STRVAR(thread_limit_doc,
             "thread_limit(touched_bytes, maps_per_thread, /)\n--\n\n"
             "How many more threads this process could create now, each making\n"
             "touched_bytes resident and adding maps_per_thread memory mappings:\n"
             "(limit name, its setting, threads it allows), for the tightest of\n"
             "kernel.pid_max, kernel.threads-max, RLIMIT_NPROC, vm.max_map_count and\n"
             "MemAvailable.");

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

/* ---- end of round sleep ------------------------------------------------- */

static PyObject *build_info(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(rb_build_info());
}

static PyMethodDef core_methods[] = {
    {"loop", loop, METH_O, loop_doc},
    {"loop_range", (PyCFunction)(void (*)(void))loop_range, METH_FASTCALL, loop_range_doc},
    {"ffi_noargs", ffi_noargs, METH_NOARGS, "ffi_noargs()\n--\n\nrb_ffi_noop(0), METH_NOARGS."},
    {"ffi_o", ffi_o, METH_O, "ffi_o(x, /)\n--\n\nrb_ffi_noop(x), METH_O."},
    {"ffi_fastcall", (PyCFunction)(void (*)(void))ffi_fastcall, METH_FASTCALL,
     "ffi_fastcall(x, /)\n--\n\nrb_ffi_noop(x), METH_FASTCALL."},
    {"ffi_varargs", ffi_varargs, METH_VARARGS,
     "ffi_varargs(x, /)\n--\n\nrb_ffi_noop(x), METH_VARARGS with PyArg_ParseTuple."},
    {"ffi_buffer", ffi_buffer, METH_O, ffi_buffer_doc},
    {"ffi_callback_loop", (PyCFunction)(void (*)(void))ffi_callback_loop, METH_FASTCALL,
     ffi_callback_loop_doc},
    /* issue 5: round sleep */
    {"sleep", (PyCFunction)(void (*)(void))sleep_, METH_FASTCALL, sleep_doc},
    {"thread_limit", (PyCFunction)(void (*)(void))thread_limit, METH_FASTCALL, thread_limit_doc},
    {"build_info", build_info, METH_NOARGS,
     "build_info()\n--\n\nThe compiler and flags the core was built with."},
    {NULL, NULL, 0, NULL},
};

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
    /* issue 5: round sleep */
    if (PyModule_AddIntConstant(module, "SLEEP_MAX_N", (long)RB_SLEEP_MAX_N) < 0)
        return -1;
    return 0;
}

static int core_traverse(PyObject *module, visitproc visit, void *arg)
{
    Py_VISIT(get_state(module)->core_error);
    return 0;
}

static int core_clear(PyObject *module)
{
    Py_CLEAR(get_state(module)->core_error);
    return 0;
}

static void core_free(void *module)
{
    core_clear((PyObject *)module);
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
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
