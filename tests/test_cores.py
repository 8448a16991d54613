"""Round cores: every variant at small N and several worker counts against
the shared vectors, the split into shares, bad input, and no threads,
processes or file descriptors left behind."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import roundbench
from roundbench.results import benchfmt
from roundbench.pure import cores as pure
from roundbench.rounds import cores as rnd
from roundbench.rounds.loop import expected

from conftest import BUILD, child_env, load_vectors, run_roundbench
from conftest import open_fds as _fds, os_threads as _threads

CORES = load_vectors("cores")


def _core_threads(n, workers):
    return pure.on_threads(n, workers, roundbench.loop_range)


RUNS = {
    "py-threads": pure.on_threads,
    "py-c": _core_threads,
    "py-processes": pure.on_processes,
    "core-threads": roundbench.loop_parallel,
}


@pytest.mark.parametrize("v", CORES, ids=lambda v: f"n={v['n']}-t={v['workers']}")
@pytest.mark.parametrize("name", list(RUNS))
def test_variants_agree_and_leave_nothing_behind(name, v):
    n, workers, want = int(v["n"]), int(v["workers"]), int(v["sum"])
    if name == "py-processes" and workers > 4:
        workers = 4  # a pool of 16 processes adds seconds and tests nothing more
    threads, fds = _threads(), _fds()
    assert RUNS[name](n, workers) == want
    assert _threads(threads) <= threads, "threads left running"
    assert _fds() == fds, "file descriptors left open"
    assert not __import__("multiprocessing").active_children(), "worker processes left running"


CORES_ERRORS = load_vectors("cores-error")
assert len(CORES) >= 8 and len(CORES_ERRORS) >= 4, "too few cores or cores-error vectors"


@pytest.mark.parametrize("v", CORES_ERRORS, ids=lambda v: f"n={v['n']}-t={v['workers']}")
def test_core_refuses_bad_arguments(v):
    """The core's own checks, through the binding's one mapper."""
    n, workers, arg = int(v["n"]), int(v["workers"]), v["arg"]
    exc = OverflowError if v["error"] == "overflow" else ValueError
    value = n if arg == "n" else workers
    with pytest.raises(exc, match=f"^loop_parallel\\(\\) argument '{arg}' .*, not {value}$"):
        roundbench.loop_parallel(n, workers)


@pytest.mark.parametrize("v", load_vectors("cores-share"), ids=lambda v: f"{v['n']}/{v['workers']}/{v['w']}")
def test_share(v):
    got = pure.share(int(v["n"]), int(v["workers"]), int(v["w"]))
    assert got == (int(v["lo"]), int(v["hi"]))


def test_timed_pair_checks_both_passes():
    out = pure.timed_pair(1001, 3, pure.on_threads)
    assert out["sum"] == expected(1001) and out["t1_ns"] > 0 and out["tn_ns"] > 0
    with pytest.raises(ValueError, match="3 workers summed"):
        pure.timed_pair(10, 3, lambda n, w: w)


def test_freethreaded_script_runs_standalone():
    """The script py-freethreaded hands to a free-threaded interpreter needs
    only the standard library; run it here with this interpreter."""
    script = Path(pure.__file__)
    r = subprocess.run(
        [sys.executable, "-S", str(script), "1001", "2"], capture_output=True, text=True, timeout=60, cwd="/"
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["sum"] == expected(1001)
    assert out["gil_disabled"] == bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))


def _child(impl, *params):
    """The variant's child, in the environment its declaration gives it
    (Variant.env: GOMAXPROCS, NUMBA_NUM_THREADS), as the runner starts it."""
    if impl == "c-threads":
        cmd = [str(BUILD / "rb-c"), "cores", impl]
    elif impl.startswith("go"):
        cmd = [str(BUILD / "rb-go-cores"), "cores", impl]
    else:
        cmd = [sys.executable, "-m", "roundbench.run.child", "cores", impl]
    env = child_env()
    v = rnd.ROUND.variant(impl)
    if v.env is not None:
        env.update(v.env(dict(p.split("=", 1) for p in params)))
    return subprocess.run(cmd + list(params), capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("impl", [v.name for v in rnd.ROUND.variants if not v.name.startswith("py-freethreaded")])
@pytest.mark.parametrize("n, workers", [(1, 1), (2, 2), (1001, 3)])
def test_every_variant_child(built, impl, n, workers):
    why = rnd.ROUND.variant(impl).requires and rnd.ROUND.variant(impl).requires()
    if why:
        pytest.skip(why)  # a library variant without its library: tests/test_fast_python.py
    out = _child(impl, f"n={n}", f"workers={workers}")
    assert out.returncode == 0, out.stderr
    assert f"result: sum={expected(n)}" in out.stdout
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")][0]
    r = benchfmt.parse_bench_line(line)
    assert r.name == f"BenchmarkCores/impl={impl}/n={n}/workers={workers}"
    assert r.metrics["speedup"] > 0 and r.metrics["efficiency"] == pytest.approx(
        r.metrics["speedup"] / workers, rel=1e-3
    )
    if workers == 1:
        assert r.metrics["speedup"] == 1


def test_freethreaded_unmarked_absent_or_brings_the_gil_back(built):
    out = _child("py-freethreaded-unmarked", "n=1001", "workers=2")
    if rnd.freethreaded_python() is None:
        assert out.returncode == 4 and "absent: no free-threaded Python" in out.stderr
    else:
        # the child checks that the GIL came back and that the interpreter warned
        assert out.returncode == 0, out.stderr
        assert f"result: sum={expected(1001)}" in out.stdout


def test_freethreaded_absent_or_runs(built):
    out = _child("py-freethreaded", "n=1001", "workers=2")
    if rnd.freethreaded_python() is None:
        assert out.returncode == 4 and "absent: no free-threaded Python" in out.stderr
        assert "absent" in rnd.ROUND.variant("py-freethreaded").requires()
    else:
        assert out.returncode == 0, out.stderr
        assert f"result: sum={expected(1001)}" in out.stdout


@pytest.mark.parametrize("impl", ["c-threads", "go", "py-c"])
@pytest.mark.parametrize(
    "arg, msg",
    [
        ("workers=0", "workers=0 is out of range"),
        ("workers=4097", "workers=4097 is out of range"),
        ("n=-1", "n=-1 is out of range"),
    ],
)
def test_child_rejects_bad_arguments(built, impl, arg, msg):
    out = _child(impl, arg)
    assert out.returncode == 2 and msg in out.stderr


def test_sizes_use_every_core():
    assert {s["workers"] for s in rnd.ROUND.sizes} == {1, len(os.sched_getaffinity(0))}


def test_quick_round_through_the_runner(tmp_path, built):
    out = run_roundbench("run", "cores", "--quick", "--runs", "1", "--n", "300000", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures
    ran = {v.name for v in rnd.ROUND.variants} - {s.name.split("impl=")[1].split("/")[0] for s in rs.skips}
    assert {r.params["impl"] for r in rs.runs} == ran
    assert all("/workers=" in r.name for r in rs.runs)
    report = (tmp_path / "report.md").read_text()
    assert "## cores" in report and "efficiency" in report and "py-freethreaded" in report
