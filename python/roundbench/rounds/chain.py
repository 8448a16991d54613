"""Round chain: N tasks in a line joined by channels; the first receives 0,
each adds 1 (after `hop-work` iterations of arithmetic) and passes the
value on; the last yields N. `parallel` chains run in one process.

Two models, scored apart (Round.apart). The published one, tasks joined
by channels and run by a scheduler: c (the core's stackful coroutines, its
own switch, one shared stack), c-ucontext (the same with swapcontext, which
makes a system call on every switch), go (goroutines and unbuffered
channels), go-c and py-c (the core's chain driven from Go and from Python,
the GIL released), py-asyncio (tasks and futures), py-uvloop (the same
tasks as py-asyncio on uvloop's event loop), py-stackless (the published
Stackless program's tasklets and channels, on an interpreter that has a
`stackless` module: PyPy's, on its continulets; a skip row elsewhere),
py-threads (OS threads and queues; N = 1,000 by default). And caller-driven
coroutines, no channel and no scheduler, the caller handing each task its
value in turn: py-generators (plain generators sent into), py-greenlet
(greenlets switched into), go-iter-pull (the standard library's iter.Pull
coroutines, each backed by a goroutine's stack) and go-closures (a slice of
closures called in turn, Go's stackless counterpart of generators).

Every run, in every language: the resident set before anything is built is
the baseline; a calibration chain of min(N, 2000) tasks (also the warm-up)
measures the bytes per task, and the memory guard refuses (exit 4, "not
possible here: memory: ...") a configuration whose estimate (+10%) exceeds
MemAvailable; under PyPy the warm-up chain then runs twice more (its JIT,
JIT_WARMUPS); then setup, pass and teardown are timed apart, the pass's
system CPU is read around it, and every chain's value is checked.
Metrics: setup-ns, pass-ns, teardown-ns, ns/hop (pass / (N x parallel)),
B/task ((peak RSS after the pass - baseline) / (N x parallel)), sys-ns/hop
(system CPU of the pass per hop: swapcontext's signal-mask system calls
show here), cpu-ns/hop (user + system CPU of the pass per hop: on a shared
machine, ns/hop minus this is time the pass spent descheduled; with
parallel > 1 it sums the threads). ns/op is setup + pass + teardown.

go-published is the published Go program, as published: the same chain of
goroutines, but built and passed in one timing, run twice in one process
(first-ns, second-ns; its ns/hop is the first run's setup and pass per
task). The round has two more sizes for it, N = 1,000,000 and ten such
chains at once, where go runs beside it and the memory guard refuses what
this machine cannot hold.
"""

from __future__ import annotations

import resource
import sys

from typing import Optional

from ..measure import harness
from ..runtimes import interp
from . import Headline, int_at_least, needs_module, Option, Param, Round, Variant

DEFAULT_N = 100_000
THREADS_N = 1_000  # py-threads' default size: one OS thread per task
PUBLISHED_N = 1_000_000  # the published Go chain's size; also run ten at once
MAX_N = 1 << 32  # the core's RB_CHAIN_MAX_N
MAX_PARALLEL = 4096
CALIBRATION_N = 2000
# How many warm-up chains a Python variant runs under a JIT (PyPy) before the
# timed one, the calibration chain included. PyPy compiles a task's hop only
# after some thousands of hops: with one warm-up chain of 2,000 tasks the JIT
# began tracing inside the timed pass of N = 100,000, and a trace across
# continulet switches (py-stackless, PyPy 7.3.11) grew the pass from 0.6 s
# and 1.2 GB to 87 s and 19 GB. With two more, with the run's own hop work,
# it did not, at N up to 200,000 (one with hop-work=2 took 7.9 s for 30,000
# tasks after warm-up chains without hop work).
JIT_WARMUPS = 3
INT64_MAX = (1 << 63) - 1
UNITS = ["setup-ns", "pass-ns", "teardown-ns", "ns/hop", "B/task", "sys-ns/hop", "cpu-ns/hop"]


