"""Round startup: every variant has a row (a run or the reason it cannot
run), every start is checked, and the launcher fails loudly on a program
that misbehaves. No timing is asserted here (the targets are benchmarks)."""

import os
import shutil
import subprocess
import sys

from roundbench.results import benchfmt
from roundbench.runtimes import programs
from roundbench import rounds
from roundbench.rounds import startup
from roundbench.run import launch

from conftest import BUILD, child_env, run_roundbench

LAUNCHER = BUILD / "rb-c-static"
HELLO = ("hello-c", "hello-c-static", "hello-go", "hello-go-cgo", "hello-go-c")


def _env(impl):
    """The launcher's environment for variant impl, as the runner sets it."""
    env = child_env()
    env.update(rounds.get("startup").variant(impl).env({}))
    return env


def _launch(impl, *args, env=None, launcher=LAUNCHER):
    return subprocess.run(
        [str(launcher), "startup", impl, *args], capture_output=True, text=True, timeout=120, env=env or _env(impl)
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
    env = _env("py")
    env["RB_STARTUP_PYTHON"] = shutil.which("echo")  # prints its arguments: not what `-c pass` prints
    out = _launch("py", "starts=1", env=env)
    assert out.returncode == 3 and "wrong result" in out.stderr and "printed" in out.stderr
    env["RB_STARTUP_PYTHON"] = shutil.which("false")
    out = _launch("py", "starts=1", env=env)
    assert out.returncode == 3 and "exited with status 1" in out.stderr
    # A hello variant starts the program its variable names, and checks it.
    env = _env("c")
    env["RB_STARTUP_HELLO_C"] = shutil.which("true")  # prints nothing, not "hello, world"
    out = _launch("c", "starts=1", env=env)
    assert out.returncode == 3 and 'printed ""; want "hello, world' in out.stderr


def test_launcher_arguments_and_missing_programs(tmp_path, built):
    out = _launch("rust", env=child_env())
    assert out.returncode == 2 and "no variant 'rust'" in out.stderr and "py-pandas" in out.stderr
    out = _launch("c", "starts=0")
    assert out.returncode == 2 and "starts=0 is out of range" in out.stderr
    # The parent says where each program is: without its variable, or with
    # one that names no program, the variant cannot run.
    env = _env("c")
    del env["RB_STARTUP_HELLO_C"]
    out = _launch("c", "starts=1", env=env)
    assert out.returncode == 4 and "cannot run here: RB_STARTUP_HELLO_C is not set" in out.stderr
    env["RB_STARTUP_HELLO_C"] = str(tmp_path / "hello-c")
    out = _launch("c", "starts=1", env=env)
    assert out.returncode == 4
    assert f"cannot run here: RB_STARTUP_HELLO_C={tmp_path / 'hello-c'}: No such file" in out.stderr


def test_launcher_needs_no_program_beside_it(tmp_path, built):
    """Alone in a folder (as an installed package has it, with the Go
    programs in a cache elsewhere), the launcher runs what it is told to."""
    lone = tmp_path / "rb-c-static"
    shutil.copy(LAUNCHER, lone)
    for impl in ("c", "go"):
        out = _launch(impl, "starts=1", launcher=lone)
        assert out.returncode == 0, out.stderr
        assert f"result: {impl}-ok" in out.stdout


def test_each_hello_variant_names_its_program():
    rnd = rounds.get("startup")
    for name, program in zip(("c", "c-static", "go", "go-cgo", "go-c"), HELLO):
        env = rnd.variant(name).env({"starts": 20})
        named = {k: v for k, v in env.items() if k.startswith("RB_STARTUP_HELLO")}
        assert named == {startup.path_variable(program): str(programs.path(program))}, name
    assert startup.path_variable("hello-go-cgo") == "RB_STARTUP_HELLO_GO_CGO"


def test_core_call_variants_print_the_core_result(built):
    for impl in ("go-c", "py-c"):
        env = _env(impl)
        env["RB_STARTUP_PYTHON"] = sys.executable
        out = _launch(impl, "starts=1", env=env)
        assert out.returncode == 0, out.stderr
        assert f"result: {impl}-ok" in out.stdout
    hello = subprocess.run([str(BUILD / "hello-go-c")], capture_output=True, text=True)
    import roundbench

    assert hello.stdout == f"sum={roundbench.loop(1000)}\n"


def test_python_variants_run_this_interpreter():
    v = rounds.get("startup").variant("py")
    env = launch.child_env(v, {"starts": 20})
    assert env["RB_STARTUP_PYTHON"] == sys.executable
    assert env["PYTHONPATH"].split(os.pathsep)[0].endswith("python")
