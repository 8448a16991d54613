"""When each run is made: the runs of every cell in waves, interleaved
across variants in trials (each a fresh random order: B A C, C B A, ...)
so that drift hits all alike and the sides pair trial by trial; how many runs
each variant gets (RunPolicy: a fixed count, or adaptive stopping when its
median's interval is narrow enough); the cell's budget and the whole run's
time budget, spent where the score's decisions are closest to the
decision rule's margin (judge/closeness.py); and the bound on a run that
its cell's finished runs set.

Schedule holds every cell's state and answers what to run next and when
to stop; it starts no child (spawn.py does) and writes nothing (the runner
does, with what it is given).
"""

from __future__ import annotations

import math
from typing import Callable, Optional

from .. import rounds
from ..judge import decide
from ..judge.closeness import decision_groups, out_of_contention
from ..results import benchfmt, stats
from .plans import Plan, newest_pair
from .policy import MAX_VALUES, UNDECIDING_WEIGHT, PRIORITY_BAND, VALUE_SPAN_S, RunPolicy, minutes

# The least cost a run is reckoned at: a priority divides by it.
MIN_COST_S = 1e-3
# What a value costs beyond its timed work, reckoned before any process of
# the variant gave two values to measure it by: the harnesses' warm-up.
WARM_UP_S = 0.05


def primary(rnd: rounds.Round, params: dict, metrics: dict) -> float:
    """The value a cell's convergence is judged by: the unit the score
    judges the cell by (rounds.score_unit: the round's metric, or another
    unit in some cells, p99 latency in http's fixed-rate ones) when the run
    has it, else ns/op."""
    return metrics.get(rounds.score_unit(rnd, params), metrics["ns/op"])


