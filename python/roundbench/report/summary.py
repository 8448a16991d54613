"""The report's first page: the run in one paragraph, the score by level
and the headline findings, computed from a result set.

Levels are levels.py's (every variant's level, as its round declares it).

The score has one column per level and one row per scored round and size:
*the language alone* (best alone variant of each language), *with its
ecosystem* (best of alone and ecosystem), *calling C* (best core variant),
*whole program* (programs started from outside, timed start to exit). A
round that compares crossings (ffi) scores each kind of crossing against
its counterpart (the round's `pairs`). A cell is scored by its round's
score unit (rounds.score_unit: the metric, or e.g. p99 latency where every
server is held to one rate). Each point is the ratio of the two sides'
medians with a 95% bootstrap interval (compare.py's); it goes to a language
only when that interval excludes 1 and the ratio is at least 2% from 1, else
it is a tie: within this run's noise. A cell that cannot decide (its metric
fixed by construction: rounds.undecided) is listed and not counted.

The headline findings and the verdict are drawn from the score's own points:
each names its level, and a finding can never contradict its row.
"""

from __future__ import annotations

import datetime
import re
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..results import benchfmt
from ..runtimes import pybuild
from .. import rounds
from .cells import metric_for
from ..results.levels import LEVEL_TITLES, LEVELS, level
from ..results.textfmt import fmt, fmt_bytes, size_label

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
    undecided: str = ""  # why the point is listed and not counted (rounds.undecided)

    @property
    def winner(self) -> Optional[str]:
        if self.point is None or self.undecided:
            return None
        return {"a": "go", "b": "python", "tie": "tie"}[self.point.winner]

    def text(self) -> str:
        p = self.point
        if p is None:
            return f"— ({self.why})" if self.why else "—"
        pair = f"{p.a.impl} vs {p.b.impl}"
        if self.undecided:
            return f"not counted: {self.undecided} ({pair} {ratio_text(p.ratio)}×)"
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
    params: dict = field(default_factory=dict)  # the cell's parameters (without impl)
    pair: str = ""  # a round of crossings: the Pair's label ("" its own row)
    undecided: str = ""  # why the row's points are not counted (rounds.undecided)


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


def _score_cell(cells: dict, go_impls, py_impls, unit, better, iv, info) -> ScoreCell:
    go = best_side(cells, go_impls, unit, better)
    py = best_side(cells, py_impls, unit, better)
    if go is None or py is None:
        missing = [lang for lang, s, impls in (("Go", go, go_impls), ("Python", py, py_impls)) if s is None]
        # Neither side at this level (a round with no whole program): a bare dash.
        why = f"{missing[0]} has no such variant" if len(missing) == 1 else ""
        if any(cells.get(i) is not None and cells[i].skip for i in list(go_impls) + list(py_impls)):
            why = "not run here: see the round's section"
        return ScoreCell(None, why=why)
    return ScoreCell(point(go, py, unit, better, iv), note=_concurrency_note(info, go, py))


def cell_unit(rnd_name: str, params: dict, rs: benchfmt.ResultSet) -> tuple:
    """The unit a cell is scored by and which way is better, with the
    round's declaration (None for a round this version does not know)."""
    unit, better, info = metric_for(rnd_name, rs)
    if info is not None:
        unit = rounds.score_unit(info, params)
        better = info.units.get(unit, rs.units.get(unit, "lower"))
    return unit, better, info


def score(grouped: dict, rs: benchfmt.ResultSet, iv: Intervals) -> list:
    """One ScoreRow per scored round and size (and per crossing kind)."""
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
            levels = {}
            for lvl in ("alone", "ecosystem", "program"):
                levels[lvl] = _score_cell(
                    cells, level_impls(cells, "go", lvl), level_impls(cells, "py", lvl), unit, better, iv, info
                )
            groups = info.pairs if info is not None else []
            if groups:
                levels["core"] = _score_cell(cells, groups[0].go, groups[0].py, unit, better, iv, info)
            else:
                levels["core"] = _score_cell(
                    cells, level_impls(cells, "go", "core"), level_impls(cells, "py", "core"), unit, better, iv, info
                )
            levels = {lvl: levels[lvl] for lvl in LEVELS}
            if undecided:
                for c in levels.values():
                    c.undecided = undecided
            if any(c.point is not None for c in levels.values()):
                rows.append(ScoreRow(rnd_name, size_text, label, levels, unit, better, params, "", undecided or ""))
            for pair in groups[1:]:
                cell = _score_cell(cells, pair.go, pair.py, unit, better, iv, info)
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
    return rows


def tallies(rows: list) -> dict:
    out = {lvl: Tally() for lvl in LEVELS}
    for r in rows:
        for lvl in LEVELS:
            out[lvl].add(r.levels[lvl].winner)
    return out


LEVEL_LEADS = {
    "alone": "The language alone (pure code, the standard library and the standard toolchain's own build options)",
    "ecosystem": "With its ecosystem (the best of pure code, libraries, compilers and JITs on each side)",
    "core": "Calling C (the same C core through each binding, so what differs is the crossing)",
    "program": "As whole programs (started from outside, timed to exit)",
}


