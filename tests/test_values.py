"""Several values a process (docs/measurement.md, "Values per process"):
each language's child times its variant $ROUNDBENCH_VALUES times, the
runner keeps the process's median value as its run and every value in a
--- VALUES: record, and the schedule chooses how many from what a process
and a value cost and how the values spread."""

from __future__ import annotations

import subprocess
import sys

import pytest

from roundbench import rounds
from roundbench.results import benchfmt
from roundbench.run import schedule, spawn
from roundbench.run.policy import MAX_VALUES, RunPolicy

from conftest import BUILD, ROOT, child_env, run_roundbench

CHILDREN = {
    "c": [str(BUILD / "rb-c"), "loop", "c", "n=1000"],
    "go": [str(BUILD / "rb-go-loop"), "loop", "go", "n=1000"],
    "py": [sys.executable, "-m", "roundbench.run.child", "loop", "py", "n=1000"],
}


def _child(lang: str, values: str) -> subprocess.CompletedProcess:
    env = child_env()
    env[rounds.VALUES_ENV] = values
    return subprocess.run(CHILDREN[lang], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("lang", sorted(CHILDREN))
def test_each_child_times_as_many_values_as_asked(built, lang):
    out = _child(lang, "003")
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")]
    assert len(lines) == 3 and all(ln.split()[0] == "BenchmarkLoop/impl=" + lang + "/n=1000" for ln in lines)
    assert [ln for ln in out.stdout.splitlines() if ln.startswith("result:")] == ["result: sum=2001"] * 3
    assert len([ln for ln in _child(lang, "").stdout.splitlines() if ln.startswith("Benchmark")]) == 1


@pytest.mark.parametrize("lang", sorted(CHILDREN))
@pytest.mark.parametrize("bad", ["0", "101", "x"])
def test_each_child_refuses_a_count_out_of_range(built, lang, bad):
    out = _child(lang, bad)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stdout == ""
    assert f"{rounds.VALUES_ENV}={bad}" in out.stderr and "from 1 to 100" in out.stderr


def _fake_child(lines: list) -> list:
    script = "import sys\n" + "".join(f"print({ln!r}, flush=True)\n" for ln in lines)
    return [sys.executable, "-c", script]


def test_the_process_keeps_its_median_value_and_its_first_compile():
    name = "BenchmarkLoop/impl=py-numba/n=10"
    lines = [
        f"{name} 1 30 ns/op 3 ns/iter 700 compile-ns 400 import-ns",
        "result: sum=1",
        f"{name} 1 10 ns/op 1 ns/iter 2 compile-ns 400 import-ns",
        "result: sum=1",
        f"{name} 1 20 ns/op 2 ns/iter 2 compile-ns 400 import-ns",
        "result: sum=1",
    ]
    rnd = rounds.get("loop")
    o = spawn.run_child(_fake_child(lines), name, 60, values=3, pick=schedule.pick_median(rnd, {"n": "10"}))
    assert o.ok, o.reason
    run = benchfmt.parse_bench_line(o.line)
    assert run.metrics["ns/iter"] == 2 and run.metrics["compile-ns"] == 700
    assert len(o.values) == 3 and len(o.stamps) == 3 and o.stamps == sorted(o.stamps)
    assert o.line.split()[0] == name and run.metrics["ns/op"] == 20


def test_values_that_disagree_fail_the_run_and_a_short_count_too():
    name = "BenchmarkLoop/impl=py/n=10"
    lines = [f"{name} 1 10 ns/op", "result: sum=1", f"{name} 1 10 ns/op", "result: sum=2"]
    o = spawn.run_child(_fake_child(lines), name, 60, values=2)
    assert not o.ok and o.reason == "its values disagree: result sum=1, then sum=2"
    o = spawn.run_child(_fake_child(lines[:2]), name, 60, values=3)
    assert not o.ok and o.reason == "printed 1 result lines, want 3 (one per value asked for)"


def test_the_values_record_reads_back_onto_its_run():
    text = (
        "goos: linux\n"
        + benchfmt.values_line("BenchmarkLoop/impl=c/n=9", "ns/iter", [1.5, 1.25, 1.75])
        + "BenchmarkLoop/impl=c/n=9 1 10 ns/op 1.5 ns/iter\n"
        + "BenchmarkLoop/impl=c/n=9 1 11 ns/op 1.6 ns/iter\n"
    )
    rs = benchfmt.parse_lines(text.splitlines(keepends=True))
    assert (rs.runs[0].values_unit, rs.runs[0].values) == ("ns/iter", [1.5, 1.25, 1.75])
    assert rs.runs[1].values is None
    assert benchfmt.classify("--- VALUES: BenchmarkLoop/impl=c: ns/iter 1 2")[0] == "values"


def test_variance_ratio():
    # Processes alike, values spread within each: a large ratio.
    assert schedule.variance_ratio([[1.0, 1.2, 0.9], [1.0, 1.2, 0.9]]) == float("inf")
    # Processes apart, each steady: a small one.
    r = schedule.variance_ratio([[1.0, 1.01, 0.99], [2.0, 2.02, 1.98], [1.5, 1.51, 1.49]])
    assert 0 < r < 0.01
    assert schedule.variance_ratio([[1.0, 2.0]]) is None
    assert schedule.variance_ratio([[1.0], [2.0]]) is None


class _Outcome:
    def __init__(self, line, wall_s, values=(), stamps=()):
        self.ok, self.skipped, self.killed = True, False, False
        self.line, self.wall_s, self.values, self.stamps = line, wall_s, list(values), list(stamps)


def _cell(variant: str = "py-numba"):
    from roundbench.run.plans import Plan

    rnd = rounds.get("loop")
    v = next(x for x in rnd.variants if x.name == variant)
    s = schedule.Schedule(RunPolicy(), [Plan(rnd, {"n": "20000000"}, [v], [])], lambda: 0.0, lambda _t: None)
    return s, s.cells[0], v.key


def test_values_follow_what_a_process_and_a_value_cost():
    """numba: 550 ms to start, 14 ms of loop a value: after its first
    process (one value), 3 to learn the spread; once processes are known to
    differ by more than their values do, fewer. The slow pure loop stays at
    one value a process."""
    s, c, key = _cell("py-numba")
    assert s.values_for(c, key) == 1
    name = "BenchmarkLoop/impl=py-numba/n=20000000"
    s.record(c, key, _Outcome(f"{name} 1 14000000 ns/op 0.7 ns/iter", 0.614), False)
    k = s.values_for(c, key)
    assert k % 2 == 1 and 3 <= k <= MAX_VALUES
    for base in (0.7, 1.4):
        vals = [base, base * 1.001, base * 0.999]
        lines = [f"{name} 1 14000000 ns/op {x} ns/iter" for x in vals]
        s.record(c, key, _Outcome(lines[1], 0.75, lines, [0.614, 0.678, 0.742]), False)
    assert s.values_for(c, key) == 1  # the processes differ; the values within one do not
    s, c, key = _cell("py")
    s.record(c, key, _Outcome("BenchmarkLoop/impl=py/n=20000000 1 1700000000 ns/op 85 ns/iter", 1.8), False)
    assert s.values_for(c, key) == 1


def test_whole_and_published_programs_give_one_value():
    for rnd in rounds.all_rounds():
        for v in rnd.variants:
            if v.level in ("program", "published") or rnd.facts or v.program == "generated":
                assert not rounds.gives_values(rnd, v), (rnd.name, v.name)


def test_a_run_with_values_writes_them_and_the_report_reads_them(tmp_path, built):
    out = run_roundbench(
        "run", "loop", "--quick", "--impl", "c", "--impl", "go-c", "--impl", "py-c", "--runs", "2", "--values", "3",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rs = benchfmt.read_dir(tmp_path)
    assert len(rs.runs) == 6
    for r in rs.runs:
        assert r.values_unit == "ns/iter" and len(r.values) == 3
        assert r.metrics["ns/iter"] == sorted(r.values)[1]
    bad = run_roundbench("run", "loop", "--quick", "--values", "0", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "--values 0" in bad.stderr
