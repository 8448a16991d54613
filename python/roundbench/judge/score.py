"""The score: per round and size, each level's best Go variant against
its best Python variant, as a ratio of medians with its interval, and who
takes the point.

Levels are results/levels.py's (every variant's level, as its round
declares it). A row has one cell per level: *the language alone* (best
alone variant of each language), *with its ecosystem* (best of alone and
ecosystem), *calling C* (best core variant), *whole program* (programs
started from outside, timed start to exit). A round that compares
crossings (ffi) scores each kind of crossing against its counterpart (the
round's `pairs`). A cell is scored by its round's score unit
(rounds.score_unit: the metric, or e.g. p99 latency where every server is
held to one rate).

Each cell is decided by judge/decide.py's rule, every counted cell of one
result set in one family: *faster* (the interval of the ratio, which
includes the choice of each side's best variant, lies beyond the margin,
5% by default), *equivalent* (it lies within ±margin) or *inconclusive*,
with the false-discovery rate held across the family (decide.py's
docstring has the rule and an example). A cell that cannot decide (its
metric fixed by construction: rounds.undecided) is listed and not counted.
The report (report/summary.py), the runner's adaptive runs, the store's
verdict and the comparison of two runs all read the score from here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Optional

from ..results import benchfmt, stats
from .. import rounds
from .cells import metric_for
from . import decide
from ..results import levels
from ..results.levels import LEVELS, level
from ..results.textfmt import fmt_bytes, ratio_text, size_label


@dataclass
class Side:
    impl: str
    cell: object  # cells.Cell
    median: float


@dataclass
class Point:
    """Two sides by one unit: how many times better `a`'s best is than
    `b`'s (>1: a is better), with the evidence for it (decide.evidence,
    every candidate of both sides resampled) and, once its family is
    judged, its decision: the outcome, and the interval at the family's
    level."""

    a: Side
    b: Side
    unit: str
    better: str
    ratio: float
    evidence: decide.Evidence
    decision: Optional[decide.Decision] = None
    candidates: tuple = (1, 1)  # how many variants each side's best was chosen from

    @property
    def ci(self) -> Optional[tuple]:
        return self.decision.ci if self.decision is not None else None

    @property
    def outcome(self) -> str:
        """decide.FASTER, EQUIVALENT or INCONCLUSIVE."""
        return self.decision.outcome if self.decision is not None else decide.INCONCLUSIVE

    @property
    def winner(self) -> str:
        """'a' or 'b' when one side is faster, else the outcome's word
        ('equivalent', 'inconclusive')."""
        if self.outcome == decide.FASTER:
            return self.decision.winner
        return self.outcome

    def times(self) -> str:
        """'41.7× [40.5×, 43.0×]' from the faster side (the ratio as it is,
        a against b, when neither is faster)."""
        r, ci = self.ratio, self.ci
        if self.outcome == decide.FASTER and r < 1:
            r, ci = 1 / r, (1 / ci[1], 1 / ci[0]) if ci else None
        text = f"{ratio_text(r)}×"
        if ci:
            text += f" [{ratio_text(ci[0])}×, {ratio_text(ci[1])}×]"
        return text

    def interval_text(self) -> str:
        """'1.013 [0.978, 1.040]': the ratio a against b and its interval."""
        ci = self.ci
        return f"{ratio_text(self.ratio)}" + (f" [{ratio_text(ci[0])}, {ratio_text(ci[1])}]" if ci else "")


def point(a: Side, b: Side, a_impls, b_impls, cells: dict, unit: str, better: str) -> Point:
    """a's best against b's best, with the evidence from every candidate
    of both sides that has runs in `unit` (its family judges it)."""
    va = {i: cells[i].values(unit) for i in a_impls if cells.get(i) is not None and cells[i].values(unit)}
    vb = {i: cells[i].values(unit) for i in b_impls if cells.get(i) is not None and cells[i].values(unit)}
    # The trials pair the two sides' runs (decide.py, rule 4) where the
    # result file records them.
    trials = {i: cells[i].trials(unit) for i in list(va) + list(vb)}
    if better == "lower":
        ratio = b.median / a.median if a.median else math.inf
    else:
        ratio = a.median / b.median if b.median else math.inf
    ev = decide.evidence(va, vb, better, trials)
    if ev.pairs and ev.ratio is not None:
        # Paired, the estimate is the median of the trial-by-trial ratios,
        # which its interval is drawn around (decide.py, rule 4).
        ratio = ev.ratio
    return Point(a, b, unit, better, ratio, ev, candidates=(len(va), len(vb)))


def best_side(cells: dict, impls, unit: str, better: str) -> Optional[Side]:
    """The best of the named variants that have runs in `unit`."""
    found = []
    for impl in impls:
        c = cells.get(impl)
        m = c.median_of(unit) if c is not None else None
        if m is not None:
            found.append(Side(impl, c, m))
    if not found:
        return None
    pick = min if better == "lower" else max
    return pick(found, key=lambda s: s.median)


# ---- the score ---------------------------------------------------------------------


@dataclass
class ScoreCell:
    """One level of one row: Go's side against Python's."""

    point: Optional[Point]  # a = Go, b = Python
    why: str = ""  # why there is no point (a side has no variant at this level)
    note: str = ""  # memory beside a concurrency round's times, models
    undecided: str = ""  # why the point is listed and not counted (rounds.undecided)

    @property
    def winner(self) -> Optional[str]:
        """'go', 'python', 'equivalent' or 'inconclusive'; None when the cell
        has no point or is not counted."""
        if self.point is None or self.undecided:
            return None
        return {"a": "go", "b": "python"}.get(self.point.winner, self.point.winner)

    def text(self) -> str:
        p = self.point
        if p is None:
            return f"— ({self.why})" if self.why else "—"
        pair = f"{p.a.impl} vs {p.b.impl}"
        if self.undecided:
            return f"not counted: {self.undecided} ({pair} {ratio_text(p.ratio)}×)"
        if p.outcome == decide.EQUIVALENT:
            return f"equivalent: {pair} {p.interval_text()}"
        if p.outcome == decide.INCONCLUSIVE:
            return f"inconclusive: {pair} {p.interval_text()}"
        who = "Go" if p.winner == "a" else "Python"
        return f"{who} {p.times()} ({pair})"


@dataclass
class ScoreRow:
    round: str
    size: str
    label: str  # round and size as the table shows them
    levels: dict  # level -> ScoreCell
    unit: str
    better: str
    params: dict = field(default_factory=dict)  # the cell's parameters (without impl)
    pair: str = ""  # a round of crossings: the Pair's label; a model scored apart (Round.apart); "" its own row
    undecided: str = ""  # why the row's points are not counted (rounds.undecided)


@dataclass
class Tally:
    go: int = 0
    python: int = 0
    equivalent: int = 0
    inconclusive: int = 0

    def add(self, winner: Optional[str]) -> None:
        if winner is not None:
            setattr(self, winner, getattr(self, winner) + 1)

    def text(self) -> str:
        return f"Go {self.go}, Python {self.python}, equivalent {self.equivalent}, inconclusive {self.inconclusive}"

    @property
    def total(self) -> int:
        return self.go + self.python + self.equivalent + self.inconclusive


def level_impls(cells: dict, lang: str, lvl: str) -> list:
    allowed = {
        "alone": ("alone",),
        "ecosystem": ("alone", "ecosystem"),
        "core": ("core",),
        "program": ("program",),
    }[lvl]
    return [i for i in cells if rounds.language(i) == lang and level(i) in allowed]


def _concurrency_note(info, go: Side, py: Side) -> str:
    """A time is never quoted without its memory, nor across models unsaid."""
    if info is None or not info.models:
        return ""
    go_rss, py_rss = fmt_bytes(go.cell.median_of("peak-B")), fmt_bytes(py.cell.median_of("peak-B"))
    mem = f"peak RSS {go.impl} {go_rss}, {py.impl} {py_rss}"
    gm, pm = info.models.get(go.impl), info.models.get(py.impl)
    if gm and pm and gm != pm:
        mem += f"; across models: {rounds.MODELS[gm]} against {rounds.MODELS[pm]}"
    return mem


def plain_builds(info, cells: dict, impls, unit: str, better: str) -> list:
    """A side's candidates as the verdict weighs them: a Go build twin
    (go-pgo, go-v3, go-pgo-v3: rounds.twin_base) stays only where its
    median beats the plain build of the same code by more than the decision
    rule's margin; else the plain build stands for it, and the verdict names
    it. A build option that changes nothing beyond the margin is no finding
    of the build's (issue 60)."""
    if info is None:
        return list(impls)
    out = []
    for impl in impls:
        try:
            base = rounds.twin_base(info, info.variant(impl))
        except KeyError:
            base = None
        m = cells[impl].median_of(unit) if cells.get(impl) is not None else None
        b = cells[base].median_of(unit) if base in impls and cells.get(base) is not None else None
        if base is not None and m is not None and b is not None and m > 0 and b > 0:
            gain = b / m if better == "lower" else m / b
            if gain <= 1 + decide.MARGIN:
                continue
        out.append(impl)
    return out


