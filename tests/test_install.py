"""roundbench outside its checkout: where the child programs are found
(roundbench.runtimes.programs), and the package installed with pip into a fresh
virtual environment, run from an empty folder."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from roundbench.runtimes import programs
from roundbench.rounds import startup

ROOT = Path(__file__).resolve().parents[1]


# ---- roundbench.runtimes.programs ------------------------------------------------------


def _go_cache_env() -> dict:
    """GOCACHE as it is now: moving XDG_CACHE_HOME would move Go's build
    cache too, and a cold one rebuilds the standard library (slow, not
    wrong)."""
    go = shutil.which("go")
    if go is None:
        return {}
    out = subprocess.run([go, "env", "GOCACHE"], capture_output=True, text=True, timeout=60).stdout.strip()
    return {"GOCACHE": out} if out else {}


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """programs as an installed package sees itself: no checkout, its own
    bin/ and gosrc/, and a per-user cache under tmp_path."""
    monkeypatch.delenv(programs.ENV_BUILD, raising=False)
    monkeypatch.setattr(programs, "checkout", lambda: None)
    monkeypatch.setattr(programs, "BIN", tmp_path / "pkg" / "bin")
    monkeypatch.setattr(programs, "GO_SOURCES", tmp_path / "pkg" / "gosrc")
    monkeypatch.setattr(programs, "_cache_key", None)
    for k, v in _go_cache_env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "pkg" / "bin").mkdir(parents=True)
    return tmp_path


def _executable(p: Path, text: str = "#!/bin/sh\necho hello, world\n") -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _go_module(root: Path, main: str, runners=()) -> None:
    """A Go module with one command, go/cmd/rb-hello, as the package ships,
    and a Go runner go/cmd/rb-go/<round> for each of runners (the same
    program)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text("module roundbench\n\ngo 1.21\n")
    for cmd in ["rb-hello", *(f"rb-go/{r}" for r in runners)]:
        (root / "go" / "cmd" / cmd).mkdir(parents=True)
        (root / "go" / "cmd" / cmd / "main.go").write_text(main)


HELLO_GO = 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n'


def test_every_name_has_a_path_and_an_unknown_one_is_refused():
    names = programs.names()
    assert set(names) >= {"rb-c", "rb-c-so", "rb-c-static", "rb-spawn", "rb-load", "rb-go-loop", "rb-go-http"}
    # One Go runner per directory of go/cmd/rb-go, the runners built with a
    # Go experiment, a build tag or the toolchain's speed options from one
    # of them, and no other.
    dirs = {d.name for d in (ROOT / "go" / "cmd" / "rb-go").iterdir() if d.is_dir()}
    apart = set(programs.GO_EXPERIMENT_RUNNERS) | set(programs.GO_LIBRARY_RUNNERS) | set(programs.GO_BUILD_RUNNERS)
    assert {n for n in names if n.startswith("rb-go")} == {f"rb-go-{d}" for d in dirs} | apart
    packages = [pkg for pkg, _ in programs.GO_EXPERIMENT_RUNNERS.values()]
    packages += [pkg for pkg, _, _ in programs.GO_LIBRARY_RUNNERS.values()]
    packages += [twin.package for twin in programs.GO_BUILD_RUNNERS.values()]
    assert {(ROOT / pkg).is_dir() for pkg in packages} == {True}
    assert {n for n in names if n.startswith("hello-")} == {
        "hello-c",
        "hello-c-static",
        "hello-go",
        "hello-go-cgo",
        "hello-go-c",
    }
    for name in names:
        assert programs.path(name).name == name
    with pytest.raises(ValueError, match="unknown program 'rb-nope'.*rb-c"):
        programs.path("rb-nope")
    with pytest.raises(ValueError, match="unknown program"):
        programs.missing("rb-nope")
    # The bare name of Variant.program is no program: a round's runner is.
    with pytest.raises(ValueError, match="unknown program 'rb-go'"):
        programs.path("rb-go")


