"""Round loop: the sum of i*i % 7 for i in [0, N), 64-bit integers.

Variants: c (the core, timed in C), go (pure Go), go-c (Go calling the core
through cgo), py (pure Python), py-c (Python calling the core through the
extension; the GIL is released and Ctrl-C is checked between 2^24-iteration
chunks). py-c and go-c make one call: what they add over c is the crossing.

py-module-published is the published Python program as published: the same
loop written at module level, where every name it touches is a global of
the module, beside py, which keeps the loop inside a function.
"""

from __future__ import annotations

from . import go_build_twins
from ..measure import harness
from . import Headline, Round, Variant

MAX_N = 3037000500  # (n-1)^2 must fit in int64: the same bound as the core's


def expected(n: int) -> int:
    """The sum by the period-7 closed form, to verify results only."""
    prefix = (0, 0, 1, 5, 7, 9, 13)
    return n // 7 * 14 + prefix[n % 7]


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(1, {}, "alone", "on the arithmetic loop"),
    Headline(3, {}, "core", "calling the C core for the same loop"),
]

ROUND = Round(
    name="loop",
    title="loop: sum of i*i % 7 for i in [0, N)",
    explain="One arithmetic loop of N iterations in 64-bit integers; every run checks its sum.",
    variants=[
        Variant("c", "rb-c", "the C core"),
        Variant("go", "rb-go", "pure Go"),
        Variant("go-c", "rb-go", "Go calling the C core through cgo (one call)"),
        # Go's own toolchain at its fastest, the go variant's build twins:
        # go-pgo, go-v3, go-pgo-v3 (docs/go-builds.md).
        *go_build_twins("loop"),
        Variant("py", "python", "pure Python (a for loop inside a function)"),
        Variant("py-c", "python", "Python calling the C core through the extension (one call)"),
        Variant(
            "py-module-published",
            "python",
            "published program, as published: the py loop at module level, so i and total are module "
            "globals (a dictionary lookup per access) instead of a function's locals",
        ),
    ],
    sizes=[{"n": 20_000_000}],
    quick=[{"n": 200_000}],
    metric="ns/iter",
    headlines=HEADLINES,
    order=1,
    units={"ns/iter": "lower"},
    metric_explain="ns/iter: wall time of the loop divided by N",
)


def _run(args: harness.Args, compute) -> None:
    n = args.int("n", 20_000_000, 0, MAX_N)
    harness.warm_up(lambda: compute(min(n, 1 << 20)))
    elapsed, got = harness.time_once(lambda: compute(n))
    harness.check("sum", got, expected(n))
    harness.result(f"sum={got}")
    harness.emit(args, 1, elapsed, {"ns/iter": elapsed / n if n else 0.0})


@harness.implements("loop", "py", units=["ns/iter"])
def run_py(args: harness.Args) -> None:
    from ..pure.loop import loop

    _run(args, loop)


@harness.implements("loop", "py-c", units=["ns/iter"])
def run_py_c(args: harness.Args) -> None:
    from .._core import loop

    _run(args, loop)


# ---- the published program ----------------------------------------------------

# The loop as a script's top-level code. Compiled as a module ("exec"), its
# names are the module's globals: each access is LOAD_NAME / STORE_NAME, a
# lookup in the globals dictionary, where the function in pure/loop.py uses
# LOAD_FAST slots. Published: 1.85 s here against 1.12 s in a function
# (N = 20,000,000).
MODULE_LOOP = """\
total = 0
for i in range(n):
    total += i * i % 7
"""


def module_loop(code):
    """A compute(n) that runs the compiled module code with a fresh globals
    dictionary holding n, as `python script.py` runs a script's top level,
    and returns the module's global total."""

    def compute(n: int) -> int:
        module = {"__name__": "__main__", "n": n}
        exec(code, module)
        return module["total"]

    return compute


@harness.implements("loop", "py-module-published", units=["ns/iter"])
def run_py_module_published(args: harness.Args) -> None:
    _run(args, module_loop(compile(MODULE_LOOP, "<the published loop, at module level>", "exec")))
