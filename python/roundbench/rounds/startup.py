"""Round startup: what it costs to start a program, measured from outside.

Each run is one child of the runner, as in every round: here the child is
the statically linked C runner (build/rb-c-static, csrc/runner/run_startup.c),
which starts the variant's program `starts` times (20) after an untimed
warm-up (50 ms of starts, at least one), each by fork, exec and wait4, checks every start's exit status and
output, and reports the median start-to-exit time (ns/op, and ms), the
interquartile range of the starts (spread-ms), the median of each start's
own peak RSS (start-peak-B) and user + system CPU time (cpu-ms, both from
wait4; on a busy machine the CPU time moves least, as wall time includes
waiting for a core) and what 1,000 starts cost. Timing
from Python would add the runner's own fork cost and, worse, its RSS: a
child forked from a big process starts with that process's anonymous pages
and exec keeps the high water mark (getrusage(2)); the launcher's own
anonymous memory, the most a start can owe to it, is launcher-anon-B.

The launcher starts each hello program at the path that its own variable
holds (RB_STARTUP_HELLO_C for hello-c, ...), set here from where
roundbench.runtimes.programs finds it: installed, the C programs and the launcher
are in the package and the Go ones in a per-user cache. The Python
variants run the children's interpreter (interp.py: the runner's own unless
--python names another), with
PYTHONPATH pointing at this package when it runs from a checkout, so that
`import roundbench` finds the same package the suite runs.

py-nuitka and py-nuitka-onefile start pure/hello.py compiled by Nuitka for
that interpreter (hello-py-nuitka, hello-py-nuitka-onefile: a standalone
folder, and one file that unpacks it at every start), built before the
runs where it is missing or stale (runtimes/nuitkabuild.py): a compiler
from outside the distribution, so the ecosystem level, the one where the
loop round's Cython, mypyc and Pythran score.
"""

from __future__ import annotations

import os
from typing import Optional

from ..runtimes import interp, nuitkabuild, programs
from . import Headline, needs_module, needs_nuitka, needs_program, Param, Round, Variant

LAUNCHER = "rb-c-static"


def path_variable(program: str) -> str:
    """The variable that tells the launcher where `program` is
    (csrc/runner/run_startup.c): RB_STARTUP_HELLO_C for hello-c."""
    return "RB_STARTUP_" + program.upper().replace("-", "_")


