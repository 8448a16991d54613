"""Round temps: the sum of a*a % 7 over an int64 array a = arange(N).

numpy's plain expression `(a*a % 7).sum()` runs three passes and
materialises two full-size temporaries; preallocated `out=` buffers avoid
the allocations and page faults but not the passes; the core (c, and py-c
and go-c through the bindings, zero-copy) and pure Go make one fused pass
that reads each element once and writes nothing.

Each run reports the memory traffic its algorithm implies (`traffic-B`:
bytes read plus bytes written by the passes, 8 bytes per element touched;
write-allocate reads and page zeroing come on top), next to its time and
peak RSS, so the reader sees why the chain loses.
"""

from __future__ import annotations

import resource

from ..measure import harness
from . import Headline, needs_module, Round, Variant
from .loop import expected
from . import go_build_twins

MAX_N = 3037000500  # a[i]*a[i] must fit in int64, as in the loop round

# Bytes per element implied by each variant's passes.
#   fused:      read a                                           8
#   py-numpy:   t1 = a*a (read a, write t1), t2 = t1 % 7 (read t1,
#               write t2), t2.sum() (read t2)                   40
#   py-numpy-out: the same passes into one preallocated buffer   40
TRAFFIC_PER_ELEM = {"fused": 8, "py-numpy": 40, "py-numpy-out": 40}

_numpy = needs_module("numpy", "pip install numpy")
UNITS = ["ns/elem", "sys-ns/elem", "traffic-B"]

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
    ],
    sizes=[{"n": 20_000_000}],
    quick=[{"n": 200_000}],
    metric="ns/elem",
    headlines=HEADLINES,
    order=3,
    units={"ns/elem": "lower", "sys-ns/elem": "lower", "traffic-B": "lower"},
    metric_explain="ns/elem: wall time of the evaluation divided by N",
    # The kernel's share beside the wall time: numpy's chain maps and faults
    # in two fresh 160 MB temporaries per evaluation, and how long that takes
    # depends on the kernel's state (free huge pages, compaction), so its
    # wall time varies with its system time.
    columns=[("sys-ns/elem", "sys ns/elem"), ("traffic-B", "memory traffic")],
)


def _run(args: harness.Args, make, traffic: int) -> None:
    import numpy as np

    n = args.int("n", 20_000_000, 0, MAX_N)
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
        {"ns/elem": elapsed / n if n else 0.0, "sys-ns/elem": sys_ns / n if n else 0.0, "traffic-B": traffic * n},
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
