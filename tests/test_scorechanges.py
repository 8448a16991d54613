"""`roundbench compare A B` says which points of the score moved and why."""

from __future__ import annotations

from roundbench.results import benchfmt
from roundbench.report import scorechanges

from conftest import run_roundbench
from test_report import HEADER, lines

N = "/n=20000000"
M = "/n=300/threads=1"


def _set(tmp_path, name: str, text: str):
    d = tmp_path / name
    d.mkdir()
    (d / "results.txt").write_text(HEADER + text)
    return d


def _pair(tmp_path):
    common = lines("loop", "go", N, "ns/iter", 0.95) + lines("loop", "py", N, "ns/iter", 40.0)
    common += lines("loop", "go-c", N, "ns/iter", 0.71) + lines("matmul", "go", M, "GFLOP/s", 5.5)
    common += lines("matmul", "py-numpy", M, "GFLOP/s", 60.0)
    a = _set(tmp_path, "a", common + lines("loop", "py-c", N, "ns/iter", 0.71))
    b = _set(
        tmp_path,
        "b",
        common + lines("loop", "py-c", N, "ns/iter", 0.80) + lines("matmul", "go-gonum", M, "GFLOP/s", 70.0),
    )
    return a, b


def test_the_points_that_moved_and_why(tmp_path):
    a, b = _pair(tmp_path)
    found, rows_a, rows_b = scorechanges.changes(benchfmt.read_dir(a), benchfmt.read_dir(b))
    by = {(c.label.split(":")[0], c.level): c for c in found}
    assert set(by) == {("loop", "core"), ("matmul", "ecosystem")}, found
    core = by["loop", "core"]
    assert core.before.startswith("equivalent") and core.after.startswith("Go ")
    assert core.why.startswith("same pair, ratio 1.000") and core.why.endswith(
        "its interval lies beyond the 5% margin in B"
    )
    eco = by["matmul", "ecosystem"]
    assert eco.why == "the pair changed: Go's side is go-gonum, new in B (was go)"
    assert eco.before.startswith("Python 10.9×") and eco.after.startswith("Go 1.17×")
    text = scorechanges.format_text(found, rows_a, rows_b, "a", "b")
    assert (
        "calling C: A Go 0, Python 0, equivalent 1, inconclusive 0; B Go 1, Python 0, equivalent 0, inconclusive 0"
        in text
    )


def test_compare_prints_the_score_changes(tmp_path):
    a, b = _pair(tmp_path)
    md = tmp_path / "cmp.md"
    out = run_roundbench("compare", str(a), str(b), "--md", str(md))
    assert out.returncode == 0, out.stderr
    assert "2 point(s) moved:" in out.stdout and "why: the pair changed" in out.stdout
    assert "## Score changes" in md.read_text()
    quiet = run_roundbench("compare", str(a), str(b), "--no-score")
    assert quiet.returncode == 0 and "Score changes" not in quiet.stdout
    same = run_roundbench("compare", str(a), str(a))
    assert "No point moved" in same.stdout
