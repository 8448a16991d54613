"""The report's first page: the run in one paragraph, the three-level score
and the headline findings, computed from a result set.

Levels are levels.py's (every variant's level, from its name).

The score has one column per level and one row per scored round and size:
*the language alone* (best alone variant of each language), *with its
ecosystem* (best of alone and ecosystem), *calling C* (best core variant).
A round that compares crossings (ffi) scores each kind of crossing against
its counterpart (the round's `crossings`). Each point is the ratio of the two sides'
medians with a 95% bootstrap interval (compare.py's); it goes to a language
only when that interval excludes 1 and the ratio is at least 2% from 1, else
it is a tie: within this run's noise.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from . import benchfmt, rounds
from .cells import metric_for
from .levels import LEVEL_TITLES, LEVELS, level
from .textfmt import fmt, fmt_bytes, size_label

TIE_WITHIN = 0.02  # a ratio within 2% of 1 is a tie whatever its interval


# ---- ratios with their intervals -----------------------------------------------


class Intervals:
    """Bootstrap intervals of ratios of medians (compare._ratio_ci), each
    computed once per report. Without scipy the intervals are None and the
    report says so."""

    def __init__(self) -> None:
        self._cache: dict = {}
        try:
            from . import compare

            compare._ratio_ci([1.0, 2.0], [1.0, 2.0])
            self._ci: Optional[Callable] = compare._ratio_ci
            self.missing = ""
        except ImportError as e:
            self._ci = None
            self.missing = f"no confidence intervals: {e.name} is not installed (pip install 'roundbench[report]')"

    def ratio_ci(self, a: list, b: list) -> Optional[tuple]:
        """The 95% interval of median(b) / median(a)."""
        if self._ci is None:
            return None
        key = (tuple(a), tuple(b))
        if key not in self._cache:
            self._cache[key] = self._ci(a, b)
        return self._cache[key]


@dataclass
class Side:
    impl: str
    cell: object  # cells.Cell
    median: float


@dataclass
class Point:
    """Two sides by one unit: how many times better `a` is than `b` (>1: a is
    better), with the interval of that ratio."""

    a: Side
    b: Side
    unit: str
    better: str
    ratio: float
    ci: Optional[tuple]

    @property
    def noise(self) -> bool:
        """Whether the difference is within this run's noise."""
        if abs(self.ratio - 1) < TIE_WITHIN:
            return True
        return self.ci is not None and self.ci[0] <= 1 <= self.ci[1]

    @property
    def winner(self) -> str:
        """'a', 'b' or 'tie'."""
        if self.noise:
            return "tie"
        return "a" if self.ratio > 1 else "b"

    def times(self) -> str:
        """'41.7× [40.5×, 43.0×]' from the winner's side (the ratio as it is
        when within noise)."""
        r, ci = self.ratio, self.ci
        if not self.noise and r < 1:
            r, ci = 1 / r, (1 / ci[1], 1 / ci[0]) if ci else None
        text = f"{ratio_text(r)}×"
        if ci:
            text += f" [{ratio_text(ci[0])}×, {ratio_text(ci[1])}×]"
        return text


def ratio_text(r: float) -> str:
    if not math.isfinite(r):
        return str(r)
    if r >= 100:
        return f"{r:,.0f}"
    if r >= 10:
        return f"{r:.1f}"
    if 0.9 < r < 1.1:
        return f"{r:.3f}"  # 1.003 is not 1.00: a bound near 1 keeps its third digit
    return f"{r:.2f}"


