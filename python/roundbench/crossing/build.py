"""Finding the user's library and building the callers gen.py writes, into
a cache keyed by what they are built from.

The cache folder is $ROUNDBENCH_CROSSING_CACHE, else crossing/ in the
build folder (programs.build_dir(): the checkout's build/, or the per-user
cache of an installed package). An entry is
`<symbol>-<hash>/`, the hash covering the declaration, the library's path
and contents, gen.py and the harness sources the callers are built with,
and the C compiler's and the Go toolchain's versions; the Python modules go
into `py-<interpreter key>-<hash>/` below it, hashed with that interpreter's
build settings. Anything whose output exists is not built again, and a
failed build is retried on the next run (its reason is a skip row until it
builds). Every tool runs with its temporary files, and the Go build cache,
inside the cache folder: nothing is written outside it and the output
folder.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..runtimes import buildtable, extbuild, gotoolchains, interp, programs
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


def _python_modules(step: _Step, entry: Path, dc: d.Declaration, lib: Library, exe: str, built: list) -> tuple:
    """(folder of the modules built for interpreter exe, {module: why it is
    missing or None})."""
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
    return folder, status


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
    "go-cgo": "a cgo call",
    "go-cgo-noescape": "a cgo call, callee annotated #cgo noescape",
    "go-cgo-nocallback": "a cgo call, callee annotated #cgo nocallback",
}
C_MECHANISMS = ("c-dlsym", "c-linked")
PY_MECHANISMS = ("py-ctypes", "py-cffi-abi", "py-cffi-api", "py-ext")
GO_MECHANISMS = ("go-cgo", "go-cgo-noescape", "go-cgo-nocallback")


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
        folder, status = _python_modules(step, entry, dc, lib, exe, built)
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
            argv = [exe, "-m", "roundbench.crossing.child"]
            explain = EXPLAIN[name] + (f" ({gen.convention(dc)})" if name == "py-ext" else "")
            mechs.append(Mechanism(name, argv, env, python=exe, why=why, explain=explain))
    go_wanted = wanted is None or bool(wanted & set(GO_MECHANISMS))
    try:
        installed = gotoolchains.installed() if gos else None
    except gotoolchains.ToolchainError:
        installed = None
    # The installed release is the go command on PATH; another is fetched.
    releases = [None if r == installed else r for r in gos] if gos else [None]
    go_dir = None
    for release in releases if go_wanted else []:
        # The installed Go builds in go/; another release in go<release>/.
        folder = entry / ("go" if release is None else f"go{release}")
        go = _build_go(step, root, folder, dc, lib, built, release)
        if go_dir is None and folder.is_dir() and isinstance(go["go-cgo"], Path):
            go_dir = folder
        for name in GO_MECHANISMS:
            if wanted is not None and name not in wanted:
                continue
            prog = go[name]
            label = (release or installed) if gos else None
            if isinstance(prog, Path):
                mechs.append(Mechanism(name, [str(prog)], go=label, explain=EXPLAIN[name]))
            else:
                mechs.append(Mechanism(name, go=label, why=prog, explain=EXPLAIN[name]))
    if go_wanted and (gos or shutil.which("go")):
        which = ", ".join(f"go{r}" for r in gos) if gos else _first_line(["go", "version"])
        flags["crossing-go-build"] = f"{which}; go build {' '.join(GO_BUILD_FLAGS)}, CGO_CFLAGS unset"
    flags["crossing-cache"] = str(entry)
    return Built(entry, mechs, built, go_dir, flags)
