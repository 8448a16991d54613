"""The runner's protocol: how many runs a cell gets (adaptive or fixed),
refusals as skips, and where each child runs (placement)."""

import os
import sys

import pytest

from roundbench.results import benchfmt
from roundbench.measure import harness, placement
from roundbench import rounds
from roundbench.run import runner
from roundbench.run.plans import Plan
from roundbench.run.policy import RunPolicy
from roundbench.run.schedule import converged

from conftest import ROOT, child_env, run_roundbench


def plugin_env(tmp_path=None):
    env = child_env()
    if tmp_path is not None:
        env["ADAPTIVE_COUNTER"] = str(tmp_path / "counter")
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.adaptive_round"
    return env


def stops(rs):
    return {s.name.split("impl=")[1].split("/")[0]: s for s in rs.stops}


def test_auto_runs_stop_when_converged_or_the_budget_is_spent(tmp_path, built):
    out = run_roundbench(
        "run",
        "adaptive",
        "--impl",
        "py-steady",
        "--impl",
        "py-noisy",
        "--impl",
        "py-refuse",
        "--budget",
        "0",
        "--time-budget",
        "10",
        "--out",
        str(tmp_path),
        env=plugin_env(tmp_path),
    )
    # A refusal is a skip, not a failure: the run exits 0.
    assert out.returncode == 0, out.stderr
    # The budget before the first run, the estimate after the first wave,
    # what was spent at the end (no timing asserted).
    err = out.stderr
    assert "; time budget 10 min, the estimate after the first wave" in err
    assert "roundbench: the first wave took " in err and " of the 10 min time budget for runs beyond" in err
    assert " of the 10 min time budget, " in err
    assert "1 of 2 variant cells converged (median's 95% CI within ±2%), 1 at their cell's budget" in err
    rs = benchfmt.read_dir(tmp_path)
    got = stops(rs)
    assert got["py-steady"].runs == 6 and got["py-steady"].why.startswith("converged: median 95% CI +0.0%/+0.0%")
    assert got["py-noisy"].runs == 6 and got["py-noisy"].why.startswith("cell budget of 0 s spent")
    assert [s.reason for s in rs.skips] == ["needs more threads than kernel.threads-max allows (threads-max 7)"]
    assert "py-refuse" not in got and not rs.failures
    assert "1 skipped" in out.stderr
    report = (tmp_path / "report.md").read_text()
    assert "6/6 (converged)" in report and "6/6 (cell budget of 0 s spent)" in report


def test_auto_runs_stop_at_the_most_runs(tmp_path, built, monkeypatch):
    rounds.modules()  # the suite's own rounds registered before the snapshot below
    monkeypatch.setenv("PYTHONPATH", plugin_env()["PYTHONPATH"])
    monkeypatch.setenv("ADAPTIVE_COUNTER", str(tmp_path / "counter"))
    monkeypatch.setenv("ROUNDBENCH_PLUGINS", "plugins.adaptive_round")
    # Load the plugin round here, and forget it afterwards: its module and
    # the Python variants it registers.
    monkeypatch.setattr(rounds, "_loaded", {})
    monkeypatch.setattr(harness, "_implementations", dict(harness._implementations))
    monkeypatch.delitem(sys.modules, "plugins.adaptive_round", raising=False)
    rnd = rounds.get("adaptive")
    plans = [Plan(rnd, {"n": 1}, [rnd.variant("py-noisy"), rnd.variant("py-steady")], [])]
    r = runner.Runner(tmp_path / "results.txt", RunPolicy(min_runs=6, max_runs=8, budget_s=1e9), 60, progress=None)
    r.run(plans, {"pkg": "roundbench"})
    got = stops(benchfmt.read_dir(tmp_path))
    assert got["py-noisy"].runs == 8 and got["py-noisy"].why.startswith("at the most runs (8)")
    assert got["py-steady"].runs == 6
    # The extra runs were the noisy variant's alone.
    rs = benchfmt.read_dir(tmp_path)
    order = [x.params["impl"] for x in rs.runs]
    # Six trials of both, each in a random order, then the two extra runs.
    assert all(sorted(order[i : i + 2]) == ["py-noisy", "py-steady"] for i in range(0, 12, 2)), order
    assert order[12:] == ["py-noisy"] * 2


