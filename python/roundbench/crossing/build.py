"""Finding the user's library and building the callers gen.py writes, into
a cache keyed by what they are built from.

The cache folder is $ROUNDBENCH_CROSSING_CACHE, else crossing/ in the
build folder (programs.build_dir(): the checkout's build/, or the per-user
cache of an installed package). An entry is
`<symbol>-<hash>/`, the hash covering the declaration, the library's path
and contents, gen.py and the harness sources the callers are built with,
and the C compiler's and the Go toolchain's versions, and the versions the
project pins of PyO3 and purego; the Python modules go into
`py-<interpreter key>-<hash>/` below it, hashed with that interpreter's
build settings (a binding tool's module is built again when the tool's
version changes), the cgo callers into `go/` and purego's, a module of its
own, into `go-purego/`. Beside the entries, what every declaration shares:
the Go build cache (`go-build/`), PyO3's crates compiled per interpreter
(`pyo3-target/`), nanobind's own library (`libraries/`). Anything whose
output exists is not built again, and a failed build is retried on the
next run (its reason is a skip row until it builds). Every tool runs with
its temporary files inside the cache folder: nothing is written outside it
and the output folder but what cargo and the go command keep of the
crates and modules they fetch.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..rounds import ffi as ffi_round
from ..runtimes import aotbuild, buildtable, extbuild, gotoolchains, interp, programs
from . import decl as d
from . import gen

ENV_CACHE = "ROUNDBENCH_CROSSING_CACHE"
GO_FIRST_ANNOTATED = (1, 24)  # `#cgo noescape` and `#cgo nocallback`
# How the Go child is built. -trimpath and -buildvcs=false keep the program
# the same wherever the cache lies and whatever the checkout's revision:
# without them the build stamps both into it and its data moves with them.
# The layout alone moves a cgo call's time: alternated run for run, the same
# source built without these flags timed the call 1.3 ns (5%) slower.
GO_BUILD_FLAGS = ("-trimpath", "-buildvcs=false")


class NotFound(Exception):
    """The library cannot be loaded, or lacks the symbol: one line says which."""


@dataclass(frozen=True)
class Library:
    given: str  # as the user named it
    path: str  # the file the dynamic linker loaded
    sha256: str

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)

    @property
    def file(self) -> str:
        return os.path.basename(self.path)


def _mapped_file(address: int) -> Optional[str]:
    """The file mapped at `address` in this process (/proc/self/maps)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(None, 5)
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if lo <= address < hi and len(parts) == 6 and parts[5].strip().startswith("/"):
                    return parts[5].strip()
    except OSError:
        pass
    return None


def find_library(given: str, symbol: str) -> Library:
    """Loads the library as the dynamic linker would (a path, or a name it
    searches for: libm.so.6) and finds `symbol` in it; NotFound saying
    which is missing."""
    if os.sep in given and not os.path.exists(given):
        raise NotFound(f"library {given}: no such file")
    try:
        lib = ctypes.CDLL(os.path.abspath(given) if os.sep in given else given)
    except OSError as e:
        raise NotFound(f"library {given} cannot be loaded: {e}") from None
    try:
        fn = getattr(lib, symbol)
    except AttributeError:
        raise NotFound(f"library {given} has no symbol {symbol}") from None
    address = ctypes.cast(fn, ctypes.c_void_p).value or 0
    path = _mapped_file(address)
    if path is None or not os.path.isfile(path):
        # A symbol another library provides (an alias resolved elsewhere).
        path = os.path.abspath(given) if os.sep in given else None
    if path is None:
        raise NotFound(f"library {given}: cannot tell which file holds {symbol}")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return Library(given, path, h.hexdigest())


def cache_root(override: Optional[str] = None) -> Path:
    return Path(override or os.environ.get(ENV_CACHE) or programs.build_dir() / "crossing")


def _first_line(cmd: list) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable ({e.__class__.__name__})"
    return (out.stdout or out.stderr).strip().splitlines()[0] if out.returncode == 0 else "unavailable"


def cc() -> list:
    return (os.environ.get("CC") or "cc").split()


def go_version() -> Optional[tuple]:
    """The installed Go's (major, minor), or None without one."""
    if shutil.which("go") is None:
        return None
    m = re.search(r"go(\d+)\.(\d+)", _first_line(["go", "version"]))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _sources_root() -> Optional[Path]:
    """Where the suite's C and Go harness sources are: the checkout, or
    the Go sources an installed package ships (no C sources there)."""
    root = programs.checkout()
    if root is not None:
        return root
    return programs.GO_SOURCES if programs.GO_SOURCES.is_dir() else None


def c_harness_sources() -> Optional[list]:
    root = programs.checkout()
    if root is None:
        return None
    return [root / "csrc" / "runner" / "main.c", root / "csrc" / "runner" / "harness.c", root / "csrc" / "common.c"]