def _has_stackless(exe: Optional[str] = None) -> Optional[str]:
    """py-stackless's `requires`: an interpreter with a `stackless` module
    (PyPy ships one; CPython has none, and Stackless Python is not
    maintained for current CPython)."""
    if interp.has_module("stackless", exe):
        return None
    return (
        f"needs an interpreter with the stackless module (PyPy's: run with --python pypy3); "
        f"{interp.info(exe).describe()} has none"
    )


def _below_published(params: dict) -> bool:
    """default_if: the sizes below the published program's, where every
    variant runs (at N = 1,000,000 only go runs beside go-published)."""
    return int(params["n"]) < PUBLISHED_N


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(7, {"n": "max", "parallel": "1"}, "ecosystem", "passing a value down a chain of tasks", memory=True),
]

ROUND = Round(
    name="chain",
    threads=lambda p: "many" if int(p.get("parallel", 1)) > 1 else "one",  # P chains: P threads
    title="chain: N tasks joined by channels pass a value along",
    explain=(
        "N tasks in a line joined by channels; the first receives 0, each adds 1 and passes it on, the last yields N. "
        "Setup (all tasks exist and wait), pass and teardown are timed apart. py-threads runs at N = 1,000 by default "
        "(one OS thread per task); every variant runs at that size too, for a like-for-like row."
    ),
    variants=[
        Variant(
            "c",
            "rb-c",
            "the core: stackful coroutines on one shared stack (frames copied out on suspend), its own switch",
            default_if=_below_published,
            model="stackful",
        ),
        Variant(
            "c-ucontext",
            "rb-c",
            "the core's coroutines switched by makecontext/swapcontext (a system call per switch)",
            default_if=_below_published,
            model="stackful",
        ),
        Variant("go", "rb-go", "goroutines and unbuffered channels", model="stackful"),
        Variant(
            "go-iter-pull",
            "rb-go",
            "coroutines from the standard library's iter.Pull: each task a pull iterator suspended until pulled, "
            "the caller pulling each value out and handing it to the next (a goroutine's stack behind each task)",
            default_if=_below_published,
            model="caller-driven",
            level="alone",  # the standard library
        ),
        Variant(
            "go-closures",
            "rb-go",
            "a slice of closures, each task a function value with its own state, called in turn with the value "
            "(x = task(x)): Go's stackless counterpart of generators, as a Go programmer writes caller-driven tasks",
            default_if=_below_published,
            model="caller-driven",
            level="alone",  # the language itself
        ),
        Variant(
            "go-c",
            "rb-go",
            "Go driving the core's chain through cgo (setup, pass, teardown: one call each)",
            default_if=_below_published,
            model="stackful",
        ),
        Variant(
            "py-asyncio", "python", "asyncio tasks joined by futures", default_if=_below_published, model="event-loop"
        ),
        Variant(
            "py-generators",
            "python",
            "generators, the language's own coroutines: each task waits at a yield and the caller sends each "
            "value into the next (no library, no event loop)",
            default_if=_below_published,
            model="caller-driven",
            level="alone",  # the language itself
        ),
        Variant(
            "py-uvloop",
            "python",
            "py-asyncio's tasks and futures on uvloop's event loop (libuv)",
            requires=needs_module("uvloop", "pip install -r requirements-dev.txt"),
            default_if=_below_published,
            model="event-loop",
        ),
        Variant(
            "py-greenlet",
            "python",
            "greenlets; the caller switches the value into each task in turn (greenlets have no scheduler)",
            requires=needs_module("greenlet", "pip install greenlet"),
            default_if=_below_published,
            model="caller-driven",
        ),
        Variant(
            "py-stackless",
            "python",
            "the published Stackless program's tasklets and channels run by stackless.run(): the Stackless API on "
            "PyPy's continulets, not Stackless Python",
            requires=_has_stackless,
            default_if=_below_published,
            model="stackful",
        ),
        Variant(
            "py-threads",
            "python",
            "OS threads joined by queue.SimpleQueue (N = 1,000 by default)",
            default_if=lambda p: int(p["n"]) <= THREADS_N,
            threads="many",
            model="os-thread",
        ),
        Variant(
            "py-c",
            "python",
            "Python driving the core's chain through the extension (GIL released)",
            default_if=_below_published,
            model="stackful",
        ),
        # The published program, as published.
        Variant(
            "go-published",
            "rb-go",
            "published program, as published: the goroutine chain built and passed in one timing, run twice in one "
            "process (ns/hop: the first run's setup and pass per task; first-ns, second-ns in the section below)",
            model="stackful",
        ),
    ],
    params=[
        Param("n", "tasks in the chain", 1, MAX_N),
        Param("hop-work", "loop iterations each task does per hop", 0, INT64_MAX),
        Param("parallel", "values passed along the chain at once", 1, MAX_PARALLEL),
    ],
    sizes=[
        {"n": DEFAULT_N, "hop-work": 0, "parallel": 1},
        {"n": THREADS_N, "hop-work": 0, "parallel": 1},
        # The published program's sizes: one chain of a million, and (with
        # --sizes all) ten at once.
        {"n": PUBLISHED_N, "hop-work": 0, "parallel": 1},
    ],
    more_sizes=[{"n": PUBLISHED_N, "hop-work": 0, "parallel": 10}],
    quick=[{"n": THREADS_N, "hop-work": 0, "parallel": 1}],
    metric="ns/hop",
    headlines=HEADLINES,
    # Tasks the caller drives in turn are no chain of tasks joined by
    # channels: they score against each other in a row of their own, and
    # the round's own row (its headline) is the published model's.
    apart=("caller-driven",),
    order=8,
    units={
        "ns/hop": "lower",
        "setup-ns": "lower",
        "pass-ns": "lower",
        "teardown-ns": "lower",
        "B/task": "lower",
        "sys-ns/hop": "lower",
        "cpu-ns/hop": "lower",
        "first-ns": "lower",
        "second-ns": "lower",
    },
    metric_explain="ns/hop: wall time of the pass divided by N x parallel (setup and teardown are their own columns)",
    columns=[
        ("setup-ns", "setup ns"),
        ("pass-ns", "pass ns"),
        ("teardown-ns", "teardown ns"),
        ("B/task", "B/task"),
        ("sys-ns/hop", "pass sys ns/hop"),
        ("cpu-ns/hop", "pass CPU ns/hop"),
    ],
    options=[
        Option(
            "--hop-work",
            "hop-work",
            "chain: each task first runs a K-iteration arithmetic loop (default 0)",
            int_at_least(0),
            metavar="K",
        ),
        Option(
            "--parallel", "parallel", "chain: P chains at once in one process (default 1)", int_at_least(1), metavar="P"
        ),
    ],
)


