"""The placebo run (run/placebo.py, `roundbench run --placebo SIDE`): one
side's variants stand in for both under two names, so that every cell the
verdict decides as faster is a false decision; the report counts them by
the rule in force and by the one it replaced."""

from __future__ import annotations

import pytest

from roundbench import rounds
from roundbench.judge import cells, intervals, score
from roundbench.results import benchfmt, levels
from roundbench.run import placebo
from roundbench.run.plans import make_plans

from conftest import run_roundbench
from test_report import HEADER, lines


def test_stand_ins_carry_their_originals_level_and_child():
    assert levels.placebo_name("py-numba", "go") == "go-placebo-py-numba"
    assert levels.placebo_of("go-placebo-py-numba") == "py-numba"
    assert levels.placebo_of("go-pgo") is None and levels.placebo_of("py") is None
    assert levels.level("go-placebo-py-numba") == levels.level("py-numba") == "ecosystem"
    assert levels.level("go-placebo-py-c") == "core" and levels.level("py-placebo-go") == "alone"


def test_plans_keep_one_side_and_add_its_stand_ins():
    loop = rounds.get("loop")
    (plan,) = make_plans([loop], None, True, {})
    (p,) = placebo.plans([plan], "py")
    names = [v.name for v in p.variants]
    assert "go" not in names and "c" not in names and "py-module-published" not in names
    assert names[:2] == ["py", "go-placebo-py"]
    twin = p.variants[1]
    assert twin.stands_for == "py" and twin.runs_as == "py" and twin.language == "go"
    assert twin.level == "alone" and p.round.variant("go-placebo-py") == twin
    with pytest.raises(ValueError, match="placebo side 'java'"):
        placebo.plans([plan], "java")


def test_a_round_of_crossings_pairs_each_variant_with_its_stand_in():
    ffi = rounds.get("ffi")
    (plan,) = make_plans([ffi], None, True, {})
    (p,) = placebo.plans([plan], "py")
    kept = [pair for pair in ffi.pairs if all(n.startswith("py") for n in pair.py)]
    assert kept and len(kept) < len(ffi.pairs)  # C calling back has no Python variant to stand in
    for pair, mine in zip(kept, p.round.pairs):
        assert mine.py == pair.py and mine.go == tuple(f"go-placebo-{n}" for n in pair.py)


def _placebo_rows(tmp_path, spread):
    text = HEADER + "placebo: py stands in for both sides\n"
    n = "/n=20000000"
    text += lines("loop", "py", n, "ns/iter", 40.0)
    text += lines("loop", "go-placebo-py", n, "ns/iter", 40.0 * spread)
    text += lines("loop", "py-c", n, "ns/iter", 0.71)
    text += lines("loop", "go-placebo-py-c", n, "ns/iter", 0.71 * spread)
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    return score.score(cells.group(rs), rs), rs


def test_placebo_counts_name_the_false_decisions_by_both_rules(tmp_path):
    # The same program 3% apart (one run's drift): the old rule calls it,
    # the margin does not.
    rows, _ = _placebo_rows(tmp_path, 1.03)
    c = score.placebo_counts(rows, intervals.Intervals())
    # Three counted cells: alone, with its ecosystem (py again) and calling C.
    assert c.cells == 3 and c.faster == 0 and c.legacy_faster == 3
    assert c.rate == 0.0 and c.legacy_rate == 1.0


def test_the_report_of_a_placebo_run_states_its_rates(tmp_path):
    from roundbench.report import document

    _, rs = _placebo_rows(tmp_path, 1.0)
    text = document.render(rs, "x")
    assert "**Placebo run** (py stands in for both sides)." in text
    assert "Of its 3 counted cells the rule decided 0 as faster (0.0%, every one false; nominal: at most 5%" in text


def test_a_placebo_run_end_to_end(tmp_path):
    out = run_roundbench(
        "run",
        "loop",
        "--quick",
        "--placebo",
        "py",
        "--impl",
        "py",
        "--impl",
        "py-c",
        "--runs",
        "3",
        "--out",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    rs = benchfmt.read_dir(tmp_path)
    impls = sorted({r.params["impl"] for r in rs.runs})
    assert impls == ["go-placebo-py", "go-placebo-py-c", "py", "py-c"]
    assert rs.configs[0]["placebo"].startswith("py stands in for both sides")
    assert "**Placebo run**" in (tmp_path / "report.md").read_text()


def test_a_placebo_with_nothing_to_stand_in_is_refused(tmp_path):
    out = run_roundbench("run", "loop", "--quick", "--placebo", "py", "--impl", "go", "--out", str(tmp_path))
    assert out.returncode == 2
    assert out.stderr.strip() == "roundbench run: --placebo py: no selected cell has a py variant to stand in"
