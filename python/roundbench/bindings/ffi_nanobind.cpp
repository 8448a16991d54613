// ffi_nanobind.cpp: round ffi's py-nanobind. The core's callee bound
// directly by its function pointer (nanobind's docs, "Functions"), and
// the buffer as a one-dimensional contiguous nb::ndarray of bytes, which
// nanobind takes from any object with the buffer protocol without a copy.
// The callee is the core's csrc/ffi.c, compiled into this module
// (runtimes/aotbuild.py, which compiles nanobind's own library in too).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "roundbench.h"

namespace nb = nanobind;

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

NB_MODULE(ffi_nanobind, m)
{
    m.doc() = "Round ffi through nanobind.";
    m.def("noop", &rb_ffi_noop, "rb_ffi_noop(x)");
    m.def(
        "buffer", [](Bytes buf) { return rb_ffi_buffer(buf.data(), buf.size()); },
        "rb_ffi_buffer over a bytes-like object, zero-copy");
}