def _score_cell(cells: dict, go_impls, py_impls, unit, better, info) -> ScoreCell:
    go_impls = plain_builds(info, cells, go_impls, unit, better)
    go = best_side(cells, go_impls, unit, better)
    py = best_side(cells, py_impls, unit, better)
    if go is None or py is None:
        missing = [lang for lang, s, impls in (("Go", go, go_impls), ("Python", py, py_impls)) if s is None]
        # Neither side at this level (a round with no whole program): a bare dash.
        why = f"{missing[0]} has no such variant" if len(missing) == 1 else ""
        if any(cells.get(i) is not None and cells[i].skip for i in list(go_impls) + list(py_impls)):
            why = "not run here: see the round's section"
        return ScoreCell(None, why=why)
    return ScoreCell(point(go, py, go_impls, py_impls, cells, unit, better), note=_concurrency_note(info, go, py))


def _pairs(info, cells: dict) -> list:
    """A round of crossings' pairs; in a placebo run (stand-ins among the
    cells: run/placebo.py), each pair's variants against their stand-ins,
    a pair with no stand-in left out."""
    pairs = info.pairs if info is not None else []
    stand_ins = [i for i in cells if levels.placebo_of(i)]
    if not pairs or not stand_ins:
        return pairs
    side = rounds.language(stand_ins[0])
    original = "py" if side == "go" else "go"
    out = []
    for p in pairs:
        names = getattr(p, original)
        if names and all(rounds.language(n) == original for n in names):
            out.append(dataclasses.replace(p, **{side: tuple(levels.placebo_name(n, side) for n in names)}))
    return out