def go_harness_files() -> Optional[list]:
    root = _sources_root()
    if root is None:
        return None
    folder = root / "go" / "internal" / "harness"
    files = sorted(p for p in folder.glob("*.go") if not p.name.endswith("_test.go"))
    return files or None


def _hash(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _file_bytes(paths) -> bytes:
    return b"".join(Path(p).read_bytes() for p in paths or [])


def _c_flags() -> tuple:
    table = buildtable.read()
    opt = buildtable.words(table, "OPT_TUNED" if os.environ.get("ROUNDBENCH_TUNE") == "1" else "OPT_PORTABLE")
    return opt, buildtable.words(table, "CORE_CFLAGS")


@dataclass
class Mechanism:
    """One caller: its variant name, command (program and what comes before
    `crossing IMPL ...`), environment additions, and the interpreter it runs
    under (Python's), or why it cannot run here."""

    name: str
    argv: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    python: Optional[str] = None  # the interpreter, for py-... mechanisms
    go: Optional[str] = None  # the Go release ("1.20.14"), for go-... mechanisms under --go
    why: Optional[str] = None
    explain: str = ""


@dataclass
class Built:
    entry: Path
    mechanisms: list
    built: list  # what was built in this call (empty: every piece from the cache)
    go_dir: Optional[Path]
    flags: dict  # provenance: how each kind of caller was built


class _Step:
    """Runs build commands in the cache's environment (temporary files in
    it), saying what it builds."""

    def __init__(self, root: Path, progress):
        self.root = root
        self.progress = progress
        self.tmp = root / "tmp"
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "TMPDIR": str(self.tmp)}

    def say(self, text: str) -> None:
        if self.progress:
            print(f"roundbench crossing: {text}", file=self.progress, flush=True)

    def run(self, cmd: list, what: str, cwd: Optional[Path] = None, env: Optional[dict] = None) -> None:
        try:
            done = subprocess.run(
                [str(c) for c in cmd], cwd=cwd, env=env or self.env, capture_output=True, text=True, timeout=900
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise extbuild.Failed(f"{what}: cannot run {cmd[0]}: {e}") from None
        if done.returncode != 0:
            raise extbuild.Failed(
                f"{what} failed (exit status {done.returncode}): {extbuild._tail(done.stderr or done.stdout)}"
            )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _link_flags(lib: Library) -> list:
    return [f"-L{lib.folder}", f"-l:{lib.file}", f"-Wl,-rpath,{lib.folder}"]


def _build_c(step: _Step, entry: Path, dc: d.Declaration, lib: Library, built: list) -> dict:
    """c-dlsym and c-linked: name -> the program, or why it is missing."""
    out = {}
    sources = c_harness_sources()
    if sources is None:
        why = "the C callers need the suite's C harness, which only a source checkout has"
        return {"c-dlsym": why, "c-linked": why}
    if shutil.which(cc()[0]) is None:
        why = f"no C compiler ({cc()[0]} is not on PATH)"
        return {"c-dlsym": why, "c-linked": why}
    folder = entry / "c"
    src = folder / "crossing_caller.c"
    _write(src, gen.c_caller(dc))
    opt, core = _c_flags()
    root = programs.checkout()
    common = [*cc(), *opt, *core, "-fno-builtin", f"-I{root / 'csrc'}", f"-I{root / 'csrc' / 'runner'}"]
    recorded = " ".join([*opt, *core, "-fno-builtin"])
    jobs = []
    for name, extra, libs in (
        ("c-dlsym", [], ["-ldl"]),
        ("c-linked", ["-DCROSSING_LINKED"], ["-ldl", *_link_flags(lib)]),
    ):
        prog = folder / name
        if prog.exists():
            out[name] = prog
            continue
        cmd = [*common, f'-DRB_CFLAGS="{recorded}"', *extra, src, *sources, "-o", prog.with_suffix(".tmp"), *libs]
        jobs.append((name, prog, cmd))
    if jobs:
        step.say(f"building {', '.join(n for n, _, _ in jobs)} ({cc()[0]} {' '.join(opt)})")

    def one(job):
        name, prog, cmd = job
        try:
            step.run(cmd, f"building {name}")
            os.replace(prog.with_suffix(".tmp"), prog)
            return name, prog
        except extbuild.Failed as e:
            return name, str(e)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, res in pool.map(one, jobs):
            out[name] = res
            if isinstance(res, Path):
                built.append(name)
    return out


def _python_modules(step: _Step, root: Path, entry: Path, dc: d.Declaration, lib: Library, exe: str, built: list,
                    wanted: Optional[set]) -> tuple:  # fmt: skip
    """(folder of the modules built for interpreter exe, {module or binding
    mechanism: why it is missing or None}, {binding mechanism: its build
    record}). The binding tools' modules are built for the mechanisms
    `wanted` (None: all), two at a time."""
    got = interp.info(exe)
    tools = extbuild.Toolchain(got)
    opt, _ = _c_flags()
    ext_flags = buildtable.words(buildtable.read(), "EXT_CFLAGS")
    key = _hash(got.implementation, got.version, got.pypy_version, got.ext_suffix, got.cflags, got.cc, got.include)
    folder = entry / f"py-{got.key}-{key[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    why_tools = tools.missing(got)
    status = {}
    for module in (gen.EXT_MODULE, gen.CFFI_MODULE):
        target = folder / f"{module}{got.ext_suffix}"
        if target.exists():
            status[module] = None
            continue
        if why_tools:
            status[module] = why_tools
            continue
        src = folder / f"{module}.c"
        try:
            if module == gen.EXT_MODULE:
                _write(src, gen.extension(dc))
            else:
                missing = interp.module_missing("cffi", f"{exe} -m pip install cffi", exe)
                if missing:
                    status[module] = missing
                    continue
                step.run(
                    [got.executable, "-c", gen.CFFI_EMIT, gen.cffi_cdef(dc, "crossing_callee"),
                     gen.cffi_api_source(dc), module, src],
                    "writing the cffi API module's C source",
                    env={**step.env, **interp.child_env(exe)},
                )  # fmt: skip
            step.say(f"building {module} for {got.describe()}")
            obj = folder / f"{module}.o"
            step.run(
                [
                    *tools.cc,
                    *tools.cflags,
                    *opt,
                    *ext_flags,
                    "-fno-builtin",
                    f"-I{tools.include}",
                    "-c",
                    src,
                    "-o",
                    obj,
                ],
                f"compiling {src.name}",
            )
            tmp = target.with_name(target.name + ".tmp")
            step.run([*tools.ldshared, obj, *_link_flags(lib), "-o", tmp], f"linking {target.name}")
            os.replace(tmp, target)
            built.append(f"{module} ({got.key})")
            status[module] = None
        except extbuild.Failed as e:
            status[module] = str(e)
    names = [n for n in BINDINGS if wanted is None or n in wanted]
    records = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda n: _build_binding(step, root, folder, dc, lib, got, n, built), names)
        for name, (why, record) in zip(names, done):
            status[name] = why
            if record is not None:
                records[name] = record
    return folder, status, records


