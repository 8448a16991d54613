"""Python compiled ahead of time: the modules that Cython, mypyc and
Pythran build from the project's sources for one interpreter (the loop
round's py-cython, py-mypyc and py-pythran), and the ffi round's binding
modules (py-c-abi3, py-cython-extern, py-pybind11, py-nanobind,
py-pyo3: bindings/, each with the core's callee, csrc/ffi.c, compiled
in), built before the runs and loaded by the children.

Each module of MODULES is made by the interpreter's own tool (`EXE -m
cython`; mypyc's mypycify run by EXE, which writes the C for that Python;
Pythran's PythranExtension run by EXE, which writes the C++ and says how
pythran's own build would compile it; pybind11's and nanobind's headers,
and nanobind's own library, found by EXE's copy of each; the limited-API
C module as it is) and compiled against its headers
with its compiler settings, as extbuild.py compiles roundbench._core
(extbuild.Toolchain: what setuptools would do; its C++ compiler for
Pythran's).
It goes into the build folder, never the package: build_root()/py-<key>/
aot/<name>/<name><EXT_SUFFIX> (key: interp.key), beside <name>.build.json,
which records the tool, its version and the build's wall time (the child
reports them as facts: what the variant costs before it runs). It is built
when it is missing, older than one of its inputs, or made by another
version of its tool, under a file lock there, so that runners started at
once build it once.

The source is copied into the build folder under the module's name first
(with the files its tool reads beside it: Pythran's exports, loop.pythran):
mypyc and Pythran compile pure/loop.py unchanged as loop_mypyc and
loop_pythran, so the pure module keeps its name and the `py` variant keeps
importing the interpreted one.

Runner side: ensure(name, exe), which a variant's `requires` calls
(rounds.needs_aot), so that the build happens before the runs and is never
timed; `make build` builds every module for the venv's interpreter
(`python -m roundbench.runtimes.aotbuild`). Child side: load(name).
"""

from __future__ import annotations

import fcntl
import functools
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Optional

from . import extbuild, interp

CYTHON = "Cython"
MYPYC = "mypyc"
PYTHRAN = "Pythran"
PYBIND11 = "pybind11"
NANOBIND = "nanobind"
LIMITED_API = "the limited API"
# PyO3's module is a Rust crate (bindings/ffi_pyo3/, its crates pinned by
# its Cargo.lock) that maturin builds into a wheel, whose module is taken
# out of it: its build is maturin's, not the C compiler's (_build_crate).
MATURIN = "maturin"
# What a limited-API module's record names as its tool's version: the
# Py_LIMITED_API its source sets (bindings/ffi_abi3.c).
LIMITED_API_VERSION = "3.11 (Py_LIMITED_API 0x030B0000)"


@dataclass(frozen=True)
class Module:
    """One module compiled ahead of time: its import name (and its file's
    stem), the tool that compiles it, its source, the distribution whose
    version the build records (mypyc comes with mypy), and the files the
    tool reads beside the source (Pythran's exports: a .pythran file of the
    source's stem, pythran's manual, ".pythran files"). `dist` is None for
    a tool that is no distribution (the limited API). With callee=True the
    ffi round's callee (CALLEE: csrc/ffi.c and the error helpers it calls)
    is compiled into the module, so that the binding calls the very
    function every other ffi mechanism calls."""

    name: str
    tool: str
    source: Path
    dist: Optional[str]
    beside: tuple = ()
    callee: bool = False

    @property
    def inputs(self) -> tuple:
        """What the module is built from: it is stale when one is newer."""
        return (self.source, *self.beside, *(CALLEE + CALLEE_HEADERS if self.callee else ()))

    def newest_input_ns(self) -> int:
        return max(p.stat().st_mtime_ns for p in self.inputs)