def test_a_round_budget_may_depend_on_the_cell(tmp_path, built, monkeypatch):
    """Round.budget_s as a function of the cell's parameters (round
    aspects' launch cells stop at the minimum runs, its in-process cells
    do not)."""
    import dataclasses

    rounds.modules()
    monkeypatch.setenv("PYTHONPATH", plugin_env()["PYTHONPATH"])
    monkeypatch.setenv("ROUNDBENCH_PLUGINS", "plugins.adaptive_round")
    monkeypatch.setattr(rounds, "_loaded", {})
    monkeypatch.setattr(harness, "_implementations", dict(harness._implementations))
    monkeypatch.delitem(sys.modules, "plugins.adaptive_round", raising=False)
    rnd = dataclasses.replace(rounds.get("adaptive"), budget_s=lambda params: 0.0 if params["n"] == 1 else 1e9)
    for n, runs, why in ((1, 6, "cell budget of 0 s spent"), (2, 8, "at the most runs (8)")):
        monkeypatch.setenv("ADAPTIVE_COUNTER", str(tmp_path / f"counter-{n}"))
        plans = [Plan(rnd, {"n": n}, [rnd.variant("py-noisy")], [])]
        out = tmp_path / f"results-{n}.txt"
        runner.Runner(out, RunPolicy(min_runs=6, max_runs=8), 60, progress=None).run(plans, {})
        got = stops(benchfmt.read_dir(out))
        assert got["py-noisy"].runs == runs and got["py-noisy"].why.startswith(why), (n, got["py-noisy"])


def test_fixed_runs(tmp_path, built):
    out = run_roundbench(
        "run", "adaptive", "--impl", "py-noisy", "--runs", "3", "--out", str(tmp_path), env=plugin_env(tmp_path)
    )
    assert out.returncode == 0, out.stderr
    got = stops(benchfmt.read_dir(tmp_path))
    assert got["py-noisy"].runs == 3 and got["py-noisy"].why == "fixed"


def _where(tmp_path, *extra):
    out = run_roundbench(
        "run",
        "adaptive",
        "--impl",
        "py-where",
        "--impl",
        "py-where-many",
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        *extra,
        env=plugin_env(),
    )
    assert out.returncode == 0, out.stderr
    return {r.params["impl"]: r.metrics for r in benchfmt.read_dir(tmp_path).runs}


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement pins only with two or more usable CPUs")
def test_pinned_placement(tmp_path, built):
    usable = sorted(os.sched_getaffinity(0))
    got = _where(tmp_path)
    assert got["py-where"]["cpus"] == 1 and got["py-where"]["first-cpu"] == usable[-1]
    assert got["py-where-many"]["cpus"] == len(usable)
    assert got["py-where"]["layout-fixed"] == 0 and got["py-where-many"]["layout-fixed"] == 0
    config = benchfmt.read_dir(tmp_path).configs[0]
    assert config["placement"].startswith(f"pinned: runner on CPU {usable[0]}; single-threaded children on CPU")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement pins only with two or more usable CPUs")
def test_pinned_fixed_placement(tmp_path, built):
    usable = sorted(os.sched_getaffinity(0))
    got = _where(tmp_path, "--placement", "pinned-fixed")
    assert got["py-where"]["cpus"] == 1 and got["py-where"]["first-cpu"] == usable[-1]
    assert got["py-where"]["layout-fixed"] == 1 and got["py-where-many"]["layout-fixed"] == 1


def test_no_placement(tmp_path, built):
    usable = sorted(os.sched_getaffinity(0))
    got = _where(tmp_path, "--placement", "none")
    assert got["py-where"]["cpus"] == len(usable) and got["py-where"]["layout-fixed"] == 0


def test_placement_plan():
    p = placement.plan("pinned", usable=[0, 1, 2, 3])
    assert p.runner == {0} and p.cpus("one") == {3} and p.cpus("many") == {0, 1, 2, 3} and not p.fixed_layout
    assert placement.plan("pinned-fixed", usable=[0, 1]).fixed_layout
    single = placement.plan("pinned", usable=[5])
    assert single.runner is None and single.cpus("one") is None
    assert placement.plan("none", usable=[0, 1]).cpus("one") is None
    with pytest.raises(ValueError):
        placement.plan("sideways")


def test_converged_needs_both_ends_of_the_ci_within_the_target():
    assert converged([100.0] * 6, 0.02) == (0.0, 0.0)
    assert converged([100, 101, 99, 100, 101, 99], 0.02) is not None
    assert converged([100, 103, 99, 100, 101, 99], 0.02) is None
    assert converged([100, 101, 99, 100, 101], 0.02) is None  # 5 runs: no 95% CI yet


def test_runs_go_in_waves_across_cells(tmp_path, built):
    """Each wave runs every cell once: a cell's runs are spread over the
    whole run, not bunched in one stretch of it."""
    env = plugin_env(tmp_path)
    env["ROUNDBENCH_PLUGINS"] = "plugins.adaptive_round,plugins.faulty_round"
    out = run_roundbench(
        "run",
        "adaptive",
        "faulty",
        "--impl",
        "py-steady",
        "--impl",
        "py-good",
        "--runs",
        "3",
        "--out",
        str(tmp_path),
        env=env,
    )
    assert out.returncode == 0, out.stderr
    order = [r.round for r in benchfmt.read_dir(tmp_path).runs]
    assert order == ["adaptive", "faulty"] * 3
