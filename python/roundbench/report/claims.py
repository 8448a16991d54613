"""The published claims, checked against a result set.

The claims and the cells that measure each are data (data/claims.tsv, whose
header defines the columns and the verdicts); this module reads them,
finds each quantity's runs, and judges every claim by one rule, whose
interval is the suite's decision rule's (judge/decide.py: every claim of
the table judged together, the false-discovery rate held across them):

  reproduced                      this run's ratio r is within a factor
                                  REPRODUCED (1.5) of the published ratio p
  same direction, different size  not reproduced, but r is *faster* by the
                                  rule in p's direction (its interval lies
                                  beyond the margin, on p's side of 1)
  not reproduced                  otherwise
  not measured here               a quantity has no runs here
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Optional

from .. import runtimes
from ..judge import decide
from ..results.stats import median
from ..results import charts

REPRODUCED = 1.5
VERDICTS = ("reproduced", "same direction, different size", "not reproduced", "not measured here")


@dataclass(frozen=True)
class Quantity:
    """ROUND VARIANT [KEY=VALUE ...] UNIT."""

    round: str
    impl: str
    params: tuple  # ((key, value), ...)
    unit: str

    def label(self) -> str:
        where = " ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.round} {self.impl}" + (f" ({where})" if where else "")


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    published: str
    ratio: Optional[float]
    numerator: tuple  # alternatives, each a Quantity
    denominator: tuple
    why: str


@dataclass
class Found:
    quantity: Quantity
    values: list
    median: float
    size: tuple  # the cell's parameters


@dataclass
class Checked:
    claim: Claim
    verdict: str
    num: Optional[Found] = None
    den: Optional[Found] = None
    ratio: Optional[float] = None
    ci: Optional[tuple] = None
    notes: list = field(default_factory=list)  # why this run's figure is what it is

    @property
    def against_published(self) -> Optional[float]:
        if self.ratio is None or not self.claim.ratio:
            return None
        return self.ratio / self.claim.ratio

    def this_run(self) -> str:
        """This run's figures, in the claim's order, and their ratio."""
        if self.num is None or self.den is None:
            return "—"
        a, b = self.num, self.den
        ci = f" [{_r(self.ci[0])}, {_r(self.ci[1])}]" if self.ci else ""
        return (
            f"{quantity_text(a.median, a.quantity.unit)} vs {quantity_text(b.median, b.quantity.unit)} "
            f"(ratio {_r(self.ratio)}{ci})"
        )

    def why(self) -> str:
        """One line of why: shown beside any verdict but reproduced, and
        whenever this run measured something else than the claim names."""
        parts = list(self.notes)
        if self.verdict not in ("reproduced", "not measured here") and self.claim.why:
            parts.append(self.claim.why)
        return "; ".join(parts)


def _r(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


TIME_UNITS = {
    "ns/op",
    "overhead-ns",
    "setup-ns",
    "pass-ns",
    "teardown-ns",
    "first-ns",
    "second-ns",
    "t1-ns",
    "compile-ns",
    "import-ns",
}


def quantity_text(x: float, unit: str) -> str:
    """A median in words a reader compares with the published figure:
    times in s, ms, µs or ns; bytes in MB (10^6, as published figures are)."""
    if unit in TIME_UNITS or unit == "ms":
        ns = x * 1e6 if unit == "ms" else x
        for scale, name in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
            if abs(ns) >= scale:
                return f"{ns / scale:.3g} {name}"
        return f"{ns:.3g} ns"
    if unit.endswith("-B"):
        return f"{x / 1e6:.3g} MB"
    if x >= 1000:
        return f"{x:,.0f} {unit}"
    return f"{x:.3g} {unit}"


# ---- the data file -------------------------------------------------------------------


def _quantity(text: str, where: str) -> Quantity:
    words = text.split()
    if len(words) < 3:
        raise ValueError(f"{where}: {text!r}: want ROUND VARIANT [KEY=VALUE ...] UNIT")
    params = []
    for kv in words[2:-1]:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise ValueError(f"{where}: {kv!r} in {text!r} is no KEY=VALUE")
        params.append((k, v))
    return Quantity(words[0], words[1], tuple(params), words[-1])


def _side(text: str, where: str) -> tuple:
    return tuple(_quantity(alt, where) for alt in text.split(" | "))


def parse(text: str, source: str = "claims.tsv") -> list:
    """The claims of a claims.tsv text; a malformed row raises ValueError
    naming its line."""
    out = []
    seen = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{source}:{number}"
        cols = line.split("\t")
        if len(cols) != 6:
            raise ValueError(f"{where}: {len(cols)} columns; want 6 (id, claim, published, ratio, measure, why)")
        cid, claim, published, ratio, measure, why = (c.strip() for c in cols)
        if cid in seen:
            raise ValueError(f"{where}: claim {cid!r} is listed twice")
        seen.add(cid)
        if measure == "-":
            out.append(Claim(cid, claim, published, None, (), (), why))
            continue
        try:
            r = float(ratio)
        except ValueError:
            raise ValueError(f"{where}: ratio {ratio!r} is not a number") from None
        if not r > 0:
            raise ValueError(f"{where}: ratio {ratio!r} must be above 0")
        num, sep, den = measure.partition(" ÷ ")
        if not sep:
            raise ValueError(f"{where}: measure {measure!r}: want NUMERATOR ÷ DENOMINATOR")
        out.append(Claim(cid, claim, published, r, _side(num, where), _side(den, where), why))
    return out


def load() -> list:
    text = resources.files("roundbench").joinpath("data/claims.tsv").read_text(encoding="utf-8")
    return parse(text)


# ---- judging -------------------------------------------------------------------------


def runtime_pick(pick: dict, rs) -> dict:
    """A view's runtimes (runtimes.view: kind -> label), completed from its
    provenance where the run did not vary a kind: the installed Go
    (go-version) and the children's CPython, so that a claim naming
    `go=1.26` finds a plain run made with Go 1.26."""
    out = dict(pick)
    if runtimes.GO not in out and runtimes.config_go(rs):
        out[runtimes.GO] = runtimes.config_go(rs)
    if runtimes.PYTHON not in out:
        cpython = runtimes.cpython_of(rs, {})
        if cpython:
            out[runtimes.PYTHON] = f"cpython-{cpython}"
    return out


def _find(grouped: dict, q: Quantity, views: Optional[list] = None) -> tuple:
    """(Found or None, why not): the first cell of q's round whose
    parameters include q's and that has runs of q.impl in q.unit. A
    runtime key among q's parameters (go=1.26, python=pypy) picks the view
    of that runtime (views: [(its runtimes, its grouped results)], the
    newest pair first); a quantity that names none is looked for in the
    newest pair's results, then under the other runtimes, and `Found.size`
    then names the runtime it ran under."""
    rest, rt = runtimes.of_params(dict(q.params))
    if views and (rt or not _in(grouped, q)):
        why = ""
        for pick, g in views:
            if all(k in pick and runtimes.matches(pick[k], v, k) for k, v in rt.items()):
                plain = Quantity(q.round, q.impl, tuple(rest.items()), q.unit)
                found, why_here = _find(g, plain)
                if found is not None:
                    kinds = rt or [runtimes.GO if q.impl.startswith("go") else runtimes.PYTHON]
                    shown = {k: pick[k] for k in kinds if k in pick}
                    found.size = tuple(found.size) + tuple(shown.items())
                    return found, ""
                why = why or why_here
        if rt:
            named = ", ".join(f"{k}={v}" for k, v in rt.items())
            plain = Quantity(q.round, q.impl, tuple(rest.items()), q.unit)
            return None, why or f"no runs of {plain.label()} under {named} in these results"
    sizes = grouped.get(q.round)
    if not sizes:
        return None, f"the {q.round} round is not in these results"
    want = _want(q, sizes)
    skip = None
    for size, cells in sizes.items():
        have = dict(size)
        if any(have.get(k) != v for k, v in want.items()):
            continue
        c = cells.get(q.impl)
        if c is None:
            continue
        values = c.values(q.unit)
        if values:
            return Found(q, values, median(values), size), ""
        if c.skip:
            skip = f"{q.impl} did not run: {c.skip}"
        elif c.failures:
            skip = f"{q.impl} failed: {c.failures[-1].reason}"
    return None, skip or f"no runs of {q.label()} in these results"


def _want(q: Quantity, sizes: dict) -> dict:
    """q's parameters, with KEY=max read as the largest value of KEY among
    the round's cells (workers=max: every usable CPU, whatever the machine)."""
    want = dict(q.params)
    for k, v in want.items():
        if v == "max":
            have = [int(dict(size)[k]) for size in sizes if str(dict(size).get(k, "")).isdigit()]
            if have:
                want[k] = str(max(have))
    return want