def report_section(size: dict, cells: dict, config: dict) -> str:
    """What the chain's extra columns mean, and the system-call cost that
    c-ucontext pays per switch, from this run's figures."""
    lines = [
        "",
        "B/task: (peak RSS after the pass - RSS before the first chain was built) / (N x parallel), "
        "measured inside the child; pass sys ns/hop and pass CPU ns/hop: system and user + system CPU "
        "of the pass alone (getrusage around it) per hop; where ns/hop is well above the CPU figure "
        "the pass was descheduled (a shared machine). "
        "A hop is two switches (into the task and back to its scheduler for c and c-ucontext).",
    ]
    uc, c = cells.get("c-ucontext"), cells.get("c")
    if uc is not None and c is not None:
        us, cs = uc.median_of("sys-ns/hop"), c.median_of("sys-ns/hop")
        uh, ch = uc.median_of("ns/hop"), c.median_of("ns/hop")
        if None not in (us, cs, uh, ch):
            if us > 0:
                kernel = (
                    f"system CPU {us:.0f} vs {cs:.0f} ns per hop: swapcontext saves and restores the signal mask "
                    f"with rt_sigprocmask on every switch, about {us / 2:.0f} ns of kernel time per switch here"
                )
            else:
                kernel = "the pass is too short at this N for getrusage to see its system time"
            lines.append(f"swapcontext against the core's own switch: {uh:.0f} vs {ch:.0f} ns/hop; {kernel}.")
    pub, go = cells.get("go-published"), cells.get("go")
    if pub is not None:
        first, second = pub.median_of("first-ns"), pub.median_of("second-ns")
        if first is not None and second is not None:
            fair = ""
            setup, pas = (go.median_of("setup-ns"), go.median_of("pass-ns")) if go is not None else (None, None)
            if setup is not None and pas is not None:
                fair = (
                    f"; go, the fair protocol (a warm-up chain first, setup and pass timed apart, teardown with a "
                    f"collection): setup {setup / 1e9:.3g} s, pass {pas / 1e9:.3g} s"
                )
            lines.append(
                f"go-published, the published program as published (setup and pass in one timing, twice in one "
                f"process; published: 4.67 s, then 0.68 s at N = 1,000,000): first run {first / 1e9:.3g} s, second "
                f"{second / 1e9:.3g} s, the second reusing the first's exited goroutines{fair}."
            )
    if pub is not None and pub.skip and int(size.get("parallel", 1)) > 1:
        lines.append(
            f"go-published, {size['parallel']} chains at once (published: ten chains of a million took 13 minutes "
            f"while memory blew up): not run here: {pub.skip}."
        )
    return "\n".join(lines) + "\n"


