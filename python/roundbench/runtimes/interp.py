"""The interpreters the Python children run under.

By default it is the runner's own (sys.executable). `roundbench run --python
PATH`, or ROUNDBENCH_PYTHON=PATH in the environment, runs every Python child
with another one: a newer CPython, so that the Python side of a comparison is
as recent as the Go side (the runtime-age check in the report's fairness
section says when it is not), or PyPy. The runner itself stays where it is;
only the children change, and the provenance names the interpreter they ran
under.

Every query here takes the interpreter, `exe` (a path, or a name on PATH);
None means the children's default one (executable()): info, key,
child_env, has_module, module_missing, extension_missing, cffi_api_missing,
ensure_extension. Nothing here changes os.environ but use().

The children import this same roundbench package. An interpreter that cannot
import it by itself is given this package's folder on PYTHONPATH
(child_env). Its C variants need roundbench._core, and py-cffi-api needs
roundbench._cffi_api, built for it: ensure_extension builds both into the
package folder under that interpreter's EXT_SUFFIX (extbuild.py says how;
for the venv's own CPython they are `make build`'s, as always). A variant
whose library that interpreter lacks is a skip row that says so, not a
failure.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import extbuild
from . import provision

ENV = "ROUNDBENCH_PYTHON"
# The key under which a Python child's result name carries its interpreter
# (key(): ".../python=pypy-7.3.11"), where a run names one; the claims say
# which interpreter a quantity they quote ran under from it.
RESULT_KEY = "python"

_PROBE = """\
import importlib.metadata, importlib.util, json, os, platform, sys, sysconfig
spec = importlib.util.find_spec("roundbench")
try:
    numpy = importlib.metadata.version("numpy")
except importlib.metadata.PackageNotFoundError:
    numpy = None
var = sysconfig.get_config_var
# INCLUDEPY is where the build put the headers; an interpreter run from
# elsewhere (a Debian root's, beside the machine's own) has them under its
# prefix, where get_paths() looks.
include = var("INCLUDEPY") or ""
if not os.path.isfile(os.path.join(include, "Python.h")):
    include = sysconfig.get_paths().get("include") or include
pypy = getattr(sys, "pypy_version_info", None)
print(json.dumps({
    "implementation": platform.python_implementation(),
    "version": platform.python_version(),
    "debug": bool(var("Py_DEBUG")),
    "ext_suffix": var("EXT_SUFFIX") or "",
    "executable": sys.executable,
    "roundbench": spec.origin if spec else None,
    "numpy": numpy,
    "dev_mode": bool(sys.flags.dev_mode),
    "pypy_version": "%d.%d.%d" % tuple(pypy[:3]) if pypy else None,
    "free_threaded": bool(var("Py_GIL_DISABLED")),
    "include": include,
    "cc": var("CC") or "",
    "cflags": var("CFLAGS") or "",
    "ccshared": var("CCSHARED") or "",
    "ldshared": var("LDSHARED") or "",
    "cxx": var("CXX") or "",
    "ldcxxshared": var("LDCXXSHARED") or "",
    "config_args": var("CONFIG_ARGS") or "",
    "py_cflags_nodist": var("PY_CFLAGS_NODIST") or "",
    "py_enable_shared": bool(var("Py_ENABLE_SHARED")),
    "compiler": platform.python_compiler(),
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
}))
"""

# What a key may hold: it is one value of a benchmark name (benchfmt: `/`
# splits the keys, `=` a key from its value, white space ends the name).
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


@dataclass(frozen=True)
class Info:
    implementation: str
    version: str  # the Python language version (PyPy's too: 3.9.16)
    debug: bool
    ext_suffix: str
    executable: str
    roundbench: Optional[str]  # the __init__.py the interpreter imports, or None
    numpy: Optional[str]  # its numpy's version, or None
    dev_mode: bool  # -X dev / PYTHONDEVMODE in force
    pypy_version: Optional[str] = None  # PyPy's own version (7.3.11), None for CPython
    free_threaded: bool = False  # a CPython built with --disable-gil
    # Where its C headers are and how it compiles extensions (sysconfig):
    # what extbuild builds roundbench's modules for it with.
    include: str = ""
    cc: str = ""
    cflags: str = ""
    ccshared: str = ""
    ldshared: str = ""
    cxx: str = ""  # its C++ compiler and linker (C++ modules: pythran's)
    ldcxxshared: str = ""
    # How it was built, as sysconfig records it (pybuild.py reads these
    # beside what the binary shows): configure's arguments, the core's own
    # flags, Py_ENABLE_SHARED, the compiler; and where it lives (a virtual
    # environment's prefix differs from its base's).
    config_args: str = ""
    py_cflags_nodist: str = ""
    py_enable_shared: bool = False
    compiler: str = ""
    prefix: str = ""
    base_prefix: str = ""

    def describe(self) -> str:
        build = "debug" if self.debug else "release"
        if self.pypy_version:
            return f"{self.executable} (PyPy {self.pypy_version}, Python {self.version}, {build} build)"
        threads = ", free-threaded" if self.free_threaded else ""
        return f"{self.executable} ({self.implementation} {self.version}{threads}, {build} build)"

    @property
    def feature(self) -> tuple:
        """The language's feature release as numbers: (3, 13) for 3.13.5,
        what version checks compare."""
        return tuple(int(p) for p in re.findall(r"\d+", self.version)[:2])

    @property
    def key(self) -> str:
        """A short identity for result names and reports: cpython-3.11.7,
        pypy-7.3.11 (PyPy's own version; its Python's is in describe()),
        cpython-3.13.1t for a free-threaded build, -debug after a debug one."""
        return _key(self.implementation, self.pypy_version or self.version, self.free_threaded, self.debug)


def _key(implementation: str, version: str, free_threaded: bool, debug: bool) -> str:
    name = f"{implementation.lower()}-{version}{'t' if free_threaded else ''}"
    if debug:
        name += "-debug"
    return _KEY_UNSAFE.sub("_", name)


def running_key() -> str:
    """Info.key of the interpreter running this process, asked of itself
    (no probe): where a child finds what was built for it."""
    pypy = getattr(sys, "pypy_version_info", None)
    version = "%d.%d.%d" % tuple(pypy[:3]) if pypy else platform.python_version()
    var = sysconfig.get_config_var
    return _key(platform.python_implementation(), version, bool(var("Py_GIL_DISABLED")), bool(var("Py_DEBUG")))


class BadInterpreter(Exception):
    """The interpreter named cannot run the Python children; says why."""


def executable() -> str:
    """The children's default interpreter: $ROUNDBENCH_PYTHON, else the
    runner's own."""
    return os.environ.get(ENV) or sys.executable