def _in(grouped: dict, q: Quantity) -> bool:
    """Whether q has runs in these grouped results."""
    want = _want(q, grouped.get(q.round, {}))
    for size, cells in grouped.get(q.round, {}).items():
        have = dict(size)
        c = cells.get(q.impl)
        if c is not None and not any(have.get(k) != v for k, v in want.items()) and c.values(q.unit):
            return True
    return False


def _side_found(grouped: dict, alternatives: tuple, notes: list, views: Optional[list] = None) -> tuple:
    first_why = ""
    for i, q in enumerate(alternatives):
        found, why = _find(grouped, q, views)
        if found is not None:
            if i > 0:
                first = alternatives[0]
                what = f"the published program {first.impl}" if first.impl.endswith("-published") else first.label()
                notes.append(f"{what} has no runs here: measured with {q.label()} instead")
            if "fit" in dict(found.size):
                n = dict(found.size).get("n", "?")
                n = f"{int(n):,}" if str(n).isdigit() else n
                notes.append(
                    f"{q.impl} ran in the fit=1 cell, at N = {n} or the largest N this machine holds, "
                    "not at the claim's N: the ratio is not like for like"
                )
            if views and not runtimes.of_params(dict(q.params))[1]:
                ran = dict(found.size).get(runtimes.PYTHON)
                if ran and not ran.startswith("cpython"):
                    notes.append(f"{q.impl} ran under {runtimes.describe(runtimes.PYTHON, ran)}")
            return found, ""
        first_why = first_why or why
    return None, first_why


