"""The report's first page: the run in one paragraph, the score by level
in words (the verdict) and the headline findings, from the score's rows
(judge/score.py, which decides every point).

Levels are results/levels.py's; the rule that decides each point, with
an example, is judge/score.py's docstring.

The headline findings and the verdict are drawn from the score's own points:
each names its level, and a finding can never contradict its row.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..results import benchfmt
from ..runtimes import pybuild
from .. import rounds
from ..judge import decide, score
from ..judge.score import Point, ScoreRow
from ..results.levels import LEVEL_TITLES, LEVELS
from ..results.textfmt import duration_text, fmt, fmt_bytes, ratio_text
from .claims import TIME_UNITS, quantity_text

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


_SIDE = {"go": "Go", "python": "Python", "equivalent": "equivalent", "inconclusive": "inconclusive"}


def _changed_answers(rows: list) -> str:
    """Where the ecosystem changes the language alone's answer: the cells
    whose winner differs between the two levels, each with the variants
    that carried it on both, in one sentence ("" where none does)."""
    changed = []
    for r in rows:
        alone, eco = r.levels["alone"], r.levels["ecosystem"]
        if alone.winner is None or eco.winner is None or alone.winner == eco.winner:
            continue
        was = _SIDE[alone.winner] + f" {alone.point.times()}"
        now = _SIDE[eco.winner] + f" {eco.point.times()}"
        go, py = eco.point.a.impl, eco.point.b.impl
        changed.append(
            f"{r.label} (Python's {py} against Go's {go}: {now}, where the language alone gives {was}, "
            f"{_variants(alone.point)})"
        )
    return ("With its ecosystem the answer changes in " + "; ".join(changed) + ".") if changed else ""


def verdict(rows: list, rule: Optional[decide.Rule] = None) -> str:
    """The score in words: per level, where Go is faster and by how much
    (the range across its cells), where Python is, which cells are
    equivalent within the margin and which are inconclusive, which were
    listed and not counted, and the rule in one line. No stronger than the
    points."""
    rule = rule or decide.DEFAULT_RULE
    sentences = []
    margin = f"{rule.margin * 100:g}%"
    for lvl in LEVELS:
        counted = [(r, r.levels[lvl].point) for r in rows if r.levels[lvl].winner is not None]
        if not counted:
            continue
        go = [(r, p) for r, p in counted if p.winner == "a"]
        py = [(r, p) for r, p in counted if p.winner == "b"]
        same = [r for r, p in counted if p.winner == decide.EQUIVALENT]
        open_ = [r for r, p in counted if p.winner == decide.INCONCLUSIVE]
        n = len(counted)
        parts = []
        for name, won in (("Go", go), ("Python", py)):
            if won:
                share = (f"all {n} cells" if n > 1 else "the one cell") if len(won) == n else f"{len(won)} of {n} cells"
                parts.append(f"{name} is faster in {share}, {_wins_text(won)}")
            else:
                parts.append(f"{name} is faster in none")
        if same:
            parts.append(f"{len(same)} equivalent within ±{margin} ({_where(same)})")
        if open_:
            parts.append(f"{len(open_)} inconclusive ({_where(open_)})")
        sentences.append(f"{LEVEL_LEADS[lvl]}: " + "; ".join(parts) + ".")
        if lvl == "ecosystem" and _changed_answers(rows):
            sentences.append(_changed_answers(rows))
    listed = [r for r in rows if r.undecided]
    if listed:
        sentences.append("Listed, not counted: " + "; ".join(f"{r.label} ({r.undecided})" for r in listed) + ".")
    if not sentences:
        return "No cell measured both languages."
    sentences.append(f"The rule: {rule.describe(len(score.counted(rows)))}.")
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
    def outcome(self) -> str:
        return self.point.outcome


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
    if p.outcome != decide.FASTER:
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
    margin = f"{p.decision.margin * 100:g}%" if p.decision is not None else "the margin"
    if p.outcome == decide.EQUIVALENT:
        text = f"{one} and {two} are equivalent within ±{margin} {context}: ratio {p.interval_text()} ({values})."
    elif p.outcome == decide.INCONCLUSIVE:
        settle = p.decision.settle or p.decision.why if p.decision is not None else ""
        text = (
            f"{one} against {two} {context} is inconclusive at a {margin} margin: ratio {p.interval_text()} "
            f"({values})" + (f"; {settle}" if settle else "") + "."
        )
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
