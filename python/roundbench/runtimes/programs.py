"""Where the suite's child programs are, and why one cannot run here.

The C and Go child programs (the runners, the launcher, the load generator,
round startup's hello programs and round aspects' whole programs) live in
one of three places:

- ``ROUNDBENCH_BUILD``, when set: a folder holding all of them;
- a source checkout (this package imported from ``python/`` beside
  ``csrc/``): the checkout's ``build/``, which ``make build`` fills;
- an installed package (``pip install``): the C programs that setup.py built
  into the package (``roundbench/bin/``), and the Go programs, built on first
  use from the Go sources the package ships (``roundbench/gosrc/``) into a
  per-user cache, ``$XDG_CACHE_HOME/roundbench/<version>-<hash>/``. The hash
  covers those sources, the Go toolchain and the BLAS the programs load, so
  a new version, toolchain or environment never runs a stale build.

The Go child runners are one program per round, ``rb-go-<round>``, built
from ``go/cmd/rb-go/<round>/`` (a child maps only its own round's code, which
its peak RSS shows). Their names come from those directories, in the
checkout or in the shipped sources, so a new round's runner is known here
as soon as its directory exists; ``go_runner(round)`` names one.

A library that would weigh on every other child of its round, or that
changes the build itself, gets a program of its own (LIBRARY_PROGRAMS):
``rb-c-simdjson`` (round jsonl's c-simdjson: C++ against Debian's
libsimdjson-dev, left out of the build where the library is absent) and
``rb-go-jsonl-v2`` (round jsonl's Go runner built with
``GOEXPERIMENT=jsonv2``, which also reimplements encoding/json v1, so the
plain ``go`` variant keeps its own binary), and ``rb-go-matmul-netlib``
(round matmul's Go runner built with the tag netlib against the system's
OpenBLAS, found by pkg-config: go-gonum-netlib, gonum through its netlib
binding; OpenBLAS starts its threads when it is loaded, so no other child
may carry it).

The build twins (GO_BUILD_RUNNERS, ``rb-go-<round>-pgo``, ``-v3``,
``-pgo-v3``) are a round's Go runner built by the standard toolchain with
its own speed options, a PGO profile kept in the repository and a higher
GOAMD64 level, otherwise as the round's runner: each lists and runs only the twins of its
round's pure-Go variants (go-pgo, go-v3, go-pgo-v3), named from its own
build information (docs/go-builds.md).

``missing(name)`` is what callers check before starting a program: None, or
why it cannot run with a fix that works where the user is (``make build`` in a
checkout; what to install for an installed package). For a Go program of an
installed package it builds the program when it can, once, and prints one
line on stderr while it does.
"""

from __future__ import annotations

# Only light modules at import: a Python child imports this one, and its
# start-up and peak RSS are measured. Building a Go program imports the rest.
import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import NamedTuple, Optional

from . import buildtable

# The C programs: in the checkout from the Makefile, installed from setup.py.
C_PROGRAMS = (
    "rb-c",
    "rb-c-so",
    "rb-c-static",
    "rb-spawn",
    "rb-load",
    "hello-c",
    "hello-c-static",
    "rb-c-simdjson",
    "aspects-c",
)

# The programs that need a library the system may lack, and what it is:
# the build leaves them out, and missing() says what to install.
NEEDS = {
    "rb-c-simdjson": "simdjson (Debian: apt-get install libsimdjson-dev, which scripts/setup.sh does)",
    "rb-go-matmul-netlib": (
        "OpenBLAS with its CBLAS, found by `pkg-config openblas` "
        "(Debian: apt-get install libopenblas-pthread-dev, which scripts/setup.sh does)"
    ),
}

# Round startup's Go programs and round aspects' whole program in Go: name
# -> (package directory in the module, CGO_ENABLED or None for the
# toolchain's default). hello-go is the same program as hello-go-cgo built
# without cgo; aspects-go is pure Go.
GO_PROGRAMS = {
    "hello-go": ("go/cmd/rb-hello", "0"),
    "hello-go-cgo": ("go/cmd/rb-hello", "1"),
    "hello-go-c": ("go/cmd/rb-hello-core", None),
    "aspects-go": ("go/cmd/aspects", "0"),
}

