"""The runner: one fresh child process per (round, variant, size, run),
interleaved across variants in trials, each in a fresh random order (B A
C, C B A, ...), so that drift hits all alike and the sides pair trial by
trial; each child's own peak RSS and user/system CPU from wait4; every
result appended and flushed to the result file as soon as it is known, so
a crash or Ctrl-C loses at most the run in progress.

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

The runner is the loop that ties three rooms together: plans.py says what
runs (cells, sizes, rows), schedule.py when (waves, adaptive stopping,
budgets; policy.py its defaults), spawn.py how one child runs. It writes
every record to the result file and speaks through progress.py.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Optional

from .. import rounds
from ..measure.placement import Placement
from ..results import benchfmt
from . import launch, provenance
from .plans import Plan, _renamed, bench_name
from .policy import BOUND_FACTOR, BOUND_FLOOR_S, RunPolicy
from .progress import Progress, status_text
from .schedule import Schedule, _Cell, pick_median, planned, primary, runs_line
from .spawn import Outcome, run_child
from ..judge import decide


class Runner:
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
        order_seed: Optional[int] = None,
    ):
        self.out_file = out_file
        # Each trial runs its cell's variants in a fresh random order
        # (docs/measurement.md, "Paired trials"); the seed is in the header.
        self.order_seed = order_seed if order_seed is not None else int.from_bytes(os.urandom(4), "little")
        self._order = random.Random(self.order_seed)
        # A run's bound from its cell's finished runs (BOUND_FACTOR), within
        # [bound_floor_s, timeout]; bound_factor 0: the flat timeout only.
        self.bound_factor = bound_factor
        self.bound_floor_s = bound_floor_s
        self.margin = margin
        self.policy = policy
        self.timeout = timeout
        # The progress lines, and the notices (the estimate, the budget and
        # what was spent): said even when the progress lines are not.
        self.speak = Progress(progress, notices)
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
        self.schedule: Optional[Schedule] = None  # run() makes it
        self._done = 0
        # The seal of the section being written: the SHA-256 of its bytes,
        # which the END line records (benchfmt, "--- END").
        self._seal = None

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
        return planned(self.policy, plans)

    def run(self, plans: list, header: dict) -> int:
        """Runs every plan; returns the number of failed runs. Raises
        KeyboardInterrupt after saving what was done.

        The runs go in waves: each wave runs every variant of every cell
        that needs a run in it once, cell after cell (and within a cell,
        variant after variant, in a random order each time: a trial, which
        a --- TRIAL: record names). A cell's runs are thus spread over the
        whole suite rather than bunched in one stretch of it, so a machine
        whose speed drifts over minutes (a shared VM) moves every cell's
        sample alike, and a second run of the suite samples the same range
        of the machine's states: figures repeat (docs/measurement.md, "How
        a run is measured"). Which variants need a run in a wave beyond the
        minimum is RunPolicy's rule (schedule.py)."""
        self._done = 0
        self.schedule = Schedule(self.policy, plans, lambda: self.clock(), self.speak.notice, self.margin)
        pl = self.placement
        if pl is not None and pl.runner is not None:
            os.sched_setaffinity(0, pl.runner)
        self.out_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.out_file, "a", encoding="utf-8", newline="\n") as fh:
            self._seal = hashlib.sha256()
            header = {**header, "trial-order": f"random per trial, seed {self.order_seed}"}
            self._write(fh, "".join(benchfmt.config_line(k, v) for k, v in header.items()))
            units = {"ns/op": "lower", "peak-B": "lower", "user-ns/op": "lower", "sys-ns/op": "lower"}
            for p in plans:
                units.update(p.round.units)
            self._write(fh, "".join(benchfmt.unit_line(u, b) for u, b in units.items()) + "\n")
            for c in self.schedule.cells:
                for v, why in c.plan.skipped:
                    self._write(fh, f"--- SKIP: {bench_name(c.plan.round, v.name, c.plan.params, v.runtime)}: {why}\n")
                    self.speak.say(f"skip {c.plan.round.name} {v.key}: {why}")
            # The end record says how long the command ran (the report's
            # suite duration), stopped or not.
            interrupted = True
            try:
                self._waves(fh)
                interrupted = False
            finally:
                now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                seal, self._seal = self._seal.hexdigest(), None
                took = self.clock() - self.schedule.start
                self._write(fh, benchfmt.end_line(now, took, interrupted, seal))
        return self.failed

    def _waves(self, fh) -> None:
        s = self.schedule
        first = True
        while True:
            wave = s.next_wave()
            self._write_stops(fh)
            if not wave:
                return
            for c, names in wave:
                # A trial: the cell's variants of this wave, each once, in a
                # fresh random order (randomized multiple interleaved
                # trials), so that neither side always runs first and what
                # the machine does over minutes falls on both sides of a
                # pair alike; the record lets a comparison pair them. The
                # first trial keeps the declared order: the first variant
                # that passes sets the result the others are checked
                # against, and the declaration puts the reference first.
                p = c.plan
                names = [n for n in names if s.affordable(c, n)]
                if c.trials:
                    self._order.shuffle(names)
                if not names:
                    continue
                variants = [next(x for x in p.variants if x.key == n) for n in names]
                c.trials += 1
                self._write(
                    fh,
                    benchfmt.trial_line(c.trials, (bench_name(p.round, v.name, p.params, v.runtime) for v in variants)),
                )
                for name, v in zip(names, variants):
                    if s.affordable(c, name):
                        extra = not c.in_minimum(name)
                        o = self._run_one(fh, p, v, c.attempts(name) + 1, c)
                        s.record(c, name, o, extra)
                s.decide(c)
                self._write_stops(fh)
            if first:
                s.estimate()
                first = False

    def _write_stops(self, fh) -> None:
        """The `--- RUNS:` records of the cells that just stopped."""
        for c in self.schedule.take_finished():
            p = c.plan
            for v in p.variants:
                why = c.stopped.get(v.key, "")
                if why and why != "skipped":
                    runs = len(c.values[v.key]) + c.failures[v.key]
                    self._write(fh, runs_line(bench_name(p.round, v.name, p.params, v.runtime), runs, why))

    def end_text(self) -> str:
        """What the runs took against the budget, and how each variant's
        runs stopped (said at the end of `roundbench run`)."""
        if self.schedule is None:
            return Schedule(self.policy, [], lambda: self.clock(), self.speak.notice, self.margin).end_text()
        return self.schedule.end_text()

    def _run_one(self, fh, p: Plan, v, k: int, c: _Cell) -> Outcome:
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
            env = {**(env if env is not None else os.environ), rounds.RUN_INDEX_ENV: rounds.run_index_value(k)}
        values = self.schedule.values_for(c, v.key)
        if rounds.gives_values(p.round, v):
            # Always set where the round allows several, one width: the
            # environment keeps its size from run to run.
            env = {**(env if env is not None else os.environ), rounds.VALUES_ENV: rounds.values_value(values)}
        bound, bound_why = c.bound(v.key, self.bound_factor, self.bound_floor_s, self.timeout)
        if values > 1 and bound_why:
            # The bound is of a run's whole cost, and this one times more values.
            bound = min(bound * values, self.timeout)
        o = run_child(
            cmd,
            child_name,
            bound,
            env=env,
            cpus=cpus,
            fixed_layout=pl is not None and pl.fixed_layout,
            values=values,
            pick=pick_median(p.round, p.params),
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
            record = ""
            if o.values:
                unit = rounds.score_unit(p.round, p.params)
                record = benchfmt.values_line(
                    name, unit, (primary(p.round, p.params, benchfmt.parse_bench_line(ln).metrics) for ln in o.values)
                )
            self._write(fh, "".join(benchfmt.fact_line(name, f) for f in o.facts) + record + o.line + "\n")
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
        s = self.schedule
        elapsed = self.clock() - s.start
        left = None
        if s.minimum_s is not None and s.deadline is not None:
            # Beyond the minimum the time budget bounds what is left.
            left = max(s.deadline - self.clock(), 0.0)
        size = " ".join(f"{a}={b}" for a, b in p.params.items())
        known = sorted(
            k[len(benchfmt.KNOWN_FAILURE) :]
            for k in (f.partition(" ")[0] for f in o.facts)
            if k.startswith(benchfmt.KNOWN_FAILURE)
        )
        if known:
            self.known_failures.setdefault(f"{p.round.name} {v.key}", set()).update(known)
        where = f"{p.round.name} {size} {v.key}".replace("  ", " ")
        self.speak.run_done(self._done, s.total, elapsed, left, f"{where} run {k}", status_text(o, known))
        return o


def header_for(
    selected: list, policy: RunPolicy, quick: bool, placement: Optional[Placement] = None, plans: Optional[list] = None
) -> dict:
    items, _ = provenance.collect(selected, policy.describe(), quick, placement, plans)
    return items