def _build_go(step: _Step, root: Path, folder: Path, dc: d.Declaration, lib: Library, built: list, release) -> dict:
    """go-cgo and the annotated calls built in `folder` by the installed Go
    (release None) or by Go `release` ("1.20.14", fetched by the go command
    from the module proxy as `roundbench run --go` fetches it): name -> the
    child program, or why not."""
    names = ["go-cgo", "go-cgo-noescape", "go-cgo-nocallback"]
    if release is None:
        version = go_version()
        if version is None:
            return {n: "Go is not installed (the go command is not on PATH)" for n in names}
    else:
        version = tuple(int(x) for x in release.split(".")[:2])
    harness_files = go_harness_files()
    if harness_files is None:
        return {n: "the Go callers need the suite's Go harness sources, which this installation lacks" for n in names}
    files = {
        # The go line is the building Go's own X.Y, as the suite's go.mod has
        # its Go's: a lower one would switch on old GODEBUG defaults and the
        # child would not run the runtime the ffi round's children run.
        "go.mod": gen.go_mod(f"{version[0]}.{version[1]}"),
        "crossing.go": gen.go_package(dc, lib.folder, lib.file),
        "crossing_go124.go": gen.go_package_124(dc),
        "cmd/child/main.go": gen.go_child(dc, go124=False),
        "cmd/child/main_go124.go": gen.go_child(dc, go124=True),
    }
    prog = folder / "bin" / "child"
    who = "go" if release is None else f"go{release}"
    out: dict = {}
    if not prog.exists():
        go, go_env = "go", {}
        if release is not None:
            try:
                links = folder.parent / "toolchains" / f"go{release}"
                links.mkdir(parents=True, exist_ok=True)
                go, go_env = gotoolchains.go_command(release, links)
            except (gotoolchains.ToolchainError, OSError) as e:
                return {n: str(e) for n in names}
        for rel, text in files.items():
            _write(folder / rel, text)
        for f in harness_files:
            _write(folder / "internal" / "harness" / f.name, f.read_text())
        gofmt(folder)
        step.say(f"building the Go callers with {who} (cgo; the first build in a new cache compiles Go's runtime)")
        env = {
            **step.env,
            **go_env,
            "GOCACHE": str(root / "go-build"),
            "GOTMPDIR": str(step.tmp),
            "GOFLAGS": "-mod=mod",
            "GOTOOLCHAIN": "local",
            "GOWORK": "off",
            "GOPROXY": "off",
            "CGO_ENABLED": "1",
        }
        try:
            step.run(
                [go, "build", *GO_BUILD_FLAGS, "-o", prog.with_suffix(".tmp"), "./cmd/child"],
                f"{who} build",
                cwd=folder,
                env=env,
            )
            os.replace(prog.with_suffix(".tmp"), prog)
            built.append(f"go child ({who})")
        except extbuild.Failed as e:
            return {n: str(e) for n in names}
    for n in names:
        if n != "go-cgo" and version < GO_FIRST_ANNOTATED:
            out[n] = f"#cgo noescape and nocallback need Go 1.24 or later (this is go{version[0]}.{version[1]})"
        else:
            out[n] = prog
    return out


