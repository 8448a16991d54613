//! Round ffi's py-pyo3 rows: the core's callees behind `#[pyfunction]`s, as
//! PyO3's guide writes a function (typed arguments converted by PyO3, no
//! clones). The buffer arrives as a `PyBuffer<u8>`, the object's own
//! memory, without a copy. A Rust `&str` is not NUL-terminated, so the
//! string argument is copied into a `CString` for the core, and the core's
//! string is checked as UTF-8 (`CStr::to_str`) before PyO3 makes a str of
//! it. C calls back into Python through an `extern "C"` trampoline that
//! gets the callable (and a slot for its error) as its ctx.
use std::ffi::{c_char, c_int, c_void, CStr, CString};

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The core's error record (csrc/roundbench.h, rb_error), as C lays it out.
#[repr(C)]
struct RbError {
    code: c_int,
    arg: *const c_char,
    pos: i64,
    sys_errno: c_int,
    msg: [c_char; 256],
}

type RbCallback = unsafe extern "C" fn(ctx: *mut c_void, x: i64, result: *mut i64) -> c_int;

const RB_OK: c_int = 0;
const RB_ERR_ARG: c_int = 1;

extern "C" {
    fn rb_ffi_noop(x: i64) -> i64;
    fn rb_ffi_buffer(p: *const u8, n: usize) -> i64;
    fn rb_ffi_args4(a: i64, b: f64, c: i32, s: *const c_char) -> i64;
    fn rb_ffi_str(x: i64) -> *const c_char;
    fn rb_ffi_callback_loop(
        cb: RbCallback,
        ctx: *mut c_void,
        count: i64,
        sum: *mut i64,
        err: *mut RbError,
    ) -> c_int;
    fn rb_ffi_noop_callback(ctx: *mut c_void, x: i64, result: *mut i64) -> c_int;
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

/// rb_ffi_args4(a, b, c, s): an int64, a float, an int32 and a str.
#[pyfunction]
fn args4(a: i64, b: f64, c: i32, s: &str) -> PyResult<i64> {
    let s = CString::new(s).map_err(|e| {
        PyValueError::new_err(format!(
            "args4() argument 's' holds a NUL character at {}",
            e.nul_position()
        ))
    })?;
    // SAFETY: s is NUL-terminated and outlives the call, which only reads it.
    Ok(unsafe { rb_ffi_args4(a, b, c, s.as_ptr()) })
}

/// rb_ffi_str(x): a new str each call.
#[pyfunction]
fn string(x: i64) -> PyResult<&'static str> {
    // SAFETY: rb_ffi_str returns a NUL-terminated string in static storage
    // for every x (csrc/roundbench.h).
    let s = unsafe { CStr::from_ptr(rb_ffi_str(x)) };
    s.to_str().map_err(|e| {
        PyValueError::new_err(format!("string({x}): the core's string is not UTF-8: {e}"))
    })
}

/// What the trampoline gets as ctx: the callable, and the error that
/// stopped the loop.
struct Call<'a, 'py> {
    func: &'a Bound<'py, PyAny>,
    error: Option<PyErr>,
}

/// The core calls this with a `Call` as ctx, holding the GIL (the loop runs
/// inside callback_loop, which holds it). An error is kept for
/// callback_loop and stops the loop.
extern "C" fn trampoline(ctx: *mut c_void, x: i64, result: *mut i64) -> c_int {
    // SAFETY: ctx is callback_loop's `call`, alive and not otherwise
    // borrowed while the core runs; result points to the core's local.
    let call = unsafe { &mut *(ctx as *mut Call) };
    match call.func.call1((x,)).and_then(|r| r.extract::<i64>()) {
        Ok(v) => {
            unsafe { *result = v };
            0
        }
        Err(e) => {
            call.error = Some(e);
            1
        }
    }
}

/// The core calls func(i) for i in range(count) and returns the sum of the
/// results; func None runs the core's own C callback (the rows' baseline).
#[pyfunction]
#[pyo3(signature = (func, count))]
fn callback_loop(func: Option<&Bound<'_, PyAny>>, count: i64) -> PyResult<i64> {
    let mut sum: i64 = 0;
    // SAFETY: an all-zero rb_error is a valid cleared record.
    let mut err: RbError = unsafe { std::mem::zeroed() };
    let status = match func {
        None => unsafe {
            rb_ffi_callback_loop(
                rb_ffi_noop_callback,
                std::ptr::null_mut(),
                count,
                &mut sum,
                &mut err,
            )
        },
        Some(f) => {
            let mut call = Call {
                func: f,
                error: None,
            };
            let ctx = &mut call as *mut Call as *mut c_void;
            // SAFETY: call outlives the loop, which hands ctx to trampoline only.
            let status =
                unsafe { rb_ffi_callback_loop(trampoline, ctx, count, &mut sum, &mut err) };
            if let Some(e) = call.error {
                return Err(e);
            }
            status
        }
    };
    if status == RB_OK {
        return Ok(sum);
    }
    // SAFETY: the core NUL-terminates msg, and arg is NULL or a constant string.
    let msg = unsafe { CStr::from_ptr(err.msg.as_ptr()) }.to_string_lossy();
    if status == RB_ERR_ARG && !err.arg.is_null() {
        let arg = unsafe { CStr::from_ptr(err.arg) }.to_string_lossy();
        return Err(PyValueError::new_err(format!(
            "callback_loop() argument '{arg}' {msg}"
        )));
    }
    Err(PyRuntimeError::new_err(format!("callback_loop(): {msg}")))
}

// No state of its own: a free-threaded interpreter keeps the GIL off.
#[pymodule(gil_used = false)]
fn ffi_pyo3(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(noop, m)?)?;
    m.add_function(wrap_pyfunction!(buffer, m)?)?;
    m.add_function(wrap_pyfunction!(args4, m)?)?;
    m.add_function(wrap_pyfunction!(string, m)?)?;
    m.add_function(wrap_pyfunction!(callback_loop, m)?)?;
    Ok(())
}
