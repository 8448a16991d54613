"""Repeatability in the rule's words: the share of score cells whose
outcome agrees between two runs of the same settings (judge/score.py's
agreement), in `compare` and, when the results store holds an earlier run
of the same settings on the same machine, in the run's own report."""

from __future__ import annotations

import os

from roundbench.judge import cells, score
from roundbench.results import benchfmt

from conftest import child_env, run_roundbench
from test_report import HEADER, lines


def _rows(tmp_path, name, go_loop, py_c):
    n = "/n=20000000"
    text = HEADER + lines("loop", "go", n, "ns/iter", go_loop) + lines("loop", "py", n, "ns/iter", 40.0)
    text += lines("loop", "go-c", n, "ns/iter", 0.71) + lines("loop", "py-c", n, "ns/iter", py_c)
    path = tmp_path / name
    path.mkdir()
    (path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(path)
    return score.score(cells.group(rs), rs)


def test_agreement_counts_the_cells_whose_outcome_holds(tmp_path):
    a = _rows(tmp_path, "a", 0.95, 0.71)
    b = _rows(tmp_path, "b", 0.95, 0.85)  # calling C: equivalent in A, Go faster in B
    agree, total, changed = score.agreement(a, b)
    assert (agree, total) == (2, 3)
    ((label, lvl, ta, tb),) = changed
    assert lvl == "core" and ta.startswith("equivalent: go-c vs py-c") and tb.startswith("Go 1.20× [")


def test_a_runs_report_quotes_the_store_s_earlier_run(tmp_path):
    env = {**child_env(), "ROUNDBENCH_STORE": str(tmp_path / "store.sqlite")}
    args = ("run", "loop", "--quick", "--impl", "go", "--impl", "py", "--runs", "3")
    first = run_roundbench(*args, "--out", str(tmp_path / "first"), env=env)
    assert first.returncode == 0, first.stderr
    assert "Repeatability" not in (tmp_path / "first" / "report.md").read_text()  # no store yet
    got = run_roundbench("store", "import", str(tmp_path / "first"), env=env)
    assert got.returncode == 0, got.stderr
    second = run_roundbench(*args, "--out", str(tmp_path / "second"), env=env)
    assert second.returncode == 0, second.stderr
    text = (tmp_path / "second" / "report.md").read_text()
    assert "**Repeatability**, against the run of " in text
    assert " score cells (" in text and "have the same outcome in both" in text
    # Other settings (another round) have no earlier run to be held to.
    other = run_roundbench(
        "run",
        "ffi",
        "--quick",
        "--impl",
        "go",
        "--impl",
        "py",
        "--runs",
        "3",
        "--out",
        str(tmp_path / "other"),
        env=env,
    )
    assert other.returncode == 0 and "Repeatability" not in (tmp_path / "other" / "report.md").read_text()
    assert os.path.exists(tmp_path / "store.sqlite")