_PURE = extbuild.PACKAGE / "pure"
_BINDINGS = extbuild.PACKAGE / "bindings"
_CSRC = extbuild.ROOT / "csrc"
# The ffi round's callee as the cffi API module compiles it in too
# (extbuild): ffi.c, and common.c for the error record its callback loop
# fills. At -O2, as there: the callee is noinline, so its body is the same
# at any level that matters.
CALLEE = (_CSRC / "ffi.c", _CSRC / "common.c")
CALLEE_HEADERS = (_CSRC / "roundbench.h", _CSRC / "internal.h")
CALLEE_FLAGS = ["-O2"]
MODULES = {
    m.name: m
    for m in (
        Module("loop_cython", CYTHON, _PURE / "loop_cython.pyx", "Cython"),
        Module("loop_mypyc", MYPYC, _PURE / "loop.py", "mypy"),
        Module("loop_pythran", PYTHRAN, _PURE / "loop.py", "pythran", (_PURE / "loop.pythran",)),
        Module("ffi_abi3", LIMITED_API, _BINDINGS / "ffi_abi3.c", None, callee=True),
        Module("ffi_cython", CYTHON, _BINDINGS / "ffi_cython.pyx", "Cython", callee=True),
        Module("ffi_pybind11", PYBIND11, _BINDINGS / "ffi_pybind11.cpp", "pybind11", callee=True),
        Module("ffi_nanobind", NANOBIND, _BINDINGS / "ffi_nanobind.cpp", "nanobind", callee=True),
        Module(
            "ffi_pyo3",
            MATURIN,
            _BINDINGS / "ffi_pyo3" / "src" / "lib.rs",
            "maturin",
            tuple(_BINDINGS / "ffi_pyo3" / f for f in ("Cargo.toml", "Cargo.lock", "build.rs")),
            callee=True,
        ),
    )
}

# mypyc's own build (its `mypyc` command) at its default optimisation,
# -O3, run by the target interpreter: the C it writes and how to compile it.
_MYPYCIFY = """\
import json, sys
from mypyc.build import mypycify
exts = mypycify([sys.argv[1]], opt_level="3", target_dir=sys.argv[2])
print(json.dumps([[e.name, e.sources, e.include_dirs, e.extra_compile_args] for e in exts]))
"""

# Pythran's setuptools extension (its manual, "Distutils Integration") run
# by the target interpreter: reading the sources translates the module and
# its .pythran exports into C++; its fields are the flags pythran's own
# build compiles and links that C++ with (its include folders and numpy's,
# its macros, -std=c++17 and the rest of its configuration, BLAS only when
# the code needs it).
_PYTHRANIZE = """\
import json, sys
from pythran.dist import PythranExtension
ext = PythranExtension(sys.argv[1], [sys.argv[2]])
sources = ext.sources
macros = ["-D" + n + ("" if v is None else "=" + v) for n, v in ext.define_macros]
compile_args = [*macros, *("-U" + n for n in ext.undef_macros), *("-I" + d for d in ext.include_dirs)]
link_args = [*ext.extra_objects, *("-L" + d for d in ext.library_dirs), *("-l" + n for n in ext.libraries)]
print(json.dumps([sources, compile_args + ext.extra_compile_args, link_args + ext.extra_link_args]))
"""

_VERSION = "import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))"

# Where pybind11's headers are, and nanobind's headers and sources (its
# library is compiled into each module, as its CMake build does), asked of
# the target interpreter's copy of each.
_PYBIND11_DIRS = "import json, pybind11; print(json.dumps([pybind11.get_include()]))"
_NANOBIND_DIRS = "import json, nanobind; print(json.dumps([nanobind.include_dir(), nanobind.source_dir()]))"
# Both tools' documented flags for an extension: C++17, symbols hidden
# (pybind11's FAQ, "someclass has greater visibility"; nanobind's build
# sets the same).
_CXX_FLAGS = ["-std=c++17", "-fvisibility=hidden"]


class NotBuilt(Exception):
    """A child's module is not built for the interpreter running it; says why."""


