"""Round temps: the sum of a*a % 7 over an int64 array a = arange(N).

numpy's plain expression `(a*a % 7).sum()` runs three passes and
materialises two full-size temporaries; preallocated `out=` buffers avoid
the allocations and page faults but not the passes; the core (c, and py-c
and go-c through the bindings, zero-copy), pure Go and numba make one fused
pass that reads each element once and writes nothing. numpy over
cache-sized blocks and numexpr (whose virtual machine works in blocks of
its own) keep the passes but run them over a block that stays in the
cache, so that the array itself is read from memory once.

Each run reports the memory traffic its algorithm implies (`traffic-B`:
bytes read plus bytes written to memory by the passes, 8 bytes per element
touched; a pass over a block that stays in the cache is not memory
traffic; write-allocate reads and page zeroing come on top), next to its
time and peak RSS, so the reader sees why the chain loses.
"""

from __future__ import annotations

import resource
from typing import Optional

from ..measure import harness
from . import _numba as jit
from . import Headline, needs_module, Param, Round, Variant
from .loop import expected
from . import go_build_twins

MAX_N = 3037000500  # a[i]*a[i] must fit in int64, as in the loop round

# Bytes per element implied by each variant's passes.
#   fused:      read a                                           8
#   py-numpy:   t1 = a*a (read a, write t1), t2 = t1 % 7 (read t1,
#               write t2), t2.sum() (read t2)                   40
#   py-numpy-out: the same passes into one preallocated buffer   40
#   blocked:    read a; the passes over each block (write it, read and
#               write it, read it: 32 more) stay in the cache     8
TRAFFIC_PER_ELEM = {"fused": 8, "py-numpy": 40, "py-numpy-out": 40, "blocked": 8}

# py-numpy-blocked's block: 8192 int64 elements, one 64 KiB buffer, which
# any current core's L2 holds. Measured over 20M elements on a 48 KiB-L1d,
# 2 MiB-L2 Xeon: blocks from 8192 to 262144 elements ran within noise of
# each other, 1024-element blocks 1.5x slower (numpy's cost per call, three
# calls a block, paid eight times as often).
BLOCK = 8192

# numexpr's virtual machine runs an expression over blocks of 1024
# elements (BLOCK_SIZE1 in numexpr's numexpr_config.hpp) with block-sized
# temporaries, which its documents give as why it beats numpy's chain; a
# sum() at the end of the expression is reduced block by block, on one
# thread ("Reductions do not support parallel execution yet", in its
# interpreter.cpp).
NUMEXPR_EXPRESSION = "sum(a*a % 7)"

_numpy = needs_module("numpy", "pip install numpy")
_needs_numexpr = needs_module("numexpr", "pip install numexpr")
_needs_numba = needs_module("numba", "pip install numba")
UNITS = ["ns/elem", "sys-ns/elem", "traffic-B"]
# numba's import and its compile on the first call, each timed apart.
NUMBA_UNITS = UNITS + jit.UNITS

# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(11, {}, "ecosystem", "over a 20M-element array"),
]

ROUND = Round(
    name="temps",
    title="temps: sum of a*a % 7 over an int64 array",
    explain=(
        "a = arange(N) as int64, built untimed; one timed evaluation of sum(a*a % 7). "
        "traffic-B is the memory traffic the variant's passes imply."
    ),
    variants=[
        Variant("c", "rb-c", "the core: one fused pass (C)"),
        Variant("go", "rb-go", "one fused pass, pure Go"),
        Variant("go-c", "rb-go", "a Go slice to the core's fused pass through cgo (no copy)"),
        # Go's own toolchain at its fastest, the go variant's build twins:
        # go-pgo, go-v3, go-pgo-v3 (docs/go-builds.md).
        *go_build_twins("temps"),
        Variant("py-numpy", "python", "numpy: (a*a % 7).sum(), two full-size temporaries", requires=_numpy),
        Variant("py-numpy-out", "python", "numpy with a preallocated out= buffer", requires=_numpy),
        Variant("py-c", "python", "a numpy array to the core's fused pass (buffer protocol, no copy)", requires=_numpy),
        Variant(
            "py-numpy-blocked",
            "python",
            f"numpy over blocks of {BLOCK} elements, out= into one reused 64 KiB buffer: the three passes run "
            "in the cache, a is read from memory once",
            requires=_numpy,
        ),
        Variant(
            "py-numexpr",
            "python",
            f'numexpr: evaluate("{NUMEXPR_EXPRESSION}"), one thread (numexpr runs reductions serially): '
            "its VM runs the product, the remainder and the sum over 1024-element blocks in the cache, "
            "a is read from memory once",
            requires=_needs_numexpr,
        ),
        Variant(
            "py-numba",
            "python",
            "numba: one fused @njit loop over the array (nopython mode, not cached: each run compiles, "
            "and compile-ns is that first call on a tiny array, timed apart)",
            requires=_needs_numba,
        ),
    ],
    params=[Param("n", "elements of the array", 0, MAX_N)],
    sizes=[{"n": 20_000_000}],
    quick=[{"n": 200_000}],
    metric="ns/elem",
    headlines=HEADLINES,
    order=3,
    values=True,
    units={
        "ns/elem": "lower",
        "sys-ns/elem": "lower",
        "traffic-B": "lower",
        "compile-ns": "lower",
        "import-ns": "lower",
    },
    metric_explain="ns/elem: wall time of the evaluation divided by N",
    # The kernel's share beside the wall time: numpy's chain maps and faults
    # in two fresh 160 MB temporaries per evaluation, and how long that takes
    # depends on the kernel's state (free huge pages, compaction), so its
    # wall time varies with its system time.
    # A JIT's compile beside its run time (numba's first call), as round loop's.
    columns=[("sys-ns/elem", "sys ns/elem"), ("traffic-B", "memory traffic"), ("compile-ns", "JIT compile (ns)")],
)