def point(a: Side, b: Side, unit: str, better: str, iv: Intervals) -> Point:
    """a against b: the ratio by which a is better than b."""
    va, vb = a.cell.values(unit), b.cell.values(unit)
    if better == "lower":
        # median(b) / median(a): a's time against b's
        ratio = b.median / a.median if a.median else math.inf
        ci = iv.ratio_ci(va, vb)
    else:
        ratio = a.median / b.median if b.median else math.inf
        ci = iv.ratio_ci(vb, va)
    return Point(a, b, unit, better, ratio, ci)


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

    @property
    def winner(self) -> Optional[str]:
        if self.point is None:
            return None
        return {"a": "go", "b": "python", "tie": "tie"}[self.point.winner]

    def text(self) -> str:
        p = self.point
        if p is None:
            return f"— ({self.why})" if self.why else "—"
        pair = f"{p.a.impl} vs {p.b.impl}"
        if p.winner == "tie":
            return f"tie: within noise, {pair} {ratio_text(p.ratio)}×" + (
                f" [{ratio_text(p.ci[0])}, {ratio_text(p.ci[1])}]" if p.ci else ""
            )
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


@dataclass
class Tally:
    go: int = 0
    python: int = 0
    tie: int = 0

    def add(self, winner: Optional[str]) -> None:
        if winner is not None:
            setattr(self, winner, getattr(self, winner) + 1)

    def text(self) -> str:
        return f"Go {self.go}, Python {self.python}, ties {self.tie}"

    @property
    def total(self) -> int:
        return self.go + self.python + self.tie


def _level_impls(cells: dict, lang: str, lvl: str) -> list:
    allowed = {"alone": ("alone",), "ecosystem": ("alone", "ecosystem"), "core": ("core",)}[lvl]
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


def _score_cell(cells: dict, go_impls, py_impls, unit, better, iv, info) -> ScoreCell:
    go = best_side(cells, go_impls, unit, better)
    py = best_side(cells, py_impls, unit, better)
    if go is None or py is None:
        missing = [lang for lang, s, impls in (("Go", go, go_impls), ("Python", py, py_impls)) if s is None]
        why = " and ".join(missing) + (" has no such variant" if len(missing) == 1 else " have no such variant")
        if any(cells.get(i) is not None and cells[i].skip for i in list(go_impls) + list(py_impls)):
            why = "not run here: see the round's section"
        return ScoreCell(None, why=why)
    return ScoreCell(point(go, py, unit, better, iv), note=_concurrency_note(info, go, py))


def score(grouped: dict, rs: benchfmt.ResultSet, iv: Intervals) -> list:
    """One ScoreRow per scored round and size (and per crossing kind)."""
    rows = []
    for rnd_name, sizes in grouped.items():
        unit, better, info = metric_for(rnd_name, rs)
        if info is not None and (info.facts or not info.scored):
            continue
        for size, cells in sizes.items():
            size_text = size_label(size)
            label = rnd_name if size_text == "default" else f"{rnd_name}: {size_text}"
            levels = {}
            for lvl in ("alone", "ecosystem"):
                levels[lvl] = _score_cell(
                    cells, _level_impls(cells, "go", lvl), _level_impls(cells, "py", lvl), unit, better, iv, info
                )
            groups = info.crossings if info is not None else []
            if groups:
                levels["core"] = _score_cell(cells, groups[0].go, groups[0].py, unit, better, iv, info)
            else:
                levels["core"] = _score_cell(
                    cells, _level_impls(cells, "go", "core"), _level_impls(cells, "py", "core"), unit, better, iv, info
                )
            if any(c.point is not None for c in levels.values()):
                rows.append(ScoreRow(rnd_name, size_text, label, levels, unit, better))
            for crossing in groups[1:]:
                cell = _score_cell(cells, crossing.go, crossing.py, unit, better, iv, info)
                if cell.point is not None:
                    rows.append(
                        ScoreRow(
                            rnd_name,
                            size_text,
                            f"{rnd_name}: {crossing.label}",
                            {"alone": ScoreCell(None), "ecosystem": ScoreCell(None), "core": cell},
                            unit,
                            better,
                        )
                    )
    return rows


def tallies(rows: list) -> dict:
    out = {lvl: Tally() for lvl in LEVELS}
    for r in rows:
        for lvl in LEVELS:
            out[lvl].add(r.levels[lvl].winner)
    return out


