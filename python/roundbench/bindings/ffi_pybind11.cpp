// ffi_pybind11.cpp: round ffi's py-pybind11 rows. The core's callees bound
// directly by their function pointers (pybind11's docs, "Functions": no
// py::args, no lambda in between), pybind11's own casters converting the
// four mixed arguments and the returned const char * (a new str each call);
// the buffer through py::buffer, which requests the object's buffer without
// a copy; and C calling back into Python through a std::function, as
// pybind11's docs recommend for callbacks (functional.h, "Callbacks and
// passing anonymous functions"), handed to the core's loop by a
// function-pointer trampoline. The callees are the core's csrc/ffi.c,
// compiled into this module (runtimes/aotbuild.py).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "roundbench.h"

namespace py = pybind11;

namespace
{

using Callee = std::function<int64_t(int64_t)>;

// What the trampoline gets as ctx: the callee, and the exception that
// stopped the loop (it is thrown again once the core has returned).
struct Call {
    const Callee &f;
    std::exception_ptr error;
};

// The core is C: no C++ exception may unwind through its frames, so the
// trampoline catches every one (a Python exception arrives as
// py::error_already_set) and returns non-zero, which stops the loop.
int trampoline(void *ctx, int64_t x, int64_t *result) noexcept
{
    auto *call = static_cast<Call *>(ctx);
    try {
        *result = call->f(x);
        return 0;
    } catch (...) {
        call->error = std::current_exception();
        return 1;
    }
}

// func(i) for i in range(count) called from the core's loop, the sum of the
// results; func None runs the core's own C callback (the rows' baseline).
int64_t callback_loop(const Callee &f, int64_t count)
{
    rb_error err;
    int64_t sum = 0;
    rb_status st;
    if (!f) {
        st = rb_ffi_callback_loop(rb_ffi_noop_callback, nullptr, count, &sum, &err);
    } else {
        Call call{f, nullptr};
        st = rb_ffi_callback_loop(trampoline, &call, count, &sum, &err);
        if (call.error)
            std::rethrow_exception(call.error);
    }
    if (st == RB_ERR_ARG && err.arg)
        throw py::value_error(std::string("callback_loop() argument '") + err.arg + "' " + err.msg);
    if (st != RB_OK)
        throw std::runtime_error(std::string("callback_loop(): ") + err.msg);
    return sum;
}

} // namespace

// No state of its own: a free-threaded interpreter keeps the GIL off.
PYBIND11_MODULE(ffi_pybind11, m, py::mod_gil_not_used())
{
    m.doc() = "Round ffi through pybind11.";
    m.def("noop", &rb_ffi_noop, "rb_ffi_noop(x)");
    m.def(
        "buffer",
        [](py::buffer buf) {
            py::buffer_info info = buf.request();
            return rb_ffi_buffer(static_cast<const uint8_t *>(info.ptr),
                                 static_cast<size_t>(info.size * info.itemsize));
        },
        "rb_ffi_buffer over a bytes-like object, zero-copy");
    m.def("args4", &rb_ffi_args4, "rb_ffi_args4(a, b, c, s): int64, float, int32, str");
    m.def("string", &rb_ffi_str, "rb_ffi_str(x): a new str each call");
    m.def("callback_loop", &callback_loop, py::arg("func").none(true), py::arg("count"),
          "the core calls func(i) for i in range(count); the sum (func None: its C callback)");
}
