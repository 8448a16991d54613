"""The report: the summary page (run, fairness warnings, the score by
level, headline findings), the published claims, the pictures, and
report.html, from small result files written here."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest

from roundbench.results import benchfmt, charts, levels
from roundbench.judge import cells
from roundbench.report import claims, document, summary
from roundbench.judge import decide, score
from roundbench import rounds

# ---- a small result file ---------------------------------------------------------------

HEADER = """\
cpu: Test CPU 9000
cores: 2 online, 2 usable by this process
kernel: Linux 6.1
date: 2026-12-01T02:52:17Z
roundbench-commit: abc1234
python: CPython 3.13.1 (release build)
go-version: go1.26.0
machine-virtualization: warn: VM: the host shares the CPUs (fix: compare within one run)
machine-smt: ok: no two usable CPUs share a core
fairness-gogc: ok: GOGC unset
Unit ns/iter better=lower
Unit ns/call better=lower
Unit overhead-ns better=lower
Unit B/task better=lower
Unit GFLOP/s better=higher
"""

NOISE = [1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99]


def lines(rnd: str, impl: str, params: str, unit: str, base: float, spread=NOISE, extra: str = "") -> str:
    """Eight runs of one variant: base times a little noise."""
    out = []
    for k in spread:
        v = base * k
        out.append(f"Benchmark{rnd.capitalize()}/impl={impl}{params} 1 {v * 1000:.6g} ns/op {v:.6g} {unit}{extra}")
    return "\n".join(out) + "\n"


def suite_text(with_end: bool = True) -> str:
    text = HEADER
    n = "/n=20000000"
    text += lines("loop", "c", n, "ns/iter", 0.70)
    text += lines("loop", "go", n, "ns/iter", 0.95)
    text += lines("loop", "py", n, "ns/iter", 40.0)
    text += lines("loop", "py-c", n, "ns/iter", 0.71)
    text += lines("loop", "go-c", n, "ns/iter", 0.71, spread=list(reversed(NOISE)))
    text += lines("ffi", "go", "", "ns/call", 1.2)
    text += lines("ffi", "go-c", "", "ns/call", 23.7)
    text += lines("ffi", "py", "", "ns/call", 17.0)
    text += lines("ffi", "py-c-o", "", "ns/call", 8.5)
    text += lines("ffi", "py-ctypes", "", "ns/call", 143.0)
    text += lines("sleep", "go", "/n=100000", "overhead-ns", 1.15e8, extra=" 2957 B/task 3e8 peak-B")
    text += lines("sleep", "py-asyncio", "/n=100000", "overhead-ns", 8.4e8, extra=" 1821 B/task 2e8 peak-B")
    text += lines("matmul", "go", "/n=300/threads=1", "GFLOP/s", 5.5)
    text += lines("matmul", "py-numpy", "/n=300/threads=1", "GFLOP/s", 60.0)
    text += lines("matmul", "c-blas", "/n=300/threads=1", "GFLOP/s", 61.0)
    text += "--- SKIP: BenchmarkStartup/impl=py-pandas/starts=20: Python module pandas is not installed\n"
    if with_end:
        text += "--- END: 2026-12-01T03:04:17Z after 725 s\n"
    return text


@pytest.fixture()
def results(tmp_path) -> Path:
    (tmp_path / "results.txt").write_text(suite_text())
    return tmp_path


def _doc(results: Path) -> document.Document:
    return document.build(benchfmt.read_dir(results), "test", [results / "results.txt"])


# ---- levels, and the names the report's tables hold ------------------------------------------


def test_levels_follow_the_names():
    assert levels.level("py") == levels.level("go") == "alone"
    assert levels.level("py-asyncio") == levels.level("py-threads") == "alone"
    assert levels.level("py-c") == levels.level("go-c-noescape") == levels.level("py-ctypes") == "core"
    assert levels.level("py-cffi-api") == levels.level("go-cgo") == "core"
    assert levels.level("py-numpy") == levels.level("go-gonum") == levels.level("py-greenlet") == "ecosystem"
    assert levels.level("c") == levels.level("c-blas") == levels.level("c-py-callback") == "c"
    assert levels.level("py-module-published") == levels.level("go-published") == "published"
    # whole programs started from outside: a column of their own, not the ecosystem
    assert levels.level("go-binary") == levels.level("go-run-cold") == levels.level("py-script") == "program"
    assert levels.level("c-binary") == "c"


def test_every_name_the_report_keeps_is_a_declared_variant():
    """A round's pairs and headlines name its variants: a renamed variant
    fails at import (Round checks them), not silently in the report; and
    the declarations the report reads are there."""
    pairs = {r.name: r.pairs for r in rounds.all_rounds() if r.pairs}
    assert [c.label for c in pairs["ffi"]][:1] == ["a call into C"]
    heads = summary.headlines()
    assert len(heads) >= 10 and [h.rank for _, h in heads] == sorted(h.rank for _, h in heads)

    def one_variant_round(**kw):
        return rounds.Round("x", "x", "x", [rounds.Variant("c", "rb-c")], [], [], "ns/op", **kw)

    with pytest.raises(ValueError, match="level 'best' is none of"):
        rounds.Headline(1, {}, "best", "on x")
    with pytest.raises(ValueError, match="headline 1 names pair 'k'"):
        one_variant_round(headlines=[rounds.Headline(1, {}, "core", "on x", pair="k")])
    with pytest.raises(ValueError, match="pair 'k' names"):
        one_variant_round(pairs=[rounds.Pair("k", ("py-c",), ())])


def test_claims_name_declared_cells():
    """Every quantity of the claims file names a declared round's variant and
    unit, except published programs and rounds still to come (they are
    judged 'not measured here' until they exist)."""
    cl = claims.load()
    assert len(cl) >= 20
    seen = set()
    for q in claims.quantities(cl):
        if q.round not in {r.name for r in rounds.all_rounds()} or q.impl.endswith("-published"):
            continue
        rnd = rounds.get(q.round)
        rnd.variant(q.impl)  # raises KeyError for a name the round does not declare
        assert q.unit in rnd.units or q.unit in rounds.BASE_UNITS, (q, sorted(rnd.units))
        seen.add(q.round)
    assert {"loop", "matmul", "ffi", "startup", "sleep", "chain", "jsonl", "http", "temps"} <= seen


# ---- the published claims ------------------------------------------------------------------------


def _decided(outcome: str, winner: str, ratio: float, ci) -> decide.Decision:
    return decide.Decision(outcome, winner, ratio, ci, 0.99, 0.001, 0.05)


def test_verdict_rule():
    faster = decide.FASTER
    assert claims.verdict(41.7, _decided(faster, "a", 41.7, (40.8, 42.5)), 47.66) == "reproduced"
    assert claims.verdict(47.66 * 1.5, None, 47.66) == "reproduced"
    assert claims.verdict(9.5, _decided(faster, "a", 9.5, (8.8, 11.3)), 23.5) == "same direction, different size"
    # the other direction
    assert claims.verdict(0.27, _decided(faster, "b", 0.27, (0.26, 0.27)), 1.8) == "not reproduced"
    # no difference this run can tell, and one inside the margin
    assert claims.verdict(1.05, _decided(decide.INCONCLUSIVE, "", 1.05, (0.9, 1.2)), 1.61) == "not reproduced"
    assert claims.verdict(1.02, _decided(decide.EQUIVALENT, "", 1.02, (1.01, 1.03)), 1.61) == "not reproduced"


def test_claims_file_errors_name_the_line():
    good = "a\tx\t1 s vs 2 s\t0.5\tloop py n=1 ns/op ÷ loop go n=1 ns/op\twhy\n"
    assert claims.parse(good)[0].numerator[0].params == (("n", "1"),)
    with pytest.raises(ValueError, match=r"claims.tsv:2: 3 columns"):
        claims.parse("# header\na\tb\tc\n")
    with pytest.raises(ValueError, match=r":2: claim 'a' is listed twice"):
        claims.parse(good + good)
    with pytest.raises(ValueError, match=r":1: ratio 'x' is not a number"):
        claims.parse(good.replace("\t0.5\t", "\tx\t"))
    with pytest.raises(ValueError, match=r"want NUMERATOR ÷ DENOMINATOR"):
        claims.parse(good.replace(" ÷ ", " / "))
    with pytest.raises(ValueError, match=r"'n1' in 'loop py n1 ns/op' is no KEY=VALUE"):
        claims.parse(good.replace("loop py n=1 ns/op ÷", "loop py n1 ns/op ÷"))


def test_claims_use_the_published_program_or_say_they_did_not(tmp_path):
    cl = claims.parse(
        "m\tmodule level\t1.85 s vs 1.12 s\t1.652\t"
        "loop py-module-published n=5 ns/op | loop py n=5 ns/op ÷ loop py n=5 ns/op\twhy\n"
    )
    text = HEADER + lines("loop", "py", "/n=5", "ns/iter", 40.0)
    (tmp_path / "results.txt").write_text(text)
    grouped = cells.group(benchfmt.read_dir(tmp_path))
    (c,) = claims.check_all(grouped, claims=cl)
    assert c.num.quantity.impl == "py" and "py-module-published has no runs here" in c.why()
    assert c.verdict == "not reproduced"  # the same cell twice: ratio 1, interval [1, 1]
    text += lines("loop", "py-module-published", "/n=5", "ns/iter", 66.0)
    (tmp_path / "results.txt").write_text(text)
    (c,) = claims.check_all(cells.group(benchfmt.read_dir(tmp_path)), claims=cl)
    assert c.num.quantity.impl == "py-module-published" and "has no runs" not in c.why()
    assert c.verdict == "reproduced" and c.ratio == pytest.approx(1.65)


def test_a_claim_at_workers_max_reads_the_largest_cell(tmp_path):
    """KEY=max names the round's cell with the largest KEY (workers=max:
    every usable CPU, 2 here, 16 elsewhere), not a number of this machine's."""
    cl = claims.parse("t\tthreads\tx\t2.0\tcores py-freethreaded workers=max ns/op ÷ cores go workers=max ns/op\twhy\n")
    text = HEADER
    for w, ft, go in ((1, 90.0, 10.0), (4, 30.0, 5.0), (16, 12.0, 4.0)):
        text += lines("cores", "py-freethreaded", f"/n=100/workers={w}", "ns/op", ft)
        text += lines("cores", "go", f"/n=100/workers={w}", "ns/op", go)
    (tmp_path / "results.txt").write_text(text)
    (c,) = claims.check_all(cells.group(benchfmt.read_dir(tmp_path)), claims=cl)
    assert dict(c.num.size)["workers"] == "16" and dict(c.den.size)["workers"] == "16"
    assert c.ratio == pytest.approx(3.0)