def _not_possible(why: str) -> None:
    # The same message and exit status as the C and Go runners print.
    print(f"not possible here: {why}", file=sys.stderr, flush=True)
    raise SystemExit(harness.EXIT_CANNOT)


def _run(args: harness.Args, make) -> None:
    """The protocol shared by every Python variant; `make(n, hop_work,
    parallel)` is the setup and returns an object with run() and close()."""
    # the pure module, only in the children that run a Python variant
    from ..pure.chain import expected, NotPossibleHere

    n = args.int("n", DEFAULT_N, 1, MAX_N)
    k = args.int("hop-work", 0, 0, INT64_MAX)
    p = args.int("parallel", 1, 1, MAX_PARALLEL)
    if k > (INT64_MAX // n - 1) // 6:
        raise harness.UsageError(f"chain: hop-work={k} is too large for n={n}: the value would overflow int64")
    base = harness.proc_bytes("/proc/self/status", "VmRSS")

    # Calibration and warm-up: a short chain without hop work (memory does
    # not depend on it) measures the bytes per task for the guard.
    m = min(n, CALIBRATION_N)
    try:
        ch = make(m, 0, 1)
        grown = harness.proc_bytes("/proc/self/status", "VmRSS") - base
        got = ch.run()
        ch.close()
    except NotPossibleHere as e:
        _not_possible(str(e))
    harness.check("calibration chain", got, [m])
    # The bytes per task are the first chain's, whose memory is all new (a
    # later one reuses what the first freed); on PyPy that is the chain the
    # JIT has not compiled yet, which holds more: the guard errs on the safe side.
    per_task = max(grown, 0) / m
    need = per_task * n * p * 1.1
    avail = harness.proc_bytes("/proc/meminfo", "MemAvailable")
    if avail > 0 and need > avail:
        _not_possible(
            f"memory: n={n} x parallel={p} needs about {need / 2**20:.0f} MiB ({per_task:.0f} B/task measured on a "
            f"calibration chain of {m} tasks, +10%) but MemAvailable is {avail / 2**20:.0f} MiB"
        )

    # The JIT's warm-up is the run's own configuration, hop work and parallel
    # chains too (their interleaving is code of its own), at about
    # CALIBRATION_N tasks in all.
    w = min(n, max(1, CALIBRATION_N // p))
    for _ in range(JIT_WARMUPS - 1 if sys.implementation.name == "pypy" else 0):
        ch = make(w, k, p)
        got = ch.run()
        ch.close()
        harness.check("warm-up chains", got, [expected(w, k)] * p)

    now = harness.now_ns
    t0 = now()
    try:
        ch = make(n, k, p)
    except NotPossibleHere as e:
        _not_possible(str(e))
    t1 = now()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t2 = now()
    values = ch.run()
    t3 = now()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    peak = harness.proc_bytes("/proc/self/status", "VmHWM")
    t4 = now()
    ch.close()
    del ch
    t5 = now()

    want = expected(n, k)
    harness.check("values", values, [want] * p)
    hops = n * p
    setup, pas, teardown = t1 - t0, t3 - t2, t5 - t4
    harness.result(f"value={want} chains={p}")
    harness.emit(
        args,
        1,
        setup + pas + teardown,
        {
            "setup-ns": setup,
            "pass-ns": pas,
            "teardown-ns": teardown,
            "ns/hop": pas / hops,
            "B/task": max(peak - base, 0) / hops,
            "sys-ns/hop": (ru1.ru_stime - ru0.ru_stime) * 1e9 / hops,
            "cpu-ns/hop": (ru1.ru_stime + ru1.ru_utime - ru0.ru_stime - ru0.ru_utime) * 1e9 / hops,
        },
    )


class _CoreChain:
    """The core's chain through the extension: setup, pass and teardown
    are one call each, every one with the GIL released."""

    def __init__(self, n: int, hop_work: int, parallel: int, ucontext: bool = False):
        # the extension loads only in the variants that call it
        from .._core import chain_new

        self.chain = chain_new(n, hop_work, parallel, ucontext)

    def run(self) -> list:
        # the extension loads only in the variants that call it
        from .._core import chain_pass

        return chain_pass(self.chain)

    def close(self) -> None:
        # the extension loads only in the variants that call it
        from .._core import chain_free

        chain_free(self.chain)


@harness.implements("chain", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    _run(args, _CoreChain)


@harness.implements("chain", "py-asyncio", units=UNITS)
def run_py_asyncio(args: harness.Args) -> None:
    from ..pure.chain import AsyncioChain

    _run(args, AsyncioChain)


@harness.implements("chain", "py-generators", units=UNITS)
def run_py_generators(args: harness.Args) -> None:
    from ..pure.chain import GeneratorChain

    _run(args, GeneratorChain)


@harness.implements("chain", "py-uvloop", units=UNITS)
def run_py_uvloop(args: harness.Args) -> None:
    from ..pure.chain import AsyncioChain

    factory = harness.require("uvloop").new_event_loop  # CannotRun where uvloop is missing
    _run(args, lambda n, k, p: AsyncioChain(n, k, p, factory))


def provenance() -> tuple:
    """The library versions of py-greenlet and py-uvloop, for the result file."""
    # version lookups only when the provenance is written
    import importlib.metadata as md

    items = {}
    for lib in ("greenlet", "uvloop"):
        try:
            items[f"chain-{lib}"] = md.version(lib)
        except md.PackageNotFoundError:
            items[f"chain-{lib}"] = "not installed"
    return items, []


@harness.implements("chain", "py-greenlet", units=UNITS)
def run_py_greenlet(args: harness.Args) -> None:
    harness.require("greenlet")
    from ._chain_libraries import GreenletChain

    _run(args, GreenletChain)


@harness.implements("chain", "py-stackless", units=UNITS)
def run_py_stackless(args: harness.Args) -> None:
    import importlib.util

    if importlib.util.find_spec("stackless") is None:
        raise harness.CannotRun(f"no stackless module in {sys.executable}: it comes with PyPy (--python pypy3)")
    from ._chain_libraries import StacklessChain

    _run(args, StacklessChain)


@harness.implements("chain", "py-threads", units=UNITS)
def run_py_threads(args: harness.Args) -> None:
    from ..pure.chain import ThreadChain

    _run(args, ThreadChain)


# The round's own picture (report.draw calls it): time against memory per
# task, one point per variant.
def charts(sizes: dict, out_dir) -> list:
    # the pictures (matplotlib) load only when the report draws them
    from ..results import charts as drawing

    return drawing.time_memory(sizes, "chain", "ns/hop", "ns per hop (the pass / N)", 1.0, out_dir)