# The Go child runners: go/cmd/rb-go/<round>/ is built as rb-go-<round>.
GO_RUNNERS = "go/cmd/rb-go"
GO_RUNNER_PREFIX = "rb-go-"


class TwinBuild(NamedTuple):
    """A build twin of a round's Go runner (the build table's
    GO_BUILD_RUNNERS): its package directory, its PGO profile (a path in
    the module, or None) and its GOAMD64 level."""

    package: str
    pgo: Optional[str]
    goamd64: str


def _go_runners_apart() -> tuple:
    """The Go runners built apart, as the build table declares them
    (build.mk beside this file, which the Makefile builds them from too,
    and which an installed package carries):

    - built with a Go experiment on: name -> (package directory,
      GOEXPERIMENT);
    - built with a build tag against a C library that pkg-config finds:
      name -> (package directory, tag, pkg-config package). The library's
      flags and a run path to its folder go into CGO_LDFLAGS (the run path
      keeps the program on the build it linked where Debian's alternatives
      offer several);
    - built by the standard toolchain with its own speed options, tagged
      GO_TWIN_TAG: name -> TwinBuild (a PGO profile, a GOAMD64 level, v1
      where the table names none);

    and the build tags of the twins and of a runner that can profile
    itself. The build tags of the directory's files give each its own
    variants."""
    table = buildtable.read()
    experiment = {
        name: (table[name + ".package"], table[name + ".goexperiment"])
        for name in buildtable.words(table, "GO_EXPERIMENT_RUNNERS")
    }
    library = {
        name: (table[name + ".package"], table[name + ".tag"], table[name + ".library"])
        for name in buildtable.words(table, "GO_LIBRARY_RUNNERS")
    }
    twins = {
        name: TwinBuild(table[name + ".package"], table.get(name + ".pgo"), table.get(name + ".goamd64", "v1"))
        for name in buildtable.words(table, "GO_BUILD_RUNNERS")
    }
    return experiment, library, twins, table["GO_TWIN_TAG"], table["GO_PROFILE_TAG"]


GO_EXPERIMENT_RUNNERS, GO_LIBRARY_RUNNERS, GO_BUILD_RUNNERS, GO_TWIN_TAG, GO_PROFILE_TAG = _go_runners_apart()

# The programs a Variant may name besides the generic ones
# (rounds.PROGRAMS): each holds one round's library variants, or the build
# twins of one round's pure-Go variants.
LIBRARY_PROGRAMS = ("rb-c-simdjson", *GO_EXPERIMENT_RUNNERS, *GO_LIBRARY_RUNNERS, *GO_BUILD_RUNNERS)

ENV_BUILD = "ROUNDBENCH_BUILD"
PACKAGE = Path(__file__).resolve().parents[1]  # the roundbench folder
BIN = PACKAGE / "bin"
UNBUILT = "unbuilt.txt"
GO_SOURCES = PACKAGE / "gosrc"
GO_DOWNLOAD = "https://go.dev/dl/"

# How long a Go build may take before it counts as failed: the first one
# compiles the C core through cgo and gonum, minutes on a small machine.
GO_BUILD_TIMEOUT = 1800


def checkout() -> Optional[Path]:
    """The source checkout this package runs from, or None when installed."""
    root = PACKAGE.parents[1]
    return root if (root / "csrc" / "roundbench.h").is_file() else None


def go_runner(round_name: str) -> str:
    """The name of round `round_name`'s Go child runner."""
    return GO_RUNNER_PREFIX + round_name


def go_module() -> Path:
    """The Go module the Go programs are built from: the checkout, or the
    sources an installed package ships."""
    return checkout() or GO_SOURCES


def go_runners() -> list:
    """The Go child runners there are sources for, sorted."""
    try:
        dirs = [d for d in (go_module() / GO_RUNNERS).iterdir() if d.is_dir()]
    except OSError:
        return []
    return sorted(go_runner(d.name) for d in dirs)


