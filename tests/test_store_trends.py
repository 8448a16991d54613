"""The trends of the store (roundbench.store.trends): where a series' level
changed, by more than its noise and the margin, and the page that shows it.
Every random series comes from random.Random with a fixed seed."""

from __future__ import annotations

import math
import random
import statistics
import sys

import pytest

from roundbench.results import charts
from roundbench.store import trends
from roundbench.store.trends import Change, Point, Series, changes, detect, markdown, write_page

N = 20  # points of the synthetic series
STEP_AT = 10


def noisy(rng: random.Random, n: int = N, noise: float = 0.05) -> list:
    """n run medians of 100 with uniform noise in [1 - noise, 1 + noise]."""
    return [100 * rng.uniform(1 - noise, 1 + noise) for _ in range(n)]


def stepped(meds: list, at: int = STEP_AT, by: float = 1.10) -> list:
    return [m * (by if i >= at else 1) for i, m in enumerate(meds)]


def near_step(found: list, at: int = STEP_AT) -> list:
    return [c for c in found if abs(c.index - at) <= 1]


def series(meds_samples: list, better: str = "lower", **kw) -> Series:
    pts = [
        Point(f"2024-01-{i + 1:02d}", list(v), f"results.txt sha256 {i:012x} section 1")
        for i, v in enumerate(meds_samples)
    ]
    fields = dict(round="matmul", variant="py-numpy", size="n=256", machine="1a2b3c4d5e6f7a8b", runtimes="python 3.12")
    fields.update(kw)
    return Series(**fields, unit="ns/op", better=better, points=pts)


# ---- the method on synthetic series ---------------------------------------------------------


@pytest.mark.parametrize("better, kind", [("lower", "regression"), ("higher", "improvement")])
def test_a_ten_percent_step_is_found_at_its_place(better, kind):
    meds = stepped(noisy(random.Random(1)))
    found = detect(meds, better=better)
    assert len(found) == 1
    c = found[0]
    assert abs(c.index - STEP_AT) <= 1
    assert 1.05 < c.ratio < 1.16
    assert c.ratio == pytest.approx(c.after / c.before)
    assert c.kind == kind
    assert c.threshold >= 0.05 and abs(math.log(c.ratio)) > math.log1p(c.threshold)


def test_a_step_down_is_the_other_kind():
    meds = stepped(noisy(random.Random(1)), by=1 / 1.10)
    (c,) = detect(meds, better="lower")
    assert c.ratio < 1 and c.kind == "improvement"
    (c,) = detect(meds, better="higher")
    assert c.kind == "regression"


def test_the_same_series_without_the_step_flags_nothing():
    assert detect(noisy(random.Random(1))) == []


def test_rates_over_many_seeds():
    """Detection and false flags on 200 seeds: the docstring's figures."""
    hits = false = 0
    ratios = []
    for seed in range(200):
        flat = noisy(random.Random(seed))
        if detect(flat):
            false += 1
        found = near_step(detect(stepped(flat)))
        if found:
            hits += 1
            ratios.append(found[0].ratio)
    assert false / 200 <= 0.02, false
    assert hits / 200 >= 0.88, hits
    assert 1.08 < statistics.median(ratios) < 1.12
    assert all(1.03 < r < 1.2 for r in ratios)


def test_a_step_below_the_margin_is_not_flagged():
    rng = random.Random(7)
    tight = noisy(rng, noise=0.002)
    assert detect(stepped(tight, by=1.03)) == []
    # the same noise lets a step above the margin through, and a higher margin stops it
    (c,) = detect(stepped(tight, by=1.07))
    assert c.index == STEP_AT and not c.by_noise and c.threshold == pytest.approx(0.05)
    assert detect(stepped(tight, by=1.07), margin=0.10) == []


def test_two_steps_are_both_found():
    rng = random.Random(3)
    meds = [m * (1.15 if i >= 10 else 1) * (1.15 if i >= 20 else 1) for i, m in enumerate(noisy(rng, 30, 0.01))]
    found = detect(meds)
    assert [c.index for c in found] == [10, 20]
    assert all(c.kind == "regression" and c.ratio == pytest.approx(1.15, rel=0.03) for c in found)


