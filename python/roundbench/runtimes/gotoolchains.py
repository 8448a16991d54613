"""Go toolchains as an axis: the Go programs built with another Go.

``roundbench run --go 1.20 --go 1.26`` runs every Go variant under each Go
named. This module is the build side: which release a ``--go`` value means,
where that release's build of a Go program is, building it, and why a
variant is not in it.

- Releases. ``resolve("1.20")`` asks the Go module proxy, through the go
  command, which releases it serves for this platform (each Go release is a
  version of the module golang.org/toolchain, ``v0.0.1-go1.20.14.linux-amd64``:
  ``go list -m -versions golang.org/toolchain``) and answers the newest 1.20;
  ``"1.20.14"`` is checked to be served. The installed Go's X.Y means the
  installed release itself. The proxy's list is kept in go-toolchains.json
  in the build folder, so that a second run asks nothing; a release it
  lacks is asked for again (delete the file to see a newer patch release of
  an X.Y it has). Go older than 1.19 is refused: 1.19 is the Go release
  nearest in date to CPython 3.11 (data/releases.tsv), and the Go sources
  are held to build with it.

- Fetching. The go command fetches a release itself
  (``GOTOOLCHAIN=go1.20.14 go version``) from the module proxy into the module
  cache, where it stays. A release older than Go 1.21, whose go command
  predates the releases kept as modules, builds with a GOROOT that is a link
  to it outside the module cache (``build/go1.19.13/goroot``): Go 1.19's go
  command takes a GOROOT inside the module cache for some module's folder
  and finds no standard library there ("import of unknown directory").

- The module. go.mod requires libraries whose own go.mod declares a newer Go
  than 1.19 (fasthttp: go 1.26.0). Go 1.21 and later refuse such a module in
  the graph, and 1.19 and 1.20 cannot even read go.mod's three-part go line.
  Each release builds with a go.mod of its own
  (``-modfile=build/go1.20.14/go.mod``, go.sum beside it) made from go.mod:
  go.mod's go line, or the release where that is older (its X.Y before Go
  1.21); only the requirements whose go.mod declares at most that release,
  at go.mod's versions. The code that needs a library is kept out of the
  build by the build line of its file: a release tag at least the newest go
  line among the modules it needs (``//go:build !goexperiment.jsonv2 && go1.24`` in
  go/cmd/rb-go/jsonl/fastjson.go), which tests/test_gotoolchains.py holds to
  the modules. A file left out registers nothing, so the runner simply
  lacks the variant. The same goes for a cgo feature (``#cgo noescape``, Go
  1.24) and an experiment (jsonv2, Go 1.25).

- Programs. ``program_path(name, version)`` is ``programs.path(name)`` for the
  installed release (what ``make build`` made), and ``go<version>/<name>``
  beside it for another (``build/go1.20.14/rb-go-loop`` in a checkout; beside
  an installed package's per-user cache of Go programs otherwise).
  ``missing(name, version)`` builds it there as the Makefile builds the
  installed one (the same package, tags, experiment and link flags): once,
  under a lock, again when a Go source of the checkout is newer than it; or
  says why it cannot be.

- Variants. ``variant_missing(round, variant, version)``: the runner's
  ``--list`` says whether it has the variant; where it does not, the build
  line of the file that registers it says which release it needs, and the
  module that file needs (or the file it needs in the package it imports)
  says why.

Versions are written without "go": ``"1.20.14"``; the first release of Go 1.20
and older is ``"1.20"``, of Go 1.21 and later ``"1.21.0"``.
"""

from __future__ import annotations

# Light at import: the runner imports this module. The rest is imported
# where it is used.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

from . import programs

# The oldest Go the sources build with.
MINIMUM = (1, 19)
TOOLCHAIN_MODULE = "golang.org/toolchain"
# The proxy's list of releases, in the build folder.
RELEASES_FILE = "go-toolchains.json"
# Seconds the go command may take to answer the proxy's list and to fetch
# a release (about 70 MB).
QUERY_TIMEOUT = 120
FETCH_TIMEOUT = 900
# A Go program every build has: its folder is the build folder.
_ANY_GO = "hello-go"
# A Go 1.N beyond any release, for "built with any release".
_NEWEST = 99

