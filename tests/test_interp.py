"""The interpreters the Python children run under (interp.py) and the
extension built for one that is not the venv's (extbuild.py): their keys,
environments and modules, on the venv's CPython, on a stand-in for another
CPython, and on PyPy where pypy3 is installed."""

import dataclasses
import os
import subprocess
import sys
import sysconfig

import pytest

from roundbench.runtimes import extbuild, interp
from roundbench.rounds import ffi

from conftest import child_env, ROOT

# What interp.key may hold: one value of a benchmark name.
KEY_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")


@pytest.fixture(autouse=True)
def fresh_answers():
    """Every test asks the interpreters afresh (their answers are cached
    per process) and leaves no answer behind for the next."""
    interp.info.cache_clear()
    interp._imports.cache_clear()
    yield
    interp.info.cache_clear()
    interp._imports.cache_clear()


@pytest.fixture
def other_cpython(tmp_path, monkeypatch):
    """A stand-in for another CPython: a script that runs this one, under a
    path of its own, in an environment where it cannot import roundbench
    by itself (no PYTHONPATH)."""
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv(interp.ENV, raising=False)
    exe = tmp_path / "python3"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    exe.chmod(0o755)
    return str(exe)


def _info(**kw) -> interp.Info:
    base = dict(
        implementation="CPython",
        version="3.11.7",
        debug=False,
        ext_suffix=".cpython-311-x86_64-linux-gnu.so",
        executable="/opt/python/bin/python3",
        roundbench=None,
        numpy=None,
        dev_mode=False,
    )
    return interp.Info(**{**base, **kw})


# ---- the venv's own interpreter ---------------------------------------------------------


def test_the_runners_interpreter():
    got = interp.info(sys.executable)
    version = ".".join(map(str, sys.version_info[:3]))
    assert interp.key(sys.executable) == f"cpython-{version}"
    assert set(interp.key(sys.executable)) <= KEY_CHARS
    assert got.describe() == f"{sys.executable} (CPython {version}, release build)"
    assert got.ext_suffix == sysconfig.get_config_var("EXT_SUFFIX")
    assert interp.is_runner(sys.executable)
    assert interp.child_env(sys.executable) == {}
    assert interp.has_module("json", sys.executable) and not interp.has_module("no_such_module_x", sys.executable)
    assert interp.module_missing("no_such_module_x", "pip install x", sys.executable) == (
        "Python module no_such_module_x is not installed (pip install x)"
    )


def test_ensure_extension_on_the_venv_builds_nothing(tmp_path, monkeypatch):
    """The venv's extension is `make build`'s: ensure_extension only says
    whether it imports, and builds nothing of its own."""
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    assert interp.ensure_extension(sys.executable) is None
    assert interp.extension_missing(sys.executable) is None
    assert interp.cffi_api_missing(sys.executable) is None
    assert list(tmp_path.iterdir()) == []


def test_keys_are_short_and_safe_in_a_benchmark_name():
    assert _info().key == "cpython-3.11.7"
    assert _info(version="3.13.1", free_threaded=True).key == "cpython-3.13.1t"
    assert _info(debug=True).key == "cpython-3.11.7-debug"
    pypy = _info(implementation="PyPy", version="3.9.16", pypy_version="7.3.11")
    assert pypy.key == "pypy-7.3.11"  # PyPy's own version; its Python's is in describe()
    assert pypy.describe() == "/opt/python/bin/python3 (PyPy 7.3.11, Python 3.9.16, release build)"
    assert _info(version="3.14.0 rc1/x=y").key == "cpython-3.14.0_rc1_x_y"


# ---- another interpreter ----------------------------------------------------------------


def test_child_env_names_the_package_without_touching_the_environment(other_cpython):
    before = dict(os.environ)
    assert not interp.is_runner(other_cpython)
    assert interp.info(other_cpython).roundbench is None
    env = interp.child_env(other_cpython)
    assert env == {"PYTHONPATH": interp.package_parent()}
    assert dict(os.environ) == before
    # With it, that interpreter imports this very package.
    code = "import roundbench, sys; sys.stdout.write(roundbench.__file__)"
    p = subprocess.run([other_cpython, "-c", code], capture_output=True, text=True, env={**os.environ, **env})
    assert p.returncode == 0, p.stderr
    assert os.path.samefile(p.stdout, ROOT / "python" / "roundbench" / "__init__.py")


def test_queries_on_another_interpreter_run_it_with_that_environment(other_cpython):
    assert interp.key(other_cpython) == interp.key(sys.executable)
    # roundbench's own modules are found only with child_env's PYTHONPATH.
    assert interp.has_module("roundbench.pure.chain", other_cpython)
    assert interp.module_missing("no_such_module_x", "pip install x", other_cpython) == (
        f"Python module no_such_module_x is not installed for {interp.info(other_cpython).describe()} (pip install x)"
    )
    # The venv's extension has this interpreter's suffix: it is make build's,
    # and it imports there too.
    assert interp.ensure_extension(other_cpython) is None
    assert interp.extension_missing(other_cpython) is None


