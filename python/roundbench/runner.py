"""The runner: one fresh child process per (round, variant, size, run),
interleaved across variants (A B C A B C ...) so that drift hits all alike;
each child's own peak RSS and user/system CPU from wait4; every result
appended and flushed to the result file as soon as it is known, so a crash
or Ctrl-C loses at most the run in progress.

A run that exits non-zero, is killed, times out, prints no result line, or
disagrees with the other variants of its cell becomes a `--- FAIL:` line
with its exit status or signal and its last stderr lines; the suite goes on.
"""

from __future__ import annotations

import datetime
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import benchfmt, harness, programs, provenance, rounds, stats
from .machine import format_cpulist
from .placement import Placement

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
    its address-space randomisation off (roundbench.placement)."""
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
            name, False, reason=f"timed out after {timeout:.0f} s and was killed", stderr_tail=tail, wall_s=wall
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


def bench_name(rnd: rounds.Round, impl: str, params: dict) -> str:
    return f"{rnd.bench_prefix}/impl={impl}" + "".join(f"/{k}={v}" for k, v in params.items())


@dataclass
class Plan:
    """One cell: a round at one size, with the variants that will run."""

    round: rounds.Round
    params: dict
    variants: list
    skipped: list  # (variant, reason)


def make_plans(
    selected: list, impls: Optional[set], quick: bool, overrides: dict, options: Optional[dict] = None
) -> list:
    """The cells to run. overrides (--n, --param) apply to every round;
    options (round name -> {param: value}, from each round's own Options)
    to their round only."""
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
                why = rounds.unavailable(rnd, v)
                (skipped.append((v, why)) if why else run.append(v))
            plans.append(Plan(rnd, params, run, skipped))
    return plans


def _fmt_secs(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


# --quick's bounds on adaptive runs: a cell stops at this many runs, or once
# its own runs have taken this long.
QUICK_MAX_RUNS = 12
QUICK_BUDGET_S = 2.0


@dataclass(frozen=True)
class RunPolicy:
    """How many runs a cell gets. fixed=K: exactly K runs per variant
    (`--runs K`). fixed=None (`--runs auto`, the default, the pyperf and
    hyperfine habit): at least min_runs, interleaved, then more interleaved
    rounds for the variants whose median is not yet pinned down, until the
    median's 95% confidence interval lies within ±target of it, or the
    cell's budget (the round's budget_s, or budget_s here when set) is
    spent, or max_runs is reached. A round of facts runs once."""

    fixed: Optional[int] = None
    min_runs: int = 6
    max_runs: int = 40
    target: float = 0.02
    budget_s: Optional[float] = None

    def describe(self) -> str:
        if self.fixed is not None:
            return f"{self.fixed} per variant (fixed)"
        budget = f"{self.budget_s:g} s" if self.budget_s is not None else "the round's budget"
        return (
            f"auto: at least {self.min_runs} per variant, interleaved, then more until the median's 95% CI is "
            f"within ±{self.target * 100:g}% of it, {budget} per cell is spent, or {self.max_runs} runs"
        )


def primary(rnd: rounds.Round, metrics: dict) -> float:
    """The value a cell's convergence is judged by: the round's metric when
    the run has it, else ns/op."""
    return metrics.get(rnd.metric, metrics["ns/op"])


def converged(values: list, target: float) -> Optional[tuple]:
    """The median's 95% CI as (low, high) fractions of the median when both
    ends lie within ±target of it, else None."""
    if len(values) < 2:
        return None
    lo, hi, _ = stats.median_ci(values)
    m = stats.median(values)
    if lo is None or m == 0:
        return None
    rel = (lo / m - 1.0, hi / m - 1.0)
    return rel if -target <= rel[0] and rel[1] <= target else None


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


class _Cell:
    """The runner's state for one plan: each variant's values of the cell's
    metric, its failures, why it stopped, and the cross-check reference (the
    first variant that passes sets it)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.values = {v.name: [] for v in plan.variants}
        self.failures = {v.name: 0 for v in plan.variants}
        self.stopped: dict = {}
        self.reference: Optional[tuple] = None
        self.active = list(plan.variants)
        self.k = 0  # waves run
        self.spent_s = 0.0  # the wall time of the cell's runs so far