def pick_median(rnd: rounds.Round, params: dict) -> Callable[[list], int]:
    """The process's run among its values (benchfmt.Run each): the one at
    the median of the cell's score unit (the lower middle of an even
    count)."""

    def pick(runs: list) -> int:
        order = sorted(range(len(runs)), key=lambda i: primary(rnd, params, runs[i].metrics))
        return order[(len(order) - 1) // 2]

    return pick


def _odd(k: float) -> int:
    """The odd count nearest k (at least 1): a process's median is then
    one of its values."""
    return max(1, 2 * round((k - 1) / 2) + 1)


def variance_ratio(processes: list) -> Optional[float]:
    """Within-process over between-process variance of the log values, from
    the processes that timed two values or more (each a list of positive
    values); None with fewer than two such processes. The between part is
    the variance of the processes' means less what their own spread puts
    in it (within / values a process); where that leaves nothing, the
    processes differ by no more than their values do (a large ratio)."""
    logs = [[math.log(x) for x in p] for p in processes if len(p) >= 2 and min(p) > 0]
    if len(logs) < 2:
        return None
    means = [sum(p) / len(p) for p in logs]
    within = sum(sum((x - m) ** 2 for x in p) for p, m in zip(logs, means)) / sum(len(p) - 1 for p in logs)
    grand = sum(means) / len(means)
    spread = sum((m - grand) ** 2 for m in means) / (len(means) - 1)
    per = sum(len(p) for p in logs) / len(logs)
    between = spread - within / per
    if within <= 0:
        return 0.0
    return within / between if between > 0 else math.inf


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
        self.trials = 0  # the trials the runner has begun (--- TRIAL:)
        # Several values a process: what one value and one process's own
        # start cost, and each process's values in the score unit.
        self.value_s: dict = {n: [] for n in names}
        self.proc_s: dict = {n: [] for n in names}
        self.value_sets: dict = {n: [] for n in names}

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


class Schedule:
    """Every cell's runs, as RunPolicy has them made: which variants the
    next wave runs, whether a run is affordable, what a finished run does
    to its cell, which variants stop and why, and what the minimum runs
    and the budgets come to. `clock` is the clock the budgets are kept by,
    `notice` what says the estimate and the budget (the runner's
    notices)."""

    # How a variant's runs may stop, for the run's last line.
    STOP_KINDS = {
        "converged": "converged",
        "most": "at the most runs",
        "cell-budget": "at their cell's budget",
        "time-budget": "at the time budget",
        "undecided": "at the minimum (their cell decides no point)",
        "out": "out of contention (behind their side's best by more than the margin)",
        "failed": "with failed runs",
        "killed": "with a run killed at their cell's bound",
    }

    def __init__(
        self,
        policy: RunPolicy,
        plans: list,
        clock: Callable[[], float],
        notice: Callable[[str], None],
        margin: float = decide.MARGIN,
    ):
        self.policy = policy
        self.clock = clock
        self.notice = notice
        # The decision rule's margin: the adaptive runs go to the decisions
        # nearest to it.
        self.margin = margin
        self.start = clock()
        self.cells = [_Cell(p, self.min_runs(p), self._budget(p), self._undecided(p)) for p in plans]
        # With runtimes as an axis: the newest pair, kind -> label.
        self.newest = newest_pair(plans)
        # The runs planned so far (the progress lines count them): the
        # minimum at first, then each wave's extra runs as it is chosen.
        self.total = planned(policy, plans)
        self.extra_s = 0.0  # wall time of the runs beyond the minimum
        self.minimum_s: Optional[float] = None  # when every cell had its minimum runs
        self._said_over = False
        self._finished: list = []  # cells that stopped since take_finished()

    def min_runs(self, p: Plan) -> int:
        return min_runs(self.policy, p)

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
    def deadline(self) -> Optional[float]:
        tb = self.policy.time_budget_s
        return None if tb is None else self.start + tb

    def take_finished(self) -> list:
        """The cells whose variants have all stopped since the last call:
        their `--- RUNS:` records are due."""
        out, self._finished = self._finished, []
        return out

    def next_wave(self) -> list:
        """The next wave: (cell, variant names) in cell order, each cell's
        variants in their declared order. A cell short of its minimum runs
        all its running variants; beyond it, the variants whose next run
        fits their cell's share, and under a time budget only those funded
        (RunPolicy). Empty: the run is over."""
        cells = self.cells
        minimum = {id(c) for c in cells if any(c.in_minimum(v.key) for v in c.active)}
        wanting = [(c, v.key) for c in cells if id(c) not in minimum for v in c.active if c.fits(v.key)]
        if not minimum and self.minimum_s is None:
            self.minimum_s = self.clock() - self.start
        deadline = self.deadline
        if deadline is not None:
            now = self.clock()
            if minimum and now > deadline and not self._said_over:
                self._said_over = True
                self.notice(
                    f"the {minutes(self.policy.time_budget_s)} time budget is spent, but not every cell has had "
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
                self._stop_all("time-budget", "time budget spent")
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
                self.total += len(names)
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
        time). A variant funded brings the other contenders of its closest
        decision with it, where they want a run and the time pays: a
        comparison pairs the two sides trial by trial (judge/decide.py,
        rule 4), and a run with no partner in its trial pairs with nothing."""
        weights, partners = {}, {}
        for c, _ in wanting:
            if id(c) not in weights:
                weights[id(c)], partners[id(c)] = self._weights(c)
        wants = {(id(c), n) for c, n in wanting}
        ranked = [(self.priority(c, n, weights[id(c)]), c, n) for c, n in wanting if c.cost(n) <= left]
        ranked.sort(key=lambda pcn: -pcn[0])
        funded = set()
        for prio, c, name in ranked:
            if prio < ranked[0][0] / PRIORITY_BAND:
                break
            for n in [name] + sorted(partners[id(c)].get(name, ())):
                if (id(c), n) in funded or (id(c), n) not in wants:
                    continue
                one = c.cost(n)
                if one <= left:
                    funded.add((id(c), n))
                    left -= one
        return funded

    def _rows(self, c: _Cell) -> dict:
        """variant name -> key of the cell's rows that its score decides:
        those of the newest pair of runtimes when the run has runtimes as
        an axis (the pair the report's main score compares), else all."""
        rows = {}
        for v in c.plan.variants:
            rt = v.runtime
            if rt is None or self.newest.get(rt.kind) == rt.label:
                rows[v.name] = v.key
        return rows

    def _out(self, c: _Cell) -> dict:
        """variant key -> how many times worse than its side's best, for the
        cell's variants out of contention (judge/closeness.py): they stop,
        even short of the minimum, and keep the runs they have. Nothing
        under a fixed run count, and nothing once a variant has failed."""
        if self.policy.fixed is not None or c.plan.round.facts:
            return {}
        rows = self._rows(c)
        values = {n: c.values[k] for n, k in rows.items() if not c.failures[k]}
        out = out_of_contention(c.plan.round, c.plan.params, values, self.margin)
        return {rows[n]: r for n, r in out.items()}

    def _weights(self, c: _Cell) -> tuple:
        """(variant -> the closeness of its closest decision, variant -> the
        other contenders of that decision) of a cell (judge/closeness.py),
        over its rows of the newest pair of runtimes (the pair the report's
        main score compares) when the run has runtimes as an axis: the other
        rows decide no point of it."""
        rows = self._rows(c)
        groups = decision_groups(c.plan.round, c.plan.params, {n: c.values[k] for n, k in rows.items()}, self.margin)
        best: dict = {}  # variant -> (closeness, the other contenders) of its closest decision
        for w, members in groups:
            for n in members:
                k = rows[n]
                if k not in best or w > best[k][0]:
                    best[k] = (w, {rows[m] for m in members if m != n})
        weights = {k: best[k][0] if k in best else 0.0 for k in rows.values()}
        partners = {k: p for k, (_, p) in best.items()}
        return weights, partners

    def values_for(self, c: _Cell, name: str) -> int:
        """How many values the variant's next process times: 1 where its
        round allows no more (rounds.gives_values); `--values K`; else 1 in
        its first process of the cell, then, after Kalibera and Jones's
        rule for two levels of repetition, sqrt(process cost / value cost x
        within-process variance / between-process variance), odd, at most
        MAX_VALUES and 1 + max(VALUE_SPAN_S, process cost) / value cost.
        Until two processes have timed two values or more (the within
        variance needs them), a variant whose values are cheap (two within
        VALUE_SPAN_S) times 3, so that the ratio can be measured."""
        v = next(x for x in c.plan.variants if x.key == name)
        if not rounds.gives_values(c.plan.round, v):
            return 1
        if self.policy.values is not None:
            return self.policy.values
        if not c.value_s[name]:
            return 1
        cv = max(stats.median(c.value_s[name]), MIN_COST_S)
        cp = stats.median(c.proc_s[name])
        ratio = variance_ratio(c.value_sets[name])
        # A process that costs nothing to start is no dearer than a value,
        # and samples the between-process variance too: one value (whatever
        # the ratio, infinite where the processes differ by no more than
        # their values do).
        k = math.sqrt(cp / cv * (ratio if ratio is not None else 1.0)) if cp > 0 else 1.0
        if ratio is None and 2 * cv <= VALUE_SPAN_S:
            k = max(k, 3.0)
        k = min(k, MAX_VALUES, 1 + max(VALUE_SPAN_S, cp) / cv)
        return _odd(k)

    def _value_costs(self, c: _Cell, name: str, o) -> None:
        """What one value and the process's own start cost, from a run that
        passed: the gaps between its values' lines where it timed several,
        else its timed work and a warm-up (WARM_UP_S); and its values."""
        p = c.plan
        if o.values and len(o.stamps) == len(o.values):
            gaps = [b - a for a, b in zip(o.stamps, o.stamps[1:])]
            cv = stats.median(gaps)
            cp = o.stamps[0] - cv + (o.wall_s - o.stamps[-1])
            vals = [primary(p.round, p.params, benchfmt.parse_bench_line(ln).metrics) for ln in o.values]
        else:
            run = benchfmt.parse_bench_line(o.line)
            cv = run.metrics["ns/op"] * max(run.iters, 1) / 1e9 + WARM_UP_S
            cp = o.wall_s - cv
            vals = [primary(p.round, p.params, run.metrics)]
        c.value_s[name].append(max(cv, MIN_COST_S))
        c.proc_s[name].append(max(cp, 0.0))
        c.value_sets[name].append(vals)

    def affordable(self, c: _Cell, name: str) -> bool:
        """A minimum run is always made; under a time budget a run beyond it
        starts only if it fits in the time left (at its median run time)."""
        deadline = self.deadline
        if deadline is None or c.in_minimum(name):
            return True
        return c.cost(name) <= deadline - self.clock()

    def record(self, c: _Cell, name: str, o, extra: bool) -> None:
        """What a finished run (o: spawn.Outcome) does to its cell; extra:
        it was a run beyond the minimum."""
        p = c.plan
        c.walls[name].append(o.wall_s)
        if extra:
            c.extra_s[name] += o.wall_s
            self.extra_s += o.wall_s
        if o.skipped:
            c.stop(name, "skipped", "skipped")
        elif o.ok:
            c.values[name].append(primary(p.round, p.params, benchfmt.parse_bench_line(o.line).metrics))
            c.finished[name].append(o.wall_s)
            self._value_costs(c, name, o)
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

    def decide(self, c: _Cell) -> None:
        """Which of the cell's variants stop, and why (RunPolicy)."""
        p = c.plan
        out = self._out(c)
        # A variant stopped out of contention that the later runs bring
        # back into it (its side's best ran slower since) runs again: the
        # verdict's interval is drawn over every contender, and each needs
        # its runs. Its minimum is owed again.
        back = [v for v in p.variants if c.kinds.get(v.key) == "out" and v.key not in out]
        for v in back:
            del c.stopped[v.key], c.kinds[v.key]
            self.total += max(c.min_runs - c.attempts(v.key), 0)
        if back:
            keys = {v.key for v in c.active} | {v.key for v in back}
            c.active = [v for v in p.variants if v.key in keys]
        still = []
        for v in c.active:
            n = v.key
            vals = c.values[n]
            if n in c.stopped:
                continue
            if n in out:
                # The progress lines count the runs planned: its minimum
                # runs still to come are not.
                self.total -= max(c.min_runs - c.attempts(n), 0)
                c.stop(
                    n,
                    "out",
                    f"out of contention: {out[n]:.3g} x its side's best at its nearest level, beyond the "
                    f"{self.margin * 100:g}% margin; {_ci_text(vals)}",
                )
            elif c.in_minimum(n):
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
            self._finished.append(c)

    def _stop_all(self, kind: str, why: str) -> None:
        for c in self.cells:
            if not c.active:
                continue
            for v in c.active:
                c.stop(v.key, kind, f"{why}: {_ci_text(c.values[v.key])}")
            c.active = []
            self._finished.append(c)

    def _minimum_estimate(self) -> float:
        """What the cells' minimum runs take, from each variant's first run:
        a variant that has stopped (skipped, out of contention) makes no
        more than it has."""
        return sum(
            walls[0] * (len(walls) if name in c.stopped else c.min_runs)
            for c in self.cells
            for name, walls in c.walls.items()
            if walls
        )

    def estimate(self) -> None:
        """After the first wave: what the minimum runs will take, from each
        variant's first run, against the budgets. Under a time budget that
        they would overrun, the minimum becomes RunPolicy.floor_runs: the
        runs up to the full minimum then go by priority, as every run
        beyond the minimum does, so the budget holds."""
        cells = self.cells
        took = self.clock() - self.start
        est = self._minimum_estimate()
        text = f"the first wave took {minutes(took)}: the minimum runs should take about {minutes(est)}"
        tb = self.policy.time_budget_s
        floor = self.policy.floor_runs
        if self.policy.fixed is not None:
            pass
        elif tb is None:
            cap = sum(c.budget_s for c in cells if not c.plan.round.facts and not c.undecided)
            text += f", and the runs beyond the minimum at most {minutes(cap)} more (each cell's budget)"
        elif est <= tb:
            text += (
                f", leaving about {minutes(tb - est)} of the {minutes(tb)} time budget for runs beyond the "
                "minimum, spent where the score's decisions are closest"
            )
        elif floor < self.policy.min_runs:
            # The floor is what the time left pays for, RunPolicy.floor_runs
            # at most: so many more waves of the first wave's cost (the
            # rounds of facts have made their one run).
            wave = sum(
                walls[0]
                for c in cells
                if c.min_runs > 1
                for name, walls in c.walls.items()
                if walls and name not in c.stopped
            )
            if wave > 0:
                floor = max(1, min(floor, 1 + int((tb - took) // wave)))
            for c in cells:
                # The progress lines count the runs planned: fewer now.
                self.total -= max(c.min_runs - floor, 0) * len(c.active)
                c.min_runs = min(c.min_runs, floor)
            low = self._minimum_estimate()
            runs = "run" if floor == 1 else "runs"
            text += (
                f", more than the {minutes(tb)} time budget: the minimum becomes {floor} {runs} per variant "
                f"(about {minutes(low)}), and runs {floor + 1} to {self.policy.min_runs} and beyond go where the "
                "score's decisions are closest while the budget lasts (a variant with fewer than "
                f"{stats.CI_MIN_RUNS} runs has no interval, and the report says so)"
            )
            if floor < self.policy.floor_runs:
                text += (
                    f"; the budget pays for no more than {floor} of the {self.policy.floor_runs} the floor asks, "
                    f"and a comparison needs {decide.MIN_RUNS} in each variant: the verdict calls a cell with "
                    f"fewer inconclusive (a larger --time-budget settles it)"
                )
            if low > tb and floor == 1:
                text += "; the first wave alone took more than the budget: no more runs"
            elif low > tb:
                text += f"; even that is more than the budget: those {floor} runs are all made, and no more"
        else:
            text += (
                f", more than the {minutes(tb)} time budget: they are all made (never fewer than the minimum), "
                "and no more"
            )
        self.notice(text)

    def end_text(self) -> str:
        """What the runs took against the budget, and how each variant's
        runs stopped (said at the end of `roundbench run`)."""
        took = self.clock() - self.start
        tb = self.policy.time_budget_s
        text = f"the runs took {minutes(took)}"
        if tb is not None:
            if took <= tb:
                text += f" of the {minutes(tb)} time budget"
            elif not self.extra_s:
                text += (
                    f", {minutes(took - tb)} beyond the {minutes(tb)} time budget: the minimum runs alone took "
                    "that (never fewer)"
                )
            else:
                # How far beyond, in its own unit: "29 min, beyond the 29 min
                # time budget" read as a contradiction.
                text += (
                    f", {minutes(took - tb)} beyond the {minutes(tb)} time budget: the last run outlasted its estimate"
                )
        text += f", {minutes(self.extra_s)} of them beyond the minimum"
        if self.policy.fixed is not None:
            return text
        kinds: dict = {}
        measured = 0
        for c in self.cells:
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


def min_runs(policy: RunPolicy, p: Plan) -> int:
    """The runs each variant of a cell makes at least."""
    # A round of facts runs once: a second run would find the same facts.
    if p.round.facts:
        return 1
    return policy.fixed if policy.fixed is not None else policy.min_runs


def planned(policy: RunPolicy, plans: list) -> int:
    """The runs the plans take at least (adaptive runs may add more)."""
    return sum(len(p.variants) * min_runs(policy, p) for p in plans)
