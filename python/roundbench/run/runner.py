"""The runner: one fresh child process per (round, variant, size, run),
interleaved across variants (A B C A B C ...) so that drift hits all alike;
each child's own peak RSS and user/system CPU from wait4; every result
appended and flushed to the result file as soon as it is known, so a crash
or Ctrl-C loses at most the run in progress.

A run that exits non-zero, is killed, times out, prints no result line, or
disagrees with the other variants of its cell becomes a `--- FAIL:` line
with its exit status or signal and its last stderr lines; the suite goes on.

A run is bounded by what its cell has shown: once a variant has finished a
run in a cell, its next runs there are killed after BOUND_FACTOR times the
longest of them (never under BOUND_FLOOR_S, never over --timeout, which
bounds a first run). Such a run becomes a `--- KILLED:` line with the
figures it had, the variant makes no more runs in that cell, and the cell's
result stands on the runs that finished: a heavy tail (sleep's Python
threads at 10,000) costs a bounded time and is reported, not a failure.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import math
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..results import benchfmt, stats
from ..measure import harness
from ..runtimes import programs
from . import provenance
from .. import rounds, runtimes
from ..judge import decide, score
from ..results import textfmt
from ..measure.machine import format_cpulist
from ..measure.placement import Placement
from . import launch

STDERR_TAIL = 12  # lines of a failed child's stderr kept in the result file
EXIT_MEANINGS = {
    harness.EXIT_USAGE: "bad arguments",
    harness.EXIT_WRONG: "wrong result",
    harness.EXIT_CANNOT: "cannot run here",
    harness.EXIT_FAILED: "the work failed",
}


@dataclass
class Outcome:
    name: str
    ok: bool
    line: Optional[str] = None  # the full result line, when ok
    result: Optional[str] = None  # the child's `result:` value
    reason: str = ""
    stderr_tail: list = field(default_factory=list)
    wall_s: float = 0.0
    facts: list = field(default_factory=list)  # `fact:` lines of a facts round's child
    skipped: bool = False  # the child refused: this machine cannot run it (exit 4)
    timed_out: bool = False  # killed at the timeout it was given
    killed: bool = False  # killed at its cell's bound (runner.BOUND_FACTOR): not a failure


def _exited_ok(status: int) -> bool:
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _drain(proc: subprocess.Popen, deadline: float) -> tuple:
    """Reads the child's stdout and stderr to EOF or until the deadline."""
    out, err = [], []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out = False
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if chunk:
                key.data.append(chunk)
            else:
                sel.unregister(key.fileobj)
    sel.close()
    return b"".join(out).decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace"), timed_out


class Usage:
    """What wait4 said about one child."""

    def __init__(self, status: int, maxrss_kb: int, utime_ns: int, stime_ns: int):
        self.status, self.maxrss_kb, self.utime_ns, self.stime_ns = status, maxrss_kb, utime_ns, stime_ns


def spawner() -> Optional[Path]:
    """rb-spawn, the launcher that makes peak RSS the child's own (see
    csrc/tools/spawn.c), or None when it is not built."""
    return None if programs.missing("rb-spawn") else programs.path("rb-spawn")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _set_placement(cpus: Optional[frozenset], fixed_layout: bool):
    """A preexec function doing what rb-spawn's --cpus and --fixed-layout do,
    for when rb-spawn is not built."""
    if cpus is None and not fixed_layout:
        return None

    def setup() -> None:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
        if fixed_layout:
            # libc's personality(), only for --placement pinned-fixed
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.personality(libc.personality(0xFFFFFFFF) | ADDR_NO_RANDOMIZE)

    return setup


ADDR_NO_RANDOMIZE = 0x0040000  # <sys/personality.h>