def test_checkout_uses_build_and_advises_make_build(tmp_path, monkeypatch):
    monkeypatch.delenv(programs.ENV_BUILD, raising=False)
    monkeypatch.setattr(programs, "checkout", lambda: tmp_path)
    (tmp_path / "go" / "cmd" / "rb-go" / "loop").mkdir(parents=True)
    assert programs.go_runners() == ["rb-go-loop"]
    built = tmp_path / "build" / "rb-go-loop"
    assert programs.path("rb-go-loop") == built
    assert programs.missing("rb-go-loop") == f"{built} is not built (run `make build` in {tmp_path})"
    _executable(built)
    assert programs.missing("rb-go-loop") is None
    # A round without a Go runner's directory: make cannot build one.
    why = programs.missing("rb-go-nope")
    nope = tmp_path / "build" / "rb-go-nope"
    assert why == f"{nope} is not built, and this checkout has no go/cmd/rb-go/nope/ to build it from"


def test_checkout_says_what_a_library_runner_needs(tmp_path, monkeypatch):
    monkeypatch.delenv(programs.ENV_BUILD, raising=False)
    monkeypatch.setattr(programs, "checkout", lambda: tmp_path)
    (tmp_path / "go" / "cmd" / "rb-go" / "matmul").mkdir(parents=True)
    why = programs.missing("rb-go-matmul-netlib")
    assert why == (
        f"{tmp_path / 'build' / 'rb-go-matmul-netlib'} is not built: it needs "
        f"{programs.NEEDS['rb-go-matmul-netlib']}; then run `make build` in {tmp_path}"
    )
    assert "pkg-config openblas" in why and "libopenblas" in why


def test_roundbench_build_overrides_the_checkout(tmp_path, monkeypatch):
    monkeypatch.setenv(programs.ENV_BUILD, str(tmp_path))
    assert programs.path("rb-c") == tmp_path / "rb-c"
    why = programs.missing("rb-c")
    assert why is not None and str(tmp_path / "rb-c") in why and programs.ENV_BUILD in why
    _executable(tmp_path / "rb-c")
    assert programs.missing("rb-c") is None


def test_this_checkout_is_found():
    assert programs.checkout() == ROOT


def test_installed_c_program_in_the_package(installed):
    assert programs.path("rb-c") == installed / "pkg" / "bin" / "rb-c"
    why = programs.missing("rb-c")
    assert why is not None and "make build" not in why and "pip install" in why
    assert str(installed / "pkg" / "bin" / "rb-c") in why
    why = programs.missing("hello-c")
    assert why is not None and str(installed / "pkg" / "bin" / "hello-c") in why
    _executable(installed / "pkg" / "bin" / "rb-c")
    assert programs.missing("rb-c") is None


def test_installed_reports_what_setup_could_not_build(installed):
    (installed / "pkg" / "bin" / programs.UNBUILT).write_text("hello-c-static\tstatic linking failed (no libc.a)\n")
    why = programs.missing("hello-c-static")
    assert why is not None and "static linking failed (no libc.a)" in why and "make build" not in why


def test_installed_startup_programs_are_passed_where_they_are(installed):
    """Round startup's launcher is told each program's path: installed, the
    C ones are the package's and the Go ones the cache's, nothing copied."""
    rnd = startup.ROUND
    assert rnd.variant("c").env({})["RB_STARTUP_HELLO_C"] == str(installed / "pkg" / "bin" / "hello-c")
    assert rnd.variant("go").env({})["RB_STARTUP_HELLO_GO"] == str(programs.cache() / "hello-go")
    assert programs.path(startup.LAUNCHER) == installed / "pkg" / "bin" / "rb-c-static"


def test_installed_go_runners_are_the_shipped_directories(installed):
    _go_module(programs.GO_SOURCES, HELLO_GO, runners=("alpha", "beta"))
    assert programs.go_runners() == ["rb-go-alpha", "rb-go-beta"]
    assert {"rb-go-alpha", "rb-go-beta"} <= set(programs.names())
    assert programs.path("rb-go-alpha") == programs.cache() / "rb-go-alpha"


