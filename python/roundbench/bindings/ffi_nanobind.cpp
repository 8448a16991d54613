// ffi_nanobind.cpp: round ffi's py-nanobind rows. The core's callees bound
// directly by their function pointers (nanobind's docs, "Functions"),
// nanobind's own casters converting the four mixed arguments and the
// returned const char * (a new str each call); the buffer as a
// one-dimensional contiguous nb::ndarray of bytes, which nanobind takes
// from any object with the buffer protocol without a copy; and C calling
// back into Python through a std::function (nanobind/stl/function.h),
// handed to the core's loop by a function-pointer trampoline. The callees
// are the core's csrc/ffi.c, compiled into this module
// (runtimes/aotbuild.py, which compiles nanobind's own library in too,
// in its free-threaded mode under a free-threaded interpreter: the module
// keeps no state of its own, so the GIL stays off).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "roundbench.h"

namespace nb = nanobind;

namespace
{

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Callee = std::function<int64_t(int64_t)>;

// What the trampoline gets as ctx: the callee, and the exception that
// stopped the loop (it is thrown again once the core has returned).
struct Call {
    const Callee &f;
    std::exception_ptr error;
};

// The core is C: no C++ exception may unwind through its frames, so the
// trampoline catches every one (a Python exception arrives as
// nb::python_error) and returns non-zero, which stops the loop.
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
        throw nb::value_error(
            (std::string("callback_loop() argument '") + err.arg + "' " + err.msg).c_str());
    if (st != RB_OK)
        throw std::runtime_error(std::string("callback_loop(): ") + err.msg);
    return sum;
}

} // namespace

NB_MODULE(ffi_nanobind, m)
{
    m.doc() = "Round ffi through nanobind.";
    m.def("noop", &rb_ffi_noop, "rb_ffi_noop(x)");
    m.def(
        "buffer", [](Bytes buf) { return rb_ffi_buffer(buf.data(), buf.size()); },
        "rb_ffi_buffer over a bytes-like object, zero-copy");
    m.def("args4", &rb_ffi_args4, "rb_ffi_args4(a, b, c, s): int64, float, int32, str");
    m.def("string", &rb_ffi_str, "rb_ffi_str(x): a new str each call");
    m.def("callback_loop", &callback_loop, nb::arg("func").none(), nb::arg("count"),
          "the core calls func(i) for i in range(count); the sum (func None: its C callback)");
}