def verdict(ratio: float, decision: Optional[decide.Decision], published: float) -> str:
    """The rule in the module's doc; decision is num against den, as how
    many times num's figure is den's (decide.evidence with better
    "higher": its ratio is num / den)."""
    if 1 / REPRODUCED <= ratio / published <= REPRODUCED:
        return "reproduced"
    faster_as_published = (
        decision is not None
        and decision.outcome == decide.FASTER
        and (decision.winner == "a") == (published > 1)
        and published != 1
    )
    return "same direction, different size" if faster_as_published else "not reproduced"


def check(claim: Claim, grouped: dict, views: Optional[list] = None) -> Checked:
    """One claim against a result set (grouped as report.group gives it),
    its verdict and interval not yet given (check_all judges the claims
    together); views: the result set under each pair of runtimes that ran,
    [(runtimes, grouped)], for the claims that name a runtime or whose
    variant ran under another runtime only (_find)."""
    if claim.ratio is None:
        return Checked(claim, "not measured here", notes=["this suite has no cell that measures it"])
    notes: list = []
    num, why_n = _side_found(grouped, claim.numerator, notes, views)
    den, why_d = _side_found(grouped, claim.denominator, notes, views)
    if num is None or den is None:
        whys = [w for w in (why_n, why_d) if w]
        return Checked(claim, "not measured here", num, den, notes=notes + list(dict.fromkeys(whys)))
    ratio = num.median / den.median if den.median else math.inf
    return Checked(claim, "", num, den, ratio, None, notes)


