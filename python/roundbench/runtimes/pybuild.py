"""How a Python interpreter was built, as far as it can be established.

A CPython's speed depends on its build: profile-guided optimization (PGO),
link-time optimization (LTO), libpython linked statically or as a shared
library (every call inside the interpreter then goes through the PLT),
frame pointers, the GIL, the JIT, a debug build. A result that says
"Python" must say which build, and this module says it for each
interpreter a run uses (interp.Info, which the interpreter reports of
itself), preferring what the binary shows over what sysconfig claims:

- The compile switches of the code that runs (the executable, or the
  libpython it links) are read from its debug information, where GCC and
  clang record them (DW_AT_producer: `-fprofile-use`, `-flto`,
  `-fno-omit-frame-pointer`). A stripped binary records none.
- Whether libpython is shared is what `ldd` says of the executable, not
  sysconfig's Py_ENABLE_SHARED: a distribution may link its interpreter
  statically and ship a shared libpython beside it.
- Otherwise configure's arguments (CONFIG_ARGS: `--enable-optimizations`,
  `--with-lto`) and the build's recorded flags. A distribution may run PGO
  outside configure and rewrite sysconfig's flags, so where neither the
  binary nor the build says, the fact is "not recorded", never a guess.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

from . import provision

NOT_RECORDED = "not recorded"

# The facts, in the order a line gives them.
FACTS = ("pgo", "lto", "libpython", "frame-pointers", "gil", "jit", "debug")


@dataclass(frozen=True)
class Fact:
    value: str  # "yes", "no", "shared", "static", "enabled", ..., or NOT_RECORDED
    how: str = ""  # how it was established, or why it could not be

    def text(self) -> str:
        return f"{self.value} ({self.how})" if self.how else self.value


@functools.lru_cache(maxsize=None)
def _ldd(path: str) -> Optional[list]:
    """The shared libraries `path` loads (`ldd`), or None when ldd cannot say."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    try:
        p = subprocess.run([ldd, path], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return [] if "not a dynamic executable" in (p.stdout + p.stderr) else None
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\S+)(?:\s+=>\s+(\S+))?", line)
        if m:
            out.append((m.group(1), m.group(2) or ""))
    return out


@functools.lru_cache(maxsize=None)
def switches(path: str) -> Optional[frozenset]:
    """The compile switches recorded in `path`'s debug information (every
    compilation unit's DW_AT_producer), or None when it records none (no
    readelf, no debug information: a stripped binary)."""
    readelf = shutil.which("readelf")
    if readelf is None or not os.path.isfile(path):
        return None
    try:
        p = subprocess.run(
            [readelf, "--debug-dump=info", "--dwarf-depth=1", path], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = set()
    for line in p.stdout.splitlines():
        if "DW_AT_producer" in line:
            text = line.split(":", 1)[1]
            if "):" in text:  # "(indirect string, offset: 0xe): GNU C11 12.2.0 -O3 ..."
                text = text.split("):", 1)[1]
            found.update(w for w in text.split() if w.startswith("-"))
    return frozenset(found) if found else None


SYSTEM_LOADERS = ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-armhf.so.3")


@functools.lru_cache(maxsize=None)
def elf_interpreter(path: str) -> Optional[str]:
    """The loader the kernel starts `path` with (its PT_INTERP, readelf -l),
    or None when it has none or readelf cannot say."""
    readelf = shutil.which("readelf")
    if readelf is None or not os.path.isfile(path):
        return None
    try:
        p = subprocess.run([readelf, "-l", "-W", path], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Requesting program interpreter: ([^\]]+)\]", p.stdout)
    return m.group(1).strip() if m else None


def code_binary(executable: str) -> tuple:
    """(the binary whose code runs the interpreter, how libpython is
    linked): the libpython `executable` loads, when it loads one, else the
    executable itself."""
    exe = os.path.realpath(shutil.which(executable) or executable)
    libs = _ldd(exe)
    if libs is None:
        return exe, Fact(NOT_RECORDED, "ldd could not read the executable")
    for name, where in libs:
        if os.path.basename(name).startswith("libpython"):
            return where or name, Fact("shared", f"the executable loads {os.path.basename(name)}, as ldd shows")
    return exe, Fact("static", "ldd shows no libpython: the interpreter is linked into the executable")


def _from_switches(sw: Optional[frozenset], flags: tuple, binary: str) -> Optional[Fact]:
    """Whether any of `flags` is among the recorded switches (a flag or its
    `=VALUE` form), as a Fact; None when the binary records none."""
    if sw is None:
        return None
    name = os.path.basename(binary)
    for flag in flags:
        if any(s == flag or s.startswith(flag + "=") for s in sw):
            return Fact("yes", f"{name} was compiled with {flag}")
    return Fact("no", f"{name}'s recorded compile switches have no {flags[0]}")


