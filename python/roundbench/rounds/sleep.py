"""Round sleep: N tasks, all live at once, each waiting 1 s.

Every variant follows one protocol (see roundbench.pure.sleep): create N
tasks; each counts itself live and waits for a common start; once all N are
live (the peak of live tasks is recorded and checked to equal N) the start
is taken and every task sleeps until start + 1 s; the run ends when the last
task has woken. Metrics:

- overhead-ns: run time beyond the 1 s wait (waking N tasks, timer cost);
- setup-ns: creating the N tasks until all are live;
- B/task: (peak RSS after the run - peak RSS after an N=1 run of the same
  variant in the same child, with a 1 ms wait) / N. The N=1 run is also the
  warm-up; its peak (base-B) holds the runtime, the loop or thread machinery
  and one task, so what is left is what the N tasks cost;
- live-tasks: the peak of live tasks.

Thread variants (c-threads, py-threads) first check the machine's limits
(kernel.pid_max and the threads in use, kernel.threads-max, ulimit -u,
vm.max_map_count, MemAvailable): when N does not fit they exit 4 with "not
possible here: <limit>", or with fit=1 run at the largest N that fits.

The published programs, as published (py-asyncio-published, go-published):
N coroutines or goroutines each sleeping 1 s from when it starts, gathered
or waited for, with no common start; their overhead-ns is the total wall
time, creation included, minus the 1 s, as published. Nothing makes their
tasks live at once, so they print no result for the runner to compare
(go-published reports how many goroutines were alive when the last was
created); each checks that it gathered or waited for all N and took at
least the 1 s.
"""

from __future__ import annotations

import sys

from ..measure import harness
from . import Headline, needs_module, Param, Round, Variant

MAX_N = 100_000_000  # RB_SLEEP_MAX_N: the core's counters are 32-bit
BASELINE_WAIT_NS = 1_000_000

# What one Python thread makes resident (its stack's touched pages, the
# thread state, the Thread object) and the mappings it adds, for the limit
# check: its stack, the guard page below it, and the interpreter's data
# stack chunk for the thread, which CPython maps on its own
# (_PyObject_VirtualAlloc). Measured: thread creation fails near
# vm.max_map_count / 3.
PY_THREAD_TOUCHED = 32 * 1024
PY_THREAD_MAPS = 3
UNITS = ["overhead-ns", "setup-ns", "B/task", "live-tasks", "base-B"]


def _unfitted(params: dict) -> bool:
    """The cell without fit=1: where every variant but the thread ones runs."""
    return not int(params.get("fit", 0))


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(6, {"n": "max"}, "alone", "for 100,000 sleeping tasks", verb="has {x} less overhead than", memory=True),
]