def test_a_level_that_comes_and_goes_is_found_both_ways():
    """A bump of 6 points inside 22: no single split sees it (the outer
    parts' medians stay where they were); the split in three does."""
    rng = random.Random(4)
    meds = [m * (1.2 if 8 <= i < 14 else 1) for i, m in enumerate(noisy(rng, 22, 0.01))]
    found = detect(meds)
    assert [(c.index, c.kind) for c in found] == [(8, "regression"), (14, "improvement")]


def test_one_slow_run_is_not_a_change():
    for seed in range(20):
        meds = noisy(random.Random(seed), noise=0.01)
        meds[7] *= 1.5
        assert detect(meds) == [], seed


def test_two_plus_two_points_with_tight_samples_flag_a_twenty_percent_step():
    tight = [1 + 0.004 * k for k in range(-5, 6)]  # 11 samples within ±2%
    s = series([[100 * f for f in tight]] * 2 + [[120 * f for f in tight]] * 2)
    (c,) = changes(s)
    assert c.index == 2 and c.ratio == pytest.approx(1.2) and c.kind == "regression"
    assert s.points[c.index].source.endswith(f"{2:012x} section 1")


def test_two_plus_two_points_with_wide_samples_do_not():
    wide = [0.5 + 0.1 * k for k in range(11)]  # 11 samples from half to one and a half times the median
    s = series([[100 * f for f in wide]] * 2 + [[120 * f for f in wide]] * 2)
    meds, spreads = trends.medians_spreads(s)
    assert meds == pytest.approx([100, 100, 120, 120])  # the medians alone would flag it
    assert detect(meds) != []
    assert all(sp > 0.1 for sp in spreads)
    assert changes(s) == []


def test_degenerate_series_flag_nothing():
    assert detect([]) == []
    assert detect([5.0]) == []
    assert detect([5.0] * 30) == []
    assert detect([0.0, 0.0, 0.0, 0.0, 0.0]) == []
    assert detect([1.0, 1.0, 2.0]) == []  # too short for two levels
    assert changes(series([[3.0]])) == []
    assert changes(series([[], [1.0], [float("nan")]])) == []


def test_points_without_a_median_are_left_out_and_counted():
    meds = [100.0, None, 100.0, 100.0, 0.0, 130.0, 130.0, float("nan"), 130.0]
    (c,) = detect(meds)
    assert c.index == 5 and c.start == 0 and c.end == 9
    assert c.ratio == pytest.approx(1.3)


def test_a_flag_is_reproduced_by_hand_from_the_docstring():
    """The docstring's formulas, written out here independently, give the
    change's noise, standard error and threshold."""
    rng = random.Random(11)
    meds = stepped(noisy(rng, 16, 0.02), at=9, by=1.12)
    (c,) = detect(meds)
    y = [math.log(m) for m in meds]
    segs = [(0, c.index), (c.index, len(y))]
    levels = [statistics.median(y[a:b]) for a, b in segs]
    resid = sorted(abs(y[i] - lv) for (a, b), lv in zip(segs, levels) for i in range(a, b))
    diffs = sorted(abs(y[i + 1] - y[i]) for i in range(len(y) - 1))
    q = statistics.NormalDist().inv_cdf(0.95)  # |Z| below q: the smallest 90% of a standard normal's |Z|
    trim_mean = 2 * (statistics.NormalDist().pdf(0) - statistics.NormalDist().pdf(q)) / 0.9  # their mean

    def scale(v):
        k = math.floor(0.9 * len(v))
        return sum(v[:k]) / k / trim_mean

    sigma = max(scale(resid) * math.sqrt(len(y) / (len(y) - 2)), scale(diffs) / math.sqrt(2))
    assert c.noise == pytest.approx(sigma, rel=1e-3)
    var = [math.pi / 2 * sigma**2 / (b - a) for a, b in segs]
    se = math.sqrt(sum(var))
    assert c.se == pytest.approx(se, rel=1e-3)
    assert c.threshold == pytest.approx(math.exp(max(math.log(1.05), 3.25 * se)) - 1, rel=1e-3)
    assert c.before == pytest.approx(math.exp(levels[0])) and c.after == pytest.approx(math.exp(levels[1]))