_SPEC = re.compile(r"(?:go)?(\d+)\.(\d+)(?:\.(\d+))?")
_RELEASE = re.compile(r"go(\d+\.\d+(?:\.\d+)?)")


class ToolchainError(Exception):
    """A Go release that cannot be had: a malformed or too old --go value
    (usage is True: the command line is wrong), or a release the proxy does
    not serve or the go command cannot fetch or run (usage is False: the
    message is what the rows of that release's variants say)."""

    def __init__(self, message: str, *, usage: bool = False):
        super().__init__(message)
        self.usage = usage


def _key(version: str) -> tuple:
    """(major, minor, patch) of a release ("1.20" is (1, 20, 0)) or of a
    go line (one of a pre-release, "1.21rc1", counts as its release)."""
    m = _SPEC.match(version)
    if m is None:
        raise ValueError(f"not a Go release: {version!r} (want one such as 1.22.5)")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _plain(version: str) -> str:
    """version without "go", checked to be a release's."""
    version = version.removeprefix("go")
    if _SPEC.fullmatch(version) is None:
        raise ValueError(f"not a Go release: {version!r} (want one such as 1.22.5)")
    return version


def _name(major: int, minor: int, patch: int) -> str:
    """A release's version: Go 1.20 and older called their first release X.Y."""
    return f"{major}.{minor}" if patch == 0 and (major, minor) <= (1, 20) else f"{major}.{minor}.{patch}"


# ---- the installed go --------------------------------------------------------------

_go_env_cache: Optional[dict] = None


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        raise ToolchainError("no `go` on PATH: the Go programs are built with the go command (https://go.dev/dl/)")
    return go


def _go_env() -> dict:
    """`go env` of the go on PATH, as `make build` runs it (in the module)."""
    global _go_env_cache
    if _go_env_cache is None:
        names = ["GOVERSION", "GOHOSTOS", "GOHOSTARCH", "GOMODCACHE", "GOPROXY", "CGO_ENABLED"]
        module = programs.go_module()
        done = _run([_go(), "env", "-json", *names], cwd=module if module.is_dir() else None, timeout=QUERY_TIMEOUT)
        if done.returncode != 0:
            raise ToolchainError(f"`go env` failed: {_tail(done)}")
        _go_env_cache = json.loads(done.stdout)
    return _go_env_cache


def _run(argv: list, *, cwd=None, env=None, timeout: float) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", f"`{' '.join(argv)}` took over {timeout} s and was stopped")
    except OSError as e:
        return subprocess.CompletedProcess(argv, -1, "", f"cannot run {argv[0]}: {e}")


def _tail(done: subprocess.CompletedProcess, lines: int = 1) -> str:
    text = (done.stderr or done.stdout or "").strip()
    return "\n".join(text.splitlines()[-lines:]) or f"exit status {done.returncode}"


def installed() -> str:
    """The release of the go on PATH, the one `make build` uses ("1.26.8").
    ToolchainError where there is no go."""
    text = _go_env().get("GOVERSION", "")
    m = _RELEASE.search(text)
    if m is None:
        raise ToolchainError(f"the go on PATH reports no release ({text!r})")
    return m.group(1)


def _platform() -> str:
    env = _go_env()
    return f"{env['GOHOSTOS']}-{env['GOHOSTARCH']}"


# ---- which releases there are ------------------------------------------------------


def _build_dir() -> Path:
    """The folder of the installed release's Go programs: a checkout's
    build/, $ROUNDBENCH_BUILD, or an installed package's per-user cache."""
    return programs.path(_ANY_GO).parent


def _releases_file() -> Path:
    if programs.checkout() is None and not os.environ.get(programs.ENV_BUILD):
        # The per-user cache's own folder changes with every version of
        # roundbench; the proxy's list does not.
        return programs.cache_root() / RELEASES_FILE
    return _build_dir() / RELEASES_FILE


