"""roundbench compare: the verdicts on result sets whose answer is known."""

import subprocess
import sys

import pytest

from conftest import child_env
from roundbench.results import benchfmt
from roundbench.report import compare

HEAD = "goos: linux\nUnit ns/op better=lower\nUnit MB/s better=higher\n"


def write(path, cells):
    """cells: name -> list of (ns/op, MB/s) pairs, written interleaved."""
    lines = [HEAD]
    longest = max(len(v) for v in cells.values())
    for k in range(longest):
        for name, runs in cells.items():
            if k < len(runs):
                ns, mbs = runs[k]
                lines.append(f"{name} 1 {ns} ns/op {mbs} MB/s 1000 peak-B\n")
    path.write_text("".join(lines))
    return path


SAME = [100, 101, 99, 102, 98, 100, 101, 99]
SLOWER = [120, 121, 119, 122, 118, 120, 121, 119]


def rows_for(tmp_path, a_cells, b_cells, **kw):
    a = benchfmt.read_dir(write(tmp_path / "a.txt", a_cells))
    b = benchfmt.read_dir(write(tmp_path / "b.txt", b_cells))
    return {(r.name, r.unit): r for r in compare.compare(a, b, **kw)}


def test_no_change_is_the_same(tmp_path):
    rows = rows_for(
        tmp_path,
        {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME]},
        {"BenchmarkLoop/impl=c": [(v + 0.5, 1) for v in reversed(SAME)]},
    )
    r = rows[("BenchmarkLoop/impl=c", "ns/op")]
    assert r.verdict == "same"  # the interval within ±5%
    assert 1 / 1.05 < r.ci[0] < 1 < r.ci[1] < 1.05


def test_a_20_percent_slowdown_is_worse(tmp_path):
    rows = rows_for(
        tmp_path, {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME]}, {"BenchmarkLoop/impl=c": [(v, 1) for v in SLOWER]}
    )
    r = rows[("BenchmarkLoop/impl=c", "ns/op")]
    assert r.verdict == "worse"
    assert r.ratio == pytest.approx(1.2, rel=0.01)
    assert r.ci[0] > 1.1 and r.ci[1] < 1.3
    assert r.worse_pct == pytest.approx(20, abs=1)


def test_higher_is_better_turns_the_verdict(tmp_path):
    rows = rows_for(
        tmp_path, {"BenchmarkJsonl/impl=c": [(1, v) for v in SAME]}, {"BenchmarkJsonl/impl=c": [(1, v) for v in SLOWER]}
    )
    r = rows[("BenchmarkJsonl/impl=c", "MB/s")]
    assert r.better == "higher" and r.verdict == "better"
    assert r.ci[0] > 1.05  # B / A: the rate rose by 20%
    assert r.worse_pct < 0


def test_two_runs_a_side_give_no_interval(tmp_path):
    rows = rows_for(
        tmp_path,
        {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME[:2]]},
        {"BenchmarkLoop/impl=c": [(v * 2, 1) for v in SAME[:2]]},
    )
    r = rows[("BenchmarkLoop/impl=c", "ns/op")]
    assert r.verdict == "inconclusive (fewer than 3 runs in a variant)" and r.ci is None


def test_process_units_only_when_asked(tmp_path):
    cells = {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME]}
    assert ("BenchmarkLoop/impl=c", "peak-B") not in rows_for(tmp_path, cells, cells)
    assert ("BenchmarkLoop/impl=c", "peak-B") in rows_for(tmp_path, cells, cells, units=["peak-B"])


def test_reads_go_test_bench_output(tmp_path):
    text = (
        "goos: linux\ngoarch: amd64\npkg: roundbench/go\n"
        + "".join(f"BenchmarkPureLoop-2   \t     {30 + i}\t  {40000000 + i * 1000} ns/op\n" for i in range(6))
        + "PASS\nok  \troundbench/go\t9.1s\n"
    )
    (tmp_path / "g.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path / "g.txt")
    rows = compare.compare(rs, rs)
    assert [(r.name, r.unit, r.verdict) for r in rows] == [("BenchmarkPureLoop-2", "ns/op", "same")]


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "roundbench", "compare", *args],
        capture_output=True,
        text=True,
        env=child_env(),
        stdin=subprocess.DEVNULL,
    )


def test_cli_fail_above_gates_a_regression(tmp_path):
    a = write(tmp_path / "a.txt", {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME]})
    b = write(tmp_path / "b.txt", {"BenchmarkLoop/impl=c": [(v, 1) for v in SLOWER]})
    md, page = tmp_path / "cmp.md", tmp_path / "cmp.html"
    out = run_cli(str(a), str(b), "--md", str(md), "--html", str(page))
    assert out.returncode == 0, out.stderr
    assert "BenchmarkLoop/impl=c" in out.stdout and "+20.0%" in out.stdout
    assert "| BenchmarkLoop/impl=c | ns/op" in md.read_text() and "<table>" in page.read_text()
    assert run_cli(str(a), str(b), "--fail-above", "25").returncode == 0
    bad = run_cli(str(a), str(b), "--fail-above", "10")
    assert bad.returncode == 1 and "REGRESSION: BenchmarkLoop/impl=c ns/op" in bad.stderr