# ---- the binding tools' modules (py-pybind11, py-nanobind, py-cython-extern, py-pyo3) --


@dataclass(frozen=True)
class _Binding:
    """One binding tool's mechanism: its module, aotbuild's name of its
    tool, the ffi round's row of the same tool (whose Python module and
    install hint it shares), and its source's suffix and writer (PyO3's
    is a crate, _build_pyo3)."""

    module: str
    tool: str
    ffi: str
    suffix: str = ""
    write: Optional[Callable] = None


BINDINGS = {
    "py-pybind11": _Binding(gen.PYBIND11_MODULE, aotbuild.PYBIND11, "py-pybind11", ".cpp", gen.pybind11_source),
    "py-nanobind": _Binding(gen.NANOBIND_MODULE, aotbuild.NANOBIND, "py-nanobind", ".cpp", gen.nanobind_source),
    "py-cython-extern": _Binding(gen.CYTHON_MODULE, aotbuild.CYTHON, "py-cython-extern", ".pyx", gen.cython_source),
    "py-pyo3": _Binding(gen.PYO3_MODULE, aotbuild.MATURIN, "py-pyo3"),
}


def binding_tool(name: str) -> tuple:
    """(the Python module binding `name`'s tool is, how to install it)."""
    _, tool, hint = ffi_round.BINDINGS[BINDINGS[name].ffi]
    return tool, hint


def _build_binding(step: _Step, root: Path, folder: Path, dc: d.Declaration, lib: Library, got, name: str,
                   built: list) -> tuple:  # fmt: skip
    """Binding `name`'s module for interpreter `got`, in `folder`: (why it
    cannot be built, or None; its build record: tool, version, build_ns).
    It is built again where its tool's version has changed."""
    spec = BINDINGS[name]
    exe = got.executable
    tool, hint = binding_tool(name)
    why = interp.module_missing(tool, f"{exe} -m {hint}", exe)
    if why:
        return why, None
    version = aotbuild.tool_version(tool, exe) or "unknown"
    if spec.tool == aotbuild.MATURIN:
        pin = _pyo3_pin()
        if isinstance(pin, str):
            return pin, None
        version += f"; pyo3 {pin[1]}"
    target = folder / f"{spec.module}{got.ext_suffix}"
    record_path = folder / f"{spec.module}.build.json"
    record = aotbuild.read_record(record_path)
    if target.exists() and record is not None and record.get("version") == version:
        return None, record
    step.say(f"building {spec.module} with {spec.tool} {version} for {got.describe()}")
    t0 = time.monotonic_ns()
    try:
        if spec.tool == aotbuild.MATURIN:
            _build_pyo3(step, root, folder, dc, lib, got, target, pin)
        else:
            _build_compiled(step, root, folder, dc, lib, got, spec, target, version)
    except (extbuild.Failed, OSError) as e:
        return f"building {spec.module} with {spec.tool} {version} failed: {e}", None
    record = {
        "module": spec.module,
        "tool": spec.tool,
        "version": version,
        "build_ns": time.monotonic_ns() - t0,
        "interpreter": got.describe(),
    }
    aotbuild.write_record(record_path, record)
    built.append(f"{spec.module} ({got.key})")
    return None, record


