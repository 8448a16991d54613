"""The stopping rule under adaptive looks: cells with no true difference run
through the real runner and scheduler (run/runner.py, run/schedule.py: the
minimum, the waves, the runs funded where a decision is closest, the
variants out of contention stopped, the time budget) and are judged by the
report's own score (judge/score.py, judge/decide.py: the family, the
false-discovery rate, paired trials). The scheduler looks at the runs after
every trial and sends more runs where a decision is near the margin; the
verdict looks once, at the end. The false-decision rate must hold all the
same.

The children are fakes on a fake clock (as in test_runner_budget.py); their
noise is drawn from this project's own measured runs
(testdata/noise/loop-core.txt): each trial draws one measured drift, shared
by every run of the trial, and each run one measured residual (the heavy
tail included), scaled per cell from a quarter to four times the measured
spread, so that some cells are as wide as the ffi ones. No test here times
anything."""

from __future__ import annotations

import math
import random

from roundbench.judge import cells, decide, score
from roundbench.results import benchfmt
from roundbench.rounds import Param, Round, Variant
from roundbench.run import runner
from roundbench.run.plans import Plan
from roundbench.run.policy import RunPolicy
from roundbench.run.spawn import Outcome

from conftest import FIGURES
from test_paired import _noise

FAMILIES = 20
CELLS = 27  # two points each (the language alone, with its ecosystem): a report's family of 54
SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)


class NoisyChildren:
    """spawn.run_child's stand-in: every variant of a cell has the same true
    value (an A/A cell, or A/A/A with a second Python variant); a run gives
    value x exp(scale x (the trial's drift + its own residual)) and costs
    its cell's seconds on the fake clock. Some cells also have a variant
    three times slower, which the scheduler should stop early."""

    def __init__(self, rng: random.Random, drift: list, residuals: list, specs: dict):
        self.rng = rng
        self.drift = drift
        self.residuals = residuals
        self.specs = specs  # round -> (seconds a run, scale, value of each variant)
        self.now = 0.0
        self.trial_drift = 0.0
        self.runs = 0

    def clock(self) -> float:
        return self.now

    def new_trial(self) -> None:
        self.trial_drift = self.rng.choice(self.drift)

    def __call__(self, cmd, name, timeout, env=None, cpus=None, fixed_layout=False, values=1, pick=None):
        rnd, params = benchfmt.split_name(name)
        cost, scale, true = self.specs[rnd]
        self.now += cost
        self.runs += 1
        v = true[params["impl"]] * math.exp(scale * (self.trial_drift + self.rng.choice(self.residuals)))
        line = f"{name} 1 {v:.6g} ns/op 1 peak-B"
        return Outcome(name, True, line=line, wall_s=cost)


def _round(name: str, impls: list) -> Round:
    return Round(
        name=name,
        title=name,
        explain="A/A cell.",
        variants=[Variant(i, "python", i) for i in impls],
        sizes=[{"n": 1}],
        quick=[{"n": 1}],
        params=[Param("n", "the size", 0, 10)],
        metric="ns/op",
        units={"ns/op": "lower"},
        cross_check=False,
        budget_s=30.0,
    )


def _family(tmp_path, monkeypatch, rng: random.Random, drift: list, residuals: list, k: int) -> list:
    """One suite of CELLS A/A rounds under a time budget: in even suites
    twice the minimum runs' cost (a fast machine's `make suite`), in odd
    ones 60% of it (a slow one's: the minimum becomes the floor, and runs
    4 to 6 go by priority like every run beyond it). Its score's counted
    decisions."""
    plans, specs = [], {}
    for i in range(CELLS):
        name = f"aa{k}x{i}"
        impls = ["go", "py"] + (["py-numpy"] if i % 3 == 1 else []) + (["py-pandas"] if i % 3 == 2 else [])
        true = {"go": 100.0, "py": 100.0, "py-numpy": 100.0, "py-pandas": 300.0}
        specs[name] = (rng.choice((0.5, 1.0, 2.0)), rng.choice(SCALES), true)
        rnd = _round(name, impls)
        plans.append(Plan(rnd, {"n": 1}, list(rnd.variants), []))
    minimum = sum(cost * 6 * (3 if i % 3 else 2) for i, (cost, _, _) in enumerate(specs.values()))
    fake = NoisyChildren(rng, drift, residuals, specs)
    monkeypatch.setattr(runner, "run_child", fake)
    trial_line = benchfmt.trial_line

    def new_trial(t, names):
        fake.new_trial()
        return trial_line(t, names)

    monkeypatch.setattr(benchfmt, "trial_line", new_trial)
    out = tmp_path / f"family{k}"
    # The trials' order from a seed of the test's own: the figure it
    # prints is the same from run to run.
    policy = RunPolicy(time_budget_s=(0.6 if k % 2 else 2.0) * minimum)
    r = runner.Runner(out / "results.txt", policy, 60, progress=None, order_seed=k)
    r.clock = fake.clock
    r.run(plans, {"pkg": "roundbench"})
    rs = benchfmt.read_dir(out)
    rows = score.score(cells.group(rs), rs)
    return score.counted(rows)


def test_the_adaptive_scheduler_decides_at_most_5_percent_of_aa_cells_faster(tmp_path, monkeypatch):
    """1,080 A/A cells in 20 suites of 54 through the real scheduler and
    score: at most 5% decided faster, and most of them equivalent. Each
    round gives two points (the language alone; with its ecosystem, where
    a third of them have a second Python candidate of the same speed, and
    a third one three times slower that the scheduler stops early)."""
    drift, residuals = _noise()
    rng = random.Random(20261208)
    points = []
    for k in range(FAMILIES):
        points += _family(tmp_path, monkeypatch, rng, drift, residuals, k)
    outcomes = [p.decision.outcome for p in points]
    faster = outcomes.count(decide.FASTER)
    equivalent = outcomes.count(decide.EQUIVALENT)
    runs = sorted(p.evidence.runs for p in points)
    FIGURES.append(
        f"stopping rule, simulated A/A cells through the scheduler: {len(points)} cells, {faster} decided faster "
        f"({faster / len(points):.2%}, at most 5% allowed), {equivalent} equivalent "
        f"({equivalent / len(points):.0%}); runs a contender {runs[0]} to {runs[-1]}, median "
        f"{runs[len(runs) // 2]}"
    )
    assert len(points) == FAMILIES * CELLS * 2
    assert faster / len(points) <= 0.05
    assert equivalent / len(points) >= 0.5