def _served(ask: bool) -> tuple:
    """(the releases the proxy serves for this platform, whether the proxy
    was asked now): from the file, unless ask or there is none; asked for,
    and written to the file, otherwise."""
    path, platform = _releases_file(), _platform()
    if not ask:
        try:
            kept = json.loads(path.read_text())
            if kept.get("platform") == platform:
                return kept["releases"], False
        except (OSError, ValueError, KeyError, AttributeError):
            pass

    # Outside any module, so that no go.mod or go.work has a say.
    env = dict(os.environ, GOFLAGS="-mod=mod", GOWORK="off", GO111MODULE="on")
    done = _run(
        [_go(), "list", "-m", "-versions", TOOLCHAIN_MODULE], cwd=tempfile.gettempdir(), env=env, timeout=QUERY_TIMEOUT
    )
    if done.returncode != 0:
        raise ToolchainError(
            f"cannot ask the Go module proxy ({_go_env().get('GOPROXY')}) which Go releases it serves: {_tail(done)}"
        )
    suffix = "." + platform
    releases = []
    for word in done.stdout.split()[1:]:
        m = _RELEASE.fullmatch(word.removeprefix("v0.0.1-").removesuffix(suffix))
        if word.endswith(suffix) and m is not None:
            releases.append(m.group(1))
    releases.sort(key=_key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"platform": platform, "releases": releases}, indent=1) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass  # asked again next time
    return releases, True


def resolve(spec: str) -> str:
    """The release a --go value means: "X.Y" the newest X.Y the Go module
    proxy serves for this platform (the installed release, where X.Y is
    the installed one's), "X.Y.Z" that release once checked to be served
    (or already fetched). ToolchainError (usage=True) for a malformed
    value or one older than Go 1.19; ToolchainError (usage=False) for a
    release that is not served, or when the proxy cannot be asked."""
    m = _SPEC.fullmatch(spec.strip())
    if m is None or m.group(1) != "1":
        raise ToolchainError(f"--go {spec}: want a Go version such as 1.22 or 1.22.5", usage=True)
    minor = int(m.group(2))
    if (1, minor) < MINIMUM:
        oldest = ".".join(map(str, MINIMUM))
        raise ToolchainError(
            f"--go {spec}: the Go programs build with Go {oldest} or newer "
            f"(Go {oldest} is the release nearest in date to CPython 3.11)",
            usage=True,
        )
    exact = m.group(3) is not None
    want = _name(1, minor, int(m.group(3))) if exact else f"1.{minor}"
    have = installed()
    if _key(have)[:2] == (1, minor) and (not exact or _key(have) == _key(want)):
        return have
    if exact and _fetched(want) is not None:
        return want

    def pick(releases: list) -> list:
        return [r for r in releases if (_key(r) == _key(want) if exact else _key(r)[:2] == (1, minor))]

    served, asked = _served(ask=False)
    if not pick(served) and not asked:
        served, asked = _served(ask=True)
    if pick(served):
        return max(pick(served), key=_key)
    series = [r for r in served if _key(r)[:2] == (1, minor)]
    has = f" (it has {', '.join(series)})" if series else ""
    what = f"Go {want}" if exact else f"release of Go {want}"
    raise ToolchainError(f"the Go module proxy ({_go_env().get('GOPROXY')}) serves no {what} for {_platform()}{has}")


def newest_served() -> str:
    """The newest Go release the module proxy serves for this platform
    (asked now, not read from the file); ToolchainError when it cannot be
    asked."""
    served, _ = _served(ask=True)
    if not served:
        raise ToolchainError(f"the Go module proxy ({_go_env().get('GOPROXY')}) serves no Go for {_platform()}")
    return max(served, key=_key)


def resolve_or_keep(spec: str) -> str:
    """resolve(spec) for a runtime axis: a release that cannot be had (not
    served, the proxy not reachable) is kept as given, so that its rows
    become skip rows saying why. A malformed or too old value still raises
    ToolchainError (usage=True)."""
    try:
        return resolve(spec)
    except ToolchainError as e:
        if e.usage:
            raise
        return spec


# ---- fetching a release ------------------------------------------------------------


def _fetched(version: str) -> Optional[Path]:
    """The release's GOROOT in the module cache, or None before the go
    command has fetched it (and copied its src/_go.mod to src/go.mod, as
    it does before it first runs one)."""
    root = Path(_go_env()["GOMODCACHE"]) / f"{TOOLCHAIN_MODULE}@v0.0.1-go{version}.{_platform()}"
    src = root / "src"
    if not (root / "bin" / "go").is_file() or ((src / "_go.mod").is_file() and not (src / "go.mod").is_file()):
        return None
    return root