def verdict(t: dict) -> str:
    """The score in one paragraph, no stronger than the tallies."""
    parts = []
    for lvl in LEVELS:
        x = t[lvl]
        if x.total == 0:
            parts.append(f"{LEVEL_TITLES[lvl]}: no cell measured both languages")
            continue
        if x.go > x.python and x.go > x.tie:
            lead = f"Go wins {x.go} of {x.total} cells"
        elif x.python > x.go and x.python > x.tie:
            lead = f"Python wins {x.python} of {x.total} cells"
        elif x.tie >= max(x.go, x.python):
            lead = f"{x.tie} of {x.total} cells are within this run's noise"
        else:
            lead = "the cells split"
        parts.append(f"{LEVEL_TITLES[lvl]}: {lead} ({x.text()})")
    return "; ".join(parts) + "."


# ---- headline findings ---------------------------------------------------------------


MAX_FINDINGS = 10


@dataclass
class Finding:
    text: str
    point: Point
    round: str
    size: str

    @property
    def noise(self) -> bool:
        return self.point.noise


def _pick_size(sizes: dict, where: dict) -> Optional[tuple]:
    fixed = {k: v for k, v in where.items() if v != "max"}
    biggest = [k for k, v in where.items() if v == "max"]
    found = [s for s in sizes if all(dict(s).get(k) == v for k, v in fixed.items())]
    found = [s for s in found if all(k in dict(s) for k in biggest)]
    if not found:
        return None

    def key(s):
        out = []
        for k in biggest:
            try:
                out.append(float(dict(s)[k]))
            except ValueError:
                out.append(0.0)
        return out

    return max(found, key=key) if biggest else found[0]


def _fmt_value(x: float, unit: str) -> str:
    from .claims import TIME_UNITS, quantity_text

    if unit.endswith("-B"):
        return fmt_bytes(x)
    if unit in TIME_UNITS:
        return quantity_text(x, unit)
    return f"{fmt(x)} {unit}"


def headlines() -> list:
    """Every round's headlines as (round name, rounds.Headline), by rank."""
    found = [(rnd.name, h) for rnd in rounds.all_rounds() for h in rnd.headlines]
    return sorted(found, key=lambda rh: rh[1].rank)


def finding(
    rnd_name: str, spec: rounds.Headline, grouped: dict, rs: benchfmt.ResultSet, iv: Intervals
) -> Optional[Finding]:
    sizes = grouped.get(rnd_name)
    if not sizes:
        return None
    size = _pick_size(sizes, spec.where)
    if size is None:
        return None
    cells = sizes[size]
    better = rs.units.get(spec.unit)
    if better is None:
        try:
            better = rounds.get(rnd_name).units.get(spec.unit, "lower")
        except KeyError:
            better = "lower"
    a = best_side(cells, spec.a, spec.unit, better)
    b = best_side(cells, spec.b, spec.unit, better)
    if a is None or b is None:
        return None
    p = point(a, b, spec.unit, better, iv)
    an, bn = spec.a_name.format(impl=a.impl), spec.b_name.format(impl=b.impl)
    where = f" {spec.context}" if spec.context else ""
    # The figures in the order the sentence names the two sides: the
    # winner's first when it names the winner first.
    first, second = (b, a) if not p.noise and p.ratio <= 1 else (a, b)
    values = f"{_fmt_value(first.median, spec.unit)} against {_fmt_value(second.median, spec.unit)}"
    if spec.memory:
        m1, m2 = first.cell.median_of("B/task"), second.cell.median_of("B/task")
        if m1 is not None and m2 is not None:
            values += f"; memory per task {_fmt_value(m1, '-B')} against {_fmt_value(m2, '-B')}"
    if p.noise:
        ci = f" [{ratio_text(p.ci[0])}, {ratio_text(p.ci[1])}]" if p.ci else ""
        text = (
            f"{_cap(an)} and {bn} are within this run's noise of each other{where}: "
            f"ratio {ratio_text(p.ratio)}{ci} ({values})."
        )
    else:
        win, lose = (an, bn) if p.ratio > 1 else (bn, an)
        text = f"{_cap(win)} {spec.verb.format(x=p.times())} {lose}{where} ({values})."
    flagged = [s.impl for s in (a, b) if _unstable(s.cell, spec.unit)]
    if flagged:
        text += f" ({', '.join(flagged)}: flagged unstable.)"
    return Finding(text, p, rnd_name, "")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _unstable(cell, unit: str) -> bool:
    s = cell.summary(unit)
    return bool(s and s.unstable)


