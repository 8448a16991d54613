"""Python compiled to a program by Nuitka: round startup's hello-world
(pure/hello.py) built for one interpreter, as a standalone folder and as a
single file, before the runs (variants py-nuitka and py-nuitka-onefile of
rounds startup and delivery).

Each mode (MODES) is one build, `EXE -m nuitka --standalone` or
`--onefile` at Nuitka's defaults otherwise (what its manual's first
example does), run by the interpreter the children run under, which
Nuitka compiles the program for. It goes into the build folder, never the
package: build_root()/py-<key>/nuitka/hello-<mode>/ (key: interp.key),
the program at OUTPUT[mode] there, beside hello.build.json, which records
Nuitka's version, the source's hash, the build's wall time, and the size
and file count of what it wrote (round delivery reports them: what the
variant costs before it runs). A build takes a minute or more, so `make
build` does not run one: the first run that needs one builds it (ensure,
which a variant's `requires` calls: rounds.needs_nuitka), under a file
lock there, so that runners started at once build it once. It is built
again when the source or Nuitka's version changes.

Nuitka keeps caches between builds (compiled modules, ccache's objects)
in the user's cache folder; here each build gets an empty one of its own
(NUITKA_CACHE_DIR), removed afterwards, so that the recorded time is a
clean build's and the user's folder is left alone. A build that fails
leaves hello.failed.json with Nuitka's last lines, which round delivery
reports as a finding, and is tried again by the next run.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Optional

from . import aotbuild, extbuild, interp, pybuild

STANDALONE = "standalone"
ONEFILE = "onefile"
MODES = (STANDALONE, ONEFILE)
DIST = "Nuitka"  # the distribution whose version a build records
SOURCE = extbuild.PACKAGE / "pure" / "hello.py"
# The program each mode makes, from its folder: Nuitka names it after the
# source, with .bin on Linux.
OUTPUT = {STANDALONE: "hello.dist/hello.bin", ONEFILE: "hello.bin"}
RECORD = "hello.build.json"
FAILED = "hello.failed.json"
BUILD_TIMEOUT_S = 1800
PATCHELF = (
    "command patchelf is not on PATH: Nuitka's standalone and onefile builds need it on Linux "
    "(Debian: apt-get install patchelf, which scripts/setup.sh does)"
)


class NotBuilt(Exception):
    """A mode's build is missing or stale for the interpreter asked; says why."""


def folder(mode: str, key: str) -> Path:
    """Where mode `mode` is built for the interpreter of key `key`."""
    return extbuild.build_root() / f"py-{key}" / "nuitka" / f"hello-{mode}"


def program(mode: str, exe: Optional[str] = None) -> Path:
    """The program mode `mode` makes for interpreter `exe` (default: the
    children's), built or not."""
    exe = exe or interp.executable()
    key = interp.running_key() if interp.is_runner(exe) else interp.key(exe)
    return folder(mode, key) / OUTPUT[mode]


def source_hash() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def _stale(mode: str, where: Path, version: str, digest: str) -> bool:
    """Whether mode's build in `where` is missing, or made from another
    source or by another version of Nuitka."""
    record = aotbuild.read_record(where / RECORD)
    return (
        record is None
        or not (where / OUTPUT[mode]).is_file()
        or record.get("version") != version
        or record.get("source_sha256") != digest
    )


def _tree(path: Path) -> tuple:
    """(bytes, files) of the regular files under `path`, or of `path`."""
    if path.is_file():
        return path.stat().st_size, 1
    size = files = 0
    for root, _, names in os.walk(path):
        for name in names:
            st = os.lstat(os.path.join(root, name))
            size += st.st_size
            files += 1
    return size, files


def _build(mode: str, got, where: Path, version: str, digest: str) -> None:
    """Builds mode into `where` for interpreter `got` (an interp.Info), then
    writes its record; extbuild.Failed says why it could not."""
    work = where / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copyfile(SOURCE, work / SOURCE.name)
    out = work / "out"
    cmd = [got.executable, "-m", "nuitka", f"--{mode}", "--remove-output", f"--output-dir={out}", SOURCE.name]
    # No question asked (run_step gives no stdin), no update check over the
    # network (the version is pinned), an empty cache of the build's own.
    env = {**os.environ, "NUITKA_CACHE_DIR": str(work / "cache"), "NUITKA_UPDATE_CHECK": "never"}
    t0 = time.monotonic_ns()
    extbuild.run_step(cmd, f"nuitka --{mode}", work, env=env, timeout=BUILD_TIMEOUT_S)
    built_ns = time.monotonic_ns() - t0
    made = out / OUTPUT[mode]
    if not made.is_file():
        raise extbuild.Failed(f"nuitka --{mode} succeeded but wrote no {OUTPUT[mode]}")
    top = Path(OUTPUT[mode]).parts[0]  # hello.dist, or the onefile program itself
    dest = where / top
    if dest.is_dir():
        shutil.rmtree(dest)
    else:
        dest.unlink(missing_ok=True)
    os.replace(out / top, dest)
    size, files = _tree(dest)
    record = {
        "program": "hello",
        "mode": mode,
        "tool": DIST,
        "version": version,
        "command": f"python -m nuitka --{mode} --remove-output --output-dir=OUT {SOURCE.name}",
        "build_ns": built_ns,
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "interpreter": got.describe(),
        "source": aotbuild.shown(SOURCE),
        "source_sha256": digest,
        "output": OUTPUT[mode],
        "size": size,
        "files": files,
    }
    if mode == ONEFILE:
        # Nuitka compresses the payload with zstandard where the building
        # interpreter has it, and stores it plain otherwise.
        record["compressed"] = interp.has_module("zstandard", got.executable)
    aotbuild.write_record(where / RECORD, record)
    (where / FAILED).unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)


