"""roundbench: which language is faster at what, measured.

The functions here are the C core (csrc/) called through the extension
module roundbench._core; each round's pure-Python version lives in
roundbench.pure. Importing this package loads only the extension: numpy and
the rest are imported by the rounds that need them, when they run.

    >>> import roundbench
    >>> roundbench.loop(10)
    27

The suite itself is `roundbench run` / `python -m roundbench run`; see
`roundbench --help`.
"""

from ._core import (
    HTTP_HELLO,
    LOOP_MAX_N,
    CoreError,
    HttpServer,
    build_info,
    ffi_buffer,
    ffi_callback_loop,
    ffi_fastcall,
    ffi_noargs,
    ffi_o,
    ffi_varargs,
    loop,
    loop_range,
    # issue 5: round sleep
    SLEEP_MAX_N,
    sleep,
    thread_limit,
)

# ---- issue 3: rounds matmul and temps ----
from ._core import (
    MATMUL_MAX_N,
    TEMPS_MAX_ABS,
    blas_info,
    blas_set_threads,
    matmul_blas,
    matmul_fill,
    matmul_naive,
    matmul_verify,
    temps,
)

# ---- end issue 3 ----
# --- round chain (issue 5) ---
from ._core import chain_expected, chain_free, chain_new, chain_pass  # noqa: E402

# --- end round chain ---
# round jsonl
from ._core import JSONL_MAX_DEPTH, JSONL_MAX_REPORTED, jsonl_count_buffer, jsonl_count_file, jsonl_kernel

__version__ = "0.1.0"

__all__ = [
    "HTTP_HELLO",
    "LOOP_MAX_N",
    "CoreError",
    "HttpServer",
    "build_info",
    "ffi_buffer",
    "ffi_callback_loop",
    "ffi_fastcall",
    "ffi_noargs",
    "ffi_o",
    "ffi_varargs",
    "loop",
    "loop_range",
    # ---- issue 3 ----
    "MATMUL_MAX_N",
    "TEMPS_MAX_ABS",
    "blas_info",
    "blas_set_threads",
    "matmul_blas",
    "matmul_fill",
    "matmul_naive",
    "matmul_verify",
    "temps",
    # ---- end issue 3 ----
    # --- round chain (issue 5) ---
    "chain_expected",
    "chain_free",
    "chain_new",
    "chain_pass",
    # --- end round chain ---
    # round jsonl
    "JSONL_MAX_DEPTH",
    "JSONL_MAX_REPORTED",
    "jsonl_count_buffer",
    "jsonl_count_file",
    "jsonl_kernel",
    # issue 5: round sleep
    "SLEEP_MAX_N",
    "sleep",
    "thread_limit",
]