def test_use_sets_the_childrens_interpreter(other_cpython, monkeypatch):
    # use() sets the process's environment: monkeypatch puts both back after
    # the test, so no later test runs its children under this interpreter.
    # (setenv records the value before, absent or not; delenv alone records
    # nothing when the variable is absent).
    monkeypatch.setenv(interp.ENV, sys.executable)
    monkeypatch.delenv(interp.ENV)
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    got = interp.use(other_cpython)
    assert os.environ[interp.ENV] == other_cpython
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == interp.package_parent()
    assert interp.is_alternate() and got.roundbench is not None
    assert interp.child_env() == {}  # it imports roundbench now, by the environment use() set


# ---- why a build cannot be made -----------------------------------------------------------


def _fake(tmp_path, **kw) -> interp.Info:
    """An interpreter whose modules would be new files (a suffix no one has)."""
    return _info(ext_suffix=".roundbench-test-nothing.so", executable=str(tmp_path / "python"), **kw)


def test_build_says_which_package_has_the_missing_headers(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path / "build"))
    empty = tmp_path / "include"
    empty.mkdir()
    pypy = _fake(tmp_path, implementation="PyPy", pypy_version="7.3.11", include=str(empty))
    why = extbuild.build(extbuild.CORE, pypy, "pypy-test", dict(os.environ))
    assert why.startswith("roundbench._core cannot be built: Python.h is missing for ")
    assert "install pypy3-dev (Debian)" in why
    debian = dataclasses.replace(
        _fake(tmp_path, include=str(empty)), executable="/usr/bin/python3.12", version="3.12.1"
    )
    assert "install python3.12-dev (Debian)" in extbuild.build(extbuild.CORE, debian, "cpython-test", {})
    own = _fake(tmp_path, include=str(empty))
    assert f"{empty} has no Python.h" in extbuild.build(extbuild.CORE, own, "cpython-test", {})


def test_build_says_when_there_is_no_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("CC", "no-such-compiler-x")
    why = extbuild.build(extbuild.CORE, _fake(tmp_path, include=str(tmp_path)), "cpython-test", {})
    assert why == (
        "roundbench._core cannot be built: no C compiler: no-such-compiler-x is not on PATH (Debian: build-essential)"
    )


def test_the_cxx_toolchain_is_the_interpreters_cxx_as_setuptools_makes_it(monkeypatch):
    """C++ sources (Pythran's) are compiled by CXX and linked by
    LDCXXSHARED, with the interpreter's CFLAGS; CXX in the environment
    replaces the compiler, in the linker's command too."""
    for var in ("CC", "CXX", "LDSHARED", "LDCXXSHARED"):
        monkeypatch.delenv(var, raising=False)
    got = _info(cc="gcc", cxx="g++", cflags="-O3 -Wall", ldshared="gcc -shared", ldcxxshared="g++ -shared -Wl,-O1")
    tools = extbuild.Toolchain(got, cxx=True)
    assert tools.cc == ["g++"] and tools.ldshared == ["g++", "-shared", "-Wl,-O1"]
    assert tools.cflags == ["-O3", "-Wall", "-fPIC"]
    assert extbuild.Toolchain(got).cc == ["gcc"]
    monkeypatch.setenv("CXX", "clang++")
    tools = extbuild.Toolchain(got, cxx=True)
    assert tools.cc == ["clang++"] and tools.ldshared == ["clang++", "-shared", "-Wl,-O1"]
    assert extbuild.Toolchain(got).cc == ["gcc"]


def test_a_failed_build_quotes_the_compilers_last_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path / "build"))
    include = tmp_path / "include"
    include.mkdir()
    (include / "Python.h").write_text("#error these headers are broken on purpose\n")
    got = _fake(tmp_path, include=str(include), cc="cc")
    why = extbuild.build(extbuild.CORE, got, "cpython-test", {})
    assert why.startswith(f"building roundbench._core for {got.describe()} failed: compiling _core.c failed")
    assert "these headers are broken on purpose" in why
    assert not extbuild.target(extbuild.CORE, got.ext_suffix).exists()
    # The objects go to the build folder's py-<key>/, not beside the sources.
    assert (tmp_path / "build" / "py-cpython-test" / "_core").is_dir()


# ---- PyPy ---------------------------------------------------------------------------------