def folder(name: str, key: str) -> Path:
    """Where module `name` is built for the interpreter of key `key`."""
    return extbuild.build_root() / f"py-{key}" / "aot" / name


def _record_path(where: Path, name: str) -> Path:
    return where / f"{name}.build.json"


def read_record(path: Path) -> Optional[dict]:
    """A build record (JSON), or None where it is missing or unreadable."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def write_record(path: Path, record: dict) -> None:
    """Writes a build record whole or not at all (a reader never sees half
    of one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)


def tool_version(dist: Optional[str], exe: str) -> Optional[str]:
    """The version of distribution `dist` (a tool: Cython, mypy, Nuitka)
    that interpreter `exe` has, or None; for no distribution (the limited
    API), LIMITED_API_VERSION."""
    if dist is None:
        return LIMITED_API_VERSION
    if interp.is_runner(exe):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None
    try:
        out = extbuild.run_step([exe, "-c", _VERSION, dist], f"asking {exe} for {dist}'s version")
    except extbuild.Failed:
        return None
    return out.strip() or None


def _stale(m: Module, target: Path, version: str) -> bool:
    """Whether `target`, m's build, is missing, older than one of its
    inputs, or made by another version of its tool than `version`."""
    if not target.exists() or target.stat().st_mtime_ns < m.newest_input_ns():
        return True
    record = read_record(_record_path(target.parent, m.name))
    return record is None or record.get("version") != version


def _cythonize(exe: str, source: Path, work: Path) -> tuple:
    out = work / f"{source.stem}.c"
    extbuild.run_step([exe, "-m", "cython", "-3", "--fast-fail", "-o", str(out), str(source)], "cython", work)
    return [out], [], []


def _mypycify(exe: str, source: Path, work: Path) -> tuple:
    out = extbuild.run_step([exe, "-c", _MYPYCIFY, source.name, "c"], "mypyc", work)
    try:
        ((_, sources, include_dirs, args),) = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        raise extbuild.Failed(f"mypyc wrote no build of one module ({e}): {out[-200:]!r}") from None
    return [work / s for s in sources], [*(f"-I{d}" for d in include_dirs), *args], []


def _pythranize(exe: str, source: Path, work: Path) -> tuple:
    out = extbuild.run_step([exe, "-c", _PYTHRANIZE, source.stem, source.name], "pythran", work)
    try:
        sources, compile_args, link_args = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        raise extbuild.Failed(f"pythran wrote no build of the module ({e}): {out[-200:]!r}") from None
    return [work / s for s in sources], compile_args, link_args


def _as_is(exe: str, source: Path, work: Path) -> tuple:
    return [source], [], []


def _dirs(exe: str, script: str, tool: str, work: Path) -> list:
    out = extbuild.run_step([exe, "-c", script], f"asking {tool} where its files are", work)
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        raise extbuild.Failed(f"{tool} said nothing of its files ({e}): {out[-200:]!r}") from None


def _pybind11(exe: str, source: Path, work: Path) -> tuple:
    (include,) = _dirs(exe, _PYBIND11_DIRS, "pybind11", work)
    return [source], [f"-I{include}", *_CXX_FLAGS], []


def _nanobind(exe: str, source: Path, work: Path) -> tuple:
    include, src = _dirs(exe, _NANOBIND_DIRS, "nanobind", work)
    robin_map = Path(src).parent / "ext" / "robin_map" / "include"
    flags = [f"-I{include}", f"-I{robin_map}", *_CXX_FLAGS]
    # nanobind's free-threaded mode, as its CMake's FREE_THREADED option
    # sets it: its library's locking (nb_ft.cpp) and Py_MOD_GIL_NOT_USED on
    # the module, so that a free-threaded interpreter keeps the GIL off.
    # It is an error on a build with the GIL.
    if interp.info(exe).free_threaded:
        flags.append("-DNB_FREE_THREADED")
    return [source, Path(src) / "nb_combined.cpp"], flags, []