def test_installed_go_without_a_toolchain_says_what_is_missing(installed, monkeypatch):
    _go_module(programs.GO_SOURCES, HELLO_GO)
    monkeypatch.setattr(programs, "_go", lambda: None)
    why = programs.missing("hello-go")
    assert why is not None and "Go toolchain is not installed" in why and programs.GO_DOWNLOAD in why
    assert "make build" not in why
    assert not programs.path("hello-go").exists()


def test_installed_go_program_without_sources(installed):
    _go_module(programs.GO_SOURCES, HELLO_GO)
    why = programs.missing("rb-go-http")
    assert why is not None and "ships no sources for rb-go-http" in why


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the go command")
def test_installed_go_program_is_built_on_first_use(installed):
    _go_module(programs.GO_SOURCES, HELLO_GO)
    assert programs.missing("hello-go") is None
    p = programs.path("hello-go")
    assert p.parent == programs.cache() and p.parent.parent == installed / "cache" / "roundbench"
    out = subprocess.run([str(p)], capture_output=True, text=True, timeout=60)
    assert out.stdout == "hello, world\n"
    # Changed sources are a new cache folder, never the old binary.
    old = programs.cache()
    (programs.GO_SOURCES / "go" / "cmd" / "rb-hello" / "main.go").write_text(HELLO_GO.replace("world", "again"))
    programs._cache_key = None
    assert programs.cache() != old and not programs.path("hello-go").exists()
    assert programs.missing("hello-go") is None
    out = subprocess.run([str(programs.path("hello-go"))], capture_output=True, text=True, timeout=60)
    assert out.stdout == "hello, again\n"


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the go command")
def test_installed_go_runner_is_built_alone(installed):
    """Asking for one round's runner builds that one only."""
    _go_module(programs.GO_SOURCES, HELLO_GO, runners=("alpha", "beta"))
    assert programs.missing("rb-go-alpha") is None
    out = subprocess.run([str(programs.path("rb-go-alpha"))], capture_output=True, text=True, timeout=60)
    assert out.stdout == "hello, world\n"
    assert not programs.path("rb-go-beta").exists()
    assert not programs.path("hello-go").exists()


def test_installed_library_runner_without_its_library(installed, monkeypatch):
    _go_module(programs.GO_SOURCES, HELLO_GO, runners=("matmul",))
    monkeypatch.setattr(programs, "_library_ldflags", lambda library: None)
    why = programs.missing("rb-go-matmul-netlib")
    assert why == f"rb-go-matmul-netlib cannot be built here: it needs {programs.NEEDS['rb-go-matmul-netlib']}"
    assert not programs.path("rb-go-matmul-netlib").exists()


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the go command")
def test_installed_library_runner_is_built_with_its_tag_and_flags(installed, monkeypatch):
    """The runner's tag picks its files; the library's flags reach the link
    (libm here, kept needed: the C library's, which every C toolchain has)."""
    from roundbench.rounds.delivery import binfmt

    _go_module(programs.GO_SOURCES, HELLO_GO, runners=("matmul",))
    matmul = programs.GO_SOURCES / "go" / "cmd" / "rb-go" / "matmul"
    (matmul / "main.go").write_text("package main\n\nfunc main() { println(build) }\n")
    (matmul / "plain.go").write_text('//go:build !netlib\n\npackage main\n\nconst build = "plain"\n')
    (matmul / "tagged.go").write_text('//go:build netlib\n\npackage main\n\nimport "C"\n\nconst build = "netlib"\n')
    asked = []
    monkeypatch.setattr(
        programs, "_library_ldflags", lambda library: asked.append(library) or ["-Wl,--no-as-needed", "-lm"]
    )
    assert programs.missing("rb-go-matmul-netlib") is None
    assert asked == ["openblas"]
    tagged = programs.path("rb-go-matmul-netlib")
    out = subprocess.run([str(tagged)], capture_output=True, text=True, timeout=60)
    assert out.stderr == "netlib\n"
    assert "libm.so.6" in binfmt.read(tagged).needed
    assert programs.missing("rb-go-matmul") is None
    out = subprocess.run([str(programs.path("rb-go-matmul"))], capture_output=True, text=True, timeout=60)
    assert out.stderr == "plain\n"


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the go command")
def test_installed_go_build_failure_is_reported(installed):
    _go_module(programs.GO_SOURCES, "package main\n\nfunc main() { undefinedThing() }\n")
    why = programs.missing("hello-go")
    assert why is not None and "go build ./go/cmd/rb-hello" in why and "undefinedThing" in why
    assert not programs.path("hello-go").exists()


