"""What the numba variants of rounds temps and cores share: numba imported
and timed, what compiled said as a fact, the compile's cost timed apart.

Not a round (its name starts with `_`). The units are round loop's
py-numba's: `import-ns` (importing numba and llvmlite, part of what a numba
program pays from start to exit, beyond what the child imported before:
numpy, in round temps) and `compile-ns` (the first call, which compiles);
the fact is its `tool`, since numba compiles for this machine's CPU
(-march=native in C's terms) where the core is built portable.
"""

from __future__ import annotations

from typing import Callable

from ..measure import harness

UNITS = ["compile-ns", "import-ns"]


def load() -> tuple:
    """(numba, the ns its import took), numba imported now; CannotRun (a
    skip row) where it is missing. Prints the `tool` fact."""
    t0 = harness.now_ns()
    numba = harness.require("numba")
    import_ns = harness.now_ns() - t0
    # llvmlite comes with numba, which require() above has just found
    import llvmlite
    import llvmlite.binding

    cpu = llvmlite.binding.get_host_cpu_name()
    harness.fact("tool", f"numba {numba.__version__}, llvmlite {llvmlite.__version__}, for the host CPU ({cpu})")
    return numba, import_ns


def compile_ns(first_call: Callable[[], object], want: object) -> int:
    """The ns first_call takes: the first call of a jitted function, on a
    tiny input of the type the timed work takes, which compiles it (no
    cache=True: every process pays it). Timed apart, so that no warm-up
    hides it, and its result checked against want."""
    elapsed, got = harness.time_once(first_call)
    harness.check("the compiling first call's result", got, want)
    return elapsed