ROUND = Round(
    name="sleep",
    title="sleep: N tasks, all live at once, each waiting 1 s",
    explain=(
        "N tasks are created and wait at a common start; when all N are live, each sleeps "
        "until start + 1 s. Time, memory and CPU are reported together. bytes/task is (peak RSS "
        "- the same child's peak after an N=1 run, the N=1 peak column) / N. Thread variants that "
        "the machine's limits cannot hold are skipped with the limit named, and run again in the fit=1 "
        "cell at N = 10,000, or the largest N that fits where fewer do (its peak live column says which N)."
    ),
    variants=[
        Variant(
            "c",
            "rb-c",
            "the core's single-threaded event loop (timer heap, 16-byte tasks)",
            default_if=_unfitted,
            model="event-loop",
        ),
        Variant(
            "c-threads",
            "rb-c",
            "one POSIX thread per task, 16 KiB stacks from one mapping",
            threads="many",
            model="os-thread",
        ),
        Variant("go", "rb-go", "goroutines, time.Sleep, a WaitGroup", default_if=_unfitted, model="stackful"),
        Variant(
            "go-c",
            "rb-go",
            "Go calling the core's event loop through cgo (one call)",
            default_if=_unfitted,
            model="event-loop",
        ),
        Variant(
            "py-asyncio", "python", "coroutines on an asyncio loop, gathered", default_if=_unfitted, model="event-loop"
        ),
        Variant(
            "py-uvloop",
            "python",
            "py-asyncio's coroutines on uvloop's event loop (libuv; its timers count milliseconds)",
            requires=needs_module("uvloop", "pip install -r requirements-dev.txt"),
            default_if=_unfitted,
            model="event-loop",
        ),
        Variant(
            "py-threads",
            "python",
            "threading.Thread per task, 64 KiB stacks",
            threads="many",
            model="os-thread",
            tail=(
                "all 10,000 threads wake at one deadline into one GIL; each waiting thread waits for it with a "
                "timeout of the switch interval (sys.getswitchinterval(), 5 ms) and, each time that runs out, asks "
                "the holder to drop it, so the GIL goes from thread to thread mostly through the kernel (futex "
                "wake-ups, system time) rather than running the threads' few lines; how long that takes varies "
                "from run to run by a factor of tens. Measured with scripts/sleep_tail.py (a 2-vCPU EPYC VM, "
                "CPython 3.11.7, 2026-12-03): at 10,000 threads 20 runs took 1.6 to 33.5 s beyond the wait (median "
                "4.1 s); a switch interval of 1 ms or 50 ms moved neither the median (3.8 s, 3.6 s) nor the tail "
                "away (up to 9.8 s and 17.5 s in 10 runs); at 2,000 threads the runs stay within 0.3 to 2.0 s"
            ),
        ),
        Variant(
            "py-c",
            "python",
            "Python calling the core's event loop (one call, GIL released)",
            default_if=_unfitted,
            model="event-loop",
        ),
        # The published programs, as published.
        Variant(
            "py-asyncio-published",
            "python",
            "published program, as published: N coroutines each `await asyncio.sleep(1)`, gathered, no common "
            "start; overhead = total wall time (asyncio.run, creation included) - 1 s",
            default_if=_unfitted,
            model="event-loop",
        ),
        Variant(
            "go-published",
            "rb-go",
            "published program, as published: N goroutines each time.Sleep(1 s), a WaitGroup, no common start; "
            "overhead = total wall time (creation included) - 1 s",
            default_if=_unfitted,
            model="stackful",
        ),
    ],
    # The fit=1 cell runs the thread variants at N = 10,000, or the largest
    # N the machine's limits allow where fewer fit, so the report has a
    # threads row where N = 100,000 is refused; the other variants do not
    # need it. Not at the largest N that fits here (~20,000 Python
    # threads): one run's wake-up there took from 6.6 s to 396 s, nearly all
    # of it kernel time (every thread wakes into the GIL at once), which made
    # the suite's length a lottery; 10,000 threads take seconds.
    params=[
        Param("n", "tasks", 1, MAX_N),
        Param("fit", "1: the cell that thread variants fit in", 0, 1),
        Param("wait_ms", "each task's wait in ms", 0, 3_600_000),
    ],
    sizes=[{"n": 100_000}, {"n": 10_000, "fit": 1}],
    # --quick waits 100 ms, not 1 s: the round's overhead is what comes after
    # the wait, and the quick suite runs every variant six times.
    quick=[{"n": 1000, "wait_ms": 100}],
    metric="overhead-ns",
    headlines=HEADLINES,
    order=7,
    units={"overhead-ns": "lower", "setup-ns": "lower", "B/task": "lower", "live-tasks": "higher", "base-B": "lower"},
    metric_explain="overhead-ns: wall time from the common start to the last wake, minus the wait (1 s; wait_ms=W)",
    columns=[
        ("setup-ns", "setup ns"),
        ("B/task", "bytes/task"),
        ("live-tasks", "peak live"),
        ("base-B", "N=1 peak"),
    ],
    scan_allows=("sleep",),  # every task sleeps: that is the work timed
)


def peak_rss() -> int:
    """This process's peak resident set (VmHWM) in bytes: what wait4
    reports at exit, read mid-run for the N=1 baseline."""
    peak = harness.proc_bytes("/proc/self/status", "VmHWM")
    if peak < 0:
        raise OSError("no VmHWM in /proc/self/status")
    return peak


def _fit(args: harness.Args, n: int, touched: int, maps: int) -> int:
    """The n a thread variant runs at: n itself when the machine's limits
    hold it; else CannotRun naming the limit, or with fit=1 the largest n
    that fits (less 5% for whatever starts meanwhile)."""
    # the extension loads only in the variants that call it
    from .._core import thread_limit

    name, value, allows = thread_limit(touched, maps)
    if n <= allows:
        return n
    if not args.int("fit", 0, 0, 1):
        raise harness.CannotRun(
            f"n={n} is not possible here: {name} = {value} allows about {allows} more threads "
            f"(fit=1 runs at the largest n that fits)"
        )
    fitted = allows - allows // 20
    if fitted < 1:
        raise harness.CannotRun(f"{name} = {value} leaves no room for a thread")
    print(f"sleep: {name} = {value}: running at n={fitted} instead of {n}", file=sys.stderr)
    return fitted