def names() -> tuple:
    """Every program name: the C programs, the Go runners, round startup's
    Go programs."""
    return (
        C_PROGRAMS
        + tuple(go_runners())
        + tuple(GO_EXPERIMENT_RUNNERS)
        + tuple(GO_LIBRARY_RUNNERS)
        + tuple(GO_BUILD_RUNNERS)
        + tuple(GO_PROGRAMS)
    )


class GoBuild(NamedTuple):
    """How a Go program is built: its package directory in the module, and
    what is not the toolchain's default."""

    package: str
    cgo: Optional[str] = None  # CGO_ENABLED
    experiment: Optional[str] = None  # GOEXPERIMENT
    tag: Optional[str] = None  # go build -tags
    library: Optional[str] = None  # the pkg-config package it links
    pgo: Optional[str] = None  # go build -pgo: a profile, its path in the module
    goamd64: Optional[str] = None  # GOAMD64


def _go_package(name: str) -> Optional[GoBuild]:
    """How the Go program `name` is built, or None if it names none. Any
    rb-go-<round> is a Go runner's name, whether or not its sources exist,
    so that one without them can be reported as such (missing()) rather
    than as a misspelt name."""
    if name in GO_PROGRAMS:
        package, cgo = GO_PROGRAMS[name]
        return GoBuild(package, cgo=cgo)
    if name in GO_EXPERIMENT_RUNNERS:
        package, experiment = GO_EXPERIMENT_RUNNERS[name]
        return GoBuild(package, experiment=experiment)
    if name in GO_LIBRARY_RUNNERS:
        package, tag, library = GO_LIBRARY_RUNNERS[name]
        return GoBuild(package, tag=tag, library=library)
    if name in GO_BUILD_RUNNERS:
        twin = GO_BUILD_RUNNERS[name]
        return GoBuild(twin.package, tag=GO_TWIN_TAG, pgo=twin.pgo, goamd64=twin.goamd64)
    round_name = name[len(GO_RUNNER_PREFIX) :] if name.startswith(GO_RUNNER_PREFIX) else ""
    if round_name.isidentifier():  # a round's name is its Python module's
        return GoBuild(f"{GO_RUNNERS}/{round_name}")
    return None


def go_package(name: str) -> Optional[GoBuild]:
    """How the Go program `name` is built (its package directory and what
    is not the toolchain's default), or None for a name that is no Go
    program's."""
    return _go_package(name)


def _check(name: str) -> None:
    if name not in C_PROGRAMS and _go_package(name) is None:
        raise ValueError(f"unknown program {name!r} (programs: {', '.join(names())})")


def path(name: str) -> Path:
    """Where program `name` is, or would be once built. ValueError for a
    name that is none of names() and no Go runner's."""
    _check(name)
    env = os.environ.get(ENV_BUILD)
    if env:
        return Path(env) / name
    root = checkout()
    if root is not None:
        return root / "build" / name
    if _go_package(name) is not None:
        return cache() / name
    return BIN / name


def missing(name: str) -> Optional[str]:
    """None when program `name` can run here; else why not, with the fix.
    For an installed package's Go program, builds it first if it can."""
    p = path(name)
    if _runnable(p):
        return None
    env = os.environ.get(ENV_BUILD)
    if env:
        return f"{p} is not built ({ENV_BUILD}={env} names the folder of the C and Go programs)"
    root = checkout()
    pkg = _go_package(name)
    if root is not None:
        if pkg is not None and not (root / pkg.package).is_dir():
            return f"{p} is not built, and this checkout has no {pkg.package}/ to build it from"
        if name in NEEDS:
            return f"{p} is not built: it needs {NEEDS[name]}; then run `make build` in {root}"
        return f"{p} is not built (run `make build` in {root})"
    if pkg is not None:
        return _in_cache(name, p, _build_go)
    why = _unbuilt().get(name)
    if why is not None:
        return f"{name} was not built when this roundbench was installed: {why}"
    return (
        f"this installation of roundbench has no {BIN / name}: the C programs are built by setup.py when the "
        "package is installed from its sources (`pip install --force-reinstall .` in a checkout, "
        "with a C compiler)"
    )