def _fetch(version: str) -> Path:
    """The release's GOROOT, fetched by the go command if it is not yet in
    the module cache. ToolchainError where it cannot be."""
    root = _fetched(version)
    if root is None:
        env = dict(os.environ, GOTOOLCHAIN=f"go{version}")
        env.pop("GOROOT", None)
        done = _run([_go(), "version"], cwd=tempfile.gettempdir(), env=env, timeout=FETCH_TIMEOUT)
        root = _fetched(version)
        if done.returncode != 0 or root is None:
            raise ToolchainError(f"cannot fetch go{version} (`GOTOOLCHAIN=go{version} go version`): {_tail(done)}")
    return root


def _goroot(version: str, folder: Path) -> Path:
    """The GOROOT to build with: the release's in the module cache, or for
    a release older than Go 1.21, folder/goroot, a link to it (module
    docstring, "Fetching")."""
    root = _fetch(version)
    if _key(version)[:2] >= (1, 21):
        return root
    link = folder / "goroot"
    if not link.is_symlink() or link.resolve() != root.resolve():
        tmp = folder / f".goroot.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(root)
        os.replace(tmp, link)
    return link


def go_command(version: str, folder: Path) -> tuple:
    """(the go command of release `version`, the environment it builds
    with: its own GOROOT, no toolchain switch), fetched first if need be;
    `folder` holds the GOROOT link an old release needs (_goroot).
    ToolchainError or OSError where it cannot be had."""
    goroot = _goroot(version, folder)
    return str(goroot / "bin" / "go"), {"GOTOOLCHAIN": "local", "GOROOT": str(goroot)}


# ---- the module each release builds with ----------------------------------------------


def _module_text(version: str, root: Path) -> str:
    """go.mod for building the module at root with release `version`
    (module docstring, "The module")."""
    go = _go()
    done = _run([go, "mod", "edit", "-json"], cwd=root, timeout=QUERY_TIMEOUT)
    if done.returncode != 0:
        raise ToolchainError(f"cannot read {root / 'go.mod'}: {_tail(done)}")
    mod = json.loads(done.stdout)
    requires = mod.get("Require") or []
    declared = _go_lines(root, [r["Path"] for r in requires])
    release = _key(version)
    main_go = mod.get("Go") or ""
    # A go line of Go 1.21 and later names a release ("1.24" is older than
    # "1.24.0", which gonum declares); 1.20 and older read X.Y only.
    go_line = main_go if main_go and _key(main_go) <= release else version
    if release[:2] <= (1, 20):
        go_line = f"{release[0]}.{release[1]}"
    lines = [
        f"// Made by roundbench.runtimes.gotoolchains from {root / 'go.mod'} for go{version}: the",
        "// requirements whose go.mod declares at most that release, and the go line it can read.",
        f"module {mod['Module']['Path']}",
        "",
        f"go {go_line}",
    ]
    kept = [r for r in requires if not declared.get(r["Path"]) or _key(declared[r["Path"]]) <= release]
    if kept:
        lines += ["", "require ("]
        lines += [f"\t{r['Path']} {r['Version']}" + (" // indirect" if r.get("Indirect") else "") for r in kept]
        lines.append(")")

    def at(m: dict) -> str:
        return f"{m['Path']} {m['Version']}" if m.get("Version") else m["Path"]

    if mod.get("Exclude"):
        lines += ["", *(f"exclude {at(e)}" for e in mod["Exclude"])]
    if mod.get("Replace"):
        lines += ["", *(f"replace {at(r['Old'])} => {at(r['New'])}" for r in mod["Replace"])]
    return "\n".join(lines) + "\n"


def _go_lines(root: Path, paths: list) -> dict:
    """module path -> the go line its go.mod declares ("" for none), at the
    versions the module at root selects."""
    if not paths:
        return {}
    done = _run([_go(), "list", "-m", "-f", "{{.Path}}\t{{.GoVersion}}", *paths], cwd=root, timeout=QUERY_TIMEOUT)
    if done.returncode != 0:
        raise ToolchainError(f"cannot read the go lines of go.mod's requirements: {_tail(done)}")
    return dict(line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line)


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _modfile(version: str, folder: Path, root: Path) -> Path:
    """folder/go.mod and folder/go.sum for the release, made now."""
    modfile = folder / "go.mod"
    _write_if_changed(modfile, _module_text(version, root).encode())
    try:
        sums = (root / "go.sum").read_bytes()
    except OSError:
        sums = b""
    _write_if_changed(folder / "go.sum", sums)
    return modfile


