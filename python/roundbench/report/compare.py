"""`roundbench compare A B`: is B different from A, cell by cell?

A and B are result directories or files in the Go benchmark format (the
suite's own, or `go test -bench` output: anything benchstat reads). A *cell*
is one benchmark name (round, variant and parameters); for each unit both
sides measured, the comparison gives the ratio of the medians, B / A, and
its outcome by the suite's one decision rule (judge/decide.py), every row
of the comparison judged together:

  - *worse* or *better*: the ratio's interval lies wholly beyond the margin
    (5% by default, `--margin`);
  - *same*: the interval lies within ±margin (equivalent);
  - *inconclusive*: it straddles the margin (more runs would settle it).

The false-discovery rate is held at `--alpha` (5%) across the rows
(Benjamini-Hochberg), each interval stated at the level that holds it; the
interval is a bootstrap with a fixed seed, so the same files always give
the same answer. A two-sided Mann-Whitney U test's p is printed beside it,
for readers used to it; it decides nothing.

Worse or better follows each unit's `Unit ... better=` line; where a file
does not say (`go test -bench` output), a rate (a unit ending in /s, such as
MB/s) is better higher and anything else lower. `--fail-above PCT` makes the command exit 1 when any
cell is worse (by the rule) by more than PCT percent, for CI gates.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ..results import benchfmt
from ..results.stats import UNSTABLE_CI, median
from ..judge import cells, decide, score
from ..judge.intervals import u_test
from ..results.stats import is_unstable, summarize
from .. import rounds

ALPHA = decide.ALPHA
# The units the suite adds to every run line: compared only when asked for,
# since they describe the process around the work, not the work.
PROCESS_UNITS = ("peak-B", "user-ns/op", "sys-ns/op")


@dataclass
class Row:
    name: str
    unit: str
    better: str  # "lower" or "higher"
    a: list
    b: list
    ratio: float  # median(b) / median(a)
    p: Optional[float]  # Mann-Whitney U two-sided p-value, or None
    decision: Optional[decide.Decision] = None  # B against A, judged with every row

    @property
    def ci(self) -> Optional[tuple]:
        """The interval of B / A at the family's level."""
        d = self.decision
        if d is None or d.ci is None:
            return None
        # The decision is A against B, as how many times better A is: B / A
        # for a time, A / B for a rate.
        return d.ci if self.better == "lower" else (1 / d.ci[1], 1 / d.ci[0])

    @property
    def change_pct(self) -> float:
        return (self.ratio - 1.0) * 100.0

    @property
    def worse_pct(self) -> float:
        """How much worse B is than A, in percent (negative when better)."""
        if self.better == "higher":
            return (1.0 / self.ratio - 1.0) * 100.0 if self.ratio > 0 else math.inf
        return self.change_pct

    @property
    def verdict(self) -> str:
        """worse, better, same or inconclusive (the rule's outcome, B
        against A); why there is none."""
        d = self.decision
        if d is None or not self.a or not self.b:
            return "no runs to compare"
        if d.outcome == decide.FASTER:
            return "worse" if d.winner == "a" else "better"
        if d.outcome == decide.EQUIVALENT:
            return "same"
        return f"inconclusive ({d.why})" if d.why else "inconclusive"


def _cells(rs: benchfmt.ResultSet) -> dict:
    """(name, unit) -> values, in file order."""
    out: dict = {}
    for run in rs.runs:
        for unit, value in run.metrics.items():
            out.setdefault((run.name, unit), []).append(value)
    return out


def compare(
    a: benchfmt.ResultSet,
    b: benchfmt.ResultSet,
    units: Optional[Iterable[str]] = None,
    rule: Optional[decide.Rule] = None,
) -> list:
    """The rows of every (cell, unit) that both result sets measured, in A's
    order, judged together by `rule` (decide.py). `units` limits the units
    (default: every unit but the process ones, PROCESS_UNITS)."""
    ca, cb = _cells(a), _cells(b)
    wanted = set(units) if units else None
    better = {**a.units, **b.units}
    rows = []
    for key, va in ca.items():
        name, unit = key
        if wanted is not None and unit not in wanted:
            continue
        if wanted is None and unit in PROCESS_UNITS:
            continue
        vb = cb.get(key)
        if not vb:
            continue
        ma, mb = median(va), median(vb)
        ratio = mb / ma if ma else math.nan
        rows.append(
            Row(
                name=name,
                unit=unit,
                better=better.get(unit, default_better(unit)),
                a=list(va),
                b=list(vb),
                ratio=ratio,
                p=u_test(va, vb),
            )
        )
    judge(rows, rule)
    return rows


def judge(rows: list, rule: Optional[decide.Rule] = None) -> None:
    """Decides the rows as one family: A against B, each by its unit."""
    found = [decide.evidence({"A": r.a}, {"B": r.b}, r.better) for r in rows]
    for r, d in zip(rows, decide.judge(found, rule)):
        r.decision = d


