"""The score's rules (issue 22): headline findings drawn from the score's
own points, the verdict in words, a cell scored by its round's score unit
(http at a fixed rate: p99 latency), a cell fixed by construction listed and
not counted (cores at one worker), and whole programs in their own column."""

from __future__ import annotations

import re

from roundbench.results import benchfmt
from roundbench.judge import cells
from roundbench.report import document, summary
from roundbench.judge import score
from roundbench import rounds

from test_report import HEADER, lines, suite_text


def _rows(text: str, tmp_path):
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    return score.score(cells.group(rs), rs)


def test_every_finding_is_its_rows_point_at_its_level(tmp_path):
    rows = _rows(suite_text(), tmp_path)
    found = summary.findings(rows)
    assert found
    for f in found:
        row = next(
            r
            for r in rows
            if r.round == f.round and r.size == f.size and f.point in [c.point for c in r.levels.values()]
        )
        cell = row.levels[f.level]
        assert cell.point is f.point, (f.text, row.label)
        # both sides named, from the same level
        assert f"({f.point.a.impl})" in f.text and f"({f.point.b.impl})" in f.text


def test_a_headline_never_crosses_levels(tmp_path):
    """py-numpy (a library) beats pure Go on matmul; the alone level has no
    Python side there, so the finding is the ecosystem's, and says so."""
    rows = _rows(suite_text(), tmp_path)
    spec = rounds.Headline(99, {"n": "max", "threads": "1"}, "alone", "on matmul")
    assert summary.finding("matmul", spec, rows) is None
    spec = rounds.Headline(99, {"n": "max", "threads": "1"}, "ecosystem", "on matmul")
    f = summary.finding("matmul", spec, rows)
    assert f.level == "ecosystem" and f.text.startswith("Python (py-numpy) is 10.9×") and "Go (go)" in f.text


def _http(impl: str, rate: str, rps: float, p99: float) -> str:
    out = []
    for k in (1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99):
        name = f"BenchmarkHttp/impl={impl}/conns=250/rate={rate}"
        out.append(f"{name} 1 {1e9 / rps:.6g} ns/op {rps:.6g} req/s {p99 * k:.6g} p99-ns")
    return "\n".join(out) + "\n"


def test_http_at_a_fixed_rate_is_scored_by_p99_latency(tmp_path):
    text = HEADER + "Unit req/s better=higher\nUnit p99-ns better=lower\n"
    # every server serves the rate; the latency differs
    text += _http("go", "2000", 2000, 1.0e6) + _http("py-asgi", "2000", 2000, 3.0e6)
    text += _http("go", "0", 90000, 5e6) + _http("py-asgi", "0", 30000, 9e6)
    rows = {r.params["rate"]: r for r in _rows(text, tmp_path)}
    fixed, full = rows["2000"], rows["0"]
    assert fixed.unit == "p99-ns" and full.unit == "req/s"
    p = fixed.levels["ecosystem"].point
    assert p.winner == "a" and 2.9 < p.ratio < 3.1 and p.ci is not None
    assert full.levels["ecosystem"].point.ratio == 3.0
    spec = next(h for n, h in summary.headlines() if n == "http" and h.where == {"rate": "max"})
    f = summary.finding("http", spec, list(rows.values()))
    assert "lower p99 latency than Python (py-asgi) at a fixed request rate" in f.text


def test_an_undecided_tail_says_its_spread_is_the_finding(tmp_path):
    """p99 at a fixed rate, two servers 6% apart whose tails swing by a
    factor 2 from run to run: inconclusive, and the reason is the tail's
    spread with its figures, not a call for more runs; a mean-like unit
    (req/s) keeps the noise reason."""
    text = HEADER + "Unit req/s better=higher\nUnit p99-ns better=lower\n"
    swing = (1.0, 1.6, 0.7, 1.3, 0.8, 1.9, 0.6, 1.1)
    for impl, base in (("go", 1.0e6), ("py-asgi", 1.06e6)):
        for k in swing:
            text += f"BenchmarkHttp/impl={impl}/conns=250/rate=2000 1 500000 ns/op 2000 req/s {base * k:.6g} p99-ns\n"
    for impl, base in (("go", 9.0e4), ("py-asgi", 8.5e4)):
        for k in swing:
            text += f"BenchmarkHttp/impl={impl}/conns=250/rate=0 1 {1e9 / (base * k):.6g} ns/op {base * k:.6g} req/s\n"
    rows = {r.params["rate"]: r for r in _rows(text, tmp_path)}
    tail = rows["2000"].levels["ecosystem"].point
    assert tail.outcome == "inconclusive"
    assert tail.decision.settle.startswith("the metric's spread is the finding: p99-ns is a tail")
    assert "0.57x to 1.81x of its median over 8 runs (go)" in tail.decision.settle
    rate = rows["0"].levels["ecosystem"].point
    assert rate.outcome == "inconclusive" and "spread is the finding" not in rate.decision.settle
    assert score.is_quantile("p999-ns") and not score.is_quantile("peak-B") and not score.is_quantile("ns/op")