def _winner_ratio(p: Point) -> float:
    return p.ratio if p.ratio >= 1 else 1 / p.ratio


def _where(rows: list) -> str:
    """The rounds of some rows, each once, in order."""
    names = []
    for r in rows:
        if _short(r) not in names:
            names.append(_short(r))
    return ", ".join(names)


def _short(r: ScoreRow) -> str:
    """A row as the verdict names it: its round (or its crossing)."""
    return r.label if r.pair else r.round


def _variants(p: Point) -> str:
    """The two variants that carried a point, the winner's first:
    "py-numba against go-pgo"."""
    go, py = p.a.impl, p.b.impl
    return f"{py} against {go}" if p.winner == "b" else f"{go} against {py}"


def _wins_text(won: list) -> str:
    """'by 1.32× (jsonl: go-fastjson against py-msgspec) to 59.2× (matmul:
    go against py)' over (row, point) pairs: each end names its round and
    the two variants that carried it, the winner's first."""
    won = sorted(won, key=lambda rp: _winner_ratio(rp[1]))
    lo, hi = won[0], won[-1]
    if len(won) == 1 or ratio_text(_winner_ratio(lo[1])) == ratio_text(_winner_ratio(hi[1])):
        return f"by {ratio_text(_winner_ratio(hi[1]))}× ({_short(hi[0])}: {_variants(hi[1])})"
    low, high = ratio_text(_winner_ratio(lo[1])), ratio_text(_winner_ratio(hi[1]))
    # Both ends in one round: its cells are told apart by their sizes.
    name = _short if _short(lo[0]) != _short(hi[0]) else (lambda r: r.label)
    return f"by {low}× ({name(lo[0])}: {_variants(lo[1])}) to {high}× ({name(hi[0])}: {_variants(hi[1])})"


_SIDE = {"go": "Go", "python": "Python", "tie": "a tie"}


def _changed_answers(rows: list) -> str:
    """Where the ecosystem changes the language alone's answer: the cells
    whose winner differs between the two levels, each with the variants
    that carried it on both, in one sentence ("" where none does)."""
    changed = []
    for r in rows:
        alone, eco = r.levels["alone"], r.levels["ecosystem"]
        if alone.winner is None or eco.winner is None or alone.winner == eco.winner:
            continue
        was = _SIDE[alone.winner] + ("" if alone.winner == "tie" else f" {alone.point.times()}")
        now = _SIDE[eco.winner] + ("" if eco.winner == "tie" else f" {eco.point.times()}")
        go, py = eco.point.a.impl, eco.point.b.impl
        changed.append(
            f"{r.label} (Python's {py} against Go's {go}: {now}, where the language alone gives {was}, "
            f"{_variants(alone.point)})"
        )
    return ("With its ecosystem the answer changes in " + "; ".join(changed) + ".") if changed else ""


def verdict(rows: list) -> str:
    """The score in words: per level, where Go wins and by how much (the
    range across its cells), where Python wins, where they tie, and which
    cells were listed and not counted. No stronger than the points."""
    sentences = []
    for lvl in LEVELS:
        counted = [(r, r.levels[lvl].point) for r in rows if r.levels[lvl].winner is not None]
        if not counted:
            continue
        go = [(r, p) for r, p in counted if p.winner == "a"]
        py = [(r, p) for r, p in counted if p.winner == "b"]
        tie = [r for r, p in counted if p.winner == "tie"]
        n = len(counted)
        parts = []
        for name, won in (("Go", go), ("Python", py)):
            if won:
                share = (f"all {n} cells" if n > 1 else "the one cell") if len(won) == n else f"{len(won)} of {n} cells"
                parts.append(f"{name} wins {share}, {_wins_text(won)}")
            else:
                parts.append(f"{name} wins none")
        if tie:
            parts.append(
                f"{len(tie)} {'is a tie' if len(tie) == 1 else 'are ties'} within this run's noise ({_where(tie)})"
            )
        sentences.append(f"{LEVEL_LEADS[lvl]}: " + "; ".join(parts) + ".")
        if lvl == "ecosystem" and _changed_answers(rows):
            sentences.append(_changed_answers(rows))
    listed = [r for r in rows if r.undecided]
    if listed:
        sentences.append("Listed, not counted: " + "; ".join(f"{r.label} ({r.undecided})" for r in listed) + ".")
    if not sentences:
        return "No cell measured both languages."
    return " ".join(sentences)


# ---- headline findings ---------------------------------------------------------------


MAX_FINDINGS = 10


@dataclass
class Finding:
    text: str
    point: Point
    round: str
    size: str
    level: str = ""

    @property
    def level_title(self) -> str:
        """The level, as the sentence's lead: "The language alone"."""
        return _cap(LEVEL_TITLES.get(self.level, self.level))

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


LANGUAGE_NAMES = {"a": "Go", "b": "Python"}


