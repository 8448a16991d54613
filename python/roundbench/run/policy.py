"""How many runs each variant of a cell gets, and every default of the
run's schedule (RunPolicy; schedule.py makes the runs it asks for). The
command line reads its defaults and its help text from here, so this
module imports nothing heavy: `roundbench run --help` loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..results import textfmt

# A child's first run in a cell is killed after this many seconds (--timeout).
TIMEOUT_S = 900.0


def minutes(s: float) -> str:
    """A span of seconds as the notices say it."""
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
# Under a time budget, a wave beyond the minimum runs the variants whose
# priority is within this factor of the highest: the two sides of a close
# decision run together, interleaved, and the far ones wait their turn.
PRIORITY_BAND = 10.0


# Several values a process (rounds.gives_values): how many a child of a
# variant times is chosen from what its first processes cost and how their
# values spread (schedule.values_for, after Kalibera and Jones): at most
# MAX_VALUES, and no more than VALUE_SPAN_S of values beyond the first
# unless the process's own start costs more than that.
MAX_VALUES = 15
VALUE_SPAN_S = 1.0
# The most `--values K` may ask: the child protocol's limit
# (testdata/vectors/protocol.txt, protocol-values).
MAX_VALUES_ASKED = 100


@dataclass(frozen=True)
class RunPolicy:
    """How many runs each variant of a cell gets.

    fixed=K (`--runs K`): exactly K runs per variant. A round of facts runs
    once whatever the policy.

    fixed=None (`--runs auto`, the default, the pyperf and hyperfine
    habit): at least min_runs per variant, interleaved in trials (each in a fresh random order); then
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
      becomes floor_runs (3: the fewest the decision rule compares), or
      fewer where the time left pays for fewer waves of the first one's
      cost (1 at least: the first wave itself), and the runs up to
      min_runs are funded by priority like the rest. Then the time left goes by priority: a
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
    # Values a process, for the variants whose round allows several
    # (`--values K`); None: chosen per variant (schedule.values_for).
    values: Optional[int] = None

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
        if self.values is not None:
            text += f"; {self.values} values a process where the round allows several"
        else:
            text += (
                "; values a process where the round allows several: 1 in a variant's first process, then "
                "round(sqrt(process cost / value cost x within-process variance / between-process variance)), "
                f"odd, at most {MAX_VALUES} and {VALUE_SPAN_S:g} s of values beyond the process's own start"
            )
        if self.time_budget_s is not None:
            text += (
                f"; time budget {minutes(self.time_budget_s)} for the whole run: every cell's minimum runs first "
                "(never fewer), then extra runs by priority, (closeness of the score decision the variant takes "
                f"part in + {UNDECIDING_WEIGHT:g}) x median CI half-width / target / run time, each wave the "
                f"variants within a factor {PRIORITY_BAND:g} of the highest priority, interleaved, while a run fits "
                "in the time left"
            )
        return text
