// ffi_pybind11.cpp: round ffi's py-pybind11. The core's callee bound
// directly by its function pointer (pybind11's docs, "Functions": no
// py::args, no lambda in between), and the buffer through py::buffer,
// which requests the object's buffer without a copy. The callee is the
// core's csrc/ffi.c, compiled into this module (runtimes/aotbuild.py).
#include <pybind11/pybind11.h>

#include "roundbench.h"

namespace py = pybind11;

PYBIND11_MODULE(ffi_pybind11, m)
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
}
