"""The report's pictures, drawn with matplotlib and written as PNG files
beside the report.

Every chart says in its title which way is better, carries its unit on the
axis, goes logarithmic where the values spread over more than SPREAD_LOG
(10×), and names its points without labels on top of each other: variants
sit on the category axis of bar charts, and points of a scatter that would
crowd each other share one label.

Each function takes the report's data (cells.group's size -> variant ->
Cell for one round) and returns a Figure, or None when there is nothing to
draw. The pictures of one round alone are that round's (its module's
`charts` hook, which draws with the helpers here); this module names no
round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .levels import KINDS, level
from .textfmt import size_label

SPREAD_LOG = 10.0
DPI = 100
COLOURS = {
    "c": "#4d4d4d",
    "core": "#1f77b4",
    "alone": "#2ca02c",
    "ecosystem": "#ff7f0e",
    "program": "#9467bd",
    "published": "#b0b0b0",
}


@dataclass
class Figure:
    id: str  # file stem and HTML anchor: report-<id>.png
    title: str
    caption: str
    path: Path
    round: Optional[str] = None  # the round whose section shows it; None: the summary's pictures


def pyplot():
    # matplotlib is optional and heavy: loaded only when a picture is drawn
    import matplotlib

    matplotlib.use("Agg")
    # the pictures (matplotlib) load only when the report draws them
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.dpi": DPI})
    return plt


def _tidy_log_ticks(fig) -> None:
    """Labels on log axes as dense as their length allows without running
    into each other: 1-2-5 per decade, 1-3, or decades alone."""
    # matplotlib's modules load with the picture that uses them
    from matplotlib.ticker import LogLocator

    w, h = fig.get_size_inches()
    for ax in fig.axes:
        box = ax.get_position()
        for axis, length, lim in (("x", box.width * w, ax.get_xlim()), ("y", box.height * h, ax.get_ylim())):
            if (ax.get_xscale() if axis == "x" else ax.get_yscale()) != "log" or min(lim) <= 0:
                continue
            loc = (ax.xaxis if axis == "x" else ax.yaxis).get_major_locator()
            if not isinstance(loc, LogLocator):
                continue  # ticks the chart placed itself
            decades = math.log10(max(lim) / min(lim))
            fits = length * (1.5 if axis == "x" else 3.0)  # labels an inch holds: wide on x, one line tall on y
            subs = next((s for s in ((1.0, 2.0, 5.0), (1.0, 3.0)) if len(s) * decades <= fits), (1.0,))
            (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(LogLocator(base=10, subs=subs))


def save(plt, fig, out_dir: Path, fid: str) -> Path:
    _tidy_log_ticks(fig)
    path = out_dir / f"report-{fid}.png"
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def figure(plt, fig, out_dir: Path, fid: str, title: str, caption: str, round: Optional[str] = None) -> Figure:
    """Saves fig as report-<fid>.png in out_dir and returns its record."""
    return Figure(fid, title, caption, save(plt, fig, out_dir, fid), round=round)


# Markers cycle through a picture's lines, so that they stay apart in grey.
MARKERS = "osD^v<>ph*"


def series(sizes: dict, unit: str, x_of) -> dict:
    """A round's figures in `unit` as lines, impl -> [(x, stats.Summary)]:
    x_of(params) is a size's place on the x axis, or None to leave the
    size out."""
    out: dict = {}
    for size, cells in sizes.items():
        x = x_of(dict(size))
        if x is None:
            continue
        for c in cells.values():
            s = c.summary(unit)
            if s is not None:
                out.setdefault(c.impl, []).append((x, s))
    return out


def whole(text) -> Optional[int]:
    """An integer parameter, or None where it is missing or not one."""
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def ci_lines(ax, series: dict, label=lambda impl: impl) -> None:
    """One line per variant through its points, series: impl -> [(x,
    stats.Summary)], each point with its 95% CI as error bars."""
    for i, (impl, pts) in enumerate(series.items()):
        pts = sorted(pts, key=lambda p: p[0])
        below = [max(s.median - (s.ci_low if s.ci_low is not None else s.median), 0) for _, s in pts]
        above = [max((s.ci_high if s.ci_high is not None else s.median) - s.median, 0) for _, s in pts]
        ax.errorbar(
            [x for x, _ in pts],
            [s.median for _, s in pts],
            yerr=[below, above],
            marker=MARKERS[i % len(MARKERS)],
            capsize=2,
            label=label(impl),
        )


def log_axis(ax, axis: str = "x", spread: float = 100.0) -> None:
    """A log axis labelled 1, 2, 5, 10, 20, ... in plain numbers: no minor
    ticks and no typeset powers of ten, both slow to draw and the latter
    harder to read."""
    # matplotlib's modules load with the picture that uses them
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    a = ax.xaxis if axis == "x" else ax.yaxis
    # 1-2-5 labels over up to three decades, decades alone beyond: labels
    # that do not run into each other
    a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if spread <= 1000 else (1.0,)))
    a.set_minor_locator(NullLocator())
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1000 else f"{v:g}"))


def log_if_spread(ax, values, axis: str = "x") -> bool:
    v = [x for x in values if x is not None and x > 0]
    if len(v) >= 2 and max(v) / min(v) > SPREAD_LOG:
        log_axis(ax, axis, max(v) / min(v))
        return True
    return False


def ordered(order: list, cells: dict) -> list:
    """The cells (impl -> Cell) as a list in `order` of their variants' names,
    any other after them."""
    return sorted(cells.values(), key=lambda c: order.index(c.impl) if c.impl in order else len(order))


def bars(ax, cells: list, unit: str) -> set:
    """Horizontal bars of each cell's median in `unit` with its 95% CI;
    returns the levels drawn."""
    rows = []
    for c in cells:
        s = c.summary(unit)
        if s is not None:
            rows.append((c.impl, s))
    levels = set()
    if not rows:
        return levels
    ys = list(range(len(rows)))[::-1]
    for y, (impl, s) in zip(ys, rows):
        lv = level(impl)
        levels.add(lv)
        err = None
        if s.ci_low is not None:
            err = [[max(s.median - s.ci_low, 0)], [max(s.ci_high - s.median, 0)]]
        ax.barh(
            y,
            s.median,
            color=COLOURS[lv],
            hatch="//" if lv == "published" else None,
            xerr=err,
            error_kw={"elinewidth": 1, "capsize": 2, "ecolor": "#222222"},
        )
    ax.set_yticks(ys)
    ax.set_yticklabels([impl for impl, _ in rows])
    meds = [s.median for _, s in rows]
    logged = log_if_spread(ax, meds)
    if not logged:
        ax.set_xlim(0, max(s.ci_high if s.ci_high is not None else s.median for _, s in rows) * 1.18)
    for y, (_, s) in zip(ys, rows):
        top = s.ci_high if s.ci_high is not None else s.median
        ax.annotate(
            short(s.median),
            (top, y),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
            color="#333333",
        )
    if logged:
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 1.6)
    ax.grid(axis="x", alpha=0.3)
    return levels


def short(x: float) -> str:
    if abs(x) >= 1000:
        return f"{float(f'{x:.3g}'):,.0f}"
    return f"{x:.3g}"


# Fixed margins, in inches, instead of matplotlib's tight layout: measuring
# every label's extent to place the axes costs more than drawing them, and
# the report must rebuild in seconds. Labels are variant names in a 9-point
# font, about CHAR_IN wide per character.
CHAR_IN = 0.068
PANEL_GAP_IN = 0.85  # a panel's x label and the next panel's title
TOP_IN = 0.75  # a two-line title and the first panel's title
BOTTOM_IN = 0.95  # the last x label and a one-row legend under it


def layout(fig, width: float, height: float, left: float, heights: list) -> None:
    fig.subplots_adjust(
        left=left / width,
        right=1 - 0.55 / width,
        top=1 - TOP_IN / height,
        bottom=BOTTOM_IN / height,
        hspace=PANEL_GAP_IN / (sum(heights) / len(heights)) if len(heights) > 1 else 0.2,
    )


def figure_legend(fig, handles) -> None:
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=7, frameon=False)


def level_handles(levels) -> list:
    # matplotlib's modules load with the picture that uses them
    from matplotlib.patches import Patch

    return [Patch(color=COLOURS[lv], label=KINDS[lv]) for lv in COLOURS if lv in levels]


def round_bars(
    rnd_name: str, order: list, sizes: dict, unit: str, better: str, title: str, out_dir: Path
) -> Optional[Figure]:
    """One round's metric by variant, one panel per size, the variants in
    `order` (the round's declaration's)."""
    plt = pyplot()
    panels = [(size, ordered(order, cells)) for size, cells in sizes.items()]
    panels = [(size, [c for c in cells if c.values(unit)]) for size, cells in panels]
    panels = [(size, cells) for size, cells in panels if cells]
    if not panels:
        return None
    heights = [0.27 * len(cells) + 0.2 for _, cells in panels]
    width = 8.0
    height = TOP_IN + BOTTOM_IN + sum(heights) + PANEL_GAP_IN * (len(panels) - 1)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, height), height_ratios=heights, squeeze=False)
    longest = max(len(c.impl) for _, cells in panels for c in cells)
    layout(fig, width, height, 0.3 + CHAR_IN * longest, heights)
    levels: set = set()
    for ax, (size, cells) in zip(axes[:, 0], panels):
        levels |= bars(ax, cells, unit)
        ax.set_title(size_label(size), fontsize=9, loc="left")
        ax.set_xlabel(f"{unit} ({better} is better)")
    fig.suptitle(f"{title}\n{unit}, median and its 95% CI: {better} is better", fontsize=10)
    figure_legend(fig, level_handles(levels))
    fid = f"round-{rnd_name}"
    return figure(
        plt,
        fig,
        out_dir,
        fid,
        f"{rnd_name}: {unit} by variant",
        f"{rnd_name}: each variant's median {unit} with its 95% confidence interval, coloured by level; "
        f"{better} is better.",
        round=rnd_name,
    )


# ---- pictures of more than one round ------------------------------------------------------


def _cluster_labels(points: list, xlog: bool, ylog: bool) -> list:
    """[(x, y, label)] -> the same with points that would crowd each other
    (closer than 6% of the axes' span in both directions) sharing one label
    at the first of them."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]

    def t(v, log):
        return math.log10(v) if log else v

    def span(vals, log):
        tv = [t(v, log) for v in vals]
        return (max(tv) - min(tv)) or 1.0

    sx, sy = span(xs, xlog), span(ys, ylog)
    groups: list = []
    for x, y, label in points:
        for g in groups:
            gx, gy = g[0], g[1]
            if abs(t(x, xlog) - t(gx, xlog)) < 0.06 * sx and abs(t(y, ylog) - t(gy, ylog)) < 0.06 * sy:
                g[2].append(label)
                break
        else:
            groups.append([x, y, [label]])
    return [(x, y, ", ".join(labels)) for x, y, labels in groups]


def time_memory(sizes: dict, rnd_name: str, unit: str, unit_label: str, scale: float, out_dir: Path) -> list:
    """A concurrency round (sleep, chain): each variant's time against its memory per task,
    one point per variant (a time quoted without its memory is a trick);
    one panel per size, except that a `fit=1` cell (the thread variants at
    the largest N this machine holds) joins its size's panel, its points
    labelled with their N. A list of Figures: the round's `charts` hook."""
    panels: dict = {}
    for size, cells in sizes.items():
        params = dict(size)
        fitted = params.pop("fit", None)
        key = tuple(params.items())
        for c in cells.values():
            t, m = c.median_of(unit), c.median_of("B/task")
            if t is None or m is None or t <= 0 or m <= 0:
                continue
            label = c.impl
            live = c.median_of("live-tasks")
            if fitted and live:
                label = f"{c.impl} (N={live:,.0f})"
            panels.setdefault(key, []).append((m, t / scale, label, level(c.impl)))
    if not panels:
        return []
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels) + 0.6, 4.8), squeeze=False)
    levels = set()
    for ax, (key, points) in zip(axes[0], panels.items()):
        for m, t, _, lv in points:
            levels.add(lv)
            ax.scatter(m, t, color=COLOURS[lv], s=40, zorder=3, edgecolor="#222222", linewidth=0.5)
        xlog = log_if_spread(ax, [p[0] for p in points], "x")
        ylog = log_if_spread(ax, [p[1] for p in points], "y")
        # room for the labels right of the rightmost points and above the top ones
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * (4 if xlog else 1.3))
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * (1.6 if ylog else 1.06))
        for x, y, label in _cluster_labels([(p[0], p[1], p[2]) for p in points], xlog, ylog):
            ax.annotate(label, (x, y), xytext=(5, 4), textcoords="offset points", fontsize=7)
        ax.set_xlabel("memory per task, bytes (B/task; lower is better)")
        ax.set_ylabel(f"{unit_label} (lower is better)")
        ax.set_title(size_label(key), fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{rnd_name}: time against memory per task, one point per variant: lower left is better", fontsize=10)
    fig.subplots_adjust(left=0.9 / fig.get_figwidth(), right=0.97, top=0.86, bottom=0.22, wspace=0.3)
    figure_legend(fig, level_handles(levels))
    fid = f"{rnd_name}-time-memory"
    return [
        figure(
            plt,
            fig,
            out_dir,
            fid,
            f"{rnd_name}: time against memory per task",
            f"{rnd_name}: each variant's median {unit} against its median bytes per task (peak RSS growth divided by "
            "the tasks); points that would crowd each other share a label. Lower left is better.",
        )
    ]