def _pypy_version(pypy: str) -> str:
    code = "import sys; print('%d.%d.%d' % sys.pypy_version_info[:3])"
    return subprocess.run([pypy, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_pypy_key_and_environment(pypy):
    got = interp.info(pypy)
    assert got.implementation == "PyPy"
    assert interp.key(pypy) == f"pypy-{_pypy_version(pypy)}"
    assert got.describe().startswith(f"{got.executable} (PyPy {got.pypy_version}, Python {got.version}, ")
    assert interp.has_module("stackless", pypy) and not interp.has_module("stackless", sys.executable)
    env = interp.child_env(pypy)
    if got.roundbench is None:
        assert env["PYTHONPATH"].split(os.pathsep)[0] == interp.package_parent()


def test_the_package_imports_under_pypy(pypy):
    """Every module of the package imports under PyPy (Python 3.9), but for
    the third-party libraries it lacks; and its child lists what the venv's
    does."""
    code = """\
import importlib, pkgutil, sys
import roundbench
bad = []
for m in pkgutil.walk_packages(roundbench.__path__, "roundbench."):
    if m.name.endswith("__main__") or m.name == "roundbench._cffi_build":
        continue
    try:
        importlib.import_module(m.name)
    except ModuleNotFoundError as e:
        if e.name.split(".")[0] == "roundbench":
            bad.append(f"{m.name}: {e}")
    except Exception as e:
        bad.append(f"{m.name}: {type(e).__name__}: {e}")
print("\\n".join(bad))
"""
    p = subprocess.run([pypy, "-c", code], capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "", p.stdout + p.stderr
    ours = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "--list"], capture_output=True, text=True, env=child_env()
    )
    theirs = subprocess.run(
        [pypy, "-m", "roundbench.run.child", "--list"], capture_output=True, text=True, env=child_env()
    )
    assert theirs.returncode == 0, theirs.stderr
    assert theirs.stdout == ours.stdout


@pytest.fixture(scope="module")
def pypy_extension(pypy):
    """The extension and the cffi API module built for PyPy (once)."""
    interp.info.cache_clear()
    why = interp.ensure_extension(pypy)
    if why and "Python.h is missing" in why:
        pytest.skip(why)
    assert why is None, why
    return pypy


def test_ensure_extension_builds_both_modules_for_pypy(pypy_extension):
    got = interp.info(pypy_extension)
    for stem in (extbuild.CORE, extbuild.CFFI_API):
        assert extbuild.target(stem, got.ext_suffix).is_file()
        assert not extbuild.stale(stem, got.ext_suffix)
    assert interp.extension_missing(pypy_extension) is None
    assert interp.cffi_api_missing(pypy_extension) is None
    # Current already: a second call builds nothing and says nothing.
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from roundbench.runtimes import interp; print(interp.ensure_extension({pypy_extension!r}))",
        ],
        capture_output=True,
        text=True,
        env=child_env(),
    )
    assert p.stdout.strip() == "None" and "building" not in p.stderr, p.stderr
    # The build records the flags as setup.py does: PyPy's CFLAGS, then ours.
    code = "import roundbench; print(roundbench.build_info())"
    p = subprocess.run([pypy_extension, "-c", code], capture_output=True, text=True, env=child_env())
    assert p.returncode == 0 and "-O2" in p.stdout and "-std=gnu11" in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("v", [v for v in ffi.ROUND.variants if v.program == "python"], ids=lambda v: v.name)
def test_every_ffi_mechanism_runs_under_pypy(pypy_extension, v):
    """Each Python mechanism of the ffi round, under PyPy: ctypes, cffi's ABI
    and API modes, the extension through cpyext, and the callback and the
    buffers. A binding tool's rows (ffi.BINDING_ROWS: the call, buffer,
    args4, str and callback rows) may be skips there, each saying why (its
    tool not installed for PyPy, say)."""
    why = v.requires(pypy_extension) if v.requires else None
    if why and v.name in ffi.BINDING_ROWS:
        pytest.skip(f"{v.name} under PyPy: {why}")
    assert why is None, why
    p = subprocess.run(
        [pypy_extension, "-m", "roundbench.run.child", "ffi", v.name],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert f"result: {v.name}-ok" in p.stdout


def test_ffi_mechanisms_say_what_an_interpreter_lacks(other_cpython, monkeypatch):
    """Without the extension for an interpreter, each mechanism that needs it
    says so, naming the interpreter; ctypes and cffi's ABI mode say they
    load the callee from the extension's file."""
    monkeypatch.setattr(interp, "extension_missing", lambda exe=None: f"no extension for {exe}")
    reasons = {v.name: v.requires(other_cpython) for v in ffi.ROUND.variants if v.requires is not None}
    assert reasons["py-c-o"] == f"no extension for {other_cpython}"
    assert (
        reasons["py-ctypes"] == f"ctypes loads the callee from the extension's file: no extension for {other_cpython}"
    )
    assert reasons["py-cffi-abi"].startswith("cffi's ABI mode loads the callee from the extension's file")
    assert "py" not in reasons