def test_a_cell_fixed_by_construction_is_listed_not_counted(tmp_path):
    text = HEADER + "Unit speedup better=higher\n"
    for w, go, py in (("1", 1.0, 1.0), ("2", 1.98, 1.2)):
        text += lines("cores", "go", f"/n=1000/workers={w}", "speedup", go)
        text += lines("cores", "py-threads", f"/n=1000/workers={w}", "speedup", py)
    rows = _rows(text, tmp_path)
    one = next(r for r in rows if r.params["workers"] == "1")
    assert one.undecided and all(c.winner is None for c in one.levels.values())
    assert one.levels["alone"].text().startswith("not counted: at one worker every speed-up is 1")
    t = score.tallies(rows)
    assert (t["alone"].go, t["alone"].python, t["alone"].equivalent, t["alone"].inconclusive) == (1, 0, 0, 0)
    v = summary.verdict(rows)
    assert "Go is faster in the one cell, by 1.65× (cores: go against py-" in v
    assert "Listed, not counted: cores: n=1000, workers=1 (at one worker" in v


def test_whole_programs_score_in_their_own_column(tmp_path):
    text = HEADER + "Unit ns/event better=lower\n"
    size = "/events=277/test=1/sink=pipe"
    text += lines("aspects", "go-binary", size, "ns/event", 80000.0)
    text += lines("aspects", "py-script", size, "ns/event", 500000.0)
    text += lines("aspects", "c-binary", size, "ns/event", 30000.0)
    (row,) = _rows(text, tmp_path)
    assert row.levels["ecosystem"].point is None and row.levels["program"].winner == "go"
    doc_text = document.render(benchfmt.read_dir(tmp_path), "x")
    assert "| whole program |" in doc_text
    assert (
        "As whole programs (started from outside, timed to exit): Go is faster in the one cell, "
        "by 6.25× (aspects: go-binary against py-script)" in doc_text
    )


def test_the_numba_program_is_a_whole_program_with_its_jit_cost(tmp_path):
    """py-script-numba (start to exit: numba's import and compile in every
    start) is one of Python's whole programs: the column takes Python's
    faster program, whichever it is."""
    size = "/events=277/test=1/sink=pipe"
    for numba, best in ((2_000_000.0, "py-script"), (300_000.0, "py-script-numba")):
        text = HEADER + "Unit ns/event better=lower\n"
        text += lines("aspects", "go-binary", size, "ns/event", 80000.0)
        text += lines("aspects", "py-script", size, "ns/event", 500000.0)
        text += lines("aspects", "py-script-numba", size, "ns/event", numba)
        (row,) = _rows(text, tmp_path)
        assert row.levels["ecosystem"].point is None and row.levels["program"].winner == "go"
        assert f"(aspects: go-binary against {best})" in summary.verdict([row]), best


def test_the_verdict_names_each_side_and_its_range(tmp_path):
    v = summary.verdict(_rows(suite_text(), tmp_path))
    sentences = re.split(r"(?<=\.) (?=[A-Z])", v)
    assert sentences[0].startswith("The language alone") and "Python is faster in none" in sentences[0]
    assert any(s.startswith("Calling C") and "Python is faster in 1 of 2 cells, by" in s for s in sentences)


def test_the_verdict_names_the_variants_and_where_the_ecosystem_changes_the_answer(tmp_path):
    n = "/n=20000000"
    text = HEADER + "Unit ns/iter better=lower\n"
    text += lines("loop", "go", n, "ns/iter", 0.90)
    text += lines("loop", "go-columns", n, "ns/iter", 0.95)  # declared alone: Go's best here is go
    text += lines("loop", "py", n, "ns/iter", 40.0)
    text += lines("loop", "py-numba", n, "ns/iter", 0.50)
    (row,) = _rows(text, tmp_path)
    assert row.levels["alone"].winner == "go" and row.levels["ecosystem"].winner == "python"
    v = summary.verdict([row])
    assert "Go is faster in the one cell, by 44.4× (loop: go against py)" in v
    assert "Python is faster in the one cell, by 1.80× (loop: py-numba against go)" in v
    assert re.search(
        r"With its ecosystem the answer changes in loop: n=20000000 \(Python's py-numba against Go's go: "
        r"Python 1\.80× \[[\d.]+×, [\d.]+×\], where the language alone gives Go 44\.4× \[[\d.]+×, [\d.]+×\], "
        r"go against py\)\.",
        v,
    ), v
    # A cell whose two levels agree says nothing more.
    text = HEADER + "Unit ns/iter better=lower\n" + lines("loop", "go", n, "ns/iter", 0.90)
    text += lines("loop", "py", n, "ns/iter", 40.0) + lines("loop", "py-numba", n, "ns/iter", 2.0)
    assert "the answer changes" not in summary.verdict(_rows(text, tmp_path))