def test_the_stackless_claim_is_py_stackless_or_says_it_did_not_run(tmp_path):
    """The Stackless claim reads py-stackless alone (greenlet no longer stands
    in): measured, it says which interpreter ran it where the result names
    one; skipped, the row is not measured and says why."""
    (claim,) = [c for c in claims.load() if c.id == "chain-stackless"]
    assert [q.impl for q in claim.denominator] == ["py-stackless"]
    assert "Stackless API on PyPy" in claim.claim and "--python pypy3" in claim.why
    size = "/n=100000/hop-work=0/parallel=1"
    go = lines("chain", "go", size, "ns/hop", 6300.0)
    greenlet = lines("chain", "py-greenlet", size, "ns/hop", 4000.0)
    skip = "--- SKIP: BenchmarkChain/impl=py-stackless" + size + ": needs an interpreter with the stackless module\n"
    (tmp_path / "results.txt").write_text(HEADER + go + greenlet + skip)
    (c,) = claims.check_all(cells.group(benchfmt.read_dir(tmp_path)), claims=[claim])
    assert c.verdict == "not measured here"
    assert "py-stackless did not run: needs an interpreter with the stackless module" in c.why()
    # Run with runtimes as an axis, py-stackless has rows under PyPy only:
    # the claim finds them there (the report's views) and says so.
    stackless = lines("chain", "py-stackless", size, "ns/hop", 3500.0).replace(
        "impl=py-stackless/", "impl=py-stackless/python=pypy-7.3.11/"
    )
    greenlet = greenlet.replace("impl=py-greenlet/", "impl=py-greenlet/python=cpython-3.11.7/")
    (tmp_path / "results.txt").write_text(HEADER + go + greenlet + stackless)
    doc = document.build(benchfmt.read_dir(tmp_path), "test")
    (c,) = [c for c in doc.claims if c.claim.id == "chain-stackless"]
    assert c.den.quantity.impl == "py-stackless" and c.ratio == pytest.approx(1.8)
    assert "py-stackless ran under PyPy 7.3.11" in c.why()


