"""`roundbench compare A B`: is B different from A, cell by cell?

A and B are result directories or files in the Go benchmark format (the
suite's own, or `go test -bench` output: anything benchstat reads). A *cell*
is one benchmark name (round, variant and parameters); for each unit both
sides measured, the comparison gives

  - the ratio of the medians, B / A, with a 95% bootstrap confidence
    interval (percentile method, resampling each side's runs; a fixed seed,
    so the same files always give the same interval);
  - a two-sided Mann-Whitney U test of "A and B come from the same
    distribution", from scipy; the change is *significant* when p < alpha
    (0.05 by default). With three runs a side no difference can reach
    p < 0.05: such cells say "too few runs" instead of "no change".

Worse or better follows each unit's `Unit ... better=` line; where a file
does not say (`go test -bench` output), a rate (a unit ending in /s, such as
MB/s) is better higher and anything else lower. `--fail-above PCT` makes the command exit 1 when any
cell got significantly worse by more than PCT percent, for CI gates.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ..results import benchfmt
from ..results.stats import UNSTABLE_CI, median
from ..judge.intervals import min_p, ratio_ci, u_test
from ..results.stats import is_unstable, summarize
from .. import rounds

ALPHA = 0.05
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
    ci: Optional[tuple]  # (low, high) of the ratio, or None
    p: Optional[float]  # Mann-Whitney U two-sided p-value, or None
    alpha: float = ALPHA

    @property
    def enough(self) -> bool:
        """Whether a difference could reach significance at all."""
        return self.p is not None and min_p(len(self.a), len(self.b)) < self.alpha

    @property
    def significant(self) -> bool:
        return self.p is not None and self.p < self.alpha

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
        if self.p is None:
            return "no runs to compare"
        if not self.enough:
            return f"too few runs (n={len(self.a)}+{len(self.b)})"
        if not self.significant:
            return "~"
        return "worse" if self.worse_pct > 0 else "better"


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
    alpha: float = ALPHA,
) -> list:
    """The rows of every (cell, unit) that both result sets measured, in A's
    order. `units` limits the units (default: every unit but the process
    ones, PROCESS_UNITS)."""
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
                ci=ratio_ci(va, vb),
                p=u_test(va, vb),
                alpha=alpha,
            )
        )
    return rows


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
    """Rows significantly worse than A by more than above_pct percent."""
    return [r for r in rows if r.significant and r.worse_pct > above_pct]


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
    if r.verdict in ("~",) or r.verdict.startswith(("too few", "no runs")):
        return r.verdict
    ci = f" [{(r.ci[0] - 1) * 100:+.1f}%, {(r.ci[1] - 1) * 100:+.1f}%]" if r.ci else ""
    return f"{r.change_pct:+.1f}%{ci}"


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
        "| benchmark | unit | A median | B median | B / A [95% CI] | p (U test) | verdict |",
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
    "B / A is the ratio of the medians with a 95% bootstrap interval; p is a two-sided Mann-Whitney U test; "
    "a change is significant when p < {alpha}. '~' means no significant difference."
)


def format_markdown(rows: Sequence[Row], label_a: str, label_b: str, alpha: float = ALPHA) -> str:
    head = ["# roundbench compare", "", f"A = `{label_a}`, B = `{label_b}`.", "", HOW.format(alpha=alpha), ""]
    return "\n".join(head + _md_rows(rows)) + "\n"


def format_html(rows: Sequence[Row], label_a: str, label_b: str, alpha: float = ALPHA) -> str:
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
        f"B = <code>{html.escape(label_b)}</code>.</p><p>{html.escape(HOW.format(alpha=alpha))}</p>\n"
        "<table><tr><th>benchmark</th><th>unit</th><th>A median</th><th>B median</th>"
        "<th>B / A [95% CI]</th><th>p (U test)</th><th>verdict</th></tr>\n"
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
    within: float  # the medians' largest allowed distance, e.g. 0.05
    unstable_a: int
    unstable_b: int

    @property
    def close(self) -> list:
        return [r for r in self.rows if abs(r.ratio - 1.0) <= self.within]

    @property
    def same(self) -> list:
        return [r for r in self.rows if not r.significant]


def repeatability(a: benchfmt.ResultSet, b: benchfmt.ResultSet, within: float = 0.05) -> Repeatability:
    """Two runs of the same rounds: per cell its primary unit's row, how
    many cells' medians are within `within` of each other and how many the
    U test finds no different, and how many cells each run flagged
    unstable, as the report flags them (stats.is_unstable: the median's 95%
    CI reaches more than ±5% from it; a cell of fewer than 6 runs has no
    interval and is not counted)."""
    every = compare(a, b, units=None)
    by_name: dict = {}
    for r in every:
        by_name.setdefault(r.name, {})[r.unit] = r
    rows = [units[primary_unit(name, units)] for name, units in by_name.items()]
    unstable_a = sum(1 for r in rows if r.a and is_unstable(summarize(r.a)))
    unstable_b = sum(1 for r in rows if r.b and is_unstable(summarize(r.b)))
    return Repeatability(rows, within, unstable_a, unstable_b)


def format_repeatability(rep: Repeatability, label_a: str, label_b: str) -> str:
    """Markdown: the summary figures, then one line per cell."""
    n = len(rep.rows)

    def pct(k: int) -> str:
        return f"{k} of {n} ({k / n * 100:.0f}%)" if n else "0 of 0"

    lines = [
        "# Repeatability: the same rounds run twice, back to back",
        "",
        f"A = `{label_a}`, B = `{label_b}`; each cell judged by its round's metric.",
        "",
        f"- cells compared: {n}",
        f"- medians within {rep.within * 100:.0f}% of each other: {pct(len(rep.close))}",
        f"- no significant difference (Mann-Whitney U, p >= {ALPHA}): {pct(len(rep.same))}",
        f"- cells flagged unstable (the median's 95% CI reaching more than ±{UNSTABLE_CI * 100:g}% from it): "
        f"A {pct(rep.unstable_a)}, B {pct(rep.unstable_b)}",
        "",
        "| cell | unit | A median | B median | B / A [95% CI] | p | within | same |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rep.rows:
        ci = f" [{r.ci[0]:.3f}, {r.ci[1]:.3f}]" if r.ci else ""
        p = "" if r.p is None else f"{r.p:.3g}"
        within = "yes" if abs(r.ratio - 1.0) <= rep.within else "**no**"
        same = "yes" if not r.significant else "**no**"
        lines.append(
            f"| {r.name} | {r.unit} | {_num(median(r.a))} | {_num(median(r.b))} | {r.ratio:.3f}{ci} | {p} "
            f"| {within} | {same} |"
        )
    return "\n".join(lines) + "\n"
