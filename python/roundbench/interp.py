"""The interpreter every Python child runs under.

By default it is the runner's own (sys.executable). `roundbench run --python
PATH`, or ROUNDBENCH_PYTHON=PATH in the environment, runs every Python child
with another one: a newer CPython, so that the Python side of a comparison is
as recent as the Go side (the runtime-age check in the report's fairness
section says when it is not). The runner itself stays where it is; only the
children change, and the provenance names the interpreter they ran under.

The children import this same roundbench package. An interpreter that cannot
import it by itself is given this package's folder on PYTHONPATH; its C
variants need the extension built for it (`make build PYTHON=PATH`, or
`pip install .` with it), and a variant whose library that interpreter lacks
is a skip row that says so, not a failure.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ENV = "ROUNDBENCH_PYTHON"

_PROBE = """\
import importlib.metadata, importlib.util, json, platform, sys, sysconfig
spec = importlib.util.find_spec("roundbench")
try:
    numpy = importlib.metadata.version("numpy")
except importlib.metadata.PackageNotFoundError:
    numpy = None
print(json.dumps({
    "implementation": platform.python_implementation(),
    "version": platform.python_version(),
    "debug": bool(sysconfig.get_config_var("Py_DEBUG")),
    "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX") or "",
    "executable": sys.executable,
    "roundbench": spec.origin if spec else None,
    "numpy": numpy,
    "dev_mode": bool(sys.flags.dev_mode),
}))
"""


@dataclass(frozen=True)
class Info:
    implementation: str
    version: str
    debug: bool
    ext_suffix: str
    executable: str
    roundbench: Optional[str]  # the __init__.py the interpreter imports, or None
    numpy: Optional[str]  # its numpy's version, or None
    dev_mode: bool  # -X dev / PYTHONDEVMODE in force

    def describe(self) -> str:
        build = "debug" if self.debug else "release"
        return f"{self.executable} ({self.implementation} {self.version}, {build} build)"


class BadInterpreter(Exception):
    """The interpreter named cannot run the Python children; says why."""


def executable() -> str:
    return os.environ.get(ENV) or sys.executable


def is_alternate() -> bool:
    exe = os.environ.get(ENV)
    return bool(exe) and os.path.realpath(exe) != os.path.realpath(sys.executable)


def package_parent() -> str:
    """The folder that holds this package: what a child interpreter needs on
    its PYTHONPATH to import roundbench."""
    return str(Path(__file__).resolve().parent.parent)


@functools.lru_cache(maxsize=None)
def info(exe: Optional[str] = None) -> Info:
    """What `exe` (default: the children's interpreter) is; BadInterpreter
    when it cannot be run or is not a Python 3."""
    exe = exe or executable()
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


def use(path: str) -> Info:
    """Makes `path` the children's interpreter for this process and the
    children it starts: sets ROUNDBENCH_PYTHON, and PYTHONPATH when the
    interpreter cannot import this roundbench by itself."""
    exe = os.path.abspath(path) if os.sep in path else path
    got = info(exe)
    if got.implementation != "CPython" and got.implementation != "PyPy":
        raise BadInterpreter(f"{path}: {got.implementation} is not supported (CPython or PyPy)")
    ours = str(Path(__file__).resolve().parent / "__init__.py")
    if got.roundbench is None or os.path.realpath(got.roundbench) != os.path.realpath(ours):
        paths = [package_parent()] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        info.cache_clear()
        got = info(exe)
    os.environ[ENV] = exe
    return got


def extension_missing() -> Optional[str]:
    """Why the children's interpreter cannot import roundbench._core, or None."""
    if not is_alternate():
        import importlib.util

        return (
            None
            if importlib.util.find_spec("roundbench._core")
            else "the extension roundbench._core is not built (run `make build`)"
        )
    got = info()
    here = Path(__file__).resolve().parent
    if not (here / f"_core{got.ext_suffix}").exists():
        return (
            f"the extension roundbench._core is not built for {got.describe()} "
            f"(want {here.name}/_core{got.ext_suffix}: `make build PYTHON={got.executable}`)"
        )
    return None


@functools.lru_cache(maxsize=None)
def has_module(name: str) -> bool:
    """Whether the children's interpreter can import module `name`."""
    if not is_alternate():
        import importlib.util

        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False
    code = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({name!r}) else 1)"
    try:
        return subprocess.run([executable(), "-c", code], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