# ---- the summary page ----------------------------------------------------------------------


def test_the_summary_comes_first_with_run_warnings_score_findings_and_claims(results):
    text = document.render_markdown(_doc(results))
    summary_at, first_round = text.index("## Summary"), text.index("## loop")
    head = text[:first_round]
    assert summary_at < first_round
    # the run: machine, date, commit, duration (from the end record)
    assert "Test CPU 9000" in head and "2026-12-01 02:52 UTC" in head and "abc1234" in head
    assert "- **The suite took:** 12 min\n" in head
    # the fairness warning in bold, before the score; passed checks are not warnings
    assert "- **virtualization: VM: the host shares the CPUs**" in head
    assert head.index("virtualization") < head.index("### Score")
    assert "**smt" not in head
    # the score, level by level
    assert "| round, size | the language alone | with its ecosystem | calling C | whole program |" in head
    loop_row = next(ln for ln in head.splitlines() if ln.startswith("| loop: n=20000000 |"))
    alone, eco, core = loop_row.split(" | ")[1:4]
    assert alone.startswith("Go 42") and "(go vs py)" in alone
    assert core.startswith("equivalent: go-c vs py-c")
    ffi_row = next(ln for ln in head.splitlines() if ln.startswith("| ffi |"))
    assert "Python " in ffi_row.split(" | ")[3] and "(go-c vs py-c-o)" in ffi_row  # the crossing, not go
    matmul = next(ln for ln in head.splitlines() if ln.startswith("| matmul")).split(" | ")
    assert matmul[1] == "— (Python has no such variant)" and matmul[2].startswith("Python 10.9×")
    assert (
        "| **Go 3, Python 0, equivalent 0, inconclusive 0** | **Go 3, Python 1, equivalent 0, inconclusive 0** | "
        "**Go 0, Python 1, equivalent 1, inconclusive 0** |" in head
    )
    # the verdict in words: per level, who wins where and by how much
    verdict = next(ln for ln in head.splitlines() if ln.startswith("**Verdict"))
    assert re.search(
        r"The language alone \(.*?\): Go is faster in all 3 cells, by 7\.\d\d× \(sleep: go against py-\w+\) "
        r"to 42\.\d× \(loop: go against py\);",
        verdict,
    )
    assert (
        "With its ecosystem" in verdict
        and "Python is faster in 1 of 4 cells, by 10.9× (matmul: py-numpy against go)" in verdict
    )
    assert re.search(
        r"Calling C \(.*?\): Go is faster in none; Python is faster in 1 of 2 cells, by 2\.\d\d× \(ffi: py-c-o "
        r"against go-c\); 1 equivalent within ±5% \(loop\)",
        verdict,
    )
    # the findings, each with its level, ratio and interval, never stronger than the numbers
    findings = re.findall(r"^\d+\. (.*)$", head, re.M)
    assert 4 <= len(findings) <= 10
    assert re.search(
        r"^\*\*The language alone:\*\* Go \(go\) is 42\.\d× \[4\d\.\d×, 4\d\.\d×\] faster than Python \(py\)",
        findings[0],
    )
    same = next(f for f in findings if "for the same loop" in f)
    assert same.startswith("**Calling C:** Go (go-c) and Python (py-c) are equivalent within ±5%")
    assert "faster" not in same
    assert any("memory per task 2.9 KiB against 1.8 KiB" in f for f in findings)
    # the claims table, right after
    assert "| pure Python against pure Go on the loop (N = 20M) | 1.12 s vs 23.5 ms (≈48×) |" in head
    row = next(ln for ln in head.splitlines() if ln.startswith("| pure Python against pure Go on the loop"))
    assert "**reproduced**" in row and "40 ms vs 950 ns" not in row
    pandas = next(ln for ln in head.splitlines() if "import pandas" in ln)
    assert "**not measured here**" in pandas and "pandas is not installed" in pandas
    assert re.search(r"Verdicts: \d+ reproduced, \d+ same direction, different size, \d+ not reproduced, \d+ not", head)