def _unbuilt() -> dict:
    """What setup.py could not build, and why: bin/unbuilt.txt, one
    `NAME<TAB>REASON` line each (the statically linked programs need the C
    library's static archive, which not every system has)."""
    try:
        text = (BIN / UNBUILT).read_text()
    except OSError:
        return {}
    return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)


def _runnable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


# ---- The cache of an installed package ----------------------------------------


def _go() -> Optional[str]:
    return shutil.which("go")


def _blas_lib_dir() -> Optional[str]:
    """The folder of the scipy-openblas64 library, which the Go programs'
    run path names (the core dlopen()s the BLAS by its bare name there)."""
    try:
        # optional: without the package the Go programs' run path names no BLAS folder
        import scipy_openblas64
    except ImportError:
        return None
    return scipy_openblas64.get_lib_dir()


def _version() -> str:
    try:
        return version("roundbench")
    except PackageNotFoundError:
        return "0"


_cache_key: Optional[str] = None


def _key() -> str:
    """<version>-<hash>: the hash of the shipped Go sources and of what else
    goes into the Go binaries (toolchain, GOAMD64, the BLAS folder)."""
    global _cache_key
    if _cache_key is None:
        h = hashlib.sha256()
        if GO_SOURCES.is_dir():
            for f in sorted(p for p in GO_SOURCES.rglob("*") if p.is_file()):
                h.update(str(f.relative_to(GO_SOURCES)).encode() + b"\0")
                h.update(f.read_bytes() + b"\0")
        for extra in (_go() or "", os.environ.get("GOAMD64", ""), _blas_lib_dir() or ""):
            h.update(extra.encode() + b"\0")
        _cache_key = f"{_version()}-{h.hexdigest()[:16]}"
    return _cache_key