def finding_text(
    row: ScoreRow, lvl: str, verb: str = "is {x} faster than", context: str = "", memory: bool = False
) -> str:
    """One score point in words (the report puts its level before it):
    both sides named with the variant that is each side's best at that
    level, the ratio with its interval, and both medians (in the order the
    sentence names them)."""
    c = row.levels[lvl]
    p = c.point
    context = context or f"on {row.label}"
    a, b = p.a, p.b
    if p.noise:
        first, second = a, b
    else:
        first, second = (a, b) if p.ratio > 1 else (b, a)
    side = {id(a): "Go", id(b): "Python"}
    values = f"{_fmt_value(first.median, row.unit)} against {_fmt_value(second.median, row.unit)}"
    if memory:
        m1, m2 = first.cell.median_of("B/task"), second.cell.median_of("B/task")
        if m1 is not None and m2 is not None:
            values += f"; memory per task {_fmt_value(m1, '-B')} against {_fmt_value(m2, '-B')}"
    one = f"{side[id(first)]} ({first.impl})"
    two = f"{side[id(second)]} ({second.impl})"
    if p.noise:
        ci = f" [{ratio_text(p.ci[0])}, {ratio_text(p.ci[1])}]" if p.ci else ""
        ratio = f"ratio {ratio_text(p.ratio)}{ci}"
        text = f"{one} and {two} are within this run's noise of each other {context}: {ratio} ({values})."
    else:
        text = f"{one} {verb.format(x=p.times())} {two} {context} ({values})."
    flagged = [s.impl for s in (first, second) if _unstable(s.cell, row.unit)]
    if flagged:
        text += f" ({', '.join(flagged)}: flagged unstable.)"
    return text


def _row_for(rows: list, rnd_name: str, spec: rounds.Headline) -> Optional[ScoreRow]:
    mine = [r for r in rows if r.round == rnd_name and r.pair == spec.pair]
    by_size = {tuple(sorted(r.params.items())): r for r in mine}
    size = _pick_size(by_size, spec.where)
    return by_size[size] if size is not None else None


def finding(rnd_name: str, spec: rounds.Headline, rows: list) -> Optional[Finding]:
    """The headline spec's point, from the score's rows, or None where its
    cell did not run, has no point at its level, or is not counted."""
    row = _row_for(rows, rnd_name, spec)
    if row is None:
        return None
    c = row.levels[spec.level]
    if c.point is None or c.undecided:
        return None
    text = finding_text(row, spec.level, spec.verb, spec.context, spec.memory)
    return Finding(text, c.point, rnd_name, row.size, spec.level)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _unstable(cell, unit: str) -> bool:
    s = cell.summary(unit)
    return bool(s and s.unstable)


def findings(rows: list) -> list:
    """Up to MAX_FINDINGS, from the rounds' headlines where their cells
    ran; a short run (one round, --quick) fills up from its score rows."""
    out = []
    for rnd_name, spec in headlines():
        f = finding(rnd_name, spec, rows)
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
            if c.point is None or c.undecided:
                continue
            out.append(Finding(finding_text(r, lvl), c.point, r.round, r.size, lvl))
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
    pair: str = ""  # the verdict's runtimes in words: "Go 1.27.4 against CPython 3.15.2"


def children_python(cfg: dict) -> str:
    """The interpreter the Python children ran under, in words ("CPython
    3.15.2, release build"), from the provenance's python-children (the
    runner's own when that says so, or when it is not recorded)."""
    children = cfg.get("python-children", "")
    m = re.search(r"\(((?:CPython|PyPy) [^()]*)\)", children)
    if m and not children.endswith("(the runner's own)"):
        return m.group(1)
    return cfg.get("python", "")


def _pair(cfg: dict) -> str:
    go = cfg.get("go-version", "")
    go = f"Go {go[2:]}" if go.startswith("go") else go
    # A view of a run with runtimes as an axis names the interpreter it shows.
    shown = re.search(r"\b((?:CPython|PyPy) [^,\s]+)", cfg.get("runtimes-shown", ""))
    py = shown.group(1) if shown else re.sub(r"\s*[(,].*", "", children_python(cfg))
    return f"{go} against {py}" if go and py else ""


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
    python = cfg.get("python", "")
    # The build of the children's interpreter (run/provenance.py), beside
    # it: the runner's own, or the one --python named (the verdict's).
    build = pybuild.summary(cfg.get("python-build", ""))
    children = children_python(cfg)
    if children and children != python:
        python = f"Python children: {children}" + (f" [{build}]" if build else "") + f" (the runner: {python})"
    elif python and build:
        python += f" [{build}]"
    runtimes = "; ".join(
        x for x in (python, cfg.get("go-version", ""), cfg.get("numpy", "") and f"numpy {cfg['numpy']}") if x
    )
    date = cfg.get("date", "not recorded")
    start = _parse_date(date)
    if start is not None:
        date = start.strftime("%Y-%m-%d %H:%M UTC")
    counts = f"{len(rs.runs)} runs, {len(rs.failures)} failed, {len(rs.skips)} variants that could not run here"
    return RunInfo(
        machine=machine or "not recorded",
        runtimes=runtimes or "not recorded",
        pair=_pair(cfg),
        date=date,
        commit=cfg.get("roundbench-commit", "not recorded"),
        duration=_duration(rs, files),
        counts=counts,
        warnings=warnings,
    )