def is_runner(exe: str) -> bool:
    """Whether `exe` is the interpreter this process runs: the same file,
    or the same program when this one is not a virtual environment's (a
    venv's python is a link to its base, which lacks the venv's
    packages)."""
    path = shutil.which(exe) or exe
    if os.path.abspath(path) == os.path.abspath(sys.executable):
        return True
    return sys.prefix == sys.base_prefix and os.path.realpath(path) == os.path.realpath(sys.executable)


def is_alternate() -> bool:
    """Whether the children's default interpreter is another than the runner's."""
    exe = os.environ.get(ENV)
    return bool(exe) and not is_runner(exe)


def _resolve(exe: Optional[str]) -> tuple:
    """(the interpreter, whether it is the runner's own)."""
    if exe is None:
        return executable(), not is_alternate()
    return exe, is_runner(exe)


def package_parent() -> str:
    """The folder that holds this package: what a child interpreter needs on
    its PYTHONPATH to import roundbench."""
    return str(Path(__file__).resolve().parents[2])


def _ours() -> str:
    return os.path.realpath(Path(__file__).resolve().parents[1] / "__init__.py")


@functools.lru_cache(maxsize=None)
def _probe(exe: str) -> Info:
    try:
        p = subprocess.run([exe, "-c", _PROBE], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise BadInterpreter(f"{exe}: cannot run it ({e.strerror or e})") from None
    except subprocess.TimeoutExpired:
        raise BadInterpreter(f"{exe}: did not answer within 60 s") from None
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise BadInterpreter(f"{exe}: not a Python 3 interpreter roundbench can use ({last})")
    try:
        return Info(**json.loads(p.stdout))
    except (ValueError, TypeError):
        raise BadInterpreter(f"{exe}: its answer was not what a Python 3 prints ({p.stdout[:80]!r})") from None


def info(exe: Optional[str] = None) -> Info:
    """What `exe` (default: the children's interpreter) is; BadInterpreter
    when it cannot be run or is not a Python 3. Asked once per process and
    interpreter (use() asks again)."""
    return _probe(exe or executable())


info.cache_clear = _probe.cache_clear  # use() and the tests forget every answer


def key(exe: Optional[str] = None) -> str:
    """`exe`'s short identity, safe in a benchmark name (Info.key):
    "cpython-3.11.7", "pypy-7.3.11"."""
    return info(exe).key


def child_env(exe: Optional[str] = None) -> dict:
    """The environment additions a child under `exe` needs: PYTHONPATH with
    this package's folder first when that interpreter does not import this
    roundbench by itself in the present environment; {} when it does.
    os.environ is left as it is."""
    exe, own = _resolve(exe)
    if own:
        return {}
    got = info(exe)
    if got.roundbench is not None and os.path.realpath(got.roundbench) == _ours():
        return {}
    parent = package_parent()
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != parent]
    return {"PYTHONPATH": os.pathsep.join([parent, *rest])}


