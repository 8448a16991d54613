"""The runner and the report: failures become rows, nothing is lost, the
result file is valid Go benchmark format (benchstat reads it)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from roundbench.results import benchfmt

from conftest import ROOT, child_env, run_roundbench


def plugin_env():
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.faulty_round"
    return env


def test_failures_are_recorded_and_the_suite_goes_on(tmp_path, built):
    out = run_roundbench("run", "faulty", "--runs", "2", "--timeout", "3", "--out", str(tmp_path), env=plugin_env())
    assert out.returncode == 1, out.stderr  # some runs failed
    rs = benchfmt.read_dir(tmp_path)
    ok = sorted({r.params["impl"] for r in rs.runs})
    assert ok == ["py-good", "py-good2"]
    assert len(rs.runs) == 4  # both good variants, both runs
    reasons = {f.name.split("impl=")[1].split("/")[0]: f for f in rs.failures}
    assert "exit status 7" in reasons["py-exit"].reason
    assert "about to fail" in "\n".join(reasons["py-exit"].detail)
    assert "SIGABRT" in reasons["py-crash"].reason
    assert "wrong result" in reasons["py-wrong"].reason and "exit status 3" in reasons["py-wrong"].reason
    assert "disagrees" in reasons["py-disagree"].reason
    assert "timed out" in reasons["py-hang"].reason
    assert "0 result lines" in reasons["py-silent"].reason
    assert len(rs.failures) == 12  # six bad variants, two runs each
    report = (tmp_path / "report.md").read_text()
    assert "FAILED" in report and "SIGABRT" in report
    assert "section failed: RuntimeError: a bug in the round's own section" in report


def test_interleaving_order(tmp_path, built):
    run_roundbench(
        "run",
        "faulty",
        "--impl",
        "py-good",
        "--impl",
        "py-good2",
        "--runs",
        "3",
        "--out",
        str(tmp_path),
        env=plugin_env(),
    )
    rs = benchfmt.read_dir(tmp_path)
    # Three trials, each running both variants once in a random order that
    # its --- TRIAL: record names (the seed is in the header); the first in
    # the declared order, whose first variant sets the cross-check's result.
    impls = [r.params["impl"] for r in rs.runs]
    assert impls[:2] == ["py-good", "py-good2"]
    assert all(sorted(impls[i : i + 2]) == ["py-good", "py-good2"] for i in range(0, 6, 2)), impls
    assert [r.trial for r in rs.runs] == [1, 1, 2, 2, 3, 3]
    text = next(tmp_path.glob("*.txt")).read_text()
    order = [line.split()[3:] for line in text.splitlines() if line.startswith("--- TRIAL:")]
    assert [[n.split("impl=")[1].split("/")[0] for n in names] for names in order] == [
        impls[i : i + 2] for i in range(0, 6, 2)
    ]
    assert re.search(r"^trial-order: random per trial, seed \d+$", text, re.M)


def _start_run(tmp_path, sigint):
    """`roundbench run loop` with SIGINT's disposition set to sigint, whatever
    this process inherited: a non-interactive shell starts its background
    jobs (`make test &`) with SIGINT ignored, and the child keeps that."""
    return subprocess.Popen(
        [sys.executable, "-m", "roundbench", "run", "loop", "--quick", "--runs", "50", "--out", str(tmp_path)],
        env=child_env(),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )


def _wait_for_runs(proc, results: Path, count: int) -> int:
    """Waits until results.txt holds at least count runs; returns how many."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = results.read_text().count("\nBenchmark") if results.exists() else 0
        if done >= count:
            return done
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} runs in {results} after 120 s")


def _check_partial_file(tmp_path, runs_at_least: int) -> None:
    text = (tmp_path / "results.txt").read_text()
    assert text.endswith("\n")
    rs = benchfmt.read_dir(tmp_path)
    assert runs_at_least <= len(rs.runs) < 250
    assert all("peak-B" in r.metrics for r in rs.runs)


