"""Each series' history and the changes in it that exceed its noise.

A series is one (round, variant, size, machine fingerprint, runtimes, unit);
each run of the suite gives it a point, that run's samples. The method
below fits levels to a series' run medians and flags a change between two
levels only when it exceeds both the series' noise and the margin (5%,
the decision rule's, unless `--margin` says otherwise: judge/decide.py).
The method uses the standard library only (the pictures use matplotlib);
a flag can be checked by hand from the page's table and the formulas here.

The method
----------

1. Each point i has a median m_i of its samples and, where it has at
   least 2 positive samples x, the standard error of that median in log
   space (a relative error) from its own samples: s_i = sqrt(pi/2) *
   1.4826 * MAD(ln x) / sqrt(k) over its k samples; s_i = 0 (unknown) with
   fewer. Points without a positive median are left out of the fit (the
   indices still count them). All of the fit is on y_i = ln m_i.

2. A segmentation cuts the n points into K segments of consecutive points,
   each of at least MIN_SEGMENT = 2 points: one odd run is never a level of
   its own, and a change in the newest run is flagged once a second run
   confirms it. Given one:

   - a segment's level is the median of its y; "before" and "after" on the
     page are exp of the levels either side (a segment's median run
     median), the ratio is after / before, d = ln(ratio);
   - the series' noise sigma is the larger of two robust standard
     deviations, each the mean of the smallest MARGIN09_ (at least one)
     of m absolute values divided by 0.6573 (that mean for a standard
     normal's |Z|, TRIM_MEAN): of the n residuals |y_i - its segment's
     level|, times sqrt(n / (n - K)) for the K levels fitted to them; and
     of the n - 1 successive differences |y_(i+1) - y_i| of the whole
     series, divided by sqrt(2). The second does not depend on the
     segmentation, so a search that found levels in noise cannot shrink
     the noise it is tested against; trimming the largest tenth keeps the
     steps themselves and an odd slow run out of both;
   - each point's noise is tau_i = max(sigma, s_i), never below what its
     own samples say; a segment's level has the variance V = (pi/2) *
     mean(tau_i^2) / n_seg over its n_seg points (a median's);
   - the change between two adjacent segments has the standard error
     e = sqrt(V_before + V_after) and the threshold T = max(ln(1 + margin),
     Z * e), Z = 3.25. It passes when its size exceeds T: the size is
     |d|, except that a segment of fewer than 3 points (whose median is a
     mean, moved by one odd run) counts at its point nearest to the other
     level, so both of its points must clear T. The page's threshold is
     exp(T) - 1: a flagged ratio lies above 1 + threshold or below
     1 / (1 + threshold); "noise" or "margin" says which set it.

3. The search, binary segmentation on ranks: a segment of at least
   2 * MIN_SEGMENT points is split where the Kruskal-Wallis statistic of
   its two parts (the ranks of y within the segment, ties at their mean
   rank; with two parts the square of the standardised Mann-Whitney U) is
   largest, the earliest such place; the split is kept if its change
   passes the test of 2 in the segmentation it makes. If not, and the
   segment has at least 3 * MIN_SEGMENT points, its split into three parts
   with the largest Kruskal-Wallis statistic is kept if both of its
   changes pass: a level that comes and goes (a regression fixed later)
   leaves the outer parts' median where it was, which no split in two
   sees. Each part kept is searched again, oldest first.

4. The search proposes; the check decides. On the segmentation found, sigma
   is computed again and every change tested as in 2; while any fails, the
   one with the least size / T is removed (its two segments merged) and
   all are tested again. So every change on the page passes the test of 2
   against the segmentation it is shown with.

A change's kind comes from the series' `better`: a ratio above 1 is a
regression where lower is better, an improvement where higher is.

What it gives, measured by tests/test_store_trends.py's series (20 run
medians of uniform noise in [0.95, 1.05], and the same with a 10% step at
the middle), seeds 0 to 199: a false flag in 1 series of 200 (0.5%), the
step found within one point in 182 (91%), its ratio 1.05 to 1.16 (median
1.10). Over 5,000 other seeds the rates are 2.0% and 94%. The limit is
the medians': the median of ten such points is uncertain by about ±1.4%
(uniform noise is the median's worst case), so the two halves' medians
differ by 5% or more by chance in a few series in a hundred, and a 10%
step shows as less than 6.5% in a few; Z and the margin are chosen so that
false flags stay at or under 2%. With more points it does better (40
points: 1.1% and 99.7%). A 3% step is below the margin and never flagged;
2 + 2 points with tight samples flag a 20% step, with samples spread over
a factor of three they do not.

Layer: the store; imports results (stats, charts, textfmt) only.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from statistics import NormalDist
from typing import Optional, Sequence

from ..results import charts, stats
from ..judge import decide
from . import _page
from ..results.textfmt import fmt_unit

MARGIN = decide.MARGIN  # the smallest relative change flagged, whatever the noise: the rule's margin
Z = 3.25  # standard errors of the difference of two levels a change must exceed
MIN_SEGMENT = 2  # the fewest points a level is fitted to
MAD_SD = 1.4826  # a normal distribution's standard deviation over its MAD
TRIM = 0.9  # the share of the smallest absolute deviations a noise scale is the mean of
# E|Z| over the smallest TRIM of a standard normal's |Z|: 2 (phi(0) - phi(q)) / TRIM, q its TRIM quantile
TRIM_MEAN = 2 * (NormalDist().pdf(0) - NormalDist().pdf(NormalDist().inv_cdf(0.5 + TRIM / 2))) / TRIM
MEDIAN_VAR = math.pi / 2  # a median's variance over a mean's, for normal noise
INTERVAL_Z = 1.96  # the whiskers of the pictures: a median's 95% interval
MAX_LINES = 12  # series drawn in one picture
MAX_PICTURES = 30  # pictures on one page


@dataclass
class Point:
    date: str  # ISO 8601 UTC date of the run
    values: list  # that run's samples of the series (floats, the series' unit)
    source: str  # where it came from, e.g. "results.txt sha256 1a2b3c4d5e6f section 1"


@dataclass
class Series:
    round: str
    variant: str
    size: str
    machine: str
    runtimes: str
    unit: str
    better: str  # "lower" | "higher"
    points: list  # list[Point], in date order

    @property
    def key(self) -> tuple:
        return series_key(self)

    @property
    def label(self) -> str:
        return " · ".join(p for p in (self.round, self.variant, self.size) if p)


@dataclass
class Change:
    index: int  # the first point after the change
    before: float  # median level of the segment before
    after: float  # median level of the segment after
    ratio: float  # after / before
    threshold: float  # the relative size the change had to exceed: exp(max(ln(1 + margin), z * se)) - 1
    kind: str  # "regression" | "improvement" (from better)
    noise: float = 0.0  # sigma: the series' noise per point, log (relative)
    se: float = 0.0  # e: the standard error of the log difference of the two levels
    z: float = Z
    margin: float = MARGIN
    start: int = 0  # the first point of the segment before
    end: int = 0  # one past the last point of the segment after

    @property
    def by_noise(self) -> bool:
        """Whether the noise, not the margin, set the threshold."""
        return self.z * self.se > math.log1p(self.margin)


def series_key(s: Series) -> tuple:
    return (s.round, s.variant, s.size, s.machine, s.runtimes, s.unit)


# ---- the method -----------------------------------------------------------------------------


def point_median(values: Sequence[float]) -> Optional[float]:
    """The median of a point's finite samples; None without any."""
    xs = [float(v) for v in values if v is not None and math.isfinite(v)]
    return stats.median(xs) if xs else None