def _build_compiled(step: _Step, root: Path, folder: Path, dc: d.Declaration, lib: Library, got, spec: _Binding,
                    target: Path, version: str) -> None:  # fmt: skip
    """A module whose tool writes C or C++ (Cython, pybind11, nanobind):
    its source written by gen.py, translated by the tool as the ffi
    round's modules are (aotbuild.translate), compiled with the
    interpreter's settings and the crossing's C flags, and linked against
    the library as py-ext is."""
    cxx = aotbuild.is_cxx(spec.tool)
    tools = extbuild.Toolchain(got, cxx=cxx)
    why = tools.missing(got)
    if why:
        raise extbuild.Failed(why)
    work = folder / f"{spec.module}.work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    src = work / f"{spec.module}{spec.suffix}"
    src.write_text(spec.write(dc))
    sources, flags, link = aotbuild.translate(spec.tool, got.executable, src, work)
    opt, _ = _c_flags()
    own = [] if cxx else buildtable.words(buildtable.read(), "EXT_CFLAGS")
    base = [*tools.cc, *tools.cflags, *opt, *own, f"-I{tools.include}", *tools.after]
    obj = work / f"{spec.module}.o"
    step.run([*base, "-fno-builtin", *flags, "-c", sources[0], "-o", obj], f"compiling {Path(sources[0]).name}")
    # The tool's own library (nanobind's), compiled once per interpreter,
    # tool version and flags: every declaration's module links the same.
    objects = [obj, *(_library_object(step, root, got, [*base, *flags], s, version) for s in sources[1:])]
    tmp = target.with_name(f".{target.name}.tmp")
    step.run([*tools.ldshared, *objects, *link, *_link_flags(lib), "-o", tmp], f"linking {target.name}")
    os.replace(tmp, target)


def _library_object(step: _Step, root: Path, got, cmd: list, source: Path, version: str) -> Path:
    folder = root / "libraries" / f"{got.key}-{_hash(got.executable, version, *cmd, source)}"
    obj = folder / f"{Path(source).stem}.o"
    if obj.exists():
        return obj
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not obj.exists():
            step.say(f"compiling {Path(source).name} for {got.describe()} (once per interpreter and version)")
            tmp = obj.with_name(obj.name + ".tmp")
            step.run([*cmd, "-c", source, "-o", tmp], f"compiling {Path(source).name}")
            os.replace(tmp, obj)
    return obj


# The ffi round's PyO3 crate: its Cargo.toml says how the crossing's crate
# requires pyo3, its Cargo.lock which crates build it.
_PYO3_CRATE = aotbuild.MODULES["ffi_pyo3"]
_PYO3_ROOT = "ffi_pyo3"  # its package's name, the root of its Cargo.lock


def _pyo3_pin():
    """(pyo3's requirement in the ffi round's Cargo.toml, the pyo3 version
    its Cargo.lock pins, that Cargo.lock's text), or why they cannot be
    read."""
    manifest, lock = _PYO3_CRATE.beside[0], _PYO3_CRATE.beside[1]
    try:
        toml, locked = manifest.read_text(), lock.read_text()
    except OSError as e:
        return f"py-pyo3 pins its crates by the ffi round's {manifest.name} and {lock.name}, which cannot be read: {e}"
    req = re.search(r"^pyo3\s*=\s*(.+?)\s*$", toml, re.M)
    ver = re.search(r'^name = "pyo3"\nversion = "([^"]+)"', locked, re.M)
    if not req or not ver:
        return f"{manifest} or {lock} names no pyo3"
    return req.group(1), ver.group(1), locked