def test_duration_without_an_end_record(tmp_path):
    (tmp_path / "results.txt").write_text(suite_text(with_end=False))
    text = document.render(benchfmt.read_dir(tmp_path), "x")
    assert "- **The suite took:** not recorded (this result file has no end record)" in text


def test_the_runner_writes_the_end_record(tmp_path):
    from roundbench.run import runner
    from roundbench.run.policy import RunPolicy

    out = tmp_path / "results.txt"
    r = runner.Runner(out, RunPolicy(fixed=1), 10, progress=None)
    r.run([], {"cpu": "x"})
    (end,) = benchfmt.read_dir(out).ends
    assert not end.interrupted and end.seconds < 60 and end.date.endswith("Z")


def test_the_flag_is_the_medians_interval_and_outliers_sit_beside_the_runs(tmp_path):
    """Unstable: the median's 95% CI reaches more than ±5% from it; runs
    beyond 1.5 IQR from the quartiles are counted in the runs column; fewer
    than 6 runs have no interval and say so instead of a flag."""
    n = "/n=5"
    text = HEADER
    text += lines("loop", "c", n, "ns/iter", 1.0, spread=[1.0] * 11 + [3.0])  # one far run: an outlier, no flag
    text += lines("loop", "go", n, "ns/iter", 1.0, spread=[0.9, 0.95, 1.0, 1.0, 1.05, 1.1])  # CI ±10%, no outlier
    text += lines("loop", "py", n, "ns/iter", 40.0, spread=[1.0, 1.3, 0.7])  # 3 runs: no interval
    text += "--- RUNS: BenchmarkLoop/impl=c/n=5: 12 runs, converged: median 95% CI +0.0%/+0.0%\n"
    (tmp_path / "results.txt").write_text(text)
    md = document.render(benchfmt.read_dir(tmp_path), "x")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in md.splitlines() if line.startswith("| ")}
    assert rows["c"].endswith("| 12/12 (converged), 1 outlier |  |")
    assert rows["go"].endswith("| 6/6 | unstable |")
    assert rows["py"].endswith("| 3/3 | too few runs for an interval |")
    assert "the median's 95% CI reaches more than ±5% from the median" in md
    assert "runs beyond 1.5 interquartile ranges from the quartiles" in md


