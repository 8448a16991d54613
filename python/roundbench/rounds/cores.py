"""Round cores: the loop round's work (the sum of i*i % 7 for i in [0, N))
split into equal contiguous ranges on T workers, for T = 1 and T = the
cores this process may run on (its affinity: machine.usable_cpus).

Speed-up: a child at T workers times the work on 1 worker and then on T, in
the same process, and reports their ratio (speedup) and ratio / T
(efficiency); ns/op is the T-worker time and t1-ns the 1-worker time.
Measuring the pair in one child rather than dividing by the T=1 cell keeps
the drift of a shared machine out of the ratio and gives each run its own
speed-up, whose median and spread the report shows. The T=1 cell is the
1-worker row of the table. Total CPU is the user + sys columns (from wait4,
processes included).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Optional

from ..measure import harness, machine
from . import _numba as jit
from . import Headline, needs_module, Param, Round, Variant
from .loop import MAX_N, expected

MAX_WORKERS = 4096  # RB_CORES_MAX_WORKERS
UNITS = ["speedup", "efficiency", "t1-ns"]
# numba's import and its compile on the first call, each timed apart.
NUMBA_UNITS = UNITS + jit.UNITS

_needs_numba = needs_module("numba", "pip install numba")


def cores() -> int:
    return len(machine.usable_cpus())


def freethreaded_python() -> Optional[str]:
    """A free-threaded CPython (built with --disable-gil): the one named by
    ROUNDBENCH_FREETHREADED_PYTHON, else this one if it is, else the newest
    `roundbench pythons` provisioned, else python3.14t/python3.13t on PATH;
    None when there is none."""
    named = os.environ.get("ROUNDBENCH_FREETHREADED_PYTHON")
    if named:
        candidates = [named]
    else:
        # the interpreters' module, only when no interpreter is named
        from ..runtimes import interp

        candidates = interp.free_threaded_pythons()[::-1] + ["python3.14t", "python3.13t", "python3t"]
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        candidates.insert(0, sys.executable)
    for c in candidates:
        path = shutil.which(c) if c else None
        if not path:
            continue
        try:
            r = subprocess.run(
                [path, "-c", "import sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.stdout.strip() == "1":
            return path
    return None


def _needs_freethreaded() -> Optional[str]:
    if freethreaded_python() is None:
        return (
            "absent: no free-threaded Python here (roundbench pythons --only cpython-3.13.5t "
            "builds one; or python3.13t/python3.14t on PATH, or ROUNDBENCH_FREETHREADED_PYTHON)"
        )
    return None


def _gomaxprocs(params: dict) -> dict:
    # GOMAXPROCS = T: the Go runtime runs goroutines on T threads at most.
    return {"GOMAXPROCS": str(params.get("workers", 1))}


def _numba_threads(params: dict) -> dict:
    # NUMBA_NUM_THREADS = T: numba's pool (made on the first parallel call)
    # has T threads, and numba.set_num_threads, which picks how many of them
    # a parallel loop uses, cannot go above it (numba's default pool is the
    # machine's CPU count, not this process's affinity).
    return {"NUMBA_NUM_THREADS": str(params.get("workers", 1))}


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(10, {"workers": "max"}, "alone", "on all cores", verb="gets {x} more speed-up than"),
]


def _one_worker(params: dict) -> Optional[str]:
    if str(params.get("workers", "")) == "1":
        return "at one worker every speed-up is 1 by construction"
    return None


ROUND = Round(
    name="cores",
    threads="many",  # one child times 1 worker and then T (placement: every usable CPU)
    title="cores: the loop round's work on 1 and on all cores",
    explain=(
        "The sum of i*i % 7 over [0, N) in T equal contiguous ranges, one per worker. Each run "
        "times 1 worker and then T workers in the same process; speed-up is their ratio."
    ),
    variants=[
        Variant("c-threads", "rb-c", "POSIX threads, each calling the core's rb_loop_range", model="os-thread"),
        Variant("go", "rb-go", "goroutines in pure Go, GOMAXPROCS = T", env=_gomaxprocs, model="stackful"),
        Variant(
            "go-c",
            "rb-go",
            "goroutines each calling the core through cgo, GOMAXPROCS = T",
            env=_gomaxprocs,
            model="stackful",
        ),
        Variant(
            "py-threads", "python", "threading.Thread in pure Python: the GIL runs one at a time", model="os-thread"
        ),
        Variant(
            "py-processes",
            "python",
            "a multiprocessing.Pool of T processes in pure Python (pool start timed)",
            model="process",
        ),
        Variant(
            "py-c", "python", "Python threads calling the core's loop_range, which releases the GIL", model="os-thread"
        ),
        Variant(
            "py-freethreaded",
            "python",
            "pure-Python threads on a free-threaded interpreter",
            requires=_needs_freethreaded,
            model="os-thread",
        ),
        Variant(
            "py-freethreaded-unmarked",
            "python",
            "py-freethreaded after importing an extension that does not declare Py_mod_gil: the GIL comes back",
            requires=_needs_freethreaded,
            model="os-thread",
            # The interpreter warns once a process, and each run checks that it did.
            one_value=True,
        ),
        Variant(
            "py-numba-prange",
            "python",
            "numba: one @njit(parallel=True) loop over [0, N) with prange and a += reduction, "
            "numba.set_num_threads(T) of a pool of NUMBA_NUM_THREADS = T",
            requires=_needs_numba,
            env=_numba_threads,
            threads="many",
            model="os-thread",
        ),
        Variant(
            "py-numba-nogil",
            "python",
            "Python threads each calling an @njit(nogil=True) loop over its range: numba releases the GIL",
            requires=_needs_numba,
            threads="many",
            model="os-thread",
        ),
    ],
    # 100,000,000: the pure-Python workers take seconds a run, the others
    # tens of milliseconds, timed inside the child.
    params=[
        Param("n", "the loop's iterations, split among the workers", 0, MAX_N),
        Param("workers", "threads, goroutines or processes", 1, MAX_WORKERS),
    ],
    sizes=[{"n": 100_000_000, "workers": 1}, {"n": 100_000_000, "workers": cores()}],
    quick=[{"n": 2_000_000, "workers": 1}, {"n": 2_000_000, "workers": cores()}],
    metric="speedup",
    headlines=HEADLINES,
    # At one worker the speed-up is the 1-worker time over itself: 1 for
    # every variant, so the cell is listed in the score, not counted.
    undecided=_one_worker,
    order=9,
    values=True,
    units={
        "speedup": "higher",
        "efficiency": "higher",
        "t1-ns": "lower",
        "compile-ns": "lower",
        "import-ns": "lower",
    },
    metric_explain="speedup: the 1-worker time divided by the T-worker time, both measured in the same run",
    # T-worker time next to the 1-worker time of the same runs: the speed-up
    # is visible as the two times, not only as their ratio.
    # numba's compile (its first call), paid once per process, as in round loop.
    columns=[
        ("efficiency", "efficiency"),
        ("ns/op", "T-worker ns"),
        ("t1-ns", "1-worker ns"),
        ("compile-ns", "JIT compile (ns)"),
    ],
    reference="c-threads",
)


def _sizes(args: harness.Args) -> tuple:
    return args.int("n", 100_000_000, 0, MAX_N), args.int("workers", 1, 1, MAX_WORKERS)


def _run(args: harness.Args, pair, extra: Optional[dict] = None) -> None:
    """Times pair(n, workers), checks it and prints the result line, with
    `extra` metrics measured before (numba's compile-ns and import-ns)."""
    n, workers = _sizes(args)
    out = pair(n, workers)
    harness.check("sum", out["sum"], expected(n))
    speedup = out["t1_ns"] / out["tn_ns"] if out["tn_ns"] > 0 else 1.0
    harness.result(f"sum={out['sum']}")
    harness.emit(
        args,
        1,
        out["tn_ns"],
        {"speedup": speedup, "efficiency": speedup / workers, "t1-ns": out["t1_ns"], **(extra or {})},
    )


@harness.implements("cores", "py-threads", units=UNITS)
def run_py_threads(args: harness.Args) -> None:
    from ..pure.cores import on_threads, timed_pair

    on_threads(1000, 2)  # warm-up
    _run(args, lambda n, w: timed_pair(n, w, on_threads))


@harness.implements("cores", "py-processes", units=UNITS)
def run_py_processes(args: harness.Args) -> None:
    from ..pure.cores import on_processes, timed_pair

    _run(args, lambda n, w: timed_pair(n, w, on_processes))


@harness.implements("cores", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    from .._core import loop_range
    from ..pure.cores import on_threads, timed_pair

    def run(n: int, w: int) -> int:
        return on_threads(n, w, loop_range)

    run(1 << 20, 2)  # warm-up
    _run(args, lambda n, w: timed_pair(n, w, run))


@harness.implements("cores", "py-freethreaded", units=UNITS)
def run_py_freethreaded(args: harness.Args) -> None:
    exe = freethreaded_python()
    if exe is None:
        raise harness.CannotRun(_needs_freethreaded())

    def pair(n: int, w: int) -> dict:
        out = _freethreaded_pair(exe, n, w)
        if not out.pop("gil_disabled"):
            raise harness.CannotRun(f"{exe} runs with the GIL enabled (PYTHON_GIL=1?)")
        return out

    _run(args, pair)


def _freethreaded_pair(exe: str, n: int, w: int, unmarked: str = "") -> dict:
    """The free-threaded interpreter runs the pure module as a script and
    times itself; wait4 on this child includes its CPU and memory. Its
    PYTHON_GIL is unset: the interpreter's own default (off) decides. With
    `unmarked` (a folder), _cores_unmarked.py runs it instead, after
    importing the module from there that does not declare Py_mod_gil."""
    import json  # the result's one line, only in these variants' children

    here = Path(__file__).resolve().parent
    if unmarked:
        argv = [exe, str(here / "_cores_unmarked.py"), unmarked, str(n), str(w)]
    else:
        argv = [exe, str(here.parent / "pure" / "cores.py"), str(n), str(w)]
    script = Path(argv[1])
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise harness.CannotRun(f"{exe} {script.name} failed: {r.stderr.strip().splitlines()[-1:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


@harness.implements("cores", "py-freethreaded-unmarked", units=UNITS)
def run_py_freethreaded_unmarked(args: harness.Args) -> None:
    """The published warning, measured: a free-threaded interpreter that
    imports an extension module which does not declare Py_mod_gil turns
    the GIL back on (and warns), and its threads run one at a time. Every
    run checks that the GIL did come back and that the interpreter said so."""
    exe = freethreaded_python()
    if exe is None:
        raise harness.CannotRun(_needs_freethreaded())
    from ..runtimes import extbuild, interp

    got = interp.info(exe)
    try:
        folder = extbuild.build_unmarked(got, got.key)  # before the timed child
    except extbuild.Failed as e:
        raise harness.CannotRun(f"the unmarked module cannot be built for {got.describe()}: {e}") from None

    def pair(n: int, w: int) -> dict:
        out = _freethreaded_pair(exe, n, w, str(folder))
        harness.check("gil-enabled after the import", not out.pop("gil_disabled"), True)
        warned = out.pop("warnings")
        harness.check("a warning naming the GIL", any("GIL" in m for m in warned), True)
        return out

    _run(args, pair)


def numba_prange():
    """The loop as numba's documents write a parallel reduction: prange over
    [0, n) in an @njit(parallel=True) function, the += on a scalar made a
    reduction by numba (its scheduler gives each thread an equal contiguous
    chunk). Not cached: each run compiles, and says what that took."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    from numba import njit, prange

    @njit(parallel=True, cache=False)
    def prange_sum(n):
        total = 0
        for i in prange(n):
            total += i * i % 7
        return total

    return prange_sum


def numba_nogil():
    """One worker's share, compiled: @njit(nogil=True) releases the GIL for
    the call, so that Python threads run it at once. Not cached."""
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    from numba import njit

    @njit(nogil=True, cache=False)
    def range_sum(lo, hi):
        total = 0
        for i in range(lo, hi):
            total += i * i % 7
        return total

    return range_sum


@harness.implements("cores", "py-numba-prange", units=NUMBA_UNITS)
def run_py_numba_prange(args: harness.Args) -> None:
    from ..pure.cores import timed_pair

    _, workers = _sizes(args)  # bad sizes are refused before numba is imported and compiles
    numba, import_ns = jit.load()
    pool = numba.config.NUMBA_NUM_THREADS
    if workers > pool:
        raise harness.CannotRun(
            f"numba's pool has {pool} threads (NUMBA_NUM_THREADS), fewer than workers={workers}: "
            f"run with NUMBA_NUM_THREADS={workers}, as the runner does"
        )
    kernel = harness.once("cores/py-numba-prange", numba_prange)  # compiled once a process (its first value)

    def run(n: int, w: int) -> int:
        numba.set_num_threads(w)
        return kernel(n)

    numba.set_num_threads(workers)
    compile_ns = jit.compile_ns(lambda: kernel(8), expected(8))  # and starts the pool
    harness.fact("numba-threading-layer", numba.threading_layer())
    run(1 << 20, workers)  # warm-up
    _run(args, lambda n, w: timed_pair(n, w, run), {"compile-ns": compile_ns, "import-ns": import_ns})


@harness.implements("cores", "py-numba-nogil", units=NUMBA_UNITS)
def run_py_numba_nogil(args: harness.Args) -> None:
    from ..pure.cores import on_threads, timed_pair

    _, workers = _sizes(args)  # bad sizes are refused before numba is imported and compiles
    _, import_ns = jit.load()
    kernel = harness.once("cores/py-numba-nogil", numba_nogil)  # compiled once a process (its first value)

    def run(n: int, w: int) -> int:
        return on_threads(n, w, kernel)

    compile_ns = jit.compile_ns(lambda: kernel(0, 8), expected(8))
    run(1 << 20, workers)  # warm-up
    _run(args, lambda n, w: timed_pair(n, w, run), {"compile-ns": compile_ns, "import-ns": import_ns})


# ---- the round's pictures -----------------------------------------------------------


def charts(sizes: dict, out_dir: Path) -> list:
    """The round's own pictures (report.draw calls it with the round's
    size -> variant -> Cell)."""
    # the pictures (matplotlib) load only when the report draws them
    from ..results import charts as drawing

    series = drawing.series(sizes, "speedup", lambda params: drawing.whole(params.get("workers")))
    if not series:
        return []
    plt = drawing.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    workers = sorted({w for pts in series.values() for w, _ in pts})
    ax.plot(workers, workers, "--", color="#888888", label="ideal (speed-up = workers)")
    drawing.ci_lines(ax, series)
    ax.set_xticks(workers)
    ax.set_xlabel("workers (OS threads, goroutines or processes)")
    ax.set_ylabel("speed-up over one worker (higher is better)")
    ax.set_title("cores: speed-up against workers, with the ideal line\nhigher is better")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return [
        drawing.figure(
            plt,
            fig,
            out_dir,
            "cores-speedup",
            "cores: speed-up against workers",
            "Each variant's median speed-up (its 1-worker time over its T-worker time, both in one run) with its 95% "
            "CI; the dashed line is perfect scaling. Higher is better.",
        )
    ]