def _run(args: harness.Args, sleep, threads: bool = False) -> None:
    n = args.int("n", 100_000, 1, MAX_N)
    wait_ns = args.int("wait_ms", 1000, 0, 3_600_000) * 1_000_000
    sleep(1, BASELINE_WAIT_NS)
    base = peak_rss()
    want = n
    if threads:
        n = _fit(args, n, PY_THREAD_TOUCHED, PY_THREAD_MAPS)
    s = sleep(n, wait_ns)
    peak = peak_rss()
    harness.check("completed", s["completed"], n)
    harness.check("peak live tasks", s["peak_live"], n)
    harness.check("tasks that woke early", s["early"], 0)
    if s["overhead_ns"] < 0:  # the last wake came before start + wait
        raise harness.WrongResult("overhead-ns (run time - wait)", s["overhead_ns"], ">= 0")
    if n == want:  # a run at a reduced n is not comparable with the others
        harness.result(f"tasks={n} peak={s['peak_live']} completed={s['completed']}")
    harness.emit(
        args,
        1,
        s["setup_ns"] + s["run_ns"],
        {
            "overhead-ns": s["overhead_ns"],
            "setup-ns": s["setup_ns"],
            "B/task": (peak - base) / n,
            "live-tasks": s["peak_live"],
            "base-B": base,
        },
    )


@harness.implements("sleep", "py-asyncio", units=UNITS)
def run_py_asyncio(args: harness.Args) -> None:
    from ..pure.sleep import sleep_asyncio

    _run(args, sleep_asyncio)


@harness.implements("sleep", "py-uvloop", units=UNITS)
def run_py_uvloop(args: harness.Args) -> None:
    from ..pure.sleep import sleep_asyncio

    factory = harness.require("uvloop").new_event_loop  # CannotRun where uvloop is missing
    _run(args, lambda n, wait_ns: sleep_asyncio(n, wait_ns, factory))


@harness.implements("sleep", "py-threads", units=UNITS)
def run_py_threads(args: harness.Args) -> None:
    from ..pure.sleep import ThreadLimit, sleep_threads

    def sleep(n: int, wait_ns: int) -> dict:
        try:
            return sleep_threads(n, wait_ns)
        except ThreadLimit as e:
            raise harness.CannotRun(f"n={n} is not possible here: {e}") from None

    _run(args, sleep, threads=True)


@harness.implements("sleep", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    from .._core import sleep

    _run(args, sleep)


def provenance() -> tuple:
    """The event loop library's version, for py-uvloop's rows."""
    # version lookups only when the provenance is written
    import importlib.metadata as md

    try:
        version = md.version("uvloop")
    except md.PackageNotFoundError:
        version = "not installed"
    return {"sleep-uvloop": version}, []


# ---- the published programs ---------------------------------------------------

PUBLISHED_UNITS = ["overhead-ns", "B/task", "base-B"]


def sleep_asyncio_published(n: int, wait_ns: int) -> tuple:
    """The published asyncio program, as published: n coroutines that each
    sleep `wait` from when they first run, gathered under asyncio.run, no
    common start. Returns (total wall ns, creation and the loop's start and
    end included; gather's results). asyncio is imported here so that the
    round's other Python children do not map it."""
    # the published program's own loop, only in its child
    import asyncio

    async def sleeper(wait_s: float) -> None:
        await asyncio.sleep(wait_s)

    async def main(wait_s: float) -> list:
        return await asyncio.gather(*[sleeper(wait_s) for _ in range(n)])

    t0 = harness.now_ns()
    done = asyncio.run(main(wait_ns / 1e9))
    return harness.now_ns() - t0, done


def run_published(args: harness.Args, sleep) -> None:
    """The protocol around a published program: the same N=1 baseline (and
    warm-up) as the fair variants, then one run; overhead = total - wait,
    as published."""
    n = args.int("n", 100_000, 1, MAX_N)
    wait_ns = args.int("wait_ms", 1000, 0, 3_600_000) * 1_000_000
    sleep(1, BASELINE_WAIT_NS)
    base = peak_rss()
    total, done = sleep(n, wait_ns)
    peak = peak_rss()
    harness.check("tasks gathered", len(done), n)
    harness.check("results that are not None", sum(r is not None for r in done), 0)
    if total < wait_ns:
        raise harness.WrongResult("total wall ns", total, f"at least the wait, {wait_ns}")
    harness.emit(args, 1, total, {"overhead-ns": total - wait_ns, "B/task": (peak - base) / n, "base-B": base})


@harness.implements("sleep", "py-asyncio-published", units=PUBLISHED_UNITS)
def run_py_asyncio_published(args: harness.Args) -> None:
    run_published(args, sleep_asyncio_published)


# The round's own picture (report.draw calls it): time against memory per
# task, one point per variant.
def charts(sizes: dict, out_dir) -> list:
    # the pictures (matplotlib) load only when the report draws them
    from ..results import charts as drawing

    return drawing.time_memory(sizes, "sleep", "overhead-ns", "overhead beyond the 1 s wait, s", 1e9, out_dir)