def _env(exe: str) -> dict:
    """The whole environment of a child under `exe`."""
    return {**os.environ, **child_env(exe)}


def use(path: str) -> Info:
    """Makes `path` the children's interpreter for this process and the
    children it starts: sets ROUNDBENCH_PYTHON, and PYTHONPATH when the
    interpreter cannot import this roundbench by itself."""
    exe = os.path.abspath(path) if os.sep in path else path
    got = info(exe)
    if got.implementation not in ("CPython", "PyPy"):
        raise BadInterpreter(f"{path}: {got.implementation} is not supported (CPython or PyPy)")
    extra = child_env(exe)
    if extra:
        os.environ.update(extra)
        info.cache_clear()
        _imports.cache_clear()
        got = info(exe)
    os.environ[ENV] = exe
    return got


@functools.lru_cache(maxsize=None)
def _has_module(name: str, exe: str, own: bool) -> bool:
    if own:
        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False
    code = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({name!r}) else 1)"
    try:
        return subprocess.run([exe, "-c", code], capture_output=True, env=_env(exe), timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def has_module(name: str, exe: Optional[str] = None) -> bool:
    """Whether `exe` (default: the children's interpreter) can find module
    `name` (without importing it)."""
    exe, own = _resolve(exe)
    return _has_module(name, exe, own)


def module_missing(name: str, hint: str, exe: Optional[str] = None) -> Optional[str]:
    """Why `exe` cannot import module `name`, or None: a `requires` check's
    answer ("Python module uvloop is not installed for ... (hint)")."""
    got, own = _resolve(exe)
    if _has_module(name, got, own):
        return None
    where = "" if own else f" for {info(got).describe()}"
    no_wheel = _no_wheel(got, hint)
    if no_wheel:
        return f"Python module {name} is not installed{where}: {no_wheel}"
    return f"Python module {name} is not installed{where} ({hint})"


def _no_wheel(exe: str, hint: str) -> str:
    """For an interpreter `roundbench pythons` provisioned: why the package
    the hint names is missing when PyPI had no wheel of it for that
    interpreter (the venvs get wheels only), else ""."""
    m = re.search(r"pip install ([A-Za-z0-9_.-]+)", hint)
    if not m:
        return ""
    package = m.group(1).lower().replace("_", "-")
    for got in provision.read_manifest().values():
        if os.path.realpath(got.python) != os.path.realpath(exe) and got.python != exe:
            continue
        for req in got.missing_wheels:
            if re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower().replace("_", "-") == package:
                return (
                    f"PyPI has no wheel of {req.split(' (')[0]} for {got.name}, and roundbench pythons installs "
                    f"wheels only ({hint} builds it from source)"
                )
    return ""


# ---- the compiled modules ---------------------------------------------------------

# Why a build for an interpreter failed in this process: (exe, stem) -> reason.
_build_failed: dict = {}


@functools.lru_cache(maxsize=None)
def _imports(exe: str, module: str) -> Optional[str]:
    """Why `exe` cannot import `module` (the last line of its error), or
    None. Asked once per process until a build (ensure_extension) or use()."""
    try:
        p = subprocess.run([exe, "-c", f"import {module}"], capture_output=True, text=True, env=_env(exe), timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if p.returncode == 0:
        return None
    return (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]


def _import_failure(got: Info, module: str, why: str) -> str:
    if got.implementation == "PyPy":
        return f"{module} is built for {got.describe()} but PyPy's C-API emulation (cpyext) cannot import it: {why}"
    return f"{module} is built for {got.describe()} but does not import there: {why}"


def extension_missing(exe: Optional[str] = None) -> Optional[str]:
    """Why `exe` (default: the children's interpreter) cannot import
    roundbench._core, or None. For the runner's own interpreter the
    extension is `make build`'s; for another, ensure_extension's (a failed
    build's reason is kept and given here)."""
    exe, own = _resolve(exe)
    if own:
        return (
            None
            if importlib.util.find_spec("roundbench._core")
            else "the extension roundbench._core is not built (run `make build`)"
        )
    got = info(exe)
    failed = _build_failed.get((exe, extbuild.CORE))
    if failed:
        return failed
    here = Path(__file__).resolve().parents[1]
    if not extbuild.target(extbuild.CORE, got.ext_suffix).exists():
        return (
            f"the extension roundbench._core is not built for {got.describe()} "
            f"(want {here.name}/_core{got.ext_suffix}; `roundbench run --python {got.executable}` builds it)"
        )
    why = _imports(exe, "roundbench._core")
    return _import_failure(got, "roundbench._core", why) if why else None


def cffi_api_missing(exe: Optional[str] = None) -> Optional[str]:
    """Why `exe` cannot import roundbench._cffi_api (variant py-cffi-api,
    cffi's API mode), or None."""
    exe, own = _resolve(exe)
    if own:
        if importlib.util.find_spec("roundbench._cffi_api"):
            return None
        return "the cffi API module roundbench._cffi_api is not built (rebuild with cffi installed: make build)"
    got = info(exe)
    failed = _build_failed.get((exe, extbuild.CFFI_API))
    why = _imports(exe, "roundbench._cffi_api")
    if why is None:
        return None
    if failed:
        return failed
    if not extbuild.target(extbuild.CFFI_API, got.ext_suffix).exists():
        return (
            f"the cffi API module roundbench._cffi_api is not built for {got.describe()} "
            f"(`roundbench run --python {got.executable}` builds it)"
        )
    return _import_failure(got, "roundbench._cffi_api", why)


def ensure_extension(exe: Optional[str] = None) -> Optional[str]:
    """Builds roundbench._core and roundbench._cffi_api for `exe` (default:
    the children's interpreter) where they are missing or older than their
    sources (extbuild.build: once, under a file lock, one line on stderr
    while it builds), and returns why `exe` cannot import roundbench._core,
    or None. The cffi API module's own failure (cffi missing there, say)
    does not stop the extension: cffi_api_missing says it. For the runner's
    own interpreter, and another CPython of its ABI (the same EXT_SUFFIX),
    nothing is built here: those files are `make build`'s."""
    exe, own = _resolve(exe)
    got = info(exe)
    if own or got.ext_suffix == sysconfig.get_config_var("EXT_SUFFIX"):
        # The runner's own, or a CPython of its ABI: the files are make
        # build's, which this must not replace.
        return extension_missing(exe)
    env = _env(exe)
    for stem in (extbuild.CORE, extbuild.CFFI_API):
        if stem == extbuild.CFFI_API and not extbuild.target(stem, got.ext_suffix).exists():
            if _imports(exe, "roundbench._cffi_api") is None:
                continue  # another build serves it (make build's abi3 module, for a newer CPython)
        why = extbuild.build(stem, got, got.key, env)
        if why:
            _build_failed[(exe, stem)] = why
        else:
            _build_failed.pop((exe, stem), None)
    _imports.cache_clear()
    return extension_missing(exe)


SYSTEM_PYTHON = "/usr/bin/python3"


def free_threaded_pythons(root: Optional[Path] = None) -> list:
    """The free-threaded CPythons (built with --disable-gil) that cpythons
    finds (this one, the system's, the provisioned ones), oldest version
    first."""
    out = []
    for path in cpythons(root, free_threaded=True):
        got = info(path)
        if got.free_threaded:
            out.append((tuple(int(p) for p in got.version.split(".")[:3] if p.isdigit()), path))
    return [path for _, path in sorted(out)]


def cpythons(root: Optional[Path] = None, free_threaded: bool = False) -> list:
    """Every CPython with the GIL on this machine (the free-threaded ones
    too when asked), as paths, one per key (version and build: Info.key):
    the one running this (the venv's), the system's, every provisioned one,
    in that order. What cannot run is left out."""
    seen, out = set(), []
    candidates = [sys.executable, SYSTEM_PYTHON] + [
        i.python for i in sorted(provision.read_manifest(root).values(), key=lambda i: i.name)
    ]
    for path in candidates:
        if not os.access(path, os.X_OK):
            continue
        try:
            got = info(path)
        except BadInterpreter:
            continue
        if got.implementation != "CPython" or got.key in seen or (got.free_threaded and not free_threaded):
            continue
        seen.add(got.key)
        out.append(path)
    return out