# ---- the programs ------------------------------------------------------------------


def _build_of(name: str) -> programs.GoBuild:
    build = programs.go_package(name)
    if build is None:
        raise ValueError(f"{name} is no Go program (Go programs: {', '.join(_go_names())})")
    return build


def _go_names() -> list:
    return [n for n in programs.names() if programs.go_package(n) is not None]


def program_path(name: str, version: str) -> Path:
    """Where the Go program `name` built with release `version` is, or will
    be once built: programs.path(name) for the installed release, else
    go<version>/<name> in the same folder. ValueError for a name that is no
    Go program's or a version that is no release's."""
    _build_of(name)
    version = _plain(version)
    path = programs.path(name)
    if version == installed():
        return path
    return path.parent / f"go{version}" / name


def missing(name: str, version: str) -> Optional[str]:
    """None when the Go program `name` built with release `version` can run
    here; else why not. Builds it first when it is not built (or, in a
    checkout, older than a Go source), once, under a lock, saying so on
    stderr. The installed release's programs are programs.missing()'s."""
    build = _build_of(name)
    version = _plain(version)
    try:
        if version == installed():
            return programs.missing(name)
        target = program_path(name, version)
        if _fresh(target):
            return None
        why = _needs_newer(name, build, version)
        if why is not None:
            return why
        return _locked(target, lambda: _build(name, target, version))
    except ToolchainError as e:
        return str(e)


def _fresh(target: Path) -> bool:
    """target is built, and no Go source of a checkout is newer (an
    installed package's cache is named after its sources)."""
    try:
        built = target.stat().st_mtime
    except OSError:
        return False
    if not os.access(target, os.X_OK):
        return False
    root = programs.checkout()
    if root is None:
        return True
    sources = [root / "go.mod", root / "go.sum", root / "python" / "roundbench" / "build.mk"]
    for folder, _, files in os.walk(root / "go"):
        sources += [Path(folder, f) for f in files]
    for f in sources:
        try:
            if f.stat().st_mtime > built:  # follows go/core_*.c to csrc/
                return False
        except OSError:
            continue
    return True


def _locked(target: Path, make) -> Optional[str]:
    """make() under the lock of target's folder, unless target is fresh by
    the time the lock is held (another process built it)."""
    return programs.locked(target, _fresh, make)


def _build(name: str, target: Path, version: str) -> Optional[str]:
    recipe = programs.go_recipe(name, blas_rpath=programs.checkout() is None)
    if isinstance(recipe, str):
        return recipe
    root = programs.checkout()
    if root is None:
        if not (programs.GO_SOURCES / "go.mod").is_file():
            return f"this installation of roundbench ships no Go sources ({programs.GO_SOURCES}) to build {name} from"
        root = programs.go_sources_copy(programs.path(name).parent)
    if not (root / recipe.package).is_dir():
        return f"{target} is not built: there is no {recipe.package}/ in {root} to build it from"
    try:
        go, go_env = go_command(version, target.parent)
        modfile = _modfile(version, target.parent, root)
    except (ToolchainError, OSError) as e:
        return str(e)
    print(f"roundbench: building {name} with go{version} (once)", file=sys.stderr)
    env = dict(os.environ, **go_env)
    why = programs.go_build(go, recipe, target, root, flags=["-modfile", str(modfile)], env=env)
    return None if why is None else f"go{version}: {why}"


# ---- the variants ------------------------------------------------------------------


def variant_missing(rnd, v, program: str, version: str) -> Optional[str]:
    """None when Go variant `v` of round `rnd` (their declarations, whose
    child program is `program`: launch.program_of) is in its program built
    with release `version` (building it first if need be, as missing()
    does); else why not, naming the release it needs and why (module
    docstring, "Variants"). ValueError for a variant no Go runner runs."""
    program = _runner_of(rnd, v, program)
    why = missing(program, version)
    if why is not None:
        return why
    version = _plain(version)
    try:
        path = program_path(program, version)
        listed = _listed(path)
        if isinstance(listed, str):
            return listed
        if any((r == rnd.name or r.startswith(rnd.name + "-")) and impl == v.name for r, impl in listed):
            return None
        return _why_absent(program, v.name, version, path)
    except ToolchainError as e:
        return str(e)