def test_a_round_with_one_language_scores_nothing(tmp_path):
    (tmp_path / "results.txt").write_text(HEADER + lines("loop", "go", "/n=5", "ns/iter", 1.0))
    text = document.render(benchfmt.read_dir(tmp_path), "x")
    assert "No round and size measured both languages." in text
    assert "No finding" in text


# ---- pictures and report.html ---------------------------------------------------------------


def test_write_report_makes_both_formats_and_the_pictures(results):
    md = document.write_report(results)
    text = md.read_text()
    html = (results / "report.html").read_text()
    pngs = sorted(results.glob("report-*.png"))
    names = {p.name for p in pngs}
    assert {"report-claims.png", "report-ffi-ladder.png", "report-round-loop.png"} <= names
    assert {"report-sleep-time-memory.png", "report-matmul-gflops.png"} <= names
    # Markdown links every picture beside it; the HTML carries each inline
    for p in pngs:
        assert f"]({p.name})" in text, p.name
    imgs = re.findall(r'<img src="([^"]+)"', html)
    assert len(imgs) == len(pngs) and all(src.startswith("data:image/png;base64,") for src in imgs)
    # self-contained: nothing to fetch
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<link" not in html and "<script" not in html
    # a table of contents, and the summary before the rounds
    assert 'href="#summary"' in html and 'href="#round-loop"' in html and 'href="#claims"' in html
    assert html.index('id="findings"') < html.index('id="round-loop"')
    assert "<strong>virtualization: VM: the host shares the CPUs</strong>" in html
    # every picture decodes and is not blank
    import matplotlib.image

    for p in pngs:
        px = matplotlib.image.imread(p)
        assert px.shape[0] > 100 and px.shape[1] > 100, p.name
        assert px[..., :3].std() > 0.05, f"{p.name} is blank"


def test_the_html_shows_what_the_markdown_says(results):
    doc = _doc(results)
    html = document.render_html(doc)
    for f in doc.findings:
        first_words = re.sub(r"`", "", f.text)[:30]
        assert first_words.replace("'", "&#39;") in html, first_words
    for c in doc.claims:
        assert f"<strong>{c.verdict}</strong>" in html
    assert html.count("<tr>") >= len(doc.score) + len(doc.claims)


def test_without_the_report_extra_the_markdown_is_still_written(results, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "jinja2", None)
    text = document.write_report(results, results / "sub" / "r.md").read_text()
    assert "no pictures: matplotlib is not installed (pip install 'roundbench[report]')" in text
    assert "no report.html: jinja2 is not installed" in text
    assert not list((results / "sub").glob("*.png")) and not (results / "sub" / "r.html").exists()