def test_a_points_spread_is_the_standard_error_of_its_median():
    xs = [100 * (1 + 0.01 * k) for k in range(-10, 11)]
    logs = [math.log(x) for x in xs]
    mad = statistics.median(abs(v - statistics.median(logs)) for v in logs)
    assert trends.point_spread(xs) == pytest.approx(math.sqrt(math.pi / 2) * 1.4826 * mad / math.sqrt(21))
    assert trends.point_spread([1.0]) is None
    assert trends.point_median([3.0, float("nan"), 1.0, 2.0]) == 2.0


# ---- the page -------------------------------------------------------------------------------


def history(seed: int, step: float = 1.0, **kw) -> Series:
    rng = random.Random(seed)
    pts = []
    for i in range(12):
        level = 100 * (step if i >= 6 else 1) * rng.uniform(0.99, 1.01)
        pts.append([level * rng.uniform(0.995, 1.005) for _ in range(8)])
    return series(pts, **kw)


def test_markdown_lists_the_changes_and_every_series():
    ss = [history(1, 1.2), history(2, variant="go-plain", runtimes="go 1.22")]
    found = {0: changes(ss[0]), trends.series_key(ss[1]): changes(ss[1])}
    assert len(found[0]) == 1 and found[trends.series_key(ss[1])] == []
    text = markdown(ss, found)
    assert "margin of 5.0%" in text
    row = next(line for line in text.splitlines() if line.startswith("| matmul · py-numpy"))
    assert "2024-01-07" in row and "×1.2" in row and "regression (lower is better)" in row
    assert f"results.txt sha256 {6:012x} section 1" in row
    table = text.split("## Every series")[1]
    assert table.count("| matmul · ") == 2 and "| none |" in table


def test_markdown_without_changes_says_so():
    text = markdown([history(2)], {0: []})
    assert "No change exceeds" in text


def test_write_page_writes_its_files(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("jinja2")
    pytest.importorskip("markdown_it")
    ss = [history(1, 1.2), history(2), history(3, round="sort", runtimes="go 1.22")]
    (tmp_path / "trends-9.png").write_bytes(b"old")
    paths = write_page(ss, tmp_path)
    names = [p.name for p in paths]
    assert names == ["trends.md", "trends.html", "trends-1.png", "trends-2.png"]
    assert not (tmp_path / "trends-9.png").exists()
    for p in paths[2:]:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "trends.md").read_text()
    assert "](trends-1.png)" in md and "no pictures" not in md
    html = (tmp_path / "trends.html").read_text()
    assert html.count("data:image/png;base64,") == 2 and "<table>" in html and "trends-1.png" not in html


def test_a_picture_holds_at_most_twelve_series(tmp_path):
    pytest.importorskip("matplotlib")
    ss = [history(i, variant=f"v{i:02d}") for i in range(14)]
    figures, notes = trends.draw(ss, {i: [] for i in range(14)}, tmp_path)
    assert len(figures) == 1 and "2 more series" in figures[0].caption and notes == []


def test_write_page_without_matplotlib_or_jinja2(tmp_path, monkeypatch):
    def no_matplotlib():
        raise ImportError("no matplotlib", name="matplotlib")

    monkeypatch.setattr(charts, "pyplot", no_matplotlib)
    monkeypatch.setitem(sys.modules, "jinja2", None)
    (tmp_path / "trends.html").write_text("an older page")
    paths = write_page([history(1, 1.2)], tmp_path)
    assert [p.name for p in paths] == ["trends.md"]
    assert not (tmp_path / "trends.html").exists()
    md = paths[0].read_text()
    assert "no pictures: matplotlib is not installed" in md
    assert "no trends.html: jinja2 is not installed" in md
    assert "## Changes flagged" in md and "×1.2" in md


def test_change_explains_itself():
    c = Change(3, 1.0, 1.1, 1.1, 0.062, "regression", noise=0.02, se=0.0207, z=3.0, margin=0.05)
    assert c.by_noise
    assert not Change(3, 1.0, 1.1, 1.1, 0.05, "regression", noise=0.001, se=0.001).by_noise