def _build_pyo3(step: _Step, root: Path, folder: Path, dc: d.Declaration, lib: Library, got, target: Path,
                pin: tuple) -> None:  # fmt: skip
    """py-pyo3's crate, written by gen.py with the ffi round's Cargo.lock
    beside it (its root renamed), built by maturin (aotbuild.build_crate)
    in a target folder kept per interpreter, so that PyO3 and its crates
    compile once; cargo drops from the lock what this crate does not use
    and keeps every version it pins, which is checked for pyo3."""
    requirement, want, locked = pin
    crate = folder / "pyo3"
    _write(crate / "Cargo.toml", gen.pyo3_cargo_toml(requirement))
    _write(crate / "build.rs", gen.pyo3_build_rs(lib.folder, lib.file))
    _write(crate / "src" / "lib.rs", gen.pyo3_lib_rs(dc))
    (crate / "Cargo.lock").write_text(locked.replace(f'name = "{_PYO3_ROOT}"\n', 'name = "crossing_pyo3"\n', 1))
    target_dir = root / "pyo3-target" / got.key
    target_dir.mkdir(parents=True, exist_ok=True)
    # Every crate built there makes the same file: one build at a time.
    with open(target_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Not repaired: the module calls the library itself, not a copy.
        aotbuild.build_crate(crate / "Cargo.toml", gen.PYO3_MODULE, got, target, target_dir, locked=False,
                             repair=False)  # fmt: skip
    resolved = re.search(r'^name = "pyo3"\nversion = "([^"]+)"', (crate / "Cargo.lock").read_text(), re.M)
    if not resolved or resolved.group(1) != want:
        target.unlink(missing_ok=True)
        raise extbuild.Failed(
            f"cargo built pyo3 {resolved.group(1) if resolved else '(none)'}, not the {want} the ffi round pins"
        )


# ---- go-purego -----------------------------------------------------------------------

PUREGO = "github.com/ebitengine/purego"


def purego_pin():
    """(purego's version as the project's go.mod requires it, the go.sum
    lines for it), or why they cannot be read."""
    module = programs.go_module()
    try:
        mod, sums = (module / "go.mod").read_text(), (module / "go.sum").read_text()
    except OSError as e:
        return f"go-purego pins purego by the project's go.mod and go.sum, which cannot be read: {e}"
    m = re.search(rf"^\s*(?:require\s+)?{re.escape(PUREGO)}\s+(v\S+)", mod, re.M)
    if not m:
        return f"the project's go.mod requires no {PUREGO}"
    lines = [ln for ln in sums.splitlines() if ln.startswith(f"{PUREGO} {m.group(1)}")]
    return m.group(1), "\n".join(lines) + "\n"


def purego_missing(go: str, go_env: dict, version: str):
    """Why purego `version` cannot be built here (it is not in the Go module
    cache: the crossing's Go builds never use the network), or its go.mod's
    go line as (major, minor)."""
    try:
        out = subprocess.run(
            [go, "env", "GOMODCACHE"], env={**os.environ, **go_env}, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot ask {go} for its module cache: {e}"
    cache = Path(out.stdout.strip() or "GOMODCACHE")
    where = cache / "cache" / "download" / PUREGO / "@v"
    mod = where / f"{version}.mod"
    if not (where / f"{version}.zip").is_file() or not mod.is_file():
        return (
            f"purego {version} is not in the Go module cache ({cache}); the crossing's Go builds do not use the "
            "network: `go mod download` in a roundbench checkout (make setup) fetches it"
        )
    m = re.search(r"^go\s+(\d+)\.(\d+)", mod.read_text(errors="replace"), re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 0)


def _build_purego(step: _Step, root: Path, folder: Path, dc: d.Declaration, built: list, release):
    """go-purego's child, a module of its own in `folder` built without cgo
    by the installed Go (release None) or Go `release`, purego at the
    version the project's go.mod pins (go.mod and go.sum written from it,
    -mod=readonly): the program, or why not."""
    if release is None:
        version = go_version()
        if version is None:
            return "Go is not installed (the go command is not on PATH)"
    else:
        version = tuple(int(x) for x in release.split(".")[:2])
    harness_files = go_harness_files()
    if harness_files is None:
        return "the Go callers need the suite's Go harness sources, which this installation lacks"
    pin = purego_pin()
    if isinstance(pin, str):
        return pin
    purego, sums = pin
    go, go_env = "go", {}

    def fetch():
        links = folder.parent / "toolchains" / f"go{release}"
        links.mkdir(parents=True, exist_ok=True)
        return gotoolchains.go_command(release, links)

    try:
        # Any go command knows the module cache: a release is fetched only
        # when there is none installed, or to build.
        if shutil.which("go") is None and release is not None:
            go, go_env = fetch()
        go_min = purego_missing(go, go_env, purego)
        if isinstance(go_min, str):
            return go_min
        if version < go_min:
            return (
                f"purego {purego} needs Go {go_min[0]}.{go_min[1]} or later (its go.mod declares go "
                f"{go_min[0]}.{go_min[1]}; this is go{version[0]}.{version[1]})"
            )
        prog = folder / "bin" / "child"
        if prog.exists():
            return prog
        if release is not None:
            go, go_env = fetch()
    except (gotoolchains.ToolchainError, OSError) as e:
        return str(e)
    files = {
        "go.mod": gen.go_purego_mod(f"{version[0]}.{version[1]}", f"{PUREGO} {purego}"),
        "go.sum": sums,
        "purego.go": gen.go_purego_package(dc, f"{go_min[0]}.{go_min[1]}"),
        "cmd/child/main.go": gen.go_child(dc, go124=False, purego=True),
    }
    for rel, text in files.items():
        _write(folder / rel, text)
    for f in harness_files:
        _write(folder / "internal" / "harness" / f.name, f.read_text())
    gofmt(folder)
    who = "go" if release is None else f"go{release}"
    step.say(f"building the purego caller with {who} (purego {purego}, CGO_ENABLED=0)")
    env = {
        **step.env,
        **go_env,
        "GOCACHE": str(root / "go-build"),
        "GOTMPDIR": str(step.tmp),
        "GOFLAGS": "-mod=readonly",
        "GOTOOLCHAIN": "local",
        "GOWORK": "off",
        "GOPROXY": "off",
        "CGO_ENABLED": "0",
    }
    t0 = time.monotonic_ns()
    try:
        step.run([go, "build", *GO_BUILD_FLAGS, "-o", prog.with_suffix(".tmp"), "./cmd/child"], f"{who} build",
                 cwd=folder, env=env)  # fmt: skip
    except extbuild.Failed as e:
        return str(e)
    record = {"tool": "purego", "version": purego, "build_ns": time.monotonic_ns() - t0, "go": who}
    aotbuild.write_record(folder / "bin" / "child.build.json", record)
    os.replace(prog.with_suffix(".tmp"), prog)
    built.append(f"go purego child ({who})")
    return prog


def gofmt(folder: Path) -> None:
    """Formats the generated Go files as gofmt would (their imports sorted),
    where gofmt is installed: they are meant to be read and copied."""
    if shutil.which("gofmt"):
        subprocess.run(["gofmt", "-w", str(folder)], capture_output=True, timeout=120)


EXPLAIN = {
    "c-dlsym": "C calling through the pointer dlsym returned (the baseline)",
    "c-linked": "C calling the function linked at build time (through the PLT)",
    "py-ctypes": "ctypes, argtypes and restype set",
    "py-cffi-abi": "cffi ABI mode (ffi.dlopen)",
    "py-cffi-api": "cffi API mode, compiled out of line against the library",
    "py-ext": "a generated extension module",
    "py-pybind11": "pybind11, m.def of the function itself",
    "py-nanobind": "nanobind, m.def of the function itself",
    "py-cython-extern": "Cython, a cdef extern wrapped in a def with C-typed arguments",
    "py-pyo3": "PyO3 (Rust, built by maturin), a #[pyfunction] with typed arguments",
    "go-cgo": "a cgo call",
    "go-cgo-noescape": "a cgo call, callee annotated #cgo noescape",
    "go-cgo-nocallback": "a cgo call, callee annotated #cgo nocallback",
    "go-purego": "purego: dlopen at run time, no cgo (CGO_ENABLED=0)",
}
# How each binding takes a buffer (EXPLAIN's addition for a declaration with one).
BUFFER_EXPLAIN = {
    "py-ext": "the buffer through PyObject_GetBuffer",
    "py-pybind11": "the buffer as a py::buffer",
    "py-nanobind": "the buffer as an nb::ndarray<const uint8_t>",
    "py-cython-extern": "the buffer as a const uint8_t[::1] memoryview",
    "py-pyo3": "the buffer as a PyBuffer<u8>",
    "go-purego": "the slice as a pointer to its first byte",
}
C_MECHANISMS = ("c-dlsym", "c-linked")
PY_MECHANISMS = ("py-ctypes", "py-cffi-abi", "py-cffi-api", "py-ext", *BINDINGS)
GO_CGO = ("go-cgo", "go-cgo-noescape", "go-cgo-nocallback")
GO_MECHANISMS = (*GO_CGO, "go-purego")


def _explain(name: str, dc: d.Declaration) -> str:
    """EXPLAIN's line for mechanism `name`, with how it takes dc's buffer."""
    text = EXPLAIN[name]
    if name == "py-ext":
        text += f" ({gen.convention(dc)})"
    if dc.buffer is not None and name in BUFFER_EXPLAIN:
        text += f"; {BUFFER_EXPLAIN[name]}, no copy"
    return text


def _seconds(ns) -> str:
    return f"{ns / 1e9:.1f} s" if isinstance(ns, int) else "?"


def build(
    dc: d.Declaration,
    lib: Library,
    pythons: list,
    cache: Optional[str] = None,
    progress=sys.stderr,
    only: Optional[set] = None,
    gos: Optional[list] = None,
) -> Built:
    """Builds (or finds in the cache) every caller of `dc` in `lib`, for
    each Python interpreter of `pythons` and each Go release of `gos`
    ("1.20.14", as gotoolchains.resolve names them; default: the installed
    Go alone, its mechanisms unlabelled); returns the mechanisms, each
    runnable or with why not. `only`: these mechanisms and the baseline,
    c-dlsym (the others are neither built nor returned)."""
    wanted = None if only is None else {*only, "c-dlsym"}
    root = cache_root(cache)
    harness_bytes = _file_bytes(c_harness_sources()) + _file_bytes(go_harness_files())
    pins = [purego_pin(), _pyo3_pin()]
    key = _hash(
        dc.text,
        dc.c_prototype(),
        lib.path,
        lib.sha256,
        Path(gen.__file__).read_bytes(),
        Path(__file__).read_bytes(),
        harness_bytes,
        buildtable.TABLE.read_bytes(),
        _first_line([*cc(), "--version"]),
        _first_line(["go", "version"]) if shutil.which("go") else "no go",
        os.environ.get("ROUNDBENCH_TUNE", ""),
        *(p if isinstance(p, str) else p[:2] for p in pins),
    )
    entry = root / f"{dc.name}-{key}"
    entry.mkdir(parents=True, exist_ok=True)
    step = _Step(root, progress)
    built: list = []
    mechs = []
    opt, core = _c_flags()
    flags = {
        "crossing-c-build": f"{_first_line([*cc(), '--version'])}; {' '.join([*opt, *core, '-fno-builtin'])}",
    }
    c = _build_c(step, entry, dc, lib, built)
    for name in C_MECHANISMS:
        if wanted is not None and name not in wanted:
            continue
        prog = c[name]
        if isinstance(prog, Path):
            mechs.append(Mechanism(name, [str(prog)], explain=EXPLAIN[name]))
        else:
            mechs.append(Mechanism(name, why=prog, explain=EXPLAIN[name]))
    for exe in pythons if wanted is None or wanted & set(PY_MECHANISMS) else []:
        folder, status, records = _python_modules(step, root, entry, dc, lib, exe, built, wanted)
        # The caller is this package's: its folder first on the path, as
        # interp.child_env gives an interpreter that lacks it.
        path = [interp.package_parent(), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
        # The prototype in <stdint.h> types: a header's names are resolved.
        env = {gen.ENV_DECLARATION: dc.c_prototype(), gen.ENV_MODULES: str(folder),
               "PYTHONPATH": os.pathsep.join(path)}  # fmt: skip
        for name in PY_MECHANISMS:
            if wanted is not None and name not in wanted:
                continue
            why = None
            if name == "py-ext":
                why = status[gen.EXT_MODULE]
            elif name == "py-cffi-api":
                why = status[gen.CFFI_MODULE]
            elif name == "py-cffi-abi":
                why = interp.module_missing("cffi", f"{exe} -m pip install cffi", exe)
            elif name in BINDINGS:
                why = status[name]
            argv = [exe, "-m", "roundbench.crossing.child"]
            mechs.append(Mechanism(name, argv, env, python=exe, why=why, explain=_explain(name, dc)))
        suffix = f"-{interp.key(exe)}" if len(pythons) > 1 else ""
        for name, r in records.items():
            flags[f"crossing-build-{name}{suffix}"] = (
                f"{r['tool']} {r['version']} for {r['interpreter']}: built in {_seconds(r.get('build_ns'))} "
                "(once; cached)"
            )
    go_wanted = wanted is None or bool(wanted & set(GO_MECHANISMS))
    try:
        installed = gotoolchains.installed() if gos else None
    except gotoolchains.ToolchainError:
        installed = None
    # The installed release is the go command on PATH; another is fetched.
    releases = [None if r == installed else r for r in gos] if gos else [None]
    go_dir = None
    for release in releases if go_wanted else []:
        # The installed Go builds in go/; another release in go<release>/;
        # purego's caller, a module of its own, beside each (-purego).
        folder = entry / ("go" if release is None else f"go{release}")
        label = (release or installed) if gos else None
        if wanted is None or wanted & set(GO_CGO):
            go = _build_go(step, root, folder, dc, lib, built, release)
            if go_dir is None and folder.is_dir() and isinstance(go["go-cgo"], Path):
                go_dir = folder
            for name in GO_CGO:
                if wanted is not None and name not in wanted:
                    continue
                prog = go[name]
                if isinstance(prog, Path):
                    mechs.append(Mechanism(name, [str(prog)], go=label, explain=EXPLAIN[name]))
                else:
                    mechs.append(Mechanism(name, go=label, why=prog, explain=EXPLAIN[name]))
        if wanted is None or "go-purego" in wanted:
            prog = _build_purego(step, root, folder.with_name(folder.name + "-purego"), dc, built, release)
            explain = _explain("go-purego", dc)
            if isinstance(prog, Path):
                mechs.append(Mechanism("go-purego", [str(prog)], go=label, explain=explain))
                r = aotbuild.read_record(prog.parent / "child.build.json") or {}
                flags[f"crossing-build-go-purego{'-' + label if label else ''}"] = (
                    f"purego {r.get('version', '?')} with {r.get('go', '?')}: built in {_seconds(r.get('build_ns'))} "
                    "(once; cached)"
                )
            else:
                mechs.append(Mechanism("go-purego", go=label, why=prog, explain=explain))
    if go_wanted and (gos or shutil.which("go")):
        which = ", ".join(f"go{r}" for r in gos) if gos else _first_line(["go", "version"])
        flags["crossing-go-build"] = f"{which}; go build {' '.join(GO_BUILD_FLAGS)}, CGO_CFLAGS unset"
        pin = purego_pin()
        if (wanted is None or "go-purego" in wanted) and not isinstance(pin, str):
            flags["crossing-purego-build"] = f"{PUREGO} {pin[0]} (the project's go.mod); CGO_ENABLED=0, -mod=readonly"
    flags["crossing-cache"] = str(entry)
    return Built(entry, mechs, built, go_dir, flags)