def test_the_score_says_what_share_of_the_runs_seconds_was_timed(tmp_path):
    """Each run's iterations x ns/op (x the values its process timed) by
    level, against the seconds the end record gives the run."""
    text = HEADER
    text += "BenchmarkLoop/impl=go/n=9 4 250000000 ns/op\n"  # 1 s timed, alone
    text += "--- VALUES: BenchmarkLoop/impl=py-c/n=9: ns/op 1e9 1e9 1e9\n"
    text += "BenchmarkLoop/impl=py-c/n=9 1 1000000000 ns/op\n"  # 3 values: 3 s, calling C
    text += "--- END: 2026-12-07T00:00:00Z after 8 s\n"
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    by, took = document.timed_seconds(rs)
    assert by == {"alone": 1.0, "core": 3.0} and took == 8.0
    line = document._timed_text(rs)
    assert line.startswith("Timed work: the runs' timed regions (iterations × ns/op) took 4 s of the run's 8 s (50%)")
    assert "the language alone 1 s, calling C 3 s" in line


def test_chain_scores_its_caller_driven_coroutines_apart(tmp_path):
    """Generators sent into are no chain of tasks joined by channels: they
    score against Go's closures and pull iterators in a row of their own,
    and the round's own row (its headline) sets goroutines against asyncio,
    however fast the generators are."""
    from roundbench.judge import closeness
    from roundbench.rounds import chain

    text = HEADER
    size = "/n=100000/hop-work=0/parallel=1"
    for impl, ns in (
        ("go", 300.0),
        ("go-iter-pull", 450.0),
        ("go-closures", 2.0),
        ("py-asyncio", 900.0),
        ("py-generators", 150.0),
        ("py-c", 60.0),
        ("go-c", 60.0),
    ):
        text += lines("chain", impl, size, "ns/hop", ns)
    rows = [r for r in _rows(text, tmp_path) if r.round == "chain"]
    own, apart = rows
    assert own.pair == "" and apart.pair == "caller-driven"
    assert apart.label.endswith(", coroutines the caller drives in turn (no channel, no scheduler)")
    alone = own.levels["alone"].point
    assert (alone.a.impl, alone.b.impl) == ("go", "py-asyncio")
    assert own.levels["core"].point is not None
    caller = apart.levels["alone"].point
    assert (caller.a.impl, caller.b.impl) == ("go-closures", "py-generators")
    assert apart.levels["core"].point is None
    # The scheduler funds the pairs the score makes, in both rows.
    pairs = closeness.score_pairs(chain.ROUND, ["go", "go-iter-pull", "go-closures", "py-asyncio", "py-generators"])
    assert (["go"], ["py-asyncio"]) in pairs
    assert (["go-iter-pull", "go-closures"], ["py-generators"]) in pairs
    assert not any("go" in g and "py-generators" in p for g, p in pairs)


def test_the_verdict_names_a_go_build_twin_only_where_it_beats_the_plain_build(tmp_path):
    """go-pgo 2% ahead of go is no finding of PGO's: the cell is go's, and
    the verdict names the plain build; go-v3 25% ahead is GOAMD64=v3's."""
    text = HEADER
    n = "/n=20000000"
    text += lines("loop", "go", n, "ns/iter", 1.00)
    text += lines("loop", "go-pgo", n, "ns/iter", 0.98)
    text += lines("loop", "py", n, "ns/iter", 40.0)
    row = next(r for r in _rows(text, tmp_path) if r.round == "loop")
    assert row.levels["alone"].point.a.impl == "go"
    text += lines("loop", "go-v3", n, "ns/iter", 0.75)
    (tmp_path / "results.txt").unlink()
    row = next(r for r in _rows(text, tmp_path) if r.round == "loop")
    assert row.levels["alone"].point.a.impl == "go-v3"