class Runner:
    def __init__(
        self,
        out_file: Path,
        policy: RunPolicy,
        timeout: float,
        progress=sys.stderr,
        placement: Optional[Placement] = None,
    ):
        self.out_file = out_file
        self.policy = policy
        self.timeout = timeout
        self.progress = progress
        self.placement = placement
        self.ok = 0
        self.failed = 0
        self.skipped = 0
        # A variant's known failures (its runs' `known-failure/CHECK` facts:
        # a library's declared shortcoming, its run measured): variant -> checks.
        self.known_failures: dict = {}

    def _write(self, fh, text: str) -> None:
        # Ctrl-C or SIGTERM waits until the record is on disk: the file
        # never ends in half a line.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
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

    def run(self, plans: list, header: dict) -> int:
        """Runs every plan; returns the number of failed runs. Raises
        KeyboardInterrupt after saving what was done.

        The runs go in waves: each wave runs every variant of every cell
        that still needs runs once, cell after cell (and within a cell,
        variant after variant: A B C A B C). A cell's runs are thus spread
        over the whole suite rather than bunched in one stretch of it, so a
        machine whose speed drifts over minutes (a shared VM) moves every
        cell's sample alike, and a second run of the suite samples the same
        range of the machine's states: figures repeat (README, "How a run
        is measured")."""
        self._total = self.planned(plans)
        self._done = 0
        self._start = time.monotonic()
        pl = self.placement
        if pl is not None and pl.runner is not None:
            os.sched_setaffinity(0, pl.runner)
        self.out_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.out_file, "a", encoding="utf-8") as fh:
            self._write(fh, "".join(benchfmt.config_line(k, v) for k, v in header.items()))
            units = {"ns/op": "lower", "peak-B": "lower", "user-ns/op": "lower", "sys-ns/op": "lower"}
            for p in plans:
                units.update(p.round.units)
            self._write(fh, "".join(benchfmt.unit_line(u, b) for u, b in units.items()) + "\n")
            cells = [_Cell(p) for p in plans]
            for c in cells:
                for v, why in c.plan.skipped:
                    self._write(fh, f"--- SKIP: {bench_name(c.plan.round, v.name, c.plan.params)}: {why}\n")
                    self._say(f"skip {c.plan.round.name} {v.name}: {why}")
            # The end record says how long the command ran (the report's
            # suite duration), stopped or not.
            interrupted = True
            try:
                while any(c.active for c in cells):
                    for c in cells:
                        if c.active:
                            self._wave(fh, c)
                interrupted = False
            finally:
                now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                self._write(fh, benchfmt.end_line(now, time.monotonic() - self._start, interrupted))
        return self.failed

    def _wave(self, fh, c: "_Cell") -> None:
        """One run of each of the cell's active variants, then the decision
        of which of them need more."""
        p = c.plan
        c.k += 1
        for v in c.active:
            o = self._run_one(fh, p, v, c.k, c)
            c.spent_s += o.wall_s
            if o.skipped:
                c.stopped[v.name] = "skipped"
            elif o.ok:
                c.values[v.name].append(primary(p.round, benchfmt.parse_bench_line(o.line).metrics))
            else:
                c.failures[v.name] += 1
        c.active = [v for v in c.active if v.name not in c.stopped]
        if c.k < self._min_runs(p):
            return
        still = []
        for v in c.active:
            vals = c.values[v.name]
            if self.policy.fixed is not None or p.round.facts:
                c.stopped[v.name] = "fixed" if not p.round.facts else "facts: one run"
            elif c.failures[v.name]:
                c.stopped[v.name] = f"{c.failures[v.name]} failed"
            elif converged(vals, self.policy.target):
                c.stopped[v.name] = f"converged: {_ci_text(vals)}"
            elif c.k >= self.policy.max_runs:
                c.stopped[v.name] = f"at the most runs ({self.policy.max_runs}): {_ci_text(vals)}"
            elif c.spent_s >= self._budget(p):
                c.stopped[v.name] = f"budget of {self._budget(p):g} s spent: {_ci_text(vals)}"
            else:
                still.append(v)
        self._total += len(still)
        c.active = still
        if not still:
            for v in p.variants:
                why = c.stopped.get(v.name, "")
                if why and why != "skipped":
                    runs = len(c.values[v.name]) + c.failures[v.name]
                    self._write(fh, runs_line(bench_name(p.round, v.name, p.params), runs, why))

    def _run_one(self, fh, p: Plan, v, k: int, c: "_Cell") -> Outcome:
        name = bench_name(p.round, v.name, p.params)
        cmd = rounds.command(p.round, v, p.params)
        pl = self.placement
        cpus = pl.cpus(rounds.threads_of(p.round, v, p.params)) if pl is not None else None
        env = rounds.child_env(v, p.params)
        if p.round.run_index_env:
            env = {**(env if env is not None else os.environ), rounds.RUN_INDEX_ENV: str(k)}
        o = run_child(
            cmd,
            name,
            self.timeout,
            env=env,
            cpus=cpus,
            fixed_layout=pl is not None and pl.fixed_layout,
        )
        if o.ok and o.result is not None and p.round.cross_check:
            if c.reference is None:
                c.reference = (v.name, o.result)
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
        else:
            self.failed += 1
            detail = "".join(f"    {ln}\n" for ln in o.stderr_tail)
            self._write(fh, f"--- FAIL: {name} (run {k}): {o.reason}\n{detail}")
        elapsed = time.monotonic() - self._start
        eta = elapsed / self._done * max(self._total - self._done, 0)
        size = " ".join(f"{a}={b}" for a, b in p.params.items())
        known = sorted(
            k[len(benchfmt.KNOWN_FAILURE) :]
            for k in (f.partition(" ")[0] for f in o.facts)
            if k.startswith(benchfmt.KNOWN_FAILURE)
        )
        if known:
            self.known_failures.setdefault(f"{p.round.name} {v.name}", set()).update(known)
        if o.ok:
            status = f"{o.wall_s:.2f} s" + (f", known failures FAILED: {', '.join(known)}" if known else "")
        elif o.skipped:
            status = f"skipped: {o.reason[:100]}"
        else:
            status = f"FAILED: {o.reason[:100]}"
        where = f"{p.round.name} {size} {v.name}".replace("  ", " ")
        self._say(
            f"[{self._done}/{self._total} {_fmt_secs(elapsed)} elapsed, ~{_fmt_secs(eta)} left] "
            f"{where} run {k}: {status}"
        )
        return o

    def _say(self, text: str) -> None:
        if self.progress:
            print(text, file=self.progress, flush=True)


def header_for(
    selected: list, policy: RunPolicy, quick: bool, placement: Optional[Placement] = None, plans: Optional[list] = None
) -> dict:
    items, _ = provenance.collect(selected, policy.describe(), quick, placement, plans)
    return items