def views(info, impls) -> list:
    """(model, variant names) for each row a cell's variants score in: the
    round's own ("": every variant outside the models its round scores
    apart), then one per model of Round.apart that has variants here. A
    placebo stand-in goes where the variant it stands for goes."""
    apart = info.apart if info is not None else ()
    names = list(impls)
    if not apart:
        return [("", names)]
    models = info.models

    def model(name: str) -> str:
        return models.get(levels.placebo_of(name) or name, "")

    out = [("", [n for n in names if model(n) not in apart])]
    for m in apart:
        mine = [n for n in names if model(n) == m]
        if mine:
            out.append((m, mine))
    return out


def cell_unit(rnd_name: str, params: dict, rs: benchfmt.ResultSet) -> tuple:
    """The unit a cell is scored by and which way is better, with the
    round's declaration (None for a round this version does not know)."""
    unit, better, info = metric_for(rnd_name, rs)
    if info is not None:
        unit = rounds.score_unit(info, params)
        better = info.units.get(unit, rs.units.get(unit, "lower"))
    return unit, better, info


def score(grouped: dict, rs: benchfmt.ResultSet, rule: Optional[decide.Rule] = None) -> list:
    """One ScoreRow per scored round and size (and per crossing kind), every
    counted point decided in one family (judge); a point listed and not
    counted is judged alone, for its interval."""
    rows = []
    for rnd_name, sizes in grouped.items():
        _, _, info = metric_for(rnd_name, rs)
        if info is not None and (info.facts or not info.scored):
            continue
        for size, cells in sizes.items():
            params = dict(size)
            unit, better, _ = cell_unit(rnd_name, params, rs)
            undecided = rounds.undecided(info, params) if info is not None else None
            size_text = size_label(size)
            label = rnd_name if size_text == "default" else f"{rnd_name}: {size_text}"
            groups = _pairs(info, cells)
            for model, names in views(info, cells):
                mine = {n: cells[n] for n in names}
                levels = {}
                for lvl in ("alone", "ecosystem", "program"):
                    levels[lvl] = _score_cell(
                        mine, level_impls(mine, "go", lvl), level_impls(mine, "py", lvl), unit, better, info
                    )
                if groups and not model:
                    levels["core"] = _score_cell(mine, groups[0].go, groups[0].py, unit, better, info)
                else:
                    levels["core"] = _score_cell(
                        mine, level_impls(mine, "go", "core"), level_impls(mine, "py", "core"), unit, better, info
                    )
                levels = {lvl: levels[lvl] for lvl in LEVELS}
                if undecided:
                    for c in levels.values():
                        c.undecided = undecided
                if any(c.point is not None for c in levels.values()):
                    shown = f"{label}, {rounds.MODELS[model]}" if model else label
                    rows.append(
                        ScoreRow(rnd_name, size_text, shown, levels, unit, better, params, model, undecided or "")
                    )
            for pair in groups[1:]:
                cell = _score_cell(cells, pair.go, pair.py, unit, better, info)
                if cell.point is not None:
                    empty = {lvl: ScoreCell(None) for lvl in LEVELS}
                    rows.append(
                        ScoreRow(
                            rnd_name,
                            size_text,
                            f"{rnd_name}: {pair.label}",
                            {**empty, "core": cell},
                            unit,
                            better,
                            params,
                            pair.label,
                        )
                    )
    judge(rows, rule)
    return rows