# ---- pip install into a fresh virtual environment ---------------------------

# Generous limits that only stop a hung step: nothing here is timed.
INSTALL_LIMIT = 1800
RUN_LIMIT = 1200

# The go variant's build twins too: the installed package builds them from
# the Go sources and the PGO profile it ships.
LOOP_VARIANTS = ("c", "go", "go-c", "go-pgo", "go-v3", "go-pgo-v3", "py", "py-c", "py-module-published")
# The loop variants whose tools a plain `pip install .` does not bring.
COMPILED = ("py-numba", "py-cython", "py-mypyc", "py-pythran")


def _source_copy(dest: Path) -> Path:
    """The checkout without its build outputs, as a fresh clone has it."""
    skip = {".git", "__pycache__", ".pytest_cache"}
    top = {".venv", "build", "results", "dist"}  # outputs at the checkout's root (python/roundbench/results is code)

    def ignore(folder, names):
        here = skip | top if Path(folder) == ROOT else skip
        return [n for n in names if n in here or n.endswith((".so", ".o", ".egg-info")) or n == "_cffi_api.c"]

    shutil.copytree(ROOT, dest, symlinks=True, ignore=ignore)
    return dest


def _clean_env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROUNDBENCH_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(_go_cache_env())
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _check(cmd: list, limit: int, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def test_pip_install_then_run_loop_from_an_empty_folder(tmp_path):
    """docs/usage.md's promise for an installed package: `pip install .` in a
    fresh venv, then `roundbench run loop --quick` from an empty folder
    runs every loop variant, each child found in the package or its
    per-user cache and nothing in the working folder."""
    src = _source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    env = _clean_env(tmp_path)
    _check([sys.executable, "-m", "venv", str(venv)], 300, env=env)
    _check([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(src)], INSTALL_LIMIT, env=env)
    shutil.rmtree(src)  # the installed package must not need its sources

    empty = tmp_path / "empty"
    empty.mkdir()
    listed = _check([str(venv / "bin" / "roundbench"), "list"], RUN_LIMIT, env=env, cwd=empty).stdout
    loop = listed.split("\n\n")[0]
    assert loop.startswith("loop:"), loop
    # The compilers and JITs are not the package's dependencies (pyproject's
    # `compilers` extra has them): their variants say what to install.
    blocked = [ln for ln in loop.splitlines() if "cannot run" in ln]
    assert len(blocked) == len(COMPILED) and all("is not installed (pip install" in ln for ln in blocked), loop
    assert "make build" not in listed

    out = tmp_path / "out"
    _check(
        [str(venv / "bin" / "roundbench"), "run", "loop", "--quick", "--runs", "1", "--out", str(out)],
        RUN_LIMIT,
        env=env,
        cwd=empty,
    )
    results = (out / "results.txt").read_text()
    assert "--- FAIL" not in results, results
    ran = {line.split("/")[1] for line in results.splitlines() if line.startswith("BenchmarkLoop/")}
    assert ran == {f"impl={v}" for v in LOOP_VARIANTS}, results
    # rb-spawn came with the package: each child's peak RSS is its own.
    assert "peak-rss: each child's own" in results, results
    assert "rb-go-loop-pgo -pgo=go/pgo/loop.pgo GOAMD64=v1" in results, results
    assert list(empty.iterdir()) == [], "the run wrote into the working folder"