def only_in(a: benchfmt.ResultSet, b: benchfmt.ResultSet) -> tuple:
    """Benchmark names measured by only one side: (only in A, only in B)."""
    na, nb = {r.name for r in a.runs}, {r.name for r in b.runs}
    order_a = list(dict.fromkeys(r.name for r in a.runs))
    order_b = list(dict.fromkeys(r.name for r in b.runs))
    return [n for n in order_a if n not in nb], [n for n in order_b if n not in na]


def default_better(unit: str) -> str:
    """Which way a unit no Unit line describes is better: a rate higher."""
    return "higher" if unit.endswith("/s") else "lower"


def regressions(rows: Iterable[Row], above_pct: float) -> list:
    """Rows worse than A (by the rule) by more than above_pct percent."""
    return [r for r in rows if r.verdict == "worse" and r.worse_pct > above_pct]


def _num(v: float) -> str:
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    mag = abs(v)
    for limit, div, suffix in ((1e12, 1e12, "T"), (1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if mag >= limit:
            return f"{v / div:.4g}{suffix}"
    return f"{v:.4g}"


def _spread(values: Sequence[float]) -> str:
    """The largest distance of a run from the median, in percent of it."""
    m = median(values)
    if not m:
        return ""
    return f"±{max(abs(v - m) for v in values) / abs(m) * 100:.0f}%"


def _change(r: Row) -> str:
    if r.verdict == "no runs to compare":
        return r.verdict
    ci = f" [{(r.ci[0] - 1) * 100:+.1f}%, {(r.ci[1] - 1) * 100:+.1f}%]" if r.ci else ""
    return f"{r.change_pct:+.1f}%{ci} {r.verdict}"


def stat_line(r: Row) -> str:
    p = "p=?" if r.p is None else f"p={r.p:.3f}"
    return f"({p} n={len(r.a)}+{len(r.b)})"


def _by_unit(rows: Sequence[Row]) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault(r.unit, []).append(r)
    return out


def format_text(rows: Sequence[Row], label_a: str, label_b: str) -> str:
    """A benchstat-like table per unit, for the terminal."""
    out = []
    for unit, group in _by_unit(rows).items():
        better = group[0].better
        width = max(len("name"), *(len(r.name) for r in group))
        out.append(f"unit: {unit} ({better} is better)   A = {label_a}   B = {label_b}")
        out.append(f"{'name':<{width}}  {'A median':>10} {'':>5}  {'B median':>10} {'':>5}  change B vs A")
        for r in group:
            out.append(
                f"{r.name:<{width}}  {_num(median(r.a)):>10} {_spread(r.a):>5}  "
                f"{_num(median(r.b)):>10} {_spread(r.b):>5}  {_change(r)} {stat_line(r)}"
            )
        out.append("")
    return "\n".join(out)


def _md_rows(rows: Sequence[Row]) -> list:
    lines = [
        "| benchmark | unit | A median | B median | B / A [interval] | p (U test) | outcome |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ci = f" [{r.ci[0]:.3f}, {r.ci[1]:.3f}]" if r.ci else ""
        p = "" if r.p is None else f"{r.p:.3g}"
        lines.append(
            f"| {r.name} | {r.unit} ({r.better} is better) | {_num(median(r.a))} | {_num(median(r.b))} | "
            f"{r.ratio:.3f}{ci} | {p} | {r.verdict} |"
        )
    return lines


HOW = (
    "B / A is the ratio of the medians with its interval; the outcome is the suite's rule: worse or better when "
    "the whole interval lies beyond the {margin} margin, same when it lies within it, else inconclusive, with the "
    "false-discovery rate held at {alpha} across the rows (each interval at the level that holds it). p is a "
    "two-sided Mann-Whitney U test, shown for reference; it decides nothing."
)


def _how(rule: Optional[decide.Rule]) -> str:
    rule = rule or decide.DEFAULT_RULE
    return HOW.format(margin=f"{rule.margin * 100:g}%", alpha=f"{rule.alpha * 100:g}%")


def format_markdown(rows: Sequence[Row], label_a: str, label_b: str, rule: Optional[decide.Rule] = None) -> str:
    head = ["# roundbench compare", "", f"A = `{label_a}`, B = `{label_b}`.", "", _how(rule), ""]
    return "\n".join(head + _md_rows(rows)) + "\n"


def format_html(rows: Sequence[Row], label_a: str, label_b: str, rule: Optional[decide.Rule] = None) -> str:
    cells = []
    for r in rows:
        ci = f" [{r.ci[0]:.3f}, {r.ci[1]:.3f}]" if r.ci else ""
        p = "" if r.p is None else f"{r.p:.3g}"
        cls = {"worse": "worse", "better": "better"}.get(r.verdict, "")
        vals = [r.name, f"{r.unit} ({r.better} is better)", _num(median(r.a)), _num(median(r.b)), f"{r.ratio:.3f}{ci}"]
        cells.append(
            f'<tr class="{cls}">' + "".join(f"<td>{html.escape(v)}</td>" for v in [*vals, p, r.verdict]) + "</tr>"
        )
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'><title>roundbench compare</title>\n"
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
        "tr.worse td{background:#fdd}tr.better td{background:#dfd}</style></head><body>\n"
        f"<h1>roundbench compare</h1><p>A = <code>{html.escape(label_a)}</code>, "
        f"B = <code>{html.escape(label_b)}</code>.</p><p>{html.escape(_how(rule))}</p>\n"
        "<table><tr><th>benchmark</th><th>unit</th><th>A median</th><th>B median</th>"
        "<th>B / A [interval]</th><th>p (U test)</th><th>outcome</th></tr>\n"
        + "\n".join(cells)
        + "\n</table></body></html>\n"
    )


def load(path: str) -> benchfmt.ResultSet:
    """A result directory (every *.txt) or one file, in the Go benchmark
    format: the suite's own, or any `go test -bench` output (lines that are
    no result, such as a bare benchmark name, are skipped as benchstat skips
    them, and counted in bad_lines)."""
    return benchfmt.read_dir(Path(path), strict=False)


def primary_unit(name: str, units_present) -> str:
    """The unit a cell is judged by: its round's declared metric when the
    round is known and the cell measured it, else ns/op."""
    try:
        metric = rounds.get(benchfmt.split_name(name)[0]).metric
    except (KeyError, ValueError):
        metric = "ns/op"
    return metric if metric in units_present else "ns/op"


@dataclass
class Repeatability:
    rows: list  # one Row per cell: its primary unit
    unstable_a: int
    unstable_b: int
    agree: int = 0  # score cells counted in both runs whose outcome agrees
    scored: int = 0  # score cells counted in both runs
    changed: list = field(default_factory=list)  # (label, level, A's text, B's text) of those that changed
    margin: float = decide.MARGIN

    @property
    def same(self) -> list:
        """The cells whose B / A is equivalent within the margin."""
        return [r for r in self.rows if r.verdict == "same"]


def repeatability(a: benchfmt.ResultSet, b: benchfmt.ResultSet, rule: Optional[decide.Rule] = None) -> Repeatability:
    """Two runs of the same rounds, in the rule's words: the share of the
    score cells both count whose outcome agrees (score.agreement), and the
    cells that changed, with both intervals; then per cell its primary
    unit's row (B against A: same, worse, better or inconclusive), and how
    many cells each run flagged unstable, as the report flags them
    (stats.is_unstable: the median's 95% CI reaches more than ±5% from it;
    a cell of fewer than 6 runs has no interval and is not counted)."""
    rule = rule or decide.DEFAULT_RULE
    every = compare(a, b, units=None, rule=rule)
    by_name: dict = {}
    for r in every:
        by_name.setdefault(r.name, {})[r.unit] = r
    rows = [units[primary_unit(name, units)] for name, units in by_name.items()]
    # The primary units alone are the family, as a reader takes them.
    judge(rows, rule)
    unstable_a = sum(1 for r in rows if r.a and is_unstable(summarize(r.a)))
    unstable_b = sum(1 for r in rows if r.b and is_unstable(summarize(r.b)))
    rows_a, rows_b = score.score(cells.group(a), a, rule), score.score(cells.group(b), b, rule)
    agree, scored, changed = score.agreement(rows_a, rows_b)
    return Repeatability(rows, unstable_a, unstable_b, agree, scored, changed, rule.margin)


def format_repeatability(rep: Repeatability, label_a: str, label_b: str) -> str:
    """Markdown: the summary figures, then one line per cell."""
    n = len(rep.rows)

    def pct(k: int, of: int = n) -> str:
        return f"{k} of {of} ({k / of * 100:.0f}%)" if of else "0 of 0"

    margin = f"{rep.margin * 100:g}%"
    lines = [
        "# Repeatability: the same rounds run twice, back to back",
        "",
        f"A = `{label_a}`, B = `{label_b}`; each cell judged by its round's metric, by the suite's rule "
        f"(a {margin} margin).",
        "",
        f"- score cells with the same outcome in both runs: {pct(rep.agree, rep.scored)}",
        f"- cells compared: {n}",
        f"- cells the same in both runs (B / A within ±{margin}): {pct(len(rep.same))}",
        f"- cells flagged unstable (the median's 95% CI reaching more than ±{UNSTABLE_CI * 100:g}% from it): "
        f"A {pct(rep.unstable_a)}, B {pct(rep.unstable_b)}",
    ]
    if rep.changed:
        lines += ["", "Score cells whose outcome changed (A, then B):", ""]
        lines += [f"- {label}, {lvl}: {ta} -> {tb}" for label, lvl, ta, tb in rep.changed]
    lines += [
        "",
        "| cell | unit | A median | B median | B / A [interval] | p | outcome |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rep.rows:
        ci = f" [{r.ci[0]:.3f}, {r.ci[1]:.3f}]" if r.ci else ""
        p = "" if r.p is None else f"{r.p:.3g}"
        lines.append(
            f"| {r.name} | {r.unit} | {_num(median(r.a))} | {_num(median(r.b))} | {r.ratio:.3f}{ci} | {p} "
            f"| {r.verdict} |"
        )
    return "\n".join(lines) + "\n"