def test_ctrl_c_leaves_a_valid_partial_file(tmp_path, built):
    proc = _start_run(tmp_path, signal.SIG_DFL)
    _wait_for_runs(proc, tmp_path / "results.txt", 3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted by SIGINT" in err
    _check_partial_file(tmp_path, 3)


def test_an_ignored_sigint_stays_ignored_and_sigterm_stops_the_run(tmp_path, built):
    proc = _start_run(tmp_path, signal.SIG_IGN)
    results = tmp_path / "results.txt"
    done = _wait_for_runs(proc, results, 3)
    proc.send_signal(signal.SIGINT)
    # Runs that finish after the SIGINT show it was ignored (a handled one
    # would have ended the run before the next child).
    _wait_for_runs(proc, results, done + 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "interrupted by SIGTERM" in err
    _check_partial_file(tmp_path, done + 2)
    assert (tmp_path / "report.md").exists()


def _benchstat():
    found = shutil.which("benchstat")
    if found:
        return found
    gopath = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True).stdout.strip()
    candidate = Path(gopath) / "bin" / "benchstat"
    assert candidate.exists(), "benchstat is not installed: run `make setup`"
    return str(candidate)


def test_quick_suite_every_variant_passes_and_benchstat_reads_it(tmp_path, built):
    out = run_roundbench("run", "loop", "ffi", "--quick", "--runs", "1", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures and not rs.skips
    from roundbench import rounds

    for name in ("loop", "ffi"):
        want = {v.name for v in rounds.get(name).variants}
        got = {r.params["impl"] for r in rs.runs if r.round == name}
        assert got == want
    for r in rs.runs:
        for unit in ("ns/op", "peak-B", "user-ns/op", "sys-ns/op"):
            assert unit in r.metrics, (r.name, unit)
        assert r.metrics["peak-B"] < 200 * 2**20
    c_peak = [r.metrics["peak-B"] for r in rs.runs if r.params["impl"] == "c"]
    assert c_peak[0] < 8 * 2**20, "the C child's peak RSS must be its own, not the runner's"
    for key in (
        "cpu",
        "kernel",
        "c-build",
        "go-version",
        "go-build",
        "gomaxprocs",
        "gogc",
        "python",
        "python-ext-build",
        "numpy",
        "blas",
        "loadavg",
        "fairness",
    ):
        assert key in rs.configs[0], key
    bs = subprocess.run([_benchstat(), "-col", "/impl", str(tmp_path / "results.txt")], capture_output=True, text=True)
    assert bs.returncode == 0, bs.stderr
    assert "py-c" in bs.stdout and "sec/iter" in bs.stdout and "Ffi" in bs.stdout  # benchstat scales ns to sec
    assert "error" not in bs.stderr.lower()
    report = (tmp_path / "report.md").read_text()
    for needle in (
        "## loop",
        "## ffi",
        "median [95% CI]",
        "× best",
        "Binding overhead",
        "## Provenance",
        "## Fairness",
        "## Score",
        "**flag**",
    ):
        assert needle in report, needle


def test_report_command_errors(tmp_path):
    out = run_roundbench("report", str(tmp_path))
    assert out.returncode == 2
    assert "no result files" in out.stderr


def test_list_and_help():
    out = run_roundbench("list")
    assert out.returncode == 0
    assert "py-cffi-api" in out.stdout and "loop" in out.stdout
    out = run_roundbench("run", "--help")
    assert out.returncode == 0 and "--quick" in out.stdout and "examples:" in out.stdout


def test_a_child_imports_only_its_own_round():
    """A child's start-up and peak RSS pay for its own round's module only."""
    code = (
        "import sys; from roundbench.run import child; rc = child.main(['loop', 'py', 'n=10']); "
        "print(rc, sorted(m for m in sys.modules if m.startswith('roundbench.rounds')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert out.stdout.splitlines()[-1] == "0 ['roundbench.rounds', 'roundbench.rounds.loop']", out.stdout + out.stderr


def test_every_round_module_is_found_in_suite_order():
    from roundbench import rounds

    files = {p.stem for p in (ROOT / "python" / "roundbench" / "rounds").glob("*.py") if not p.stem.startswith("_")}
    found = [r for r in rounds.all_rounds() if r.name in files]  # plugins aside
    assert {r.name for r in found} == files
    keys = [(r.order, r.name) for r in found]
    assert keys == sorted(keys)
    assert found[0].name == "loop" and found[-1].name == "loc"  # loc counts the others' files


def test_import_stays_cheap():
    code = (
        "import sys, roundbench; "
        "print(sorted(m for m in ('numpy', 'cffi', 'ctypes', 'subprocess') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


class TestBenchfmt:
    def test_round_trip(self):
        text = (
            "cpu: Test CPU\nUnit ns/iter better=lower\n"
            "BenchmarkLoop/impl=c/n=5 1 100 ns/op 20 ns/iter 4096 peak-B 5 user-ns/op 0 sys-ns/op\n"
            "--- FAIL: BenchmarkLoop/impl=py/n=5 (run 2): exit status 3 (wrong result): x\n"
            "    line one\n"
            "--- SKIP: BenchmarkLoop/impl=go/n=5: not built\n"
        )
        rs = benchfmt.parse_lines(text.splitlines(keepends=True))
        assert rs.runs[0].params == {"impl": "c", "n": "5"} and rs.runs[0].round == "loop"
        assert rs.runs[0].metrics["ns/iter"] == 20 and rs.runs[0].config["cpu"] == "Test CPU"
        assert rs.failures[0].run == 2 and rs.failures[0].detail == ["line one"]
        assert rs.skips[0].reason == "not built"
        assert rs.units == {"ns/iter": "lower"}

    def test_bad_lines(self):
        with pytest.raises(ValueError):
            benchfmt.parse_bench_line("BenchmarkX 1 2")
        with pytest.raises(ValueError):
            benchfmt.config_line("Bad Key", "x")


def test_known_failures_are_counted_apart_and_children_know_their_run(tmp_path, built):
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.known_round"
    out = run_roundbench("run", "knownfail", "--runs", "3", "--out", str(tmp_path), "--no-report", env=env)
    assert out.returncode == 0, out.stderr
    assert "6 runs passed, 0 failed, 1 with known failures of their libraries (knownfail py-lib: check-x," in (
        out.stderr
    )
    assert re.search(r"knownfail py-lib run 1: [0-9.]+ s, known failures FAILED: check-x$", out.stderr, re.M)
    assert not re.search(r"run [23]: .*known failures", out.stderr)
    rs = benchfmt.read_dir(tmp_path)
    runs = {}
    for f in rs.facts:
        if f.key == "run":
            runs.setdefault(f.name.split("impl=")[1], []).append(f.value)
    # in a fixed width: the environment keeps its size from run to run
    assert runs == {"py-lib": ["001", "002", "003"], "py-ok": ["001", "002", "003"]}
    known = [f for f in rs.facts if f.key.startswith(benchfmt.KNOWN_FAILURE)]
    assert [(f.name.split("impl=")[1], f.key) for f in known] == [("py-lib", "known-failure/check-x")]


def test_a_run_that_outruns_its_cell_is_killed_at_the_cells_bound(tmp_path, built):
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.stall_round"
    t0 = time.monotonic()
    out = run_roundbench(
        "run", "stall", "--runs", "4", "--timeout", "600", "--bound", "2", "--bound-floor", "3",
        "--out", str(tmp_path), env=env,
    )  # fmt: skip
    took = time.monotonic() - t0
    # Not a failure: the run exits 0 and says what was killed.
    assert out.returncode == 0, out.stderr
    assert "1 killed at their cell's bound" in out.stderr
    assert took < 120  # killed at the cell's bound (seconds), never at --timeout (600 s)
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures
    counts = {}
    for r in rs.runs:
        counts[r.params["impl"]] = counts.get(r.params["impl"], 0) + 1
    assert counts == {"py-steady": 4, "py-stall": 2}  # the two that finished are kept
    [k] = rs.killed
    assert "impl=py-stall" in k.name and k.run == 3
    m = re.match(r"killed after ([0-9.]+) s at its cell's bound of ([0-9.]+) s \((.*)\)$", k.reason)
    assert m, k.reason
    bound = float(m.group(2))
    assert 3 <= bound < 600 and float(m.group(1)) >= bound
    assert "of its 2 runs that finished here" in m.group(3)
    assert "stalling" in k.detail  # what the child had said
    [stop] = [s for s in rs.stops if "impl=py-stall" in s.name]
    assert stop.runs == 2 and stop.why.startswith("run 3 killed at its cell's bound: killed after")
    report = (tmp_path / "report.md").read_text()
    assert "py-stall is heavy-tailed here" in report
    assert "run 3 killed after" in report and "its median and interval are over the runs that finished" in report
    assert "why: it sleeps for ever from its third run on, on purpose" in report
    assert "killed 1 at the cell's bound" in report and "2/3 (run 3 killed at its cell's bound)" in report
    assert not re.search(r"^\| py-stall \|.*FAILED", report, re.M)