# How each tool writes the C (or C++) of a module, run by the target
# interpreter: (sources, compile flags, link flags).
_TRANSLATE = {
    CYTHON: _cythonize,
    MYPYC: _mypycify,
    PYTHRAN: _pythranize,
    LIMITED_API: _as_is,
    PYBIND11: _pybind11,
    NANOBIND: _nanobind,
}
# The tools whose output is C++.
_CXX = {PYTHRAN, PYBIND11, NANOBIND}


def translate(tool: str, exe: str, source: Path, work: Path) -> tuple:
    """What `tool` (CYTHON, PYBIND11, NANOBIND, ...) makes of `source` for
    interpreter `exe`, in `work`: (the C or C++ sources to compile, their
    compile flags, the link flags), as the ffi round's modules are built.
    Failed says why it could not."""
    return _TRANSLATE[tool](exe, source, work)


def is_cxx(tool: str) -> bool:
    """Whether `tool`'s output is C++."""
    return tool in _CXX


def shown(path: Path) -> str:
    """A source's path from the package's parent (roundbench/pure/loop.py)."""
    try:
        return path.relative_to(extbuild.PACKAGE.parent).as_posix()
    except ValueError:
        return str(path)


# How long a crate's build may take: its first one fetches the crates
# its Cargo.lock names and compiles them (a minute here).
CRATE_TIMEOUT_S = 900


def _build_crate(m: Module, got, target: Path) -> None:
    """m's crate (its Cargo.toml is m.beside's first) built by maturin for
    `got` into a wheel in the build folder (cargo's target folder there
    too, so that a rebuild is incremental), and the module taken out of
    the wheel into `target`. --locked: the build never rewrites the
    committed Cargo.lock; a crate it lacks fails the build instead."""
    build_crate(m.beside[0], m.name, got, target, target.parent / "target", locked=True)


def build_crate(
    manifest: Path, name: str, got, target: Path, target_dir: Path, locked: bool, repair: bool = True
) -> None:
    """The crate of `manifest` built by maturin for interpreter `got` into
    a wheel beside `target`, cargo's target folder `target_dir`, and its
    module `name` taken out of the wheel into `target`. With locked, cargo
    may not change the crate's Cargo.lock. Without repair, maturin leaves
    the module's shared libraries as it links them (its default, auditwheel
    repair, copies one outside the manylinux set into the wheel under a
    new name, which the module alone taken out could not find). Failed
    says why it could not."""
    if shutil.which("cargo") is None:
        raise extbuild.Failed("cargo is not on PATH (Rust's toolchain: rustup, or Debian's cargo)")
    wheels = target.parent / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    cmd = [got.executable, "-m", "maturin", "build", "--release", *(["--locked"] if locked else []), "-q"]
    cmd += [] if repair else ["--auditwheel", "skip"]
    cmd += ["-m", str(manifest), "-i", got.executable, "-o", str(wheels), "--target-dir", str(target_dir)]
    extbuild.run_step(cmd, "maturin", target.parent, timeout=CRATE_TIMEOUT_S)
    found = sorted(wheels.glob("*.whl"))
    if not found:
        raise extbuild.Failed(f"maturin wrote no wheel into {wheels}")
    with zipfile.ZipFile(found[-1]) as wheel:
        members = [n for n in wheel.namelist() if Path(n).name.startswith(f"{name}.") and n.endswith(".so")]
        if not members:
            raise extbuild.Failed(f"{found[-1].name} holds no {name} module")
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(wheel.read(members[0]))
    os.replace(tmp, target)