def test_a_picture_that_fails_is_a_note(results, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the picture")

    from roundbench.rounds import ffi

    monkeypatch.setattr(ffi, "charts", broken)  # the round's own pictures
    text = document.write_report(results).read_text()
    assert "the picture ffi failed: RuntimeError: a bug in the picture" in text
    assert "report-claims.png" in text


def _drawn(monkeypatch) -> list:
    """The figures the charts save, kept open for inspection."""
    figs = []

    def keep(plt, fig, out_dir, fid):
        charts._tidy_log_ticks(fig)
        figs.append(fig)
        return Path(out_dir) / f"report-{fid}.png"

    monkeypatch.setattr(charts, "save", keep)
    return figs


def test_pictures_say_what_is_better_carry_units_and_go_log_on_a_wide_spread(results, monkeypatch, tmp_path):
    figs = _drawn(monkeypatch)
    doc = _doc(results)
    document.draw(doc, tmp_path)
    assert len(figs) >= 6
    for fig in figs:
        titles = " ".join(t.get_text() for t in fig.texts) + " ".join(ax.get_title() for ax in fig.axes)
        assert "better" in titles, titles
        for ax in fig.axes:
            assert ax.get_xlabel() or ax.get_ylabel() or not ax.has_data()
    loop = next(f for f in figs if f.texts and f.texts[0].get_text().startswith("loop"))
    (ax,) = loop.axes
    assert ax.get_xscale() == "log"  # 0.7 to 40 ns/iter: a spread over 10×
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "go", "go-c", "py", "py-c"]
    assert "ns/iter" in ax.get_xlabel() and "lower is better" in ax.get_xlabel()
    matmul = next(f for f in figs if f.axes and "GFLOP/s against n" in f.axes[0].get_title())
    assert any("single-core peak" in t.get_text() for t in matmul.axes[0].get_legend().get_texts())


def test_log_axis_only_past_a_tenfold_spread():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert not charts.log_if_spread(ax, [1.0, 9.0]) and ax.get_xscale() == "linear"
    assert charts.log_if_spread(ax, [1.0, 11.0]) and ax.get_xscale() == "log"
    plt.close(fig)


def test_crowded_points_share_one_label():
    pts = [(100.0, 1.0, "c"), (103.0, 1.02, "go-c"), (5000.0, 800.0, "py-asyncio")]
    got = charts._cluster_labels(pts, True, True)
    assert [label for _, _, label in got] == ["c, go-c", "py-asyncio"]


def test_ratios_read_from_the_faster_side():
    faster = decide.Decision(decide.FASTER, "b", 0.25, (0.2, 0.5), 0.95, 0.001, 0.05)
    p = score.Point(None, None, "ns/op", "lower", 0.25, None, faster)
    assert p.winner == "b" and p.times() == "4.00× [2.00×, 5.00×]"
    same = decide.Decision(decide.EQUIVALENT, "", 1.01, (0.97, 1.04), 0.95, 0.001, 0.05)
    p = score.Point(None, None, "ns/op", "lower", 1.01, None, same)
    assert p.winner == "equivalent" and p.times() == "1.010× [0.970×, 1.040×]"
    p = score.Point(None, None, "x", "lower", 1.5, None)
    assert math.isclose(p.ratio, 1.5) and p.winner == "inconclusive" and p.ci is None


def test_report_command_rebuilds_both_formats(results):
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "roundbench", "report", str(results), "-o", str(results / "r" / "x.md")],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert out.returncode == 0, out.stderr
    assert (results / "r" / "x.md").exists() and (results / "r" / "x.html").exists()
    assert str(results / "r" / "x.html") in out.stdout


def _env() -> dict:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "python")
    return env


def test_report_command_names_a_malformed_line(tmp_path):
    import subprocess

    (tmp_path / "results.txt").write_text(HEADER + "BenchmarkLoop/impl=c/n=5 1 x ns/op\n")
    out = subprocess.run(
        [sys.executable, "-m", "roundbench", "report", str(tmp_path)], capture_output=True, text=True, env=_env()
    )
    assert out.returncode == 2
    assert f"{tmp_path / 'results.txt'}:16: malformed benchmark line" in out.stderr
