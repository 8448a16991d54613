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
    LOOP_MAX_N,
    CoreError,
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

__version__ = "0.1.0"

__all__ = [
    "LOOP_MAX_N",
    "CoreError",
    "build_info",
    "ffi_buffer",
    "ffi_callback_loop",
    "ffi_fastcall",
    "ffi_noargs",
    "ffi_o",
    "ffi_varargs",
    "loop",
    "loop_range",
    # issue 5: round sleep
    "SLEEP_MAX_N",
    "sleep",
    "thread_limit",
]
