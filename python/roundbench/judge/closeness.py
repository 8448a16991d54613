"""How near a cell's score decisions are to the decision rule's margin, as
the runs stand: what the adaptive runs (run/schedule.py) spend the time
left on. A cheap stand-in for decide.py's bootstrap, drawn from order
statistics, since it is reckoned again after every wave.
"""

from __future__ import annotations

import math
from typing import Optional

from .. import rounds
from ..results import stats
from . import decide, score


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
    for a round of crossings (ffi), in each row a model scored apart makes
    (Round.apart: chain's caller-driven coroutines). The variants of a level are summary's
    own level_impls, so that the runs go to the pairs the score makes."""
    levels = ("alone", "ecosystem", "program")
    pairs = []
    # A model the round scores apart makes a row of its own (score.views).
    for model, view in score.views(rnd, impls):
        names = dict.fromkeys(view)
        pairs += [(score.level_impls(names, "go", lvl), score.level_impls(names, "py", lvl)) for lvl in levels]
        if rnd.pairs and not model:
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


def _could_be_best(values: list, best: list, better: str) -> bool:
    """Whether some resampling of the runs could make a candidate its side's
    best: its range reaches past the best's (decide.py's contenders, which
    the interval of the side's best is drawn over)."""
    return min(values) <= max(best) if better == "lower" else max(values) >= min(best)


def decision_groups(rnd: rounds.Round, params: dict, values: dict, margin: float = decide.MARGIN) -> list:
    """The cell's score decisions as the runs stand: (closeness, the
    contenders of both sides) per decision. A side's contenders are its
    best and every candidate whose runs' range reaches past the best's: the
    decision's interval is drawn over all of them (decide.evidence), so each
    needs its runs, and in the same trials (paired: rule 4). values:
    variant -> its values in the cell's score unit. Empty for a round that
    is not scored, a cell that decides nothing."""
    if not rnd.scored or rnd.facts or rounds.undecided(rnd, params):
        return []
    unit = rounds.score_unit(rnd, params)
    better = rnd.units.get(unit, "lower")
    view = {v: _Medians(vals) for v, vals in values.items() if vals}
    out = []
    for go_impls, py_impls in score_pairs(rnd, view):
        go_impls = score.plain_builds(rnd, view, go_impls, unit, better)
        g = score.best_side(view, go_impls, unit, better)
        p = score.best_side(view, py_impls, unit, better)
        if g is None or p is None:
            continue
        w = closeness(values[g.impl], values[p.impl], margin)
        members = set()
        for best, impls in ((g.impl, go_impls), (p.impl, py_impls)):
            for impl in impls:
                if impl == best or (values.get(impl) and _could_be_best(values[impl], values[best], better)):
                    members.add(impl)
        out.append((w, members))
    return out


# A variant whose fastest run is this many times slower than the slowest
# run of its side's best (at every level it is a candidate at) is out of
# contention whatever its run count: on this project's shared VMs one run
# of a variant lies within a factor 1.5 of its median in all but a few runs
# in a thousand (docs/measurement.md, "Contenders").
FAR = 1.5


def out_of_contention(rnd: rounds.Round, params: dict, values: dict, margin: float = decide.MARGIN) -> dict:
    """The variants that cannot become their side's best by more than the
    margin, as the runs stand: variant -> how many times worse its median is
    than the best's, at the level where it comes nearest. A variant is out
    at a level when its median is more than the margin behind the side's
    best there and either its range of runs does not reach the best's (each
    with decide.MIN_RUNS runs or more: no bootstrap replicate of the
    verdict then makes it the best, so its runs widen nothing) or its
    fastest run is FAR times slower than the best's slowest; out of
    contention when out at every level it is a candidate at. A variant on
    no side (the C core) is never named, nor any in a cell that decides no
    point. values: variant -> its values in the cell's score unit."""
    if not rnd.scored or rnd.facts or rounds.undecided(rnd, params):
        return {}
    unit = rounds.score_unit(rnd, params)
    better = rnd.units.get(unit, "lower")
    view = {v: _Medians(vals) for v, vals in values.items() if vals}
    nearest: dict = {}  # variant -> its least ratio to its side's best over the levels it is at
    inside: set = set()  # variants in contention at some level
    for go_impls, py_impls in score_pairs(rnd, view):
        for impls in (go_impls, py_impls):
            best = score.best_side(view, impls, unit, better)
            if best is None:
                continue
            top = values[best.impl]
            for impl in impls:
                vals = values.get(impl)
                if not vals or impl == best.impl:
                    inside.add(impl)
                    continue
                m, bm = stats.median(vals), best.median
                if m <= 0 or bm <= 0:
                    inside.add(impl)
                    continue
                ratio = m / bm if better == "lower" else bm / m
                edge = min(vals) / max(top) if better == "lower" else min(top) / max(vals)
                enough = min(len(vals), len(top)) >= decide.MIN_RUNS
                out = ratio > 1 + margin and (edge >= FAR or (enough and not _could_be_best(vals, top, better)))
                if out:
                    nearest[impl] = min(ratio, nearest.get(impl, math.inf))
                else:
                    inside.add(impl)
    return {v: r for v, r in nearest.items() if v not in inside}


def decision_weights(rnd: rounds.Round, params: dict, values: dict, margin: float = decide.MARGIN) -> dict:
    """variant -> the closeness of the closest score decision it is a side
    of (0 for none: not a contender for its language's best at any level,
    the C core, a published program, a round that is not scored, a cell
    that decides nothing); decision_groups says who the contenders are."""
    out = {v: 0.0 for v in values}
    for w, members in decision_groups(rnd, params, values, margin):
        for impl in members:
            out[impl] = max(out[impl], w)
    return out