def _runner_of(rnd, v, program: str) -> str:
    """The Go program whose --list speaks for variant v: its own program, or
    for a Go server that the round's Python driver starts (round http), the
    round's Go runner, which lists it under `<round>-<role>`."""
    if program.startswith(programs.GO_RUNNER_PREFIX):
        return program
    runner = programs.go_runner(rnd.name)
    if v.language == "go" and v.program == "python" and runner in programs.go_runners():
        return runner
    raise ValueError(f"{rnd.name}/{v.name} is run by {program}, not by a Go runner")


_lists: dict = {}


def _listed(path: Path):
    """{(round, variant)} from `path --list`, or why it could not say."""
    key = (path, path.stat().st_mtime_ns)
    if key not in _lists:
        done = _run([str(path), "--list"], timeout=60)
        if done.returncode != 0:
            return f"`{path} --list` failed: {_tail(done)}"
        _lists[key] = {tuple(line.split()[:2]) for line in done.stdout.splitlines() if len(line.split()) >= 2}
    return _lists[key]


def _why_absent(program: str, variant: str, version: str, path: Path) -> str:
    build = _build_of(program)
    root = programs.go_module()
    tags = _tags(build, _key(version)[1])
    for f in _go_files(root / build.package):
        text = f.read_text()
        if not re.search(r'egister\w*\([^)\n]*"' + re.escape(variant) + '"', text):
            continue
        expr = _build_line(text)
        if expr is None or _satisfied(expr, tags):
            continue
        need = _first_release(expr, tags)
        if need is None:
            continue
        why = _why_release(root, f, text, need, build)
        return f"{variant} needs Go 1.{need} or newer ({why}); not built with go{version}"
    return f"{variant} is not in {program} built with go{version} (`{path} --list` has no such line)"


# The first release whose go build takes -pgo as a feature (1.20's was a
# preview): a build twin with a profile needs it.
PGO_RELEASE = 21


def _needs_newer(name: str, build: programs.GoBuild, version: str) -> Optional[str]:
    """Why a program cannot be built with this release: a build twin with a
    PGO profile needs Go 1.21; a program built with a Go experiment, its
    files that need the experiment need a newer release."""
    if build.pgo is not None and _key(version)[:2] < (1, PGO_RELEASE):
        return f"{name} needs Go 1.{PGO_RELEASE} or newer (go build -pgo); not built with go{version}"
    if build.experiment is None:
        return None
    root = programs.go_module()
    newest = _tags(build, _NEWEST)
    without = {t for t in newest if not t.startswith("goexperiment.")}
    for f in _go_files(root / build.package):
        text = f.read_text()
        expr = _build_line(text)
        if expr is None or not _satisfied(expr, newest) or _satisfied(expr, without):
            continue
        need = _first_release(expr, newest)
        if need is not None and _key(version)[:2] < (1, need):
            return (
                f"{name} needs Go 1.{need} or newer (GOEXPERIMENT={build.experiment}; "
                f"{f.relative_to(root)}: //go:build {expr}); not built with go{version}"
            )
    return None


def _go_files(folder: Path) -> list:
    try:
        return sorted(f for f in folder.glob("*.go") if not f.name.endswith("_test.go"))
    except OSError:
        return []


# ---- build lines -------------------------------------------------------------------

_UNIX = {
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "linux",
    "netbsd",
    "openbsd",
    "solaris",
}


def _tags(build: programs.GoBuild, minor: int) -> set:
    """The build tags a build of `build` with Go 1.minor satisfies (those
    this module's questions need: platform, cgo, experiment, tag, release
    tags)."""
    env = _go_env()
    tags = {env["GOHOSTOS"], env["GOHOSTARCH"], "gc"}
    if env["GOHOSTOS"] in _UNIX:
        tags.add("unix")
    if (build.cgo or os.environ.get("CGO_ENABLED") or env.get("CGO_ENABLED")) == "1":
        tags.add("cgo")
    experiments = build.experiment if build.experiment is not None else os.environ.get("GOEXPERIMENT", "")
    tags.update("goexperiment." + x for x in experiments.split(",") if x)
    if build.tag:
        tags.update(build.tag.split(","))
    tags.update(f"go1.{i}" for i in range(1, minor + 1))
    return tags