def counted(rows: list) -> list:
    """The points the score counts, in row and level order: the family."""
    return [c.point for r in rows for c in r.levels.values() if c.point is not None and not c.undecided]


def judge(rows: list, rule: Optional[decide.Rule] = None) -> None:
    """Decides every counted point of the rows as one family, and every
    point not counted alone (for its interval)."""
    rule = rule or decide.DEFAULT_RULE
    family = counted(rows)
    for p, d in zip(family, decide.judge([p.evidence for p in family], rule)):
        if d.outcome == decide.INCONCLUSIVE and d.settle and is_quantile(p.unit):
            d = dataclasses.replace(d, settle=spread_text(p, d))
        p.decision = d
    for r in rows:
        for c in r.levels.values():
            if c.point is not None and c.undecided:
                c.point.decision = decide.judge_one(c.point.evidence, rule)


def is_quantile(unit: str) -> bool:
    """Whether a unit is a tail quantile of a distribution each run measures
    (p50-ns, p99-ns, p999-ns): its spread from run to run is part of what
    it finds."""
    head = unit.split("-")[0]
    return len(head) > 1 and head[0] == "p" and head[1:].isdigit()


def spread_text(p: Point, d: decide.Decision) -> str:
    """Why an inconclusive point scored by a tail quantile is so: the
    quantile's spread from run to run on each side, which is the finding
    (docs/measurement.md, "The decision: faster, equivalent or inconclusive"),
    with the interval it leaves."""
    parts = []
    for side in (p.a, p.b):
        vals = side.cell.values(p.unit)
        m = stats.median(vals) if vals else 0
        if m > 0:
            parts.append(
                f"{min(vals) / m:.2f}x to {max(vals) / m:.2f}x of its median over {len(vals)} runs ({side.impl})"
            )
    ci = d.ci
    width = f"the interval [{ratio_text(ci[0])}, {ratio_text(ci[1])}] straddles the margin" if ci else "no interval"
    return (
        f"the metric's spread is the finding: {p.unit} is a tail of each run's latencies, and it ranged "
        f"{' and '.join(parts)}; {width}, and the report's distributions show the tails themselves"
    )


