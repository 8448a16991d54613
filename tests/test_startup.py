"""Round startup: every variant has a row (a run or the reason it cannot
run), every start is checked, and the launcher fails loudly on a program
that misbehaves. No timing is asserted here (the targets are benchmarks)."""

import os
import shutil
import subprocess
import sys

from roundbench import benchfmt, rounds

from conftest import BUILD, child_env, run_roundbench

LAUNCHER = BUILD / "rb-c-static"


def _launch(*args, env=None, launcher=LAUNCHER):
    return subprocess.run(
        [str(launcher), "startup", *args], capture_output=True, text=True, timeout=120, env=env or child_env()
    )


def test_every_variant_has_a_row(tmp_path, built):
    out = run_roundbench("run", "startup", "--quick", "--runs", "1", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures
    ran = {r.params["impl"]: r for r in rs.runs}
    skipped = {benchfmt.split_name(s.name)[1]["impl"]: s.reason for s in rs.skips}
    for v in rounds.get("startup").variants:
        assert (v.name in ran) != (v.name in skipped), v.name
        if v.name in skipped:
            assert skipped[v.name], v.name  # says why
    for name in ("c", "c-static", "go", "go-cgo", "go-c", "py", "py-S", "py-I", "py-roundbench", "py-c"):
        r = ran[name]
        assert r.iters == 3  # --quick: 3 starts
        for unit in ("ms", "spread-ms", "start-peak-B", "s/1000-starts", "cpu-ms", "launcher-anon-B", "peak-B"):
            assert unit in r.metrics, (name, unit)
        assert r.metrics["ms"] > 0 and r.metrics["spread-ms"] >= 0
        assert abs(r.metrics["s/1000-starts"] - r.metrics["ms"]) < 1e-3 * r.metrics["ms"] + 1e-6
        # A start's peak is its own: far below the Python runner's.
        assert r.metrics["launcher-anon-B"] < 4 * 2**20
    assert ran["c-static"].metrics["start-peak-B"] < 8 * 2**20
    report = (tmp_path / "report.md").read_text()
    assert "## startup" in report and "1,000 starts (s)" in report and "Targets (medians of this run)" in report
    for v in rounds.get("startup").variants:
        assert f"| {v.name} |" in report, v.name


def test_launcher_checks_every_start(built):
    env = child_env()
    env["RB_STARTUP_PYTHON"] = shutil.which("echo")  # prints its arguments: not what `-c pass` prints
    out = _launch("py", "starts=1", env=env)
    assert out.returncode == 3 and "wrong result" in out.stderr and "printed" in out.stderr
    env["RB_STARTUP_PYTHON"] = shutil.which("false")
    out = _launch("py", "starts=1", env=env)
    assert out.returncode == 3 and "exited with status 1" in out.stderr


def test_launcher_arguments_and_missing_programs(tmp_path, built):
    out = _launch("rust")
    assert out.returncode == 2 and "no variant 'rust'" in out.stderr and "py-pandas" in out.stderr
    out = _launch("c", "starts=0")
    assert out.returncode == 2 and "starts=0 is out of range" in out.stderr
    # Alone in a folder, the launcher finds no hello program next to it.
    lone = tmp_path / "rb-c-static"
    shutil.copy(LAUNCHER, lone)
    out = _launch("c", "starts=1", launcher=lone)
    assert out.returncode == 4 and "cannot run here" in out.stderr and "hello-c" in out.stderr


def test_core_call_variants_print_the_core_result(built):
    env = child_env()
    env["RB_STARTUP_PYTHON"] = sys.executable
    for impl in ("go-c", "py-c"):
        out = _launch(impl, "starts=1", env=env)
        assert out.returncode == 0, out.stderr
        assert f"result: {impl}-ok" in out.stdout
    hello = subprocess.run([str(BUILD / "hello-go-c")], capture_output=True, text=True)
    import roundbench

    assert hello.stdout == f"sum={roundbench.loop(1000)}\n"


def test_python_variants_run_this_interpreter():
    v = rounds.get("startup").variant("py")
    env = rounds.child_env(v, {"starts": 20})
    assert env["RB_STARTUP_PYTHON"] == sys.executable
    assert env["PYTHONPATH"].split(os.pathsep)[0].endswith("python")