def _env(params: dict) -> dict:
    env = {"RB_STARTUP_PYTHON": interp.executable()}
    root = programs.checkout()
    if root is not None:
        paths = [str(root / "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _v(name: str, explain: str, *, program: Optional[str] = None, requires=None) -> Variant:
    """A variant that starts `program` (a hello program), or the Python
    interpreter when program is None."""
    if program is None:
        return Variant(name, LAUNCHER, explain, requires=requires, env=_env)

    def env(params: dict) -> dict:
        return {**_env(params), path_variable(program): str(programs.path(program))}

    return Variant(name, LAUNCHER, explain, requires=needs_program(program), env=env)


def _nuitka(name: str, mode: str, explain: str) -> Variant:
    """A variant that starts pure/hello.py compiled by Nuitka in `mode`
    (nuitkabuild.MODES) for the children's interpreter: program
    hello-<name>, built by its `requires` before the runs."""
    program = f"hello-{name}"

    def env(params: dict) -> dict:
        return {**_env(params), path_variable(program): str(nuitkabuild.program(mode))}

    return Variant(name, LAUNCHER, explain, requires=needs_nuitka(mode), env=env, level="ecosystem")


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(9, {}, "alone", "to start a hello-world and exit"),
]

ROUND = Round(
    name="startup",
    title="startup: process start to exit",
    explain=(
        "Start to exit of one program, by fork, exec and wait4 from a small static C launcher: "
        "each run is the median of 20 starts after a warm-up, each start's exit status and output checked."
    ),
    variants=[
        _v("c", "C hello-world, the core's flags, dynamically linked", program="hello-c"),
        _v("c-static", "the same C hello-world, statically linked", program="hello-c-static"),
        _v("go", "Go hello-world, CGO_ENABLED=0 (static)", program="hello-go"),
        _v("go-cgo", "the same Go program with cgo (dynamic, libc)", program="hello-go-cgo"),
        _v("go-c", "a Go program that calls the C core once through cgo", program="hello-go-c"),
        _v("py", "python -c pass"),
        _v("py-S", "python -S -c pass (no site module)"),
        _v("py-I", "python -I -c pass (isolated mode)"),
        _v("py-numpy", 'python -c "import numpy"', requires=needs_module("numpy", "pip install numpy")),
        _v("py-roundbench", 'python -c "import roundbench"'),
        _v("py-c", "python: import roundbench and call the C core once"),
        _v("py-pandas", 'python -c "import pandas"', requires=needs_module("pandas", "pip install pandas")),
        _nuitka(
            "py-nuitka",
            nuitkabuild.STANDALONE,
            "a Python hello-world compiled by Nuitka --standalone: a folder, the program and the modules it needs",
        ),
        _nuitka(
            "py-nuitka-onefile",
            nuitkabuild.ONEFILE,
            "the same compiled by Nuitka --onefile: one file that unpacks the folder into a temporary one "
            "at every start",
        ),
    ],
    # The C launcher's bound (csrc/runner/run_startup.c, MAX_STARTS).
    params=[Param("starts", "process starts a run", 1, 10_000)],
    sizes=[{"starts": 20}],
    quick=[{"starts": 3}],
    metric="ms",
    headlines=HEADLINES,
    order=5,
    units={
        "ms": "lower",
        "spread-ms": "lower",
        "start-peak-B": "lower",
        "s/1000-starts": "lower",
        "cpu-ms": "lower",
        "launcher-anon-B": "lower",
    },
    metric_explain="ms: median time from fork to the end of wait4 over the run's starts",
    cross_check=False,
    columns=[
        ("spread-ms", "spread of the starts (IQR, ms)"),
        ("start-peak-B", "peak RSS of one start"),
        ("cpu-ms", "CPU of one start (ms)"),
        ("s/1000-starts", "1,000 starts (s)"),
    ],
    binding_overhead=False,  # py-c and go-c start other programs than c
)


def provenance() -> tuple:
    """The interpreter the Python variants start, and the .pth files its
    site module runs at every start (each may import modules: `python -c
    pass` pays for them, `python -S` does not)."""
    # only for the provenance's .pth files
    import site

    pth = []
    try:
        dirs = site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # a virtualenv's old site module
        dirs = []
    for d in dirs:
        if os.path.isdir(d):
            pth += sorted(f for f in os.listdir(d) if f.endswith(".pth"))
    items = {
        "startup-launcher": f"{programs.path(LAUNCHER)} (static; fork, exec, wait4)",
        "startup-python": interp.executable(),
        "startup-site-pth": ", ".join(pth) if pth else "none",
    }
    return items, []


# The round's targets (benchmarks: checked in the report, never in tests).
IMPORT_BUDGET_MS = 5.0
C_HELLO_MS = 1.0
GO_HELLO_MS = 2.0


def _ci(cells: dict, impl: str):
    c = cells.get(impl)
    s = c.summary("ms") if c is not None else None
    if s is None or s.ci_low is None:
        return None
    return s.ci_low, s.ci_high


def _under(what: str, value: float, limit: float, ci) -> str:
    """A target `value < limit`, judged on the median and, where there are
    enough runs, on its confidence interval: on a noisy machine a median
    may fall either side by chance, and the report says so."""
    verdict = "met" if value < limit else "NOT met"
    if ci is not None and ci[0] < limit <= ci[1]:
        verdict += f" by the median, but its 95% CI [{ci[0]:.3g}, {ci[1]:.3g}] straddles the target"
    return f"{what} {value:.3f} ms (target under {limit:g} ms): {verdict}"


def report_section(size: dict, cells: dict, config: dict) -> str:
    def med(impl: str, unit: str = "ms") -> Optional[float]:
        c = cells.get(impl)
        return c.median_of(unit) if c is not None else None

    lines = []
    checks = []
    py, rb = med("py"), med("py-roundbench")
    if py is not None and rb is not None:
        d = rb - py
        verdict = "met" if d <= IMPORT_BUDGET_MS else "NOT met"
        a, b = _ci(cells, "py"), _ci(cells, "py-roundbench")
        if a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]:
            verdict += " by the medians, but their 95% CIs overlap: the difference is within this run's noise"
        checks.append(
            f"`import roundbench` costs {d:+.2f} ms over `python -c pass` "
            f"(target at most {IMPORT_BUDGET_MS:g} ms): {verdict}"
        )
    c = med("c")
    if c is not None:
        checks.append(_under("C hello", c, C_HELLO_MS, _ci(cells, "c")))
    g = med("go")
    if g is not None:
        checks.append(_under("static Go hello", g, GO_HELLO_MS, _ci(cells, "go")))
    if checks:
        lines.append("Targets (medians of this run): " + "; ".join(checks) + ".\n")
    pc, gc, gcgo = med("py-c"), med("go-c"), med("go-cgo")
    crossing = []
    if pc is not None and rb is not None:
        crossing.append(f"Python, py-c − py-roundbench = {pc - rb:+.2f} ms")
    if gc is not None and gcgo is not None:
        crossing.append(f"Go, go-c − go-cgo = {gc - gcgo:+.2f} ms")
    if crossing:
        lines.append("What one call into the core adds to a start: " + "; ".join(crossing) + ".\n")
    nuitka = [(f"`{i}`", med(i)) for i in ("py-nuitka", "py-nuitka-onefile")]
    if any(m is not None for _, m in nuitka):
        beside = [(f"`{i}`", med(i)) for i in ("py", "go")]
        shown = "; ".join(f"{name} {m:.2f} ms" for name, m in nuitka + beside if m is not None)
        lines.append(
            "Python compiled by Nuitka (the ecosystem level: a compiler from outside the distribution), "
            f"against `python -c pass` and static Go (medians): {shown}. The onefile program unpacks its "
            "folder into a temporary one at every start, and that is in its time.\n"
        )
    anon = [m for m in (med(i, "launcher-anon-B") for i in cells) if m is not None]
    if anon:
        lines.append(
            f"Peak RSS of one start is the started program's own, plus at most {max(anon) / 1024:.0f} KiB "
            "of the launcher's anonymous memory that fork maps into the child before exec. "
            "1,000 starts: median × 1,000, the cost of a command-line tool called in a loop.\n"
        )
    return "\n".join(lines)
