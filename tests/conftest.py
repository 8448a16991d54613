"""Shared fixtures: the shared test vectors and the built project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from roundbench.runtimes import programs

ROOT = Path(__file__).resolve().parents[1]

# No test writes into the user's results store (`make suite` and `roundbench
# store import` do): every run a test starts keeps its store in a folder of
# its own, which the store's tests name themselves.
os.environ["ROUNDBENCH_STORE"] = os.path.join(tempfile.mkdtemp(prefix="rb-test-store-"), "store.sqlite")
VECTORS = ROOT / "testdata" / "vectors.txt"
BUILD = ROOT / "build"


def vector_files() -> list:
    """testdata/vectors.txt, then every round's testdata/vectors/<round>.txt:
    the files the C, Go and Python tests all read."""
    return [VECTORS, *sorted((ROOT / "testdata" / "vectors").glob("*.txt"))]


def load_vectors(kind: str) -> list:
    """The vectors of one kind from the vector files, as dicts of str."""
    out = []
    for path in vector_files():
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            head, *fields = line.split()
            if head != kind:
                continue
            out.append(dict(f.split("=", 1) for f in fields))
    assert out, f"no vectors of kind {kind!r}"
    return out


def load_at_least(kind: str, least: int) -> list:
    """load_vectors with a minimum count, so that a kind renamed or cut down
    in the file cannot pass with fewer cases than it was written for."""
    out = load_vectors(kind)
    assert len(out) >= least, f"{len(out)} vectors of kind {kind!r}; want at least {least}"
    return out


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_roundbench(*args, timeout=600, **kw) -> subprocess.CompletedProcess:
    """Runs `python -m roundbench ARGS` from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "roundbench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=kw.pop("env", child_env()),
        cwd=kw.pop("cwd", ROOT),
        **kw,
    )


def shared_library(folder: Path, name: str, source: str) -> str:
    """A C source compiled into folder/lib<name>.so, for the crossing tests
    to call (skips where there is no C compiler)."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    src = folder / f"{name}.c"
    src.write_text(source)
    lib = folder / f"lib{name}.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return str(lib)


def os_threads(settle_to: int = 1 << 30) -> int:
    """OS threads of this process. Thread.join() returns once the thread is
    done with Python, a moment before the kernel thread is gone: with
    settle_to, wait up to 2 s for the count to come down to it."""
    deadline = time.monotonic() + 2
    while True:
        n = len(os.listdir("/proc/self/task"))
        if n <= settle_to or time.monotonic() > deadline:
            return n
        time.sleep(0.002)


def open_fds() -> set:
    """The file descriptors open in this process."""
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="session")
def built():
    """The C and Go runners; the tests need `make build` first."""
    for prog in ("rb-c", "rb-c-so", "rb-spawn", *programs.go_runners()):
        assert (BUILD / prog).exists(), f"build/{prog} is missing: run `make build` first"
    return BUILD


PYPY_MISSING = "pypy3 is not installed (Debian: apt-get install pypy3 pypy3-dev; scripts/setup.sh installs them)"


@pytest.fixture(scope="session")
def pypy() -> str:
    """The path of pypy3, the interpreter the PyPy tests run children
    under; they are skipped, saying so, where it is not installed."""
    exe = shutil.which("pypy3")
    if exe is None:
        pytest.skip(PYPY_MISSING)
    return exe


# Figures a test measured that the run should show even when it passes
# (the decision rule's simulated false-decision rate): printed at the end of
# pytest's summary, one line each.
FIGURES: list = []


def pytest_terminal_summary(terminalreporter):
    for line in FIGURES:
        terminalreporter.write_line(line)