def _build(m: Module, got, target: Path, version: str) -> None:
    """Builds m into `target` for interpreter `got` (an interp.Info), then
    writes its record; Failed says why it could not."""
    if m.tool == MATURIN:
        t0 = time.monotonic_ns()
        _build_crate(m, got, target)
        _write_built(m, got, target, version, time.monotonic_ns() - t0)
        return
    tools = extbuild.Toolchain(got, cxx=m.tool in _CXX)
    why = tools.missing(got)
    if why:
        raise extbuild.Failed(why)
    work = target.parent / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    t0 = time.monotonic_ns()
    for path in (m.source, *m.beside):  # the callee is compiled where it is
        shutil.copyfile(path, work / f"{m.name}{path.suffix}")
    source = work / f"{m.name}{m.source.suffix}"
    sources, compile_args, link_args = _TRANSLATE[m.tool](got.executable, source, work)
    objects = tools.compile_all(sources, work, [], compile_args)
    if m.callee:
        objects += extbuild.Toolchain(got).compile_all(list(CALLEE), work, [], CALLEE_FLAGS)
    tools.link(objects, link_args, target)
    _write_built(m, got, target, version, time.monotonic_ns() - t0)


def _write_built(m: Module, got, target: Path, version: str, built_ns: int) -> None:
    record = {
        "module": m.name,
        "tool": m.tool,
        "version": version,
        "build_ns": built_ns,
        "interpreter": got.describe(),
        "source": shown(m.source),
    }
    write_record(_record_path(target.parent, m.name), record)


@functools.lru_cache(maxsize=None)
def _ensure(name: str, exe: str) -> Optional[str]:
    m = MODULES[name]
    lacking = [p.name for p in m.inputs if not p.exists()]
    if extbuild.checkout() is None or lacking:
        return (
            f"{name} is built from a roundbench checkout, and this one has no {' or '.join(lacking or [m.source.name])}"
        )
    try:
        got = interp.info(exe)
    except interp.BadInterpreter as e:
        return str(e)
    version = tool_version(m.dist, exe)
    if version is None:  # m.dist is a distribution here
        return f"{m.tool} is not installed for {got.describe()} (pip install {m.dist})"
    where = folder(name, got.key)
    target = where / f"{name}{got.ext_suffix}"
    if not _stale(m, target, version):
        return None
    where.mkdir(parents=True, exist_ok=True)
    with open(where / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not _stale(m, target, version):
            return None  # another process built it while this one waited
        print(
            f"roundbench: building {name} with {m.tool} {version} for {got.describe()} (once; in {where})",
            file=sys.stderr,
            flush=True,
        )
        try:
            _build(m, got, target, version)
        except (extbuild.Failed, OSError) as e:
            return f"building {name} with {m.tool} {version} for {got.describe()} failed: {e}"
    return None


def ensure(name: str, exe: Optional[str] = None) -> Optional[str]:
    """Builds module `name` (one of MODULES) for interpreter `exe` (default:
    the children's, interp.executable()) where it is missing or stale, once
    per process and interpreter; why it cannot be built, or None when it is
    there and current. Prints one line on stderr when it builds."""
    return _ensure(name, exe or interp.executable())


def load(name: str) -> tuple:
    """(module, record): module `name` as built for the interpreter running
    this process, imported from its build folder, and its build record (a
    dict: tool, version, build_ns, ...). NotBuilt when it is missing or
    older than one of its inputs (ensure builds it)."""
    m = MODULES[name]
    where = folder(name, interp.running_key())
    path = where / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    record = read_record(_record_path(where, name))
    if not path.exists() or record is None:
        raise NotBuilt(
            f"{name} is not built for {sys.executable} (want {path}: `make build` builds it for the venv's "
            "interpreter, `roundbench run` for the one it runs)"
        )
    newer = [p.name for p in m.inputs if p.exists() and path.stat().st_mtime_ns < p.stat().st_mtime_ns]
    if newer:
        raise NotBuilt(f"{path} is older than {newer[0]} (`make build` or `roundbench run` builds it again)")
    spec = importlib.util.spec_from_file_location(name, path)
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, record


def main() -> int:
    """Builds every module for this interpreter (`make build`). A module
    that cannot be built is said on stderr and is no failure: its variant
    is a skip row that says why."""
    for name in MODULES:
        why = ensure(name, sys.executable)
        if why:
            print(f"roundbench: {name} not built: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