def cache_root() -> Path:
    """$XDG_CACHE_HOME/roundbench, else ~/.cache/roundbench."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "roundbench"


def build_dir() -> Path:
    """Where generated inputs are kept (e.g. round jsonl's logs, in data/):
    $ROUNDBENCH_BUILD, else the checkout's build/ folder, else the per-user
    cache of an installed package, as for the programs (path)."""
    env = os.environ.get(ENV_BUILD)
    if env:
        return Path(env)
    root = checkout()
    if root is not None:
        return root / "build"
    return cache_root()


def cache() -> Path:
    """Where an installed package's Go programs are built."""
    return cache_root() / _key()


def locked(target: Path, done, make) -> Optional[str]:
    """make() under the lock of target's folder, unless done(target) holds
    by the time the lock is held (another process made it), so that two
    suites started at once make each program once."""
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if done(target):
                return None
            return make()
    except OSError as e:
        return f"cannot make {target.name} in {folder}: {e}"


def _in_cache(name: str, target: Path, make) -> Optional[str]:
    """Makes target with make(name, target) under the cache's lock."""
    return locked(target, _runnable, lambda: make(name, target))


def _library_ldflags(library: str) -> Optional[list]:
    """The link flags of a pkg-config package and a run path to its folder
    (as the Makefile's), or None where pkg-config does not find it."""

    def ask(option: str) -> str:
        out = subprocess.run(["pkg-config", option, library], capture_output=True, text=True, check=True)
        return out.stdout.strip()

    try:
        libs, libdir = ask("--libs"), ask("--variable=libdir")
    except (OSError, subprocess.CalledProcessError):
        return None
    return [*shlex.split(libs), *([f"-Wl,-rpath,{libdir}"] if libdir else [])]


class GoRecipe(NamedTuple):
    """What `go build` needs for one Go program besides the toolchain and
    the module: its package directory, the flags before it, and the
    environment variables it sets (the whole value of each)."""

    package: str
    flags: list
    env: dict


def go_recipe(name: str, *, blas_rpath: bool):
    """How `go build` makes the Go program `name`, as the Makefile does: a
    GoRecipe, or why it cannot be built here (a str: no C compiler for cgo,
    a library that pkg-config does not find). blas_rpath adds a run path to
    the scipy-openblas64 package's folder, which the core dlopen()s the BLAS
    from, for a build outside the checkout (where go/cgo.go's run path to
    build/blas does not lead)."""
    build = _go_package(name)
    cgo = build.cgo
    cc = (os.environ.get("CC") or "gcc").split()[0]
    if cgo != "0" and shutil.which(cc) is None:
        return f"{name} uses cgo, which needs a C compiler: {cc} is not on PATH (Debian: apt install gcc)"
    ldflags = []
    if build.library is not None:
        ldflags = _library_ldflags(build.library)
        if ldflags is None:
            return f"{name} cannot be built here: it needs {NEEDS.get(name, build.library)}"
    env = {}
    if cgo is not None:
        env["CGO_ENABLED"] = cgo
    if build.experiment is not None:
        env["GOEXPERIMENT"] = build.experiment
    if build.goamd64 is not None:
        env["GOAMD64"] = build.goamd64  # a twin's own level, whatever the environment's
    blas = _blas_lib_dir() if blas_rpath else None
    if blas is not None and cgo != "0":
        # The core dlopen()s the BLAS by name; the run path says where the
        # scipy-openblas64 package keeps it (ROUNDBENCH_BLAS_LIB still wins).
        ldflags.append(f"-Wl,-rpath,{blas}")
    if ldflags:
        env["CGO_LDFLAGS"] = " ".join(filter(None, [os.environ.get("CGO_LDFLAGS", "-g -O2"), *ldflags]))
    flags = ["-tags", build.tag] if build.tag is not None else []
    if build.pgo is not None:
        # Relative to the module, where go_build runs the go command; the
        # go command records the profile's whole path in the program.
        flags.append(f"-pgo={build.pgo}")
    return GoRecipe(build.package, flags, env)


def go_sources_copy(folder: Path) -> Path:
    """folder/src: a copy of the Go sources an installed package ships,
    made once. The go command writes nothing into the sources, but it
    resolves the module from their folder, and site-packages may be
    read-only or shared."""
    src = folder / "src"
    if not (src / "go.mod").is_file():
        tmp = Path(tempfile.mkdtemp(prefix="src-", dir=folder))
        shutil.copytree(GO_SOURCES, tmp, dirs_exist_ok=True)
        shutil.rmtree(src, ignore_errors=True)  # a copy cut short
        os.replace(tmp, src)
    return src


def go_build(go: str, recipe: GoRecipe, target: Path, cwd: Path, *, flags=(), env=None) -> Optional[str]:
    """Runs `go build [flags] RECIPE-FLAGS -o TARGET ./PACKAGE` in cwd with
    the recipe's environment over env (default: ours), writing the program
    beside target first and moving it into place: None, or why it failed,
    with the go command's last lines."""
    environ = dict(os.environ if env is None else env)
    environ.update(recipe.env)
    tmp_out = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    command = [go, "build", *flags, *recipe.flags, "-o", str(tmp_out), "./" + recipe.package]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=environ,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GO_BUILD_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        tmp_out.unlink(missing_ok=True)
        return f"building {target.name} with {go} took over {GO_BUILD_TIMEOUT} s and was stopped"
    if done.returncode != 0:
        tmp_out.unlink(missing_ok=True)
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        return f"`go build ./{recipe.package}` in {cwd} failed (exit {done.returncode}):\n{tail}"
    os.replace(tmp_out, target)
    return None


def _build_go(name: str, target: Path) -> Optional[str]:
    pkg = _go_package(name).package
    if not (GO_SOURCES / "go.mod").is_file():
        return f"this installation of roundbench ships no Go sources ({GO_SOURCES}), so it cannot build {name}"
    if not (GO_SOURCES / pkg).is_dir():
        return f"this version of roundbench ships no sources for {name} ({GO_SOURCES / pkg})"
    go = _go()
    if go is None:
        return (
            f"the Go toolchain is not installed (no `go` on PATH): roundbench builds {name} on first use "
            f"from the Go sources it ships, with Go 1.24 or newer ({GO_DOWNLOAD}) and, for cgo, a C compiler"
        )
    recipe = go_recipe(name, blas_rpath=True)
    if isinstance(recipe, str):
        return recipe
    src = go_sources_copy(target.parent)
    print(f"roundbench: building {name} from the shipped Go sources into {target.parent} (once)", file=sys.stderr)
    return go_build(go, recipe, target, src)


# ---- what a built Go program says of itself ----------------------------------------


def _go_version_m(binary: Path) -> Optional[str]:
    """`go version -m BINARY`: the toolchain, build settings and modules a Go
    program was built with; None where the program or go is missing or the
    command fails."""
    if not binary.exists() or not shutil.which("go"):
        return None
    try:
        done = subprocess.run(["go", "version", "-m", str(binary)], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def go_build_settings(binary: Path) -> dict:
    """The build of a Go program: toolchain ("go"), GOAMD64, -race, flags."""
    info = {}
    for line in (_go_version_m(binary) or "").splitlines():
        parts = line.strip().split("\t")
        if line.startswith(str(binary)) or (parts and parts[0].endswith(": go1")):
            info["go"] = line.split(":", 1)[-1].strip()
        elif parts and parts[0] == "build" and len(parts) > 1:
            k, _, v = parts[1].partition("=")
            info[k] = v
    return info


# What cgo compiles C with when CGO_CFLAGS is unset (cmd/go's default).
CGO_DEFAULT_CFLAGS = "-O2 -g"


def cgo_cflags(settings: dict) -> str:
    """The flags cgo compiled the core with in a Go build (its settings, as
    go_build_settings reads them): CGO_CFLAGS, or Go's default when it was
    unset. The core's #cgo line (go/cgo.go) adds no -O of its own."""
    return settings.get("CGO_CFLAGS") or CGO_DEFAULT_CFLAGS


def go_module_versions(binary: Path) -> dict:
    """The modules a Go program was built with, path -> version, from the
    `dep` lines of `go version -m` (a `=>` replacement's version wins)."""
    mods = {}
    for line in (_go_version_m(binary) or "").splitlines():
        parts = line.strip().split("\t")
        if len(parts) >= 3 and parts[0] in ("dep", "=>"):
            if parts[0] == "dep":
                last = parts[1]
                mods[last] = parts[2]
            elif mods:
                mods[last] = f"{parts[2]} (replaced by {parts[1]})"
    return mods


# ---- what each PGO profile was taken from ----------------------------------------------
# scripts/pgo-profiles.sh writes beside each go/pgo/<round>.pgo a record,
# <round>.pgo.txt: the variant and the input it profiled, the runs, the Go,
# and the hash of the Go source its runner was built from, so that the
# fairness check can say what a profile was trained on and warn when the
# code has changed since (judge/fairness.py, pgo_checks).

PGO_RECORD_SUFFIX = ".txt"


def go_source_hash(root: Path, round_name: str) -> str:
    """sha256 over the Go source a round's profile covers: its runner's
    own package, the roundbench package's files of that round
    (go/<round>*.go) and the internal packages (every .go file but the
    tests, by path and content, in path order). Another round's code is
    left out: an edit to chain.go stales no loop profile."""
    go = root / "go"
    files = sorted(
        [p for p in (go / "cmd" / "rb-go" / round_name).glob("*.go")]
        + [p for p in go.glob(f"{round_name}*.go")]
        + [p for p in (go / "internal").rglob("*.go")]
    )
    h = hashlib.sha256()
    for p in files:
        if p.name.endswith("_test.go"):
            continue
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def pgo_record(root: Path, profile: str) -> Optional[dict]:
    """The record beside profile (its path in the module, go/pgo/loop.pgo):
    key -> value, or None when there is none."""
    p = root / (profile + PGO_RECORD_SUFFIX)
    if not p.is_file():
        return None
    out = {}
    for line in p.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and ": " in line:
            k, v = line.split(": ", 1)
            out[k.strip()] = v.strip()
    return out