def test_cli_usage_errors_exit_2(tmp_path):
    a = write(tmp_path / "a.txt", {"BenchmarkLoop/impl=c": [(v, 1) for v in SAME]})
    other = write(tmp_path / "o.txt", {"BenchmarkOther/impl=c": [(v, 1) for v in SAME]})
    missing = run_cli(str(a), str(tmp_path / "nope"))
    assert missing.returncode == 2 and "B: " in missing.stderr and "(there is none)" in missing.stderr
    disjoint = run_cli(str(a), str(other))
    assert disjoint.returncode == 2 and "no benchmark and unit in common" in disjoint.stderr
    assert run_cli(str(a), str(a), "--alpha", "2").returncode == 2
    bad = run_cli(str(a), str(a), "--margin", "0")
    assert bad.returncode == 2 and "--margin 0: want a percentage between 0 and 100" in bad.stderr


def test_repeatability_judges_each_cell_by_its_rounds_metric(tmp_path):
    head = "Unit ns/op better=lower\nUnit ns/iter better=lower\n"
    first = [head] + [
        f"BenchmarkLoop/impl={impl}/n=20 1 {v * 20} ns/op {v} ns/iter\n" for v in SAME for impl in ("c", "py")
    ]
    # py's ns/iter moves by 20% in the second run; c's stays put.
    second = [head] + [
        f"BenchmarkLoop/impl=c/n=20 1 {v * 20} ns/op {v} ns/iter\n"
        f"BenchmarkLoop/impl=py/n=20 1 {w * 20} ns/op {w} ns/iter\n"
        for v, w in zip(reversed(SAME), SLOWER)
    ]
    (tmp_path / "a.txt").write_text("".join(first))
    (tmp_path / "b.txt").write_text("".join(second))
    rep = compare.repeatability(benchfmt.read_dir(tmp_path / "a.txt"), benchfmt.read_dir(tmp_path / "b.txt"))
    assert [(r.name, r.unit) for r in rep.rows] == [
        ("BenchmarkLoop/impl=c/n=20", "ns/iter"),
        ("BenchmarkLoop/impl=py/n=20", "ns/iter"),
    ]
    assert [r.name for r in rep.same] == ["BenchmarkLoop/impl=c/n=20"]
    assert [r.verdict for r in rep.rows] == ["same", "worse"]
    text = compare.format_repeatability(rep, "a", "b")
    assert "cells the same in both runs (B / A within ±5%): 1 of 2 (50%)" in text
    # The score's one cell (c is the ceiling, py alone): py against no Go variant has no point.
    assert "score cells with the same outcome in both runs: 0 of 0" in text


def test_reads_what_benchstat_reads_and_skips_what_it_skips(tmp_path):
    """`go test -bench -v` output: a bare benchmark name line, a benchmark
    with its own unit and no ns/op, a log line; a rate is better higher."""
    text = "goos: linux\nBenchmarkDecode\n" + "".join(
        f"BenchmarkDecode-8 \t 1000\t {1200 + i} ns/op\t 64 B/op\nBenchmarkRate-8 \t 100\t {55 + i} MB/s\n"
        for i in range(6)
    )
    (tmp_path / "g.txt").write_text(text + "    bench_test.go:12: a log line\nPASS\nok  \tx\t3.2s\n")
    rs = compare.load(str(tmp_path / "g.txt"))
    assert len(rs.runs) == 12 and rs.bad_lines == [
        f"{tmp_path / 'g.txt'}:2: malformed benchmark line: 'BenchmarkDecode'"
    ]
    rows = {(r.name, r.unit): r for r in compare.compare(rs, rs)}
    assert rows[("BenchmarkRate-8", "MB/s")].better == "higher"
    assert rows[("BenchmarkDecode-8", "ns/op")].better == "lower"
    out = run_cli(str(tmp_path / "g.txt"), str(tmp_path / "g.txt"))
    assert out.returncode == 0 and "skipped 1 line(s) that hold no result" in out.stderr
    # the suite's own files stay strict: a malformed line is an error naming its place
    (tmp_path / "r.txt").write_text("BenchmarkLoop/impl=c/n=5 1 x ns/op\n")
    with pytest.raises(ValueError, match=r"r\.txt:1: malformed benchmark line"):
        benchfmt.read_dir(tmp_path / "r.txt")


def test_repeatability_counts_unstable_cells_as_the_report_flags_them(tmp_path):
    """Unstable: the median's 95% CI reaches more than ±5% from it (stats);
    a cell of fewer than 6 runs has no interval and is not counted."""
    head = "Unit ns/iter better=lower\n"
    steady = [100, 101, 99, 100, 102, 98]
    wide = [100, 112, 99, 100, 102, 98]  # its interval [98, 112]: +12%
    a = [head] + [f"BenchmarkLoop/impl=c/n=20 1 {v * 20} ns/op {v} ns/iter\n" for v in steady]
    a += [f"BenchmarkLoop/impl=py/n=20 1 {v * 20} ns/op {v} ns/iter\n" for v in [50, 150, 100]]
    b = [head] + [f"BenchmarkLoop/impl=c/n=20 1 {v * 20} ns/op {v} ns/iter\n" for v in wide]
    b += [f"BenchmarkLoop/impl=py/n=20 1 {v * 20} ns/op {v} ns/iter\n" for v in [50, 150, 100]]
    (tmp_path / "a.txt").write_text("".join(a))
    (tmp_path / "b.txt").write_text("".join(b))
    rep = compare.repeatability(benchfmt.read_dir(tmp_path / "a.txt"), benchfmt.read_dir(tmp_path / "b.txt"))
    assert (rep.unstable_a, rep.unstable_b) == (0, 1)
    text = compare.format_repeatability(rep, "a", "b")
    assert "cells flagged unstable (the median's 95% CI reaching more than ±5% from it): A 0 of 2" in text