def _build_line(text: str) -> Optional[str]:
    """The expression of a Go file's //go:build line, or None."""
    for line in text.splitlines():
        if line.startswith("//go:build "):
            return line[len("//go:build ") :].strip()
        if line.startswith("package "):
            break
    return None


def _satisfied(expr: str, tags: set) -> bool:
    """Whether a //go:build expression holds for these tags."""
    tokens = re.findall(r"\|\||&&|!|\(|\)|[\w.]+", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def either():
        value = both()
        while peek() == "||":
            take()
            value = both() or value
        return value

    def both():
        value = unary()
        while peek() == "&&":
            take()
            value = unary() and value
        return value

    def unary():
        token = take()
        if token == "!":
            return not unary()
        if token == "(":
            value = either()
            take()  # ")"
            return value
        return token in tags

    return either()


def _first_release(expr: str, tags: set) -> Optional[int]:
    """The oldest Go 1.N (N >= MINIMUM's) for which expr holds, the other
    tags as given, or None."""
    others = {t for t in tags if not re.fullmatch(r"go1\.\d+", t)}
    for n in range(MINIMUM[1], _NEWEST + 1):
        if _satisfied(expr, others | {f"go1.{i}" for i in range(1, n + 1)}):
            return n
    return None


def _imports(text: str) -> list:
    """The import paths of a Go file."""
    m = re.search(r"^import \((.*?)^\)", text, re.M | re.S)
    block = m.group(1) if m else ""
    single = re.findall(r'^import (?:\w+ )?"([^"]+)"', text, re.M)
    return re.findall(r'"([^"]+)"', block) + single


def _why_release(root: Path, f: Path, text: str, need: int, build: programs.GoBuild, depth: int = 0) -> str:
    """Why file f needs Go 1.need: the module whose go line says so, among
    those of f's imports; else, for an import of the module's own, the
    file there that declares what f uses and needs that release too; else
    f's build line."""
    module = _module_path(root)
    imports = _imports(text)
    outside = [p for p in imports if "." in p.split("/")[0] and p != module and not p.startswith(module + "/")]
    modules = _modules_of(root, outside, build)
    for path, version, declared, direct in modules:
        if declared and _key(declared)[:2] == (1, need):
            via = sorted({p for p, _, _, d in modules if d})
            needs = "" if direct or not via else f", which {' and '.join(via)} {'needs' if len(via) == 1 else 'need'},"
            return f"{path} {version}{needs} declares go {declared}"
    own = [p for p in imports if p == module or p.startswith(module + "/")]
    if depth < 2:
        for p in own:
            folder = root / p[len(module) :].lstrip("/")
            files = _go_files(folder)
            names = {re.search(r"^package (\w+)", g.read_text(), re.M).group(1) for g in files[:1]}
            used = {u for n in names for u in re.findall(rf"\b{n}\.(\w+)", text)}
            for g in files:
                gtext = g.read_text()
                expr = _build_line(gtext)
                declares = any(re.search(rf"^(?:func|var|const|type) {u}\b", gtext, re.M) for u in used)
                if declares and expr is not None and _first_release(expr, _tags(build, _NEWEST)) == need:
                    return _why_release(root, g, gtext, need, build, depth + 1)
    return f"{f.relative_to(root)}: //go:build {_build_line(text)}"


def _module_path(root: Path) -> str:
    m = re.search(r"^module\s+(\S+)", (root / "go.mod").read_text(), re.M)
    return m.group(1) if m else ""


def _modules_of(root: Path, imports: list, build: programs.GoBuild) -> list:
    """(path, version, go line, whether it holds one of the packages) of
    the modules these packages need, those of the packages themselves
    first, as the installed go sees them."""
    if not imports:
        return []
    fmt = "{{.ImportPath}}\t{{with .Module}}{{.Path}}\t{{.Version}}\t{{.GoVersion}}{{end}}"
    flags = ["-tags", build.tag] if build.tag else []
    done = _run([_go(), "list", "-deps", *flags, "-f", fmt, *imports], cwd=root, timeout=QUERY_TIMEOUT)
    if done.returncode != 0:
        return []
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    rows = [r for r in rows if len(r) == 4]
    ordered = [r for r in rows if r[0] in imports] + [r for r in rows if r[0] not in imports]
    seen, out = set(), []
    for package, path, version, declared in ordered:
        if path not in seen:
            seen.add(path)
            out.append((path, version, declared, package in imports))
    return out