def point_spread(values: Sequence[float]) -> Optional[float]:
    """The standard error of a point's median in log space (a relative
    error) from its own samples: sqrt(pi/2) * 1.4826 * MAD(ln x) / sqrt(k)
    over its k positive finite samples; None with fewer than 2."""
    logs = [math.log(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    if len(logs) < 2:
        return None
    mid = statistics.median(logs)
    mad = statistics.median(abs(v - mid) for v in logs)
    return math.sqrt(MEDIAN_VAR) * MAD_SD * mad / math.sqrt(len(logs))


def trimmed_scale(absolutes: Sequence[float]) -> float:
    """A robust standard deviation from absolute deviations: the mean of
    the smallest MARGIN_TRIM_ * m) of the m values (at least one) over
    TRIM_MEAN, that mean for a standard normal's |Z|. 0 for no values."""
    v = sorted(absolutes)
    if not v:
        return 0.0
    keep = max(1, math.floor(TRIM * len(v)))
    return math.fsum(v[:keep]) / keep / TRIM_MEAN


def _ranks(v: list) -> list:
    """Prefix sums of the ranks of v among themselves, ties at their mean rank."""
    order = sorted(range(len(v)), key=v.__getitem__)
    rank = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for t in range(i, j + 1):
            rank[order[t]] = (i + j) / 2 + 1
        i = j + 1
    pre = [0.0]
    for r in rank:
        pre.append(pre[-1] + r)
    return pre


def _kruskal_wallis(pre: list, edges: Sequence[int]) -> float:
    """The Kruskal-Wallis statistic H of a segment's parts (edges: their
    starts and the end, relative to the segment) from the prefix sums of
    its ranks: 12 / (n (n + 1)) * sum(R_k^2 / n_k) - 3 (n + 1). With two
    parts it is the square of the standardised Mann-Whitney U."""
    n = len(pre) - 1
    total = math.fsum((pre[b] - pre[a]) ** 2 / (b - a) for a, b in zip(edges, edges[1:]))
    return 12 / (n * (n + 1)) * total - 3 * (n + 1)


@dataclass
class _Fit:
    levels: list  # per segment, the median of its y
    bounds: list  # per segment, (start, end) into the fitted points
    sigma: float
    var: list  # per segment, the variance of its level


class _Detector:
    def __init__(self, y: list, s: list, margin: float, z: float):
        self.y, self.s, self.margin, self.z = y, s, margin, z
        self.log_margin = math.log1p(margin)

    def sigma(self, bounds: list, levels: list) -> float:
        """The series' noise: the larger of the residuals' scale about the
        levels and the successive differences' (the docstring's 2)."""
        n = len(self.y)
        resid = [abs(self.y[i] - lv) for (a, b), lv in zip(bounds, levels) for i in range(a, b)]
        steps = [abs(self.y[i + 1] - self.y[i]) for i in range(n - 1)]
        return max(
            trimmed_scale(resid) * math.sqrt(n / (n - len(bounds))),
            trimmed_scale(steps) / math.sqrt(2),
        )

    def fit(self, cuts: list) -> _Fit:
        n = len(self.y)
        edges = [0, *sorted(cuts), n]
        bounds = list(zip(edges, edges[1:]))
        levels = [statistics.median(self.y[a:b]) for a, b in bounds]
        sigma = self.sigma(bounds, levels)
        var = [
            MEDIAN_VAR * math.fsum(max(sigma, self.s[i]) ** 2 for i in range(a, b)) / (b - a) / (b - a)
            for a, b in bounds
        ]
        return _Fit(levels, bounds, sigma, var)

    def test(self, f: _Fit, k: int) -> tuple:
        """The change between segments k and k + 1: (d, e, T, m), m the
        size the test compares with T: |d|, or where a segment has fewer
        than 3 points, the distance to the other level of its point nearest
        to it (0 when that point lies on the other side)."""
        d = f.levels[k + 1] - f.levels[k]
        e = math.sqrt(f.var[k] + f.var[k + 1])
        lo, hi = f.levels[k], f.levels[k + 1]
        (a, b), (c, g) = f.bounds[k], f.bounds[k + 1]
        if b - a < 3:
            lo = max(self.y[a:b]) if d > 0 else min(self.y[a:b])
        if g - c < 3:
            hi = min(self.y[c:g]) if d > 0 else max(self.y[c:g])
        m = abs(hi - lo) if (hi - lo) * d > 0 else 0.0
        return d, e, max(self.log_margin, self.z * e), m

    def passes(self, cuts: list, new: tuple) -> bool:
        f = self.fit(cuts)
        starts = [a for a, _ in f.bounds]
        for c in new:
            _, _, t, m = self.test(f, starts.index(c) - 1)
            if not m > t:
                return False
        return True

    def best2(self, a: int, b: int) -> Optional[int]:
        pre = _ranks(self.y[a:b])
        best = None
        for k in range(MIN_SEGMENT, b - a - MIN_SEGMENT + 1):
            h = _kruskal_wallis(pre, (0, k, b - a))
            if h > 1e-9 and (best is None or h > best[0]):
                best = (h, a + k)
        return best[1] if best else None

    def best3(self, a: int, b: int) -> Optional[tuple]:
        pre = _ranks(self.y[a:b])
        best = None
        for i in range(MIN_SEGMENT, b - a - 2 * MIN_SEGMENT + 1):
            for j in range(i + MIN_SEGMENT, b - a - MIN_SEGMENT + 1):
                h = _kruskal_wallis(pre, (0, i, j, b - a))
                if h > 1e-9 and (best is None or h > best[0]):
                    best = (h, a + i, a + j)
        return best[1:] if best else None

    def search(self) -> list:
        cuts: set = set()
        todo = [(0, len(self.y))]
        while todo:
            a, b = todo.pop(0)
            kept: tuple = ()
            k = self.best2(a, b)
            if k is not None and self.passes([*cuts, k], (k,)):
                kept = (k,)
            elif b - a >= 3 * MIN_SEGMENT:
                ij = self.best3(a, b)
                if ij is not None and self.passes([*cuts, *ij], ij):
                    kept = ij
            if kept:
                cuts.update(kept)
                edges = [a, *kept, b]
                todo.extend(zip(edges, edges[1:]))
        return sorted(cuts)

    def prune(self, cuts: list) -> _Fit:
        cuts = sorted(cuts)
        while True:
            f = self.fit(cuts)
            failing = []
            for k in range(len(f.levels) - 1):
                _, _, t, m = self.test(f, k)
                if not m > t:
                    failing.append((m / t, k))
            if not failing:
                return f
            del cuts[min(failing)[1]]


def detect(
    medians: Sequence[Optional[float]],
    spreads: Optional[Sequence[Optional[float]]] = None,
    margin: float = MARGIN,
    better: str = "lower",
    z: float = Z,
) -> list:
    """The changes (list[Change]) in a series of run medians, by the method
    of this module's docstring. spreads: per point the relative standard
    error of its median from its own samples (None where unknown); better:
    "lower" or "higher", which way the series' unit is better; z: the Z
    of the docstring. Medians
    that are None, not finite or not positive are left out of the fit;
    Change.index counts every point given."""
    keep = [i for i, m in enumerate(medians) if m is not None and math.isfinite(m) and m > 0]
    if len(keep) < 2 * MIN_SEGMENT:
        return []
    y = [math.log(medians[i]) for i in keep]
    s = []
    for i in keep:
        v = spreads[i] if spreads is not None and i < len(spreads) else None
        s.append(v if v is not None and math.isfinite(v) and v > 0 else 0.0)
    det = _Detector(y, s, margin, z)
    f = det.prune(det.search())
    out = []
    for k in range(len(f.levels) - 1):
        d, e, t, _ = det.test(f, k)
        ratio = math.exp(d)
        worse = ratio > 1 if better == "lower" else ratio < 1
        out.append(
            Change(
                index=keep[f.bounds[k + 1][0]],
                before=math.exp(f.levels[k]),
                after=math.exp(f.levels[k + 1]),
                ratio=ratio,
                threshold=math.expm1(t),
                kind="regression" if worse else "improvement",
                noise=f.sigma,
                se=e,
                z=z,
                margin=margin,
                start=keep[f.bounds[k][0]],
                end=keep[f.bounds[k + 1][1] - 1] + 1,
            )
        )
    return out


def medians_spreads(series: Series) -> tuple:
    """Per point of the series, its median and the standard error of it
    (point_median, point_spread)."""
    return [point_median(p.values) for p in series.points], [point_spread(p.values) for p in series.points]


def changes(series: Series, margin: float = MARGIN) -> list:
    """detect() on the series' points: their medians and spreads from their samples."""
    meds, spreads = medians_spreads(series)
    return detect(meds, spreads, margin=margin, better=series.better)


# ---- the page -------------------------------------------------------------------------------


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _found(found: dict, i: int, s: Series) -> list:
    if i in found:
        return list(found[i])
    return list(found.get(series_key(s), []))


def _lead(series_list: list, found: dict, margin: float) -> str:
    flagged = [c for i, s in enumerate(series_list) for c in _found(found, i, s)]
    worse = sum(1 for c in flagged if c.kind == "regression")
    return (
        "Each series' run medians are fitted in log space with piecewise-constant levels (binary segmentation on "
        f"ranks, levels of at least {MIN_SEGMENT} runs), and a change between two levels is flagged "
        f"when their ratio exceeds both the margin of {_pct(margin)} and {Z:g} standard errors of their difference, "
        "the noise taken from the series' own scatter (about its levels and from run to run) and never below what each "
        "run's samples say about its median (the method in full: `roundbench.store.trends`). "
        f"{len(series_list)} series, {len(flagged)} change(s) flagged: {worse} regression(s), "
        f"{len(flagged) - worse} improvement(s)."
    )


def _changes_table(series_list: list, found: dict) -> str:
    rows = [
        "| series | machine | runtimes | first run after | before → after | ratio | threshold | change | source |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    n = 0
    for i, s in enumerate(series_list):
        for c in _found(found, i, s):
            p = s.points[c.index] if 0 <= c.index < len(s.points) else None
            rows.append(
                _row(
                    s,
                    p.date if p else "—",
                    f"{fmt_unit(c.before, s.unit)} → {fmt_unit(c.after, s.unit)} {s.unit}",
                    f"×{c.ratio:.3f}",
                    f"{_pct(c.threshold)} ({'noise' if c.by_noise else 'margin'})",
                    f"{c.kind} ({s.better} is better)",
                    p.source if p else "—",
                )
            )
            n += 1
    if not n:
        return "No change exceeds its series' noise and the margin."
    return "\n".join(rows)


def _row(s: Series, *rest) -> str:
    """A table row that begins with the series, its machine and runtimes."""
    return "| " + " | ".join(_cell(v) for v in (s.label, s.machine[:12], s.runtimes or "—", *rest)) + " |"


def _series_table(series_list: list, found: dict) -> str:
    rows = [
        "| series | machine | runtimes | unit | points | first | last | last median | changes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(series_list):
        meds = [m for m in medians_spreads(s)[0] if m is not None]
        flags = []
        for c in _found(found, i, s):
            p = s.points[c.index] if 0 <= c.index < len(s.points) else None
            flags.append(f"{c.kind} {p.date if p else c.index} ×{c.ratio:.3f}")
        rows.append(
            _row(
                s,
                f"{s.unit} ({s.better} is better)",
                len(s.points),
                s.points[0].date if s.points else "—",
                s.points[-1].date if s.points else "—",
                fmt_unit(meds[-1], s.unit) if meds else "—",
                "; ".join(flags) or "none",
            )
        )
    return "\n".join(rows)


def _sections(series_list: list, found: dict, margin: float) -> list:
    """(heading, Markdown) of the page before its pictures."""
    return [
        ("", _lead(series_list, found, margin)),
        ("Changes flagged", _changes_table(series_list, found)),
        ("Every series", _series_table(series_list, found)),
    ]


def markdown(
    series_list: list, found: dict, figures: Sequence = (), margin: float = MARGIN, notes: Sequence = ()
) -> str:
    """trends.md: the lead, the changes flagged, every series, the pictures
    (charts.Figure, their files beside the page) and the notes. found:
    series index (or series_key) -> list[Change]."""
    out = ["# Trends: each series' history, its changes flagged", ""]
    for heading, text in _sections(series_list, found, margin):
        if heading:
            out += [f"## {heading}", ""]
        out += [text, ""]
    if notes:
        out += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    if figures:
        out += ["## Pictures", ""]
        for f in figures:
            out += [f"![{f.title}]({Path(f.path).name})", "", f"*{f.caption}*", ""]
    return "\n".join(out).rstrip() + "\n"


def render_html(series_list: list, found: dict, figures: Sequence = (), margin: float = MARGIN, notes=()) -> str:
    """trends.html: the page of markdown() in one self-contained file.
    Raises ImportError without jinja2 or markdown-it-py."""
    return _page.html(
        "roundbench trends",
        "Trends: each series' history, its changes flagged",
        _sections(series_list, found, margin),
        figures,
        notes,
    )


# ---- the pictures ---------------------------------------------------------------------------


def _when(date: str) -> Optional[datetime]:
    try:
        t = datetime.fromisoformat(date.strip().replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _ratio_ticks(ax, lo: float, hi: float) -> None:
    """Plain ticks on the log y axis of ratios to the first point: steps of
    1, 2, 5 hundredths and up, no more than 8 of them; decades beyond 10x."""
    # matplotlib loads only when the picture is drawn
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    if hi / lo > charts.SPREAD_LOG:
        charts.log_axis(ax, "y", hi / lo)
        return
    for step in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0):
        ticks = [k * step for k in range(math.ceil(lo / step), math.floor(hi / step) + 1) if k > 0]
        if len(ticks) <= 8:
            break
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


KIND_COLOURS = {"regression": "#d62728", "improvement": "#2ca02c"}


def _groups(series_list: list, found: dict) -> list:
    """(round, machine, runtimes) -> series indices, those with changes
    first; the groups with changes first, at most MAX_PICTURES."""
    groups: dict = {}
    for i, s in enumerate(series_list):
        groups.setdefault((s.round, s.machine, s.runtimes), []).append(i)
    flagged = {i for i, s in enumerate(series_list) if _found(found, i, s)}
    ordered = sorted(groups.items(), key=lambda kv: not any(i in flagged for i in kv[1]))
    return [(key, sorted(idx, key=lambda i: i not in flagged)) for key, idx in ordered]


def draw(series_list: list, found: dict, out_dir: Path) -> tuple:
    """trends-<n>.png in out_dir, one per (round, machine, runtimes): each
    series' run medians against date, normalised to its first point, on a
    log axis, each median's 95% interval (its samples' standard error times
    1.96) as whiskers, the first point after each flagged change ringed.
    Returns (list of charts.Figure, notes). Raises ImportError without
    matplotlib."""
    plt = charts.pyplot()
    out_dir = Path(out_dir)
    groups = _groups(series_list, found)
    notes = []
    if len(groups) > MAX_PICTURES:
        notes.append(f"pictures of {len(groups) - MAX_PICTURES} of {len(groups)} groups left out (no changes first)")
    figures = []
    for n, ((rnd, machine, rt), idx) in enumerate(groups[:MAX_PICTURES], 1):
        drawn = []
        for i in idx:
            meds, spreads = medians_spreads(series_list[i])
            if sum(1 for m in meds if m is not None and m > 0) >= 1:
                drawn.append((i, meds, spreads))
        if not drawn:
            continue
        left = len(drawn) - MAX_LINES
        drawn = drawn[:MAX_LINES]
        dated = all(_when(series_list[i].points[k].date) for i, meds, _ in drawn for k in range(len(meds)))
        fig, ax = plt.subplots(figsize=(8.5, 4.8))
        lo, hi = 1.0, 1.0
        for j, (i, meds, spreads) in enumerate(drawn):
            s = series_list[i]
            ks = [k for k, m in enumerate(meds) if m is not None and m > 0]
            base = meds[ks[0]]
            xs = [_when(s.points[k].date) if dated else k for k in ks]
            ys = [meds[k] / base for k in ks]
            below = [y * -math.expm1(-INTERVAL_Z * (spreads[k] or 0.0)) for y, k in zip(ys, ks)]
            above = [y * math.expm1(INTERVAL_Z * (spreads[k] or 0.0)) for y, k in zip(ys, ks)]
            lo = min(lo, *(y - b for y, b in zip(ys, below)))
            hi = max(hi, *(y + a for y, a in zip(ys, above)))
            ax.errorbar(
                xs,
                ys,
                yerr=[below, above],
                marker=charts.MARKERS[j % len(charts.MARKERS)],
                markersize=3.5,
                capsize=2,
                linewidth=1,
                elinewidth=0.8,
                label=f"{s.variant} {s.size} ({s.unit}, {s.better} is better)".replace("  ", " "),
            )
            for c in _found(found, i, s):
                if c.index in ks:
                    at = ks.index(c.index)
                    ax.scatter(
                        [xs[at]],
                        [ys[at]],
                        s=160,
                        facecolors="none",
                        edgecolors=KIND_COLOURS.get(c.kind, "#000000"),
                        linewidths=1.6,
                        zorder=4,
                    )
        ax.set_yscale("log")
        lo = max(lo, 1e-9)
        ax.set_ylim(lo / 1.02, hi * 1.02)
        _ratio_ticks(ax, lo / 1.02, hi * 1.02)
        if dated:
            # matplotlib loads only when the picture is drawn
            from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

            loc = AutoDateLocator()
            ax.xaxis.set_major_locator(loc)
            ax.xaxis.set_major_formatter(ConciseDateFormatter(loc))
        else:
            ax.set_xlabel("run")
        ax.set_ylabel("median / the first run's median")
        ax.grid(alpha=0.3)
        where = f"{rnd} · machine {machine[:12]} · {rt or 'no runtime (C)'}"
        ax.set_title(f"{where}\nrings: the first run after a change (red: regression, green: improvement)", fontsize=9)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=7, frameon=False)
        fig.subplots_adjust(left=0.1, right=0.97, top=0.88, bottom=0.16 + 0.035 * ((len(drawn) + 1) // 2))
        path = out_dir / f"trends-{n}.png"
        fig.savefig(path, dpi=charts.DPI)
        plt.close(fig)
        more = f"; {left} more series of this group not drawn" if left > 0 else ""
        figures.append(
            charts.Figure(
                f"trends-{n}",
                f"{where}: run medians over time",
                f"{where}: each series' run medians against the run's date, relative to its first run, on a log axis; "
                "whiskers: each median's 95% interval from its own samples; rings: the first run after a flagged "
                f"change{more}.",
                path,
                round=rnd,
            )
        )
    return figures, notes


def write_page(series_list: list, out_dir, margin: float = MARGIN) -> list:
    """trends.md, trends.html (self-contained) and trends-<n>.png in
    out_dir; returns their paths, trends.md first. Without matplotlib the
    page says it has no pictures; without jinja2 or markdown-it-py it has
    no HTML and the Markdown says so."""
    found = {i: changes(s, margin) for i, s in enumerate(series_list)}
    return _page.write(
        out_dir,
        "trends",
        lambda d: draw(series_list, found, d),
        lambda figures, notes: render_html(series_list, found, figures, margin, notes),
        lambda figures, notes: markdown(series_list, found, figures, margin, notes),
        [],
    )