def check_all(
    grouped: dict,
    rule: Optional[decide.Rule] = None,
    claims: Optional[list] = None,
    views: Optional[list] = None,
) -> list:
    """Every claim checked, those measured here judged together by `rule`."""
    out = [check(c, grouped, views) for c in (claims if claims is not None else load())]
    measured = [c for c in out if not c.verdict]
    # num against den as a ratio of figures, whichever way is better:
    # evidence's "higher" makes its ratio num / den.
    found = [decide.evidence({"num": c.num.values}, {"den": c.den.values}, "higher") for c in measured]
    for c, d in zip(measured, decide.judge(found, rule)):
        c.ci = d.ci
        c.verdict = verdict(c.ratio, d, c.claim.ratio)
    return out


def counts(checked: list) -> dict:
    out = {v: 0 for v in VERDICTS}
    for c in checked:
        out[c.verdict] += 1
    return out


def quantities(claims: list) -> list:
    """Every quantity the claims name (for the test that holds them to the
    rounds' declarations)."""
    return [q for c in claims for side in (c.numerator, c.denominator) for q in side]


__all__ = [
    "Checked",
    "Claim",
    "Quantity",
    "VERDICTS",
    "chart",
    "check",
    "check_all",
    "counts",
    "load",
    "parse",
    "verdict",
]


# ---- the picture ------------------------------------------------------------------

VERDICT_COLOURS = {
    "reproduced": "#2ca02c",
    "same direction, different size": "#ff7f0e",
    "not reproduced": "#d62728",
}


def chart(checked: list, out_dir: Path):
    """The claims' picture: each claim's measured ratio over its published
    one (a charts.Figure), or None when no claim has both."""
    rows = [c for c in checked if c.against_published is not None]
    if not rows:
        return None

    plt = charts.pyplot()
    # matplotlib loads only when the picture is drawn
    from matplotlib.patches import Patch

    heights = [0.27 * len(rows) + 0.2]
    width, height = 8.0, charts.TOP_IN + charts.BOTTOM_IN + 0.2 + heights[0]
    fig, ax = plt.subplots(figsize=(width, height))
    charts.layout(fig, width, height, 0.3 + charts.CHAR_IN * max(len(c.claim.id) for c in rows), heights)
    ys = list(range(len(rows)))[::-1]
    ax.axvspan(1 / REPRODUCED, REPRODUCED, color="#2ca02c", alpha=0.12)
    ax.axvline(1, color="#444444", linewidth=1)
    for y, c in zip(ys, rows):
        r = c.against_published
        err = None
        if c.ci:
            p = c.claim.ratio
            err = [[max(r - c.ci[0] / p, 0)], [max(c.ci[1] / p - r, 0)]]
        ax.errorbar(
            r,
            y,
            xerr=err,
            fmt="o",
            color=VERDICT_COLOURS.get(c.verdict, "#888888"),
            capsize=2,
            markeredgecolor="#222222",
            markeredgewidth=0.5,
        )
    ax.set_yticks(ys)
    ax.set_yticklabels([c.claim.id for c in rows])
    charts.log_axis(ax, "x")
    lo = min(min(c.against_published for c in rows), 1 / REPRODUCED) / 1.5
    hi = max(max(c.against_published for c in rows), REPRODUCED) * 1.5
    ax.set_xlim(lo, hi)
    ax.set_xlabel("this run's ratio ÷ the published ratio (1: as published; log scale)")
    ax.set_title(
        "Published claims: this run against the published figure\ncloser to 1 is better (as published); "
        f"the band (×{REPRODUCED:g} either way) counts as reproduced"
    )
    ax.grid(axis="x", alpha=0.3, which="both")
    charts.figure_legend(
        fig, [Patch(color=col, label=v) for v, col in VERDICT_COLOURS.items() if any(c.verdict == v for c in rows)]
    )
    return charts.figure(
        plt,
        fig,
        out_dir,
        "claims",
        "Published claims: measured ÷ published",
        "Each claim's ratio as measured here divided by its published ratio, with the 95% interval of this run's "
        "ratio; the shaded band is the factor within which a claim counts as reproduced.",
    )