def facts(info) -> dict:
    """Each of FACTS for interpreter `info` (interp.Info), as a Fact."""
    if info.implementation != "CPython":
        n_a = Fact(NOT_RECORDED, f"{info.implementation} is not built as CPython is")
        out = {k: n_a for k in FACTS}
        if info.implementation == "PyPy":
            out["gil"] = Fact("enabled", "PyPy has a GIL")
            out["jit"] = Fact("built", "PyPy's tracing JIT, on by default")
        out["debug"] = Fact("yes" if info.debug else "no", "sysconfig's Py_DEBUG")
        return out
    binary, libpython = code_binary(info.executable)
    sw = switches(binary)
    args = info.config_args or ""
    cflags = " ".join((info.cflags, info.py_cflags_nodist))
    stripped = f"{os.path.basename(binary)} records no compile switches (stripped, or built without -g)"
    out = {}
    pgo = _from_switches(sw, ("-fprofile-use",), binary)
    if pgo is None and "--enable-optimizations" in args:
        pgo = Fact("yes", "configure --enable-optimizations")
    out["pgo"] = pgo or Fact(NOT_RECORDED, stripped + "; configure has no --enable-optimizations")
    lto = _from_switches(sw, ("-flto", "-fltrans"), binary)  # -fltrans: a unit GCC compiled at link time
    if lto is None and "--with-lto" in args:
        lto = Fact("yes", "configure --with-lto")
    out["lto"] = lto or Fact(NOT_RECORDED, stripped + "; configure has no --with-lto")
    shared_var = "1" if info.py_enable_shared else "0"
    if libpython.value == "static" and info.py_enable_shared:
        libpython = Fact("static", libpython.how + f", though sysconfig's Py_ENABLE_SHARED is {shared_var}")
    out["libpython"] = libpython
    fp = _from_switches(sw, ("-fno-omit-frame-pointer",), binary)
    if fp is None and "-fno-omit-frame-pointer" in cflags:
        fp = Fact("yes", "the build's CFLAGS have -fno-omit-frame-pointer")
    out["frame-pointers"] = fp or Fact(NOT_RECORDED, stripped)
    out["gil"] = Fact("disabled" if info.free_threaded else "enabled", "sysconfig's Py_GIL_DISABLED")
    jit = re.search(r"--enable-experimental-jit(?:=(\S+?))?['\s]", args + " ")
    if jit and jit.group(1) in ("yes-off", "interpreter"):
        how = {"yes-off": "off unless PYTHON_JIT=1", "interpreter": "the tier-2 interpreter, no machine code"}
        out["jit"] = Fact("built", f"configure --enable-experimental-jit={jit.group(1)}: {how[jit.group(1)]}")
    elif jit and jit.group(1) != "no":
        out["jit"] = Fact("built", "configure --enable-experimental-jit")
    elif info.feature < (3, 13):
        out["jit"] = Fact("none", f"CPython {info.version} has no JIT")
    else:
        out["jit"] = Fact("not built", "configure has no --enable-experimental-jit")
    out["debug"] = Fact("yes" if info.debug else "no", "sysconfig's Py_DEBUG")
    return out


def source(info) -> str:
    """Where the interpreter comes from: its path, what it resolves to, and
    the installation a virtual environment is made from."""
    exe = info.executable
    real = os.path.realpath(shutil.which(exe) or exe)
    where = exe if real == exe else f"{exe} -> {real}"
    loader = elf_interpreter(real)
    if loader and loader not in SYSTEM_LOADERS:
        where += f" (its ELF interpreter is {loader}: it runs with that loader and its libraries, not the system's)"
    if info.base_prefix and info.prefix and info.base_prefix != info.prefix:
        where += f", a virtual environment of {info.base_prefix}"

    for got in provision.read_manifest().values():
        if exe in (got.python, got.base) or real in (got.python, got.base, os.path.realpath(got.base)):
            where += f"; provisioned by roundbench pythons as {got.name}: {got.source}; {got.build}"
            break
    return where


def describe(info) -> str:
    """One line: where the interpreter is, what it is, and each build fact
    with how it was established."""
    f = facts(info)
    what = f"{info.implementation} {info.pypy_version or info.version}"
    parts = [source(info), what + (f", {info.compiler}" if info.compiler else "")]
    parts.append("configure: " + (info.config_args.strip() or "none recorded"))
    parts += [f"{k}: {f[k].text()}" for k in FACTS]
    return "; ".join(parts)


def summary(line: str) -> str:
    """The build facts a reader weighs first, from a describe() line as a
    result file keeps it: "PGO no, LTO no, libpython shared"; "" when the
    line has none."""
    got = dict(re.findall(r"(?:^|; )(pgo|lto|libpython|gil): ([^;(]+?)(?: \(|;|$)", line))
    names = {"pgo": "PGO", "lto": "LTO", "libpython": "libpython", "gil": "GIL"}
    parts = [f"{names[k]} {got[k]}" for k in ("pgo", "lto", "libpython") if k in got]
    if got.get("gil") == "disabled":
        parts.append("free-threaded")
    return ", ".join(parts)