def tallies(rows: list) -> dict:
    out = {lvl: Tally() for lvl in LEVELS}
    for r in rows:
        for lvl in LEVELS:
            out[lvl].add(r.levels[lvl].winner)
    return out


def widths(rows: list) -> dict:
    """level -> (the median half-width of its counted cells' intervals, as a
    fraction, or None; how many of them are paired trial by trial; how
    many have an interval): how sharp the score is, level by level."""
    out = {}
    for lvl in LEVELS:
        halves, paired = [], 0
        for r in rows:
            c = r.levels[lvl]
            if c.point is None or c.undecided or c.point.ci is None:
                continue
            lo, hi = c.point.ci
            if lo > 0 and hi > 0:
                halves.append(math.expm1((math.log(hi) - math.log(lo)) / 2))
                paired += c.point.evidence.pairs > 0
        out[lvl] = (stats.median(halves) if halves else None, paired, len(halves))
    return out


def agreement(rows_a: list, rows_b: list) -> tuple:
    """Repeatability in the outcome words: (agree, total, changed) over the
    score cells counted in both sets of rows (by row label and level):
    total such cells, how many have the same outcome (the same side faster,
    or both equivalent, or both inconclusive), and each that changed as
    (label, level, its text in A, its text in B), both intervals in them."""
    by_b = {(r.label, lvl): c for r in rows_b for lvl, c in r.levels.items()}
    agree, total, changed = 0, 0, []
    for r in rows_a:
        for lvl, ca in r.levels.items():
            cb = by_b.get((r.label, lvl))
            if cb is None or ca.winner is None or cb.winner is None:
                continue
            total += 1
            if ca.winner == cb.winner:
                agree += 1
            else:
                changed.append((r.label, lvl, ca.text(), cb.text()))
    return agree, total, changed


@dataclass
class PlaceboCounts:
    """A placebo run's decisions (every side's best a stand-in for the
    other's, so every *faster* is false): by the rule in force and by the
    rule it replaced (decide.legacy), over the same counted cells."""

    cells: int
    faster: int
    equivalent: int
    legacy_faster: int
    alpha: float

    @property
    def rate(self) -> float:
        return self.faster / self.cells if self.cells else 0.0

    @property
    def legacy_rate(self) -> float:
        return self.legacy_faster / self.cells if self.cells else 0.0


def placebo_counts(rows: list, iv, rule: Optional[decide.Rule] = None) -> PlaceboCounts:
    """The decisions of a placebo run's score rows (judged as always), and
    the replaced rule's on the same cells: the two chosen variants' 95%
    percentile-bootstrap interval (iv: intervals.Intervals) excludes 1 and
    the ratio is 2% or more from 1."""
    rule = rule or decide.DEFAULT_RULE
    points = counted(rows)
    legacy = 0
    for p in points:
        va, vb = p.a.cell.values(p.unit), p.b.cell.values(p.unit)
        ci = iv.ratio_ci(va, vb) if p.better == "lower" else iv.ratio_ci(vb, va)
        legacy += decide.legacy(p.ratio, ci) == decide.FASTER
    return PlaceboCounts(
        len(points),
        sum(p.outcome == decide.FASTER for p in points),
        sum(p.outcome == decide.EQUIVALENT for p in points),
        legacy,
        rule.alpha,
    )