def _foreign_c_library(exe: str, got) -> Optional[str]:
    """Why Nuitka's program cannot run here where interpreter `exe` starts
    with another loader than the system's (make pythons' sid interpreters
    use their Debian root's loader and newer C library): the program would
    link that root's libpython and C library, which neither the system's
    loader runs nor --standalone or --onefile carries. A build would fail a
    minute in, in the C compiler; this says why first."""
    loader = pybuild.elf_interpreter(os.path.realpath(exe))
    if loader is None or loader in pybuild.SYSTEM_LOADERS:
        return None
    return (
        f"{got.describe()} starts with the loader and C library of the root it comes from ({loader}, "
        "not the system's loader): a program Nuitka builds for it would link that root's libpython and C "
        "library, which the system's loader cannot run and Nuitka's --standalone and --onefile do not "
        "carry; Nuitka's rows run under an interpreter on the machine's own C library (--python PATH, or "
        "ROUNDBENCH_PYTHON)"
    )


def _missing(exe: str, got) -> Optional[str]:
    """Why Nuitka cannot build here for `exe`, before trying."""
    why = interp.module_missing("nuitka", "pip install nuitka", exe)
    if why:
        return why
    if sys.platform.startswith("linux") and shutil.which("patchelf") is None:
        return PATCHELF
    if sys.platform.startswith("linux"):
        return _foreign_c_library(exe, got)
    return None


@functools.lru_cache(maxsize=None)
def _ensure(mode: str, exe: str) -> Optional[str]:
    if extbuild.checkout() is None and not os.environ.get("ROUNDBENCH_BUILD"):
        return "py-nuitka's program is built into a build folder: a roundbench checkout's, or $ROUNDBENCH_BUILD"
    try:
        got = interp.info(exe)
    except interp.BadInterpreter as e:
        return str(e)
    why = _missing(exe, got)
    if why:
        return why
    version = aotbuild.tool_version(DIST, exe)
    if version is None:
        return f"Nuitka is not installed for {got.describe()} (pip install nuitka)"
    digest = source_hash()
    where = folder(mode, got.key)
    if not _stale(mode, where, version, digest):
        return None
    where.mkdir(parents=True, exist_ok=True)
    with open(where / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not _stale(mode, where, version, digest):
            return None  # another process built it while this one waited
        print(
            f"roundbench: building {SOURCE.name} with Nuitka {version} --{mode} for {got.describe()} "
            f"(once, a minute or more; in {where})",
            file=sys.stderr,
            flush=True,
        )
        try:
            _build(mode, got, where, version, digest)
        except (extbuild.Failed, OSError) as e:
            why = f"building {SOURCE.name} with Nuitka {version} --{mode} for {got.describe()} failed: {e}"
            aotbuild.write_record(where / FAILED, {"mode": mode, "version": version, "error": why})
            return why
    return None


def ensure(mode: str, exe: Optional[str] = None) -> Optional[str]:
    """Builds mode `mode` (one of MODES) for interpreter `exe` (default: the
    children's, interp.executable()) where it is missing or stale, once per
    process and interpreter; why it cannot be built, or None when it is
    there and current. Prints one line on stderr when it builds."""
    if mode not in MODES:
        raise ValueError(f"Nuitka mode {mode!r} is none of {', '.join(MODES)}")
    return _ensure(mode, exe or interp.executable())


def record(mode: str) -> dict:
    """Mode's build record for the interpreter running this process (a
    child's side: a dict, see the module's doc, with `path`, the program's
    whole path, added); NotBuilt with why it is not there, the failed
    build's message where one failed."""
    where = folder(mode, interp.running_key())
    got = aotbuild.read_record(where / RECORD)
    if got is None or not (where / OUTPUT[mode]).is_file():
        failed = aotbuild.read_record(where / FAILED)
        if failed is not None:
            raise NotBuilt(failed.get("error") or "its build failed")
        raise NotBuilt(f"{OUTPUT[mode]} is not built for {sys.executable} in {where} (`roundbench run` builds it)")
    if got.get("source_sha256") != source_hash():
        raise NotBuilt(
            f"{where / OUTPUT[mode]} was built from another {SOURCE.name} (`roundbench run` builds it again)"
        )
    return {**got, "path": str(where / OUTPUT[mode])}