def run_child(
    cmd: list,
    name: str,
    timeout: float,
    env: Optional[dict] = None,
    cpus: Optional[frozenset] = None,
    fixed_layout: bool = False,
) -> Outcome:
    """Runs one child to completion and returns its outcome with the child's
    own rusage: wait4 on that one child (RUSAGE_CHILDREN would sum every
    child so far and keep the largest peak), through rb-spawn where it is
    built. The child runs in its own process group, so a timeout or Ctrl-C
    kills it and anything it started; `cpus` pins it, `fixed_layout` turns
    its address-space randomisation off (roundbench.measure.placement)."""
    t0 = time.monotonic()
    launcher = spawner()
    rfd = wfd = None
    preexec = None
    if launcher:
        rfd, wfd = os.pipe()
        opts = (["--cpus", format_cpulist(cpus)] if cpus else []) + (["--fixed-layout"] if fixed_layout else [])
        argv = [str(launcher), *opts, str(wfd), *cmd]
    else:
        argv = cmd
        preexec = _set_placement(cpus, fixed_layout)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            pass_fds=(wfd,) if launcher else (),
            preexec_fn=preexec,
        )
    except OSError as e:
        for fd in (rfd, wfd):
            if fd is not None:
                os.close(fd)
        return Outcome(name, False, reason=f"could not start {argv[0]}: {e.strerror}")
    if wfd is not None:
        os.close(wfd)
    try:
        out, err, timed_out = _drain(proc, t0 + timeout)
        if timed_out:
            _kill_group(proc)
        _, status, ru = os.wait4(proc.pid, 0)
        usage = Usage(status, ru.ru_maxrss, int(ru.ru_utime * 1e9), int(ru.ru_stime * 1e9))
        if launcher:
            report = os.read(rfd, 4096).decode()
            fields = dict(kv.split("=", 1) for kv in report.split())
            if _exited_ok(status) and "status" in fields:
                usage = Usage(*(int(fields[k]) for k in ("status", "maxrss_kb", "utime_ns", "stime_ns")))
    except BaseException:
        # Ctrl-C or another failure in the parent: never leave a child behind.
        _kill_group(proc)
        try:
            os.wait4(proc.pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        proc.returncode = 0  # reaped above; keep Popen from waiting again
        proc.stdout.close()
        proc.stderr.close()
        if rfd is not None:
            os.close(rfd)
    status = usage.status
    wall = time.monotonic() - t0
    tail = err.strip().splitlines()[-STDERR_TAIL:]
    if timed_out:
        return Outcome(
            name,
            False,
            reason=f"timed out after {timeout:.3g} s and was killed",
            stderr_tail=tail,
            wall_s=wall,
            timed_out=True,
        )
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signame = signal.Signals(sig).name
        except ValueError:
            signame = f"signal {sig}"
        return Outcome(name, False, reason=f"killed by {signame}", stderr_tail=tail, wall_s=wall)
    code = os.WEXITSTATUS(status)
    if code == harness.EXIT_CANNOT:
        # A refusal by this machine (a limit named on stderr), not a failure.
        why = tail[-1] if tail else "the child said it cannot run here"
        return Outcome(
            name, False, reason=why.removeprefix("cannot run here: "), stderr_tail=tail, wall_s=wall, skipped=True
        )
    if code != 0:
        meaning = EXIT_MEANINGS.get(code, "")
        if tail and meaning and tail[-1].startswith(meaning):
            meaning = ""  # the child's own line already says it
        reason = f"exit status {code}" + (f" ({meaning})" if meaning else "")
        if tail:
            reason += f": {tail[-1]}"
        return Outcome(name, False, reason=reason, stderr_tail=tail, wall_s=wall)
    bench = [ln for ln in out.splitlines() if ln.startswith("Benchmark")]
    results = [ln[len("result:") :].strip() for ln in out.splitlines() if ln.startswith("result:")]
    if len(bench) != 1:
        return Outcome(name, False, reason=f"printed {len(bench)} result lines, want 1", stderr_tail=tail, wall_s=wall)
    try:
        parsed = benchfmt.parse_bench_line(bench[0])
    except ValueError as e:
        return Outcome(name, False, reason=str(e), stderr_tail=tail, wall_s=wall)
    if parsed.name != name:
        return Outcome(name, False, reason=f"printed {parsed.name}, want {name}", stderr_tail=tail, wall_s=wall)
    iters = max(parsed.iters, 1)
    extra = {
        "peak-B": usage.maxrss_kb * 1024,  # Linux reports KiB
        "user-ns/op": usage.utime_ns / iters,
        "sys-ns/op": usage.stime_ns / iters,
    }
    line = bench[0].rstrip() + "".join(f" {harness._fmt(v)} {u}" for u, v in extra.items())
    facts = [ln[len("fact:") :].strip() for ln in out.splitlines() if ln.startswith("fact:")]
    return Outcome(name, True, line=line, result=results[-1] if results else None, wall_s=wall, facts=facts)


def bench_name(rnd: rounds.Round, impl: str, params: dict, runtime=None) -> str:
    """A result's name: the round, the variant, its runtime when the run
    has runtimes as an axis (runtimes.py: `go=1.20.14`, its own key so that
    `benchstat -col /go` splits by it), then the cell's parameters."""
    rt = f"/{runtime.key()}" if runtime is not None else ""
    return f"{rnd.bench_prefix}/impl={impl}{rt}" + "".join(f"/{k}={v}" for k, v in params.items())


def _renamed(line: str, name: str) -> str:
    """A child's result line under the runner's name for it (the child
    knows nothing of the runtime axis, so its line lacks the runtime key)."""
    return name + line[len(line.split(None, 1)[0]) :]


@dataclass
class Plan:
    """One cell: a round at one size, with the variants that will run."""

    round: rounds.Round
    params: dict
    variants: list
    skipped: list  # (variant, reason)


def expand(rnd: rounds.Round, v: rounds.Variant, axes: Optional[dict]) -> list:
    """The rows of variant v under the runtimes of the axis (axes: kind ->
    [runtimes.Runtime], from `--go` and `--python`): (variant with its
    runtime, why it cannot run or None) each. A Go variant runs under each
    Go toolchain when a Go runner runs it; a Python variant under each
    interpreter when it is a Python child. Any other (a program that
    another starts: round startup's, round aspects' whole programs, the
    http round's servers) runs under the runtime a run without the axis
    uses, and is a skip row, saying so, under the others. A round of facts
    is not on the axis."""
    kind = {"go": runtimes.GO, "py": runtimes.PYTHON}.get(v.language)
    if not axes or rnd.facts or kind not in axes:
        return [(v, None)]
    out = []
    for rt in axes[kind]:
        row = dataclasses.replace(v, runtime=rt)
        ours = launch.runs_go(v) if kind == runtimes.GO else v.program == "python"
        if ours or rt.default:
            out.append((row, None))
            continue
        program = launch.program_of(rnd, v)
        if kind == runtimes.GO:
            why = (
                f"{v.name} is run by {program}, not a Go runner: the Go toolchain axis builds the Go runners "
                f"(rb-go-<round>) with each toolchain, and {v.name} runs with the installed Go's build only"
            )
        else:
            why = (
                f"{v.name} is started by {program}, not run as a Python child: it runs under the runner's own "
                f"interpreter only, not under {runtimes.describe(rt.kind, rt.label)}"
            )
        out.append((row, why))
    return out


def _go_release_missing(rnd: rounds.Round, v: rounds.Variant) -> Optional[str]:
    """Why a Go row built with another Go release than the installed one
    cannot run (its toolchain cannot be fetched, its program not built, or
    the variant is not in that release's build: the version it needs), or
    None; builds the program first, once."""
    version = launch.go_toolchain(v)
    if version is None:
        return None
    # the go command's toolchains, only for a --go axis
    from ..runtimes import gotoolchains

    program = launch.program_of(rnd, v)
    why = gotoolchains.missing(program, version)
    if why:
        return why
    try:
        return gotoolchains.variant_missing(rnd, v, program, version)
    except ValueError as e:
        return f"{v.name} cannot be checked in {program} built with go{version}: {e}"


def make_plans(
    selected: list,
    impls: Optional[set],
    quick: bool,
    overrides: dict,
    options: Optional[dict] = None,
    axes: Optional[dict] = None,
) -> list:
    """The cells to run. overrides (--n, --param) apply to every round;
    options (round name -> {param: value}, from each round's own Options)
    to their round only; axes (kind -> [runtimes.Runtime]) puts each
    variant's rows under each runtime (expand)."""
    plans = []
    for rnd in selected:
        mine = {**overrides, **(options or {}).get(rnd.name, {})}
        # A run setting (Option.setting, e.g. matmul's threads) is not a
        # size: giving one does not make the variants limited to some sizes
        # (default_if) run at all.
        settings = {o.param for o in rnd.options if o.setting}
        sized = {k for k in mine if k not in settings}
        sizes = rnd.quick if quick else rnd.sizes
        sizes = [{k: mine.get(k, v) for k, v in size.items()} for size in sizes]
        # A key the round's sizes lack (sleep's fit=1, wait_ms) is passed on
        # too, and so named in the results; --n still only sets rounds that
        # have an n.
        extra = {k: v for k, v in mine.items() if k != "n"}
        sizes = [{**size, **{k: v for k, v in extra.items() if k not in size}} for size in sizes]
        # Several sizes that became one after an override run once.
        unique = []
        for s in sizes:
            if s not in unique:
                unique.append(s)
        for params in unique:
            run, skipped = [], []
            for v in rnd.variants:
                if impls and v.name not in impls:
                    continue
                if v.default_if and not sized and not v.default_if(params):
                    continue
                for row, why in expand(rnd, v, axes):
                    why = why or _go_release_missing(rnd, row) or launch.unavailable(rnd, row)
                    (skipped.append((row, why)) if why else run.append(row))
            plans.append(Plan(rnd, params, run, skipped))
    return plans


def _fmt_secs(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _minutes(s: float) -> str:
    return textfmt.duration_text(max(s, 0.0))


# --quick's bounds on adaptive runs: a variant stops at this many runs, and
# a cell's runs beyond the minimum share this many seconds.
QUICK_MAX_RUNS = 12
QUICK_BUDGET_S = 2.0

# A run's bound once its variant has finished runs in the cell: this many
# times the longest of them, never under BOUND_FLOOR_S (a run of a second
# may take a few on a loaded VM) nor over the run's --timeout.
BOUND_FACTOR = 10.0
BOUND_FLOOR_S = 60.0

# Under a time budget, the weight of a variant that decides no score point
# (c, a published program, a variant that is not its level's best) beside
# that of a decision sitting on its threshold (1): its extra runs come after
# those of the close decisions, cheapest and widest first.
UNDECIDING_WEIGHT = 0.01
# The least cost a run is reckoned at: a priority divides by it.
MIN_COST_S = 1e-3
# Under a time budget, a wave beyond the minimum runs the variants whose
# priority is within this factor of the highest: the two sides of a close
# decision run together, interleaved, and the far ones wait their turn.
PRIORITY_BAND = 10.0


@dataclass(frozen=True)
class RunPolicy:
    """How many runs each variant of a cell gets.

    fixed=K (`--runs K`): exactly K runs per variant. A round of facts runs
    once whatever the policy.

    fixed=None (`--runs auto`, the default, the pyperf and hyperfine
    habit): at least min_runs per variant, interleaved (A B C A B C); then
    more runs for each variant whose median's 95% confidence interval is not
    yet within ±target of it, until it is or the variant has max_runs runs,
    within two budgets:

    - The cell's budget (the round's budget_s, or budget_s here when set):
      the seconds of runs beyond the minimum that the variants of one cell
      spend between them, shared out by what a run buys. Each variant still
      running may spend up to an equal share of what the stopped ones left,
      (budget - spent by the stopped ones) / (variants still running), and
      starts a run only when that run (at its median run time) fits in its
      share. A cheap variant thus gets many runs for the price of one of a
      costly variant's, a variant that converges or reaches max_runs gives
      what it did not spend back to the others, and a variant whose next run
      does not fit sits out waves (its later runs still interleaved with the
      others') until a share grows or no running variant fits; then the
      cell stops.
    - The whole run's time budget (time_budget_s, `--time-budget`), when
      set. Every cell gets its minimum runs first, whatever the time: never
      fewer, even beyond the budget. When the first wave shows that the
      minimum runs would overrun the budget (a slower machine), the minimum
      becomes floor_runs (3: a median and a range, not yet an interval),
      and the runs up to min_runs are funded by priority like the rest. Then the time left goes by priority: a
      variant's priority is (the closeness of the closest score decision it
      takes part in (`closeness`) + UNDECIDING_WEIGHT) x (its median's CI
      half-width / target) / its median run time, so that the runs go where
      a point of the score is nearest to flipping, the interval widest and
      the runs cheapest. Each wave runs once each, interleaved cell by
      cell, the variants whose priority is within PRIORITY_BAND of the
      highest (the two sides of a close decision together; the far ones
      wait until the close ones converge, reach their most runs or their
      cell's budget), highest first as long as the time left pays for a
      run; then everything is reckoned again. The run stops when no run
      fits in the time left: it ends within the budget, plus the run in
      progress when a run outlasts its median.

    A cell that cannot decide a point (Round.undecided: cores at one
    worker) gets no runs beyond the minimum."""

    fixed: Optional[int] = None
    min_runs: int = 6
    # Under a time budget that the minimum runs would overrun (the estimate
    # after the first wave), the minimum becomes this many runs per variant.
    floor_runs: int = 3
    max_runs: int = 40
    target: float = 0.02
    budget_s: Optional[float] = None
    time_budget_s: Optional[float] = None

    def describe(self) -> str:
        if self.fixed is not None:
            text = f"{self.fixed} per variant (fixed)"
        else:
            budget = f"{self.budget_s:g} s" if self.budget_s is not None else "the round's budget"
            text = (
                f"auto: at least {self.min_runs} per variant, interleaved, then more for each variant until its "
                f"median's 95% CI is within ±{self.target * 100:g}% of it or it has {self.max_runs} runs; a cell's "
                f"runs beyond the minimum share {budget}, each running variant up to an equal share of what the "
                "stopped ones left, a run started only if it fits its share; no extra runs in a cell its round "
                "declares undecided (cores at one worker)"
            )
        if self.time_budget_s is not None:
            text += (
                f"; time budget {_minutes(self.time_budget_s)} for the whole run: every cell's minimum runs first "
                "(never fewer), then extra runs by priority, (closeness of the score decision the variant takes "
                f"part in + {UNDECIDING_WEIGHT:g}) x median CI half-width / target / run time, each wave the "
                f"variants within a factor {PRIORITY_BAND:g} of the highest priority, interleaved, while a run fits "
                "in the time left"
            )
        return text


def primary(rnd: rounds.Round, params: dict, metrics: dict) -> float:
    """The value a cell's convergence is judged by: the unit the score
    judges the cell by (rounds.score_unit: the round's metric, or another
    unit in some cells, p99 latency in http's fixed-rate ones) when the run
    has it, else ns/op."""
    return metrics.get(rounds.score_unit(rnd, params), metrics["ns/op"])


def converged(values: list, target: float) -> Optional[tuple]:
    """The median's 95% CI as (low, high) fractions of the median when both
    ends lie within ±target of it, else None."""
    if len(values) < 2:
        return None
    lo, hi, _ = stats.median_ci(values)
    rel = stats.relative_ci(stats.median(values), lo, hi)
    return rel if rel is not None and -target <= rel[0] and rel[1] <= target else None


def _ci_text(values: list) -> str:
    lo, hi, _ = stats.median_ci(values)
    m = stats.median(values) if values else 0
    if lo is None or not m:
        return "median CI needs 6 runs"
    return f"median 95% CI {(lo / m - 1) * 100:+.1f}%/{(hi / m - 1) * 100:+.1f}%"


def runs_line(name: str, runs: int, why: str) -> str:
    """The `--- RUNS:` record: how many runs a variant of a cell took and why
    it stopped (benchstat skips it like its own --- lines)."""
    return f"--- RUNS: {name}: {runs} runs, {why}\n"


# ---- the score's decisions, as the runs stand -------------------------------------


class _Medians:
    """A variant of a running cell as score.best_side reads a cells.Cell:
    its median in the unit the cell is scored by."""

    def __init__(self, values: list):
        self._values = values

    def median_of(self, unit: str) -> Optional[float]:
        return stats.median(self._values) if self._values else None


def score_pairs(rnd: rounds.Round, impls) -> list:
    """The (Go variants, Python variants) pairs whose best sides make a
    cell's score points, paired as score.score pairs them: per level
    (alone, with its ecosystem, whole program, calling C), or per crossing
    for a round of crossings (ffi). The variants of a level are summary's
    own level_impls, so that the runs go to the pairs the score makes."""
    names = dict.fromkeys(impls)
    levels = ("alone", "ecosystem", "program")
    pairs = [(score.level_impls(names, "go", lvl), score.level_impls(names, "py", lvl)) for lvl in levels]
    if rnd.pairs:
        pairs += [(list(x.go), list(x.py)) for x in rnd.pairs]
    else:
        pairs.append((score.level_impls(names, "go", "core"), score.level_impls(names, "py", "core")))
    return pairs


def closeness(a: list, b: list, margin: float = decide.MARGIN) -> float:
    """How near the score's decision between two sides' runs is to its
    threshold, from 1 (on it) towards 0 (decided): 1 / (1 + (gap/width)^2),
    where gap is the distance of |log(median a / median b)| from
    log(1 + margin), the edge of the decision rule's margin, and width the two
    medians' 95% CI half-widths (as logs) combined in quadrature, the
    ratio's interval as the order statistics give it (the report's
    bootstrap interval is too dear to draw each wave). A side without an
    interval yet, or a median that is not positive, counts as on the
    threshold."""
    ma, mb = stats.median(a), stats.median(b)
    wa, wb = stats.median_half_width(a), stats.median_half_width(b)
    if ma <= 0 or mb <= 0 or wa is None or wb is None or not math.isfinite(wa + wb):
        return 1.0
    gap = abs(abs(math.log(ma / mb)) - math.log1p(margin))
    width = math.hypot(math.log1p(wa), math.log1p(wb))
    if width == 0:
        return 1.0 if gap == 0 else 0.0
    return 1.0 / (1.0 + (gap / width) ** 2)


def decision_weights(rnd: rounds.Round, params: dict, values: dict, margin: float = decide.MARGIN) -> dict:
    """variant -> the closeness of the closest score decision it is a side
    of (0 for none: not its language's best at any level, the C core, a
    published program, a round that is not scored, a cell that decides
    nothing). values: variant -> its values in the cell's score unit."""
    out = {v: 0.0 for v in values}
    if not rnd.scored or rnd.facts or rounds.undecided(rnd, params):
        return out
    unit = rounds.score_unit(rnd, params)
    better = rnd.units.get(unit, "lower")
    view = {v: _Medians(vals) for v, vals in values.items() if vals}
    for go_impls, py_impls in score_pairs(rnd, view):
        g = score.best_side(view, go_impls, unit, better)
        p = score.best_side(view, py_impls, unit, better)
        if g is None or p is None:
            continue
        w = closeness(values[g.impl], values[p.impl], margin)
        for side in (g.impl, p.impl):
            out[side] = max(out[side], w)
    return out


def newest_pair(plans: list) -> dict:
    """kind -> the label of the newest runtime of that kind among the
    plans' rows (runtimes.newest_of)."""
    seen: dict = {}
    for p in plans:
        for v in p.variants:
            if v.runtime is not None:
                labels = seen.setdefault(v.runtime.kind, [])
                if v.runtime.label not in labels:
                    labels.append(v.runtime.label)
    return runtimes.newest_of(seen)


# ---- the runner ---------------------------------------------------------------------


class _Cell:
    """The runner's state for one plan: each variant's values in the
    cell's score unit, its failures, the wall time of each of its runs and
    of those beyond the minimum, why it stopped, and the cross-check
    reference (the first variant that passes sets it)."""

    def __init__(self, plan: Plan, min_runs: int, budget_s: float, undecided: Optional[str]):
        self.plan = plan
        self.min_runs = min_runs
        self.budget_s = budget_s
        self.undecided = undecided  # why the cell decides no point, or None
        names = [v.key for v in plan.variants]
        self.values: dict = {n: [] for n in names}
        self.failures: dict = {n: 0 for n in names}
        self.walls: dict = {n: [] for n in names}
        self.finished: dict = {n: [] for n in names}  # wall times of the runs that passed
        self.extra_s: dict = {n: 0.0 for n in names}
        self.stopped: dict = {}  # variant -> why (the --- RUNS: reason)
        self.kinds: dict = {}  # variant -> how it stopped (Runner.STOP_KINDS)
        self.reference: Optional[tuple] = None
        self.active = list(plan.variants)

    def attempts(self, name: str) -> int:
        return len(self.walls[name])

    def in_minimum(self, name: str) -> bool:
        return self.attempts(name) < self.min_runs

    def cost(self, name: str) -> float:
        """What a run of the variant costs: its runs' median wall time."""
        w = self.walls[name]
        return max(stats.median(w), MIN_COST_S) if w else MIN_COST_S

    def share(self) -> float:
        """What each variant still running may spend beyond the minimum:
        an equal part of what the stopped ones left of the cell's budget."""
        running = {v.key for v in self.active}
        if not running:
            return 0.0
        left = self.budget_s - sum(s for n, s in self.extra_s.items() if n not in running)
        return left / len(running)

    def fits(self, name: str) -> bool:
        """Whether the variant's next run fits in its share."""
        return self.extra_s[name] + self.cost(name) <= self.share() * (1 + 1e-9)

    def bound(self, name: str, factor: float, floor_s: float, ceiling_s: float) -> tuple:
        """The next run's bound, (seconds, why): factor x the longest run
        of the variant that passed in this cell, within [floor_s,
        ceiling_s]; ceiling_s (the run's --timeout) before any passed."""
        done = self.finished[name]
        if not done or factor <= 0:
            return ceiling_s, ""
        longest = max(done)
        b = min(max(factor * longest, floor_s), ceiling_s)
        runs = "run" if len(done) == 1 else f"{len(done)} runs"
        why = f"{factor:g} x the longest of its {runs} that finished here, {longest:.3g} s"
        if b == floor_s and floor_s > factor * longest:
            why = f"the floor: {why}, is less"
        return b, why

    def stop(self, name: str, kind: str, why: str) -> None:
        self.stopped[name] = why
        self.kinds[name] = kind


class Runner:
    # How a variant's runs may stop, for the run's last line.
    STOP_KINDS = {
        "converged": "converged",
        "most": "at the most runs",
        "cell-budget": "at their cell's budget",
        "time-budget": "at the time budget",
        "undecided": "at the minimum (their cell decides no point)",
        "failed": "with failed runs",
        "killed": "with a run killed at their cell's bound",
    }

    def __init__(
        self,
        out_file: Path,
        policy: RunPolicy,
        timeout: float,
        progress=sys.stderr,
        placement: Optional[Placement] = None,
        notices=None,
        bound_factor: float = BOUND_FACTOR,
        bound_floor_s: float = BOUND_FLOOR_S,
        margin: float = decide.MARGIN,
    ):
        self.out_file = out_file
        # A run's bound from its cell's finished runs (BOUND_FACTOR), within
        # [bound_floor_s, timeout]; bound_factor 0: the flat timeout only.
        self.bound_factor = bound_factor
        self.bound_floor_s = bound_floor_s
        # The decision rule's margin: the adaptive runs go to the decisions
        # nearest to it.
        self.margin = margin
        self.policy = policy
        self.timeout = timeout
        self.progress = progress
        # The estimate, the budget and what was spent: said even when the
        # progress lines are not.
        self.notices = notices
        self.placement = placement
        self.ok = 0
        self.failed = 0
        self.skipped = 0
        self.killed = 0  # runs killed at their cell's bound (not failures)
        # A variant's known failures (its runs' `known-failure/CHECK` facts:
        # a library's declared shortcoming, its run measured): variant -> checks.
        self.known_failures: dict = {}
        # The clock the budgets are kept by (tests give their own).
        self.clock = time.monotonic
        self._start = self.clock()  # run() starts it again
        self._cells: list = []
        self._extra_s = 0.0  # wall time of the runs beyond the minimum
        self._minimum_s: Optional[float] = None  # when every cell had its minimum runs
        self._said_over = False
        # The seal of the section being written: the SHA-256 of its bytes,
        # which the END line records (benchfmt, "--- END").
        self._seal = None
        # With runtimes as an axis: the newest pair, kind -> label (set by run()).
        self.newest: dict = {}

    def _write(self, fh, text: str) -> None:
        # Ctrl-C or SIGTERM waits until the record is on disk: the file
        # never ends in half a line.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            if self._seal is not None:
                self._seal.update(text.encode("utf-8"))
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def planned(self, plans: list) -> int:
        """The runs the plans take at least (adaptive runs may add more)."""
        return sum(len(p.variants) * self._min_runs(p) for p in plans)

    def _min_runs(self, p: Plan) -> int:
        # A round of facts runs once: a second run would find the same facts.
        if p.round.facts:
            return 1
        return self.policy.fixed if self.policy.fixed is not None else self.policy.min_runs

    def _budget(self, p: Plan) -> float:
        if self.policy.budget_s is not None:
            return self.policy.budget_s
        b = p.round.budget_s
        return b(p.params) if callable(b) else b

    def _undecided(self, p: Plan) -> Optional[str]:
        if self.policy.fixed is not None or p.round.facts:
            return None
        return rounds.undecided(p.round, p.params)

    @property
    def _deadline(self) -> Optional[float]:
        tb = self.policy.time_budget_s
        return None if tb is None else self._start + tb

    def run(self, plans: list, header: dict) -> int:
        """Runs every plan; returns the number of failed runs. Raises
        KeyboardInterrupt after saving what was done.

        The runs go in waves: each wave runs every variant of every cell
        that needs a run in it once, cell after cell (and within a cell,
        variant after variant: A B C A B C). A cell's runs are thus spread
        over the whole suite rather than bunched in one stretch of it, so a
        machine whose speed drifts over minutes (a shared VM) moves every
        cell's sample alike, and a second run of the suite samples the same
        range of the machine's states: figures repeat (docs/measurement.md, "How a run
        is measured"). Which variants need a run in a wave beyond the
        minimum is RunPolicy's rule."""
        self._total = self.planned(plans)
        self._done = 0
        self._start = self.clock()
        pl = self.placement
        if pl is not None and pl.runner is not None:
            os.sched_setaffinity(0, pl.runner)
        self.out_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.out_file, "a", encoding="utf-8", newline="\n") as fh:
            self._seal = hashlib.sha256()
            self._write(fh, "".join(benchfmt.config_line(k, v) for k, v in header.items()))
            units = {"ns/op": "lower", "peak-B": "lower", "user-ns/op": "lower", "sys-ns/op": "lower"}
            for p in plans:
                units.update(p.round.units)
            self._write(fh, "".join(benchfmt.unit_line(u, b) for u, b in units.items()) + "\n")
            cells = [_Cell(p, self._min_runs(p), self._budget(p), self._undecided(p)) for p in plans]
            self._cells = cells
            self.newest = newest_pair(plans)
            for c in cells:
                for v, why in c.plan.skipped:
                    self._write(fh, f"--- SKIP: {bench_name(c.plan.round, v.name, c.plan.params, v.runtime)}: {why}\n")
                    self._say(f"skip {c.plan.round.name} {v.key}: {why}")
            # The end record says how long the command ran (the report's
            # suite duration), stopped or not.
            interrupted = True
            try:
                self._waves(fh, cells)
                interrupted = False
            finally:
                now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                seal, self._seal = self._seal.hexdigest(), None
                self._write(fh, benchfmt.end_line(now, self.clock() - self._start, interrupted, seal))
        return self.failed

    def _waves(self, fh, cells: list) -> None:
        first = True
        while True:
            wave = self._next_wave(fh, cells)
            if not wave:
                return
            for c, names in wave:
                for name in names:
                    if self._affordable(c, name):
                        self._run_in(fh, c, name)
                self._decide(fh, c)
            if first:
                self._estimate(cells)
                first = False

    def _next_wave(self, fh, cells: list) -> list:
        """The next wave: (cell, variant names) in cell order, each cell's
        variants in their declared order. A cell short of its minimum runs
        all its running variants; beyond it, the variants whose next run
        fits their cell's share, and under a time budget only those funded
        (RunPolicy)."""
        minimum = {id(c) for c in cells if any(c.in_minimum(v.key) for v in c.active)}
        wanting = [(c, v.key) for c in cells if id(c) not in minimum for v in c.active if c.fits(v.key)]
        if not minimum and self._minimum_s is None:
            self._minimum_s = self.clock() - self._start
        deadline = self._deadline
        if deadline is not None:
            now = self.clock()
            if minimum and now > deadline and not self._said_over:
                self._said_over = True
                self._notice(
                    f"the {_minutes(self.policy.time_budget_s)} time budget is spent, but not every cell has had "
                    "its minimum runs: they are made all the same (never fewer), and no more"
                )
            # The minimum runs still to come are paid for first.
            owed = sum(
                c.cost(v.key) * (c.min_runs - c.attempts(v.key))
                for c in cells
                if id(c) in minimum
                for v in c.active
                if c.in_minimum(v.key)
            )
            funded = self._fund(wanting, deadline - now - owed)
            if not funded and not minimum:
                self._stop_all(fh, cells, "time-budget", "time budget spent")
                return []
            wanting = [(c, n) for c, n in wanting if (id(c), n) in funded]
        chosen = {(id(c), n) for c, n in wanting}
        wave = []
        for c in cells:
            if id(c) in minimum:
                wave.append((c, [v.key for v in c.active]))
                continue
            names = [v.key for v in c.active if (id(c), v.key) in chosen]
            if names:
                wave.append((c, names))
                self._total += len(names)
        return wave

    def priority(self, c: _Cell, name: str, weights: dict) -> float:
        """RunPolicy's priority of a variant's next run: (the closeness of
        its closest score decision + UNDECIDING_WEIGHT) x its median's CI
        half-width / target / its run time."""
        hw = stats.median_half_width(c.values[name])
        need = (hw if hw is not None and math.isfinite(hw) else 1.0) / self.policy.target
        return (weights.get(name, 0.0) + UNDECIDING_WEIGHT) * need / c.cost(name)

    def _fund(self, wanting: list, left: float) -> set:
        """The (cell id, variant) pairs this wave runs under a time budget:
        those whose priority is within PRIORITY_BAND of the highest, highest
        first, as many as the time left pays for (a run at its median run
        time)."""
        weights = {}
        for c, _ in wanting:
            if id(c) not in weights:
                weights[id(c)] = self._weights(c)
        ranked = [(self.priority(c, n, weights[id(c)]), c, n) for c, n in wanting if c.cost(n) <= left]
        ranked.sort(key=lambda pcn: -pcn[0])
        funded = set()
        for prio, c, name in ranked:
            if prio < ranked[0][0] / PRIORITY_BAND:
                break
            one = c.cost(name)
            if one <= left:
                funded.add((id(c), name))
                left -= one
        return funded

    def _weights(self, c: _Cell) -> dict:
        """decision_weights of a cell, over its rows of the newest pair of
        runtimes (the pair the report's main score compares) when the run
        has runtimes as an axis: the other rows decide no point of it."""
        rows = {}
        for v in c.plan.variants:
            rt = v.runtime
            if rt is None or self.newest.get(rt.kind) == rt.label:
                rows[v.name] = v.key
        weights = decision_weights(c.plan.round, c.plan.params, {n: c.values[k] for n, k in rows.items()}, self.margin)
        return {rows[n]: w for n, w in weights.items()}

    def _affordable(self, c: _Cell, name: str) -> bool:
        """A minimum run is always made; under a time budget a run beyond it
        starts only if it fits in the time left (at its median run time)."""
        deadline = self._deadline
        if deadline is None or c.in_minimum(name):
            return True
        return c.cost(name) <= deadline - self.clock()

    def _run_in(self, fh, c: _Cell, name: str) -> None:
        p = c.plan
        v = next(x for x in p.variants if x.key == name)
        extra = not c.in_minimum(name)
        o = self._run_one(fh, p, v, c.attempts(name) + 1, c)
        c.walls[name].append(o.wall_s)
        if extra:
            c.extra_s[name] += o.wall_s
            self._extra_s += o.wall_s
        if o.skipped:
            c.stop(name, "skipped", "skipped")
        elif o.ok:
            c.values[name].append(primary(p.round, p.params, benchfmt.parse_bench_line(o.line).metrics))
            c.finished[name].append(o.wall_s)
        elif o.killed:
            done = len(c.values[name])
            c.stop(
                name,
                "killed",
                f"run {c.attempts(name)} killed at its cell's bound: {o.reason}; the cell keeps the {done} that "
                "finished, "
                f"{_ci_text(c.values[name])}",
            )
        else:
            c.failures[name] += 1

    def _decide(self, fh, c: _Cell) -> None:
        """Which of the cell's variants stop, and why (RunPolicy)."""
        p = c.plan
        still = []
        for v in c.active:
            n = v.key
            vals = c.values[n]
            if n in c.stopped:
                continue
            if c.in_minimum(n):
                still.append(v)
            elif self.policy.fixed is not None or p.round.facts:
                c.stop(n, "fixed", "fixed" if not p.round.facts else "facts: one run")
            elif c.failures[n]:
                c.stop(n, "failed", f"{c.failures[n]} failed")
            elif converged(vals, self.policy.target):
                c.stop(n, "converged", f"converged: {_ci_text(vals)}")
            elif c.attempts(n) >= self.policy.max_runs:
                c.stop(n, "most", f"at the most runs ({self.policy.max_runs}): {_ci_text(vals)}")
            elif c.undecided:
                c.stop(n, "undecided", f"no extra runs (the cell decides no point): {c.undecided}; {_ci_text(vals)}")
            else:
                still.append(v)
        c.active = still
        if still and not any(c.in_minimum(v.key) or c.fits(v.key) for v in still):
            share = c.share()
            for v in still:
                c.stop(
                    v.key,
                    "cell-budget",
                    f"cell budget of {c.budget_s:g} s spent: this variant's share {share:.3g} s, "
                    f"{c.extra_s[v.key]:.3g} s used; {_ci_text(c.values[v.key])}",
                )
            c.active = []
        if not c.active:
            self._write_stops(fh, c)

    def _stop_all(self, fh, cells: list, kind: str, why: str) -> None:
        for c in cells:
            if not c.active:
                continue
            for v in c.active:
                c.stop(v.key, kind, f"{why}: {_ci_text(c.values[v.key])}")
            c.active = []
            self._write_stops(fh, c)

    def _write_stops(self, fh, c: _Cell) -> None:
        p = c.plan
        for v in p.variants:
            why = c.stopped.get(v.key, "")
            if why and why != "skipped":
                runs = len(c.values[v.key]) + c.failures[v.key]
                self._write(fh, runs_line(bench_name(p.round, v.name, p.params, v.runtime), runs, why))

    def _minimum_estimate(self, cells: list) -> float:
        """What the cells' minimum runs take, from each variant's first run."""
        return sum(
            walls[0] * (1 if c.kinds.get(name) == "skipped" else c.min_runs)
            for c in cells
            for name, walls in c.walls.items()
            if walls
        )

    def _estimate(self, cells: list) -> None:
        """After the first wave: what the minimum runs will take, from each
        variant's first run, against the budgets. Under a time budget that
        they would overrun, the minimum becomes RunPolicy.floor_runs: the
        runs up to the full minimum then go by priority, as every run
        beyond the minimum does, so the budget holds."""
        took = self.clock() - self._start
        est = self._minimum_estimate(cells)
        text = f"the first wave took {_minutes(took)}: the minimum runs should take about {_minutes(est)}"
        tb = self.policy.time_budget_s
        floor = self.policy.floor_runs
        if self.policy.fixed is not None:
            pass
        elif tb is None:
            cap = sum(c.budget_s for c in cells if not c.plan.round.facts and not c.undecided)
            text += f", and the runs beyond the minimum at most {_minutes(cap)} more (each cell's budget)"
        elif est <= tb:
            text += (
                f", leaving about {_minutes(tb - est)} of the {_minutes(tb)} time budget for runs beyond the "
                "minimum, spent where the score's decisions are closest"
            )
        elif floor < self.policy.min_runs:
            for c in cells:
                # The progress lines count the runs planned: fewer now.
                self._total -= max(c.min_runs - floor, 0) * len(c.active)
                c.min_runs = min(c.min_runs, floor)
            low = self._minimum_estimate(cells)
            text += (
                f", more than the {_minutes(tb)} time budget: the minimum becomes {floor} runs per variant "
                f"(about {_minutes(low)}), and runs {floor + 1} to {self.policy.min_runs} and beyond go where the "
                "score's decisions are closest while the budget lasts (a variant with fewer than "
                f"{stats.CI_MIN_RUNS} runs has no interval, and the report says so)"
            )
            if low > tb:
                text += f"; even that is more than the budget: those {floor} runs are all made, and no more"
        else:
            text += (
                f", more than the {_minutes(tb)} time budget: they are all made (never fewer than the minimum), "
                "and no more"
            )
        self._notice(text)

    def end_text(self) -> str:
        """What the runs took against the budget, and how each variant's
        runs stopped (said at the end of `roundbench run`)."""
        took = self.clock() - self._start
        tb = self.policy.time_budget_s
        text = f"the runs took {_minutes(took)}"
        if tb is not None:
            if took <= tb:
                text += f" of the {_minutes(tb)} time budget"
            elif not self._extra_s:
                text += f", beyond the {_minutes(tb)} time budget: the minimum runs alone took that (never fewer)"
            else:
                text += f", beyond the {_minutes(tb)} time budget: the last run outlasted its estimate"
        text += f", {_minutes(self._extra_s)} of them beyond the minimum"
        if self.policy.fixed is not None:
            return text
        kinds: dict = {}
        measured = 0
        for c in self._cells:
            for name in c.values:
                kind = c.kinds.get(name)
                if kind in (None, "skipped", "fixed"):
                    continue
                measured += 1
                kinds[kind] = kinds.get(kind, 0) + 1
        parts = [f"{kinds[k]} {label}" for k, label in self.STOP_KINDS.items() if kinds.get(k) and k != "converged"]
        text += (
            f"; {kinds.get('converged', 0)} of {measured} variant cells converged (median's 95% CI within "
            f"±{self.policy.target * 100:g}%)" + (f", {', '.join(parts)}" if parts else "")
        )
        return text

    def _run_one(self, fh, p: Plan, v, k: int, c: "_Cell") -> Outcome:
        child_name = bench_name(p.round, v.runs_as, p.params)
        name = bench_name(p.round, v.name, p.params, v.runtime)
        version = launch.go_toolchain(v)
        program = None
        if version is not None:
            # the go command's toolchains, only for a --go axis
            from ..runtimes import gotoolchains

            program = gotoolchains.program_path(launch.program_of(p.round, v), version)
        cmd = launch.command(p.round, v, p.params, program)
        pl = self.placement
        cpus = pl.cpus(rounds.threads_of(p.round, v, p.params)) if pl is not None else None
        env = launch.child_env(v, p.params)
        if p.round.run_index_env:
            env = {**(env if env is not None else os.environ), rounds.RUN_INDEX_ENV: str(k)}
        bound, bound_why = c.bound(v.key, self.bound_factor, self.bound_floor_s, self.timeout)
        o = run_child(
            cmd,
            child_name,
            bound,
            env=env,
            cpus=cpus,
            fixed_layout=pl is not None and pl.fixed_layout,
        )
        if name != child_name:
            o = dataclasses.replace(o, name=name, line=_renamed(o.line, name) if o.line else o.line)
        if o.timed_out and bound_why:
            # Outran what its cell has shown: a bounded outcome, not a failure.
            o = dataclasses.replace(
                o,
                killed=True,
                reason=f"killed after {o.wall_s:.3g} s at its cell's bound of {bound:.3g} s ({bound_why})",
            )
        if o.ok and o.result is not None and p.round.cross_check:
            if c.reference is None:
                c.reference = (v.key, o.result)
            elif o.result != c.reference[1]:
                ref = c.reference
                o = Outcome(
                    name,
                    False,
                    reason=f"disagrees: result {o.result}, but {ref[0]} gave {ref[1]}",
                    wall_s=o.wall_s,
                )
        self._done += 1
        if o.ok:
            self.ok += 1
            self._write(fh, "".join(benchfmt.fact_line(name, f) for f in o.facts) + o.line + "\n")
        elif o.skipped:
            self.skipped += 1
            self._write(fh, f"--- SKIP: {name}: {o.reason}\n")
        elif o.killed:
            self.killed += 1
            detail = "".join(f"    {ln}\n" for ln in o.stderr_tail)
            self._write(fh, benchfmt.killed_line(name, k, o.reason) + detail)
        else:
            self.failed += 1
            detail = "".join(f"    {ln}\n" for ln in o.stderr_tail)
            self._write(fh, f"--- FAIL: {name} (run {k}): {o.reason}\n{detail}")
        elapsed = self.clock() - self._start
        eta = elapsed / self._done * max(self._total - self._done, 0)
        if self._minimum_s is not None and self._deadline is not None:
            # Beyond the minimum the time budget bounds what is left.
            eta = max(self._deadline - self.clock(), 0.0)
        size = " ".join(f"{a}={b}" for a, b in p.params.items())
        known = sorted(
            k[len(benchfmt.KNOWN_FAILURE) :]
            for k in (f.partition(" ")[0] for f in o.facts)
            if k.startswith(benchfmt.KNOWN_FAILURE)
        )
        if known:
            self.known_failures.setdefault(f"{p.round.name} {v.key}", set()).update(known)
        if o.ok:
            status = f"{o.wall_s:.2f} s" + (f", known failures FAILED: {', '.join(known)}" if known else "")
        elif o.skipped:
            status = f"skipped: {o.reason[:100]}"
        elif o.killed:
            status = o.reason[:160]
        else:
            status = f"FAILED: {o.reason[:100]}"
        where = f"{p.round.name} {size} {v.key}".replace("  ", " ")
        self._say(
            f"[{self._done}/{self._total} {_fmt_secs(elapsed)} elapsed, ~{_fmt_secs(eta)} left] "
            f"{where} run {k}: {status}"
        )
        return o

    def _say(self, text: str) -> None:
        if self.progress:
            print(text, file=self.progress, flush=True)

    def _notice(self, text: str) -> None:
        if self.notices:
            print(f"roundbench: {text}", file=self.notices, flush=True)


def header_for(
    selected: list, policy: RunPolicy, quick: bool, placement: Optional[Placement] = None, plans: Optional[list] = None
) -> dict:
    items, _ = provenance.collect(selected, policy.describe(), quick, placement, plans)
    return items