def _size(args: harness.Args) -> int:
    return args.int("n", 20_000_000, 0, MAX_N)


def _run(args: harness.Args, make, traffic: int, extra: Optional[dict] = None) -> None:
    """Times one evaluation of make(a)(a) over a = arange(n), checks it and
    prints the result line, with `extra` metrics measured before (numba's
    compile-ns and import-ns)."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    import numpy as np

    n = _size(args)
    a = np.arange(n, dtype=np.int64)
    compute = make(a)
    compute(a[: min(n, 1 << 20)])  # warm-up
    sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    elapsed, got = harness.time_once(lambda: compute(a))
    sys_ns = (resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys0) * 1e9
    got = int(got)
    harness.check("sum", got, expected(n))
    harness.result(f"sum={got}")
    harness.emit(
        args,
        1,
        elapsed,
        {
            "ns/elem": elapsed / n if n else 0.0,
            "sys-ns/elem": sys_ns / n if n else 0.0,
            "traffic-B": traffic * n,
            **(extra or {}),
        },
    )


@harness.implements("temps", "py-numpy", units=UNITS)
def run_py_numpy(args: harness.Args) -> None:
    def make(_a):
        def chain(a):
            return (a * a % 7).sum()

        return chain

    _run(args, make, TRAFFIC_PER_ELEM["py-numpy"])


@harness.implements("temps", "py-numpy-out", units=UNITS)
def run_py_numpy_out(args: harness.Args) -> None:
    import numpy as np

    def make(a):
        buf = np.empty_like(a)
        buf.fill(0)  # fault the buffer in, untimed, as a reused buffer would be

        def chain(x):
            t = buf[: len(x)]
            np.multiply(x, x, out=t)
            np.remainder(t, 7, out=t)
            return t.sum()

        return chain

    _run(args, make, TRAFFIC_PER_ELEM["py-numpy-out"])


@harness.implements("temps", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    from .._core import temps

    _run(args, lambda _a: temps, TRAFFIC_PER_ELEM["fused"])


def blocked(a, buf):
    """sum(a*a % 7) over blocks of len(buf) elements, each pass into buf."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    import numpy as np

    total = 0
    size = len(buf)
    for lo in range(0, len(a), size):
        x = a[lo : lo + size]
        t = buf[: len(x)]
        np.multiply(x, x, out=t)
        np.remainder(t, 7, out=t)
        total += int(t.sum())
    return total


@harness.implements("temps", "py-numpy-blocked", units=UNITS)
def run_py_numpy_blocked(args: harness.Args) -> None:
    import numpy as np

    def make(_a):
        buf = np.zeros(BLOCK, dtype=np.int64)
        return lambda x: blocked(x, buf)

    _run(args, make, TRAFFIC_PER_ELEM["blocked"])


def numexpr_sum(a) -> int:
    """numexpr's fused reduction. For an empty array numexpr returns an
    empty array, not the 0-d sum (pydata/numexpr#229): summing its result
    gives 0 there and the sum itself otherwise."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    import numexpr as ne

    return int(ne.evaluate(NUMEXPR_EXPRESSION, local_dict={"a": a}).sum())


@harness.implements("temps", "py-numexpr", units=UNITS)
def run_py_numexpr(args: harness.Args) -> None:
    import numexpr as ne

    # The child runs on one CPU (the round's threads), and numexpr runs a
    # reduction on one thread whatever it is told: said, not left to its
    # default of one thread per core.
    ne.set_num_threads(1)
    _run(args, lambda _a: numexpr_sum, TRAFFIC_PER_ELEM["blocked"])


def numba_fused():
    """The fused pass as numba's documents write a loop: @njit (nopython
    mode), a plain for over the typed array, the int64 accumulator inferred.
    Not cached (cache=True would keep the compiled code on disk between
    runs; the compile is measured instead)."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    from numba import njit

    @njit(cache=False)
    def fused(a):
        total = 0
        for i in range(a.shape[0]):
            x = a[i]
            total += x * x % 7
        return total

    return fused


@harness.implements("temps", "py-numba", units=NUMBA_UNITS)
def run_py_numba(args: harness.Args) -> None:
    import numpy as np

    _size(args)  # a bad n is refused before numba is imported and compiles
    _, import_ns = jit.load()
    fused = harness.once("temps/py-numba", numba_fused)  # compiled once a process (its first value)
    tiny = np.arange(8, dtype=np.int64)  # the same type as a: int64, 1-d, C-contiguous
    compile_ns = jit.compile_ns(lambda: int(fused(tiny)), expected(8))
    _run(args, lambda _a: fused, TRAFFIC_PER_ELEM["fused"], {"compile-ns": compile_ns, "import-ns": import_ns})
