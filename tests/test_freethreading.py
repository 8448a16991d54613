"""roundbench._core on a free-threaded CPython (built with --disable-gil).

The extension declares Py_MOD_GIL_NOT_USED: importing roundbench must leave
the GIL off, and every entry point must give right results when threads
call it at once (tests/freethreading_threads.py, which also runs here under
the ordinary interpreter). The published warning is reproduced: an
extension that does not declare it turns the GIL back on, with a
RuntimeWarning, unless PYTHON_GIL=0.

The free-threaded interpreter is the one rounds.cores.freethreaded_python
finds (ROUNDBENCH_FREETHREADED_PYTHON, `roundbench pythons --only
cpython-3.13.5t`, or python3.13t/python3.14t on PATH); without one the
tests that need it are skipped and say how to get one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roundbench.rounds import cores
from roundbench.rounds import ffi as ffi_round
from roundbench.runtimes import extbuild, interp

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "freethreading_threads.py"


@pytest.fixture(scope="module")
def ft_python() -> str:
    exe = cores.freethreaded_python()
    if exe is None:
        pytest.skip(
            "no free-threaded CPython here: `roundbench pythons --only cpython-3.13.5t` builds one "
            "(about 30 min on 2 cores), or set ROUNDBENCH_FREETHREADED_PYTHON"
        )
    why = interp.ensure_extension(exe)
    assert why is None, f"roundbench._core does not build or import for {exe}: {why}"
    return exe


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python")
    env.pop("PYTHON_GIL", None)
    env.update(extra)
    return env


def _run(exe: str, *args: str, timeout: int = 600, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout, env=_env(**env))


def test_interpreter_is_free_threaded(ft_python):
    out = _run(
        ft_python,
        "-c",
        "import sys, sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'), sys._is_gil_enabled())",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "False"]


def test_import_roundbench_keeps_the_gil_off(ft_python):
    # -W error: the interpreter's "GIL has been enabled" RuntimeWarning would
    # fail the import instead of passing unnoticed.
    code = (
        "import sys, roundbench, roundbench._core, roundbench.pure.cores, roundbench.pure.loop; "
        "print(sys._is_gil_enabled(), roundbench._core.loop(1000))"
    )
    out = _run(ft_python, "-W", "error::RuntimeWarning", "-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", str(cores.expected(1000))]
    assert "GIL" not in out.stderr


def _threads(exe: str, **env: str) -> dict:
    out = _run(exe, str(SCRIPT), **env)
    assert out.stdout.strip(), out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert out.returncode == 0 and not got["failures"], (got["failures"], out.stderr[-2000:])
    # at least one check of each of the eight groups per thread and round
    assert got["checks"] >= 8 * int(env["FT_THREADS"]) * int(env["FT_ROUNDS"]), got
    return got


def test_every_entry_point_from_threads_without_the_gil(ft_python):
    got = _threads(ft_python, FT_THREADS="8", FT_ROUNDS="3")
    assert got["gil_enabled"] is False, "something turned the GIL back on during the threads test"


def test_every_entry_point_from_threads_with_the_gil():
    got = _threads(sys.executable, FT_THREADS="4", FT_ROUNDS="2")
    assert got["gil_enabled"] is (not interp.info(sys.executable).free_threaded)


@pytest.fixture(scope="module")
def unmarked(ft_python) -> Path:
    """data/unmarked.c built for the free-threaded interpreter, with its own
    compiler and flags (extbuild.build_unmarked, as the cores round's
    py-freethreaded-unmarked builds it)."""
    got = interp.info(ft_python)
    return extbuild.build_unmarked(got, got.key)


def test_an_unmarked_extension_turns_the_gil_back_on(ft_python, unmarked):
    code = "import sys; print(sys._is_gil_enabled()); import unmarked; print(sys._is_gil_enabled(), unmarked.answer())"
    out = _run(ft_python, "-c", code, PYTHONPATH=str(unmarked))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "42"]
    assert "RuntimeWarning" in out.stderr and "GIL" in out.stderr and "'unmarked'" in out.stderr, out.stderr


def test_python_gil_0_keeps_it_off_for_an_unmarked_extension(ft_python, unmarked):
    code = "import sys, unmarked; print(sys._is_gil_enabled(), unmarked.answer())"
    out = subprocess.run(
        [ft_python, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_env(), "PYTHONPATH": str(unmarked), "PYTHON_GIL": "0"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "42"]
    assert "RuntimeWarning" not in out.stderr


# ---- round ffi's binding modules --------------------------------------------

# The binding tools' modules (not the limited API's: a free-threaded build
# refuses abi3, and py-c-abi3 says so).
TOOL_BINDINGS = sorted(impl for impl, (_, tool, _) in ffi_round.BINDINGS.items() if tool is not None)

# Imported by the free-threaded interpreter with its warning as an error,
# then called from 8 threads at once: each thread's sum of noop, a string
# and a callback loop, checked against the core's own answers.
_BINDING_THREADS = """
import sys, threading
from roundbench.runtimes import aotbuild
m, _ = aotbuild.load(sys.argv[1])
gil_after_import = sys._is_gil_enabled()
out = {}
def work(t):
    total = 0
    for i in range(2000):
        total += m.noop(i)
    s = m.string(2)
    cb = m.callback_loop(lambda i: i + t, 100)
    out[t] = (total, s, cb)
ts = [threading.Thread(target=work, args=(t,)) for t in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print(gil_after_import, sys._is_gil_enabled())
for t in sorted(out): print(*out[t], sep="|")
"""


@pytest.mark.parametrize("impl", TOOL_BINDINGS)
def test_each_binding_tool_keeps_the_gil_off(ft_python, impl):
    """pybind11 (py::mod_gil_not_used), nanobind (NB_FREE_THREADED),
    Cython (freethreading_compatible) and PyO3 (gil_used = false) each
    declare their module safe without the GIL; a tool missing for the
    free-threaded interpreter is a skip that says which."""
    module, tool, hint = ffi_round.BINDINGS[impl]
    missing = interp.module_missing(tool, hint, ft_python)
    if missing:
        pytest.skip(missing)
    if impl == "py-pyo3" and interp.info(ft_python).feature < ffi_round.PYO3_FREE_THREADED_FROM:
        # PyO3 refuses 3.13t: the row says so before any build.
        why = ffi_round._binding(impl)(ft_python)
        assert why and why.startswith("PyO3 builds for a free-threaded CPython from 3.14 on"), why
        return
    why = ffi_round._binding(impl)(ft_python)
    assert why is None, why
    out = _run(ft_python, "-W", "error::RuntimeWarning", "-c", _BINDING_THREADS, module)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0].split() == ["False", "False"], out.stdout
    noops = sum(i + 1 for i in range(2000))
    want = [f"{noops}|x + 1|{sum(i + t for i in range(100))}" for t in range(8)]
    assert [line for line in lines[1:] if line] == want, out.stdout