def findings(grouped: dict, rs: benchfmt.ResultSet, iv: Intervals, rows: list) -> list:
    """Up to MAX_FINDINGS, from the rounds' headlines where their cells
    ran; a short run (one round, --quick) fills up from its score rows."""
    out = []
    for rnd_name, spec in headlines():
        f = finding(rnd_name, spec, grouped, rs, iv)
        if f is not None:
            out.append(f)
        if len(out) == MAX_FINDINGS:
            return out
    seen = {f.round for f in out}
    for r in rows:
        if len(out) >= 5 or r.round in seen:
            continue
        for lvl in LEVELS:
            c = r.levels[lvl]
            if c.point is None:
                continue
            p = c.point
            where = f"on {r.label} ({LEVEL_TITLES[lvl]})"
            if p.noise:
                text = f"{p.a.impl} and {p.b.impl} are within this run's noise of each other {where}."
            else:
                w, l_ = (p.a.impl, p.b.impl) if p.ratio > 1 else (p.b.impl, p.a.impl)
                text = f"{w} is {p.times()} better than {l_} {where} by {r.unit} ({r.better} is better)."
            out.append(Finding(text, p, r.round, r.size))
            seen.add(r.round)
            break
    return out


# ---- the run itself -------------------------------------------------------------------------


@dataclass
class RunInfo:
    machine: str
    runtimes: str
    date: str
    commit: str
    duration: str
    counts: str
    warnings: list = field(default_factory=list)


def _parse_date(text: str) -> Optional[datetime.datetime]:
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return None


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _duration(rs: benchfmt.ResultSet, files: list) -> str:
    ends = getattr(rs, "ends", [])
    if ends:
        total = sum(e.seconds for e in ends)
        how = " (interrupted)" if any(e.interrupted for e in ends) else ""
        parts = f", in {len(ends)} runs of the command" if len(ends) > 1 else ""
        return f"{duration_text(total)}{how}{parts}"
    start = _parse_date(rs.configs[0].get("date")) if rs.configs else None
    if start is not None and files:
        last = max(Path(f).stat().st_mtime for f in files)
        took = last - start.timestamp()
        if 0 < took < 7 * 86400:
            return (
                f"about {duration_text(took)} (from the result file's start date to its last write: "
                "this file has no end record)"
            )
    return "not recorded (this result file has no end record)"


def run_info(rs: benchfmt.ResultSet, files: list, warnings: list) -> RunInfo:
    """The run in one paragraph; `warnings` are fairness.warned(rs.configs),
    computed once for the summary and the report's fairness section."""
    cfg = rs.configs[0] if rs.configs else {}
    machine = cfg.get("cpu", "")
    if cfg.get("cores"):
        machine += f" ({cfg['cores']})"
    if cfg.get("kernel"):
        machine += f", {cfg['kernel']}"
    runtimes = "; ".join(
        x
        for x in (cfg.get("python", ""), cfg.get("go-version", ""), cfg.get("numpy", "") and f"numpy {cfg['numpy']}")
        if x
    )
    date = cfg.get("date", "not recorded")
    start = _parse_date(date)
    if start is not None:
        date = start.strftime("%Y-%m-%d %H:%M UTC")
    counts = f"{len(rs.runs)} runs, {len(rs.failures)} failed, {len(rs.skips)} variants that could not run here"
    return RunInfo(
        machine=machine or "not recorded",
        runtimes=runtimes or "not recorded",
        date=date,
        commit=cfg.get("roundbench-commit", "not recorded"),
        duration=_duration(rs, files),
        counts=counts,
        warnings=warnings,
    )
