//! Round ffi's py-pyo3: the core's callee behind two `#[pyfunction]`s, as
//! PyO3's guide writes a function (typed arguments converted by PyO3, no
//! clones). The buffer arrives as a `PyBuffer<u8>`, the object's own
//! memory, without a copy.
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

extern "C" {
    fn rb_ffi_noop(x: i64) -> i64;
    fn rb_ffi_buffer(p: *const u8, n: usize) -> i64;
}

/// rb_ffi_noop(x): x + 1, wrapping.
#[pyfunction]
fn noop(x: i64) -> i64 {
    // SAFETY: rb_ffi_noop takes and returns plain integers.
    unsafe { rb_ffi_noop(x) }
}

/// rb_ffi_buffer over a bytes-like object, zero-copy.
#[pyfunction]
fn buffer(buf: PyBuffer<u8>) -> PyResult<i64> {
    if !buf.is_c_contiguous() {
        return Err(PyBufferError::new_err("buffer() needs a contiguous buffer"));
    }
    // SAFETY: the buffer is held (and its memory kept) until `buf` drops,
    // after the call; the callee only reads len_bytes() bytes from it.
    Ok(unsafe { rb_ffi_buffer(buf.buf_ptr() as *const u8, buf.len_bytes()) })
}

#[pymodule]
fn ffi_pyo3(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(noop, m)?)?;
    m.add_function(wrap_pyfunction!(buffer, m)?)?;
    Ok(())
}
