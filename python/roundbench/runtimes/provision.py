"""The Python interpreters people run, provisioned by the project's own steps.

`roundbench pythons` (`make pythons`) gets, on a Debian machine as root:

- cpython-3.13.5 and cpython-3.13.5t: CPython 3.13 from Debian 13's
  (trixie's) source package, the upstream tarball inside it, built twice
  with what the official installers and the distributions use
  (`--enable-optimizations --with-lto`: PGO and LTO), the second with
  `--disable-gil` as well: the free-threaded twin, identical but for the GIL.
- cpython-3.14.N and cpython-3.15.N: Debian unstable's (sid's) own builds, in
  a minimal Debian root made by debootstrap. They need a newer glibc than
  Debian 12's, so they run with the root's own loader and libraries: a copy
  of each interpreter beside it whose ELF interpreter and library path
  point into the root (patchelf), started by the kernel like any program (no
  script, no chroot, no mount, nothing of the root's preparation inside a
  timed process); everything else (files, the network, the kernel) is the
  machine's.

Each gets a virtual environment with the project's requirements installed
from wheels only; a package with no wheel for that interpreter is left out
and its variants are skip rows that say so. Everything lives in one folder
outside the checkout (`cache_dir()`: ROUNDBENCH_PYTHONS, else
$XDG_CACHE_HOME/roundbench/pythons, else ~/.cache/roundbench/pythons), with
a manifest (manifest.json) that records, per interpreter, where it came
from, how it was built, its size and how long it took. A second call reuses
what is there; `--rebuild NAME` makes one again.

What it needs, and says in one line when it lacks: Linux, Debian (apt-get
and debootstrap), root (apt-get install, debootstrap), the network (Debian's
mirror, PyPI). Without them the suite runs with the interpreters it has.

`resolve("3.15")` maps a version to a provisioned interpreter's venv python,
as `--go 1.27` maps a Go release to its toolchain.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

ENV = "ROUNDBENCH_PYTHONS"
MANIFEST = "manifest.json"
TRIXIE_SOURCE = "python3.13"  # trixie's 3.13 source package (3.13.5)
SID_VERSIONS = ("3.14", "3.15")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# What CPython's configure needs for the modules people use (ssl, ctypes,
# sqlite3, lzma, bz2, readline, curses, uuid, dbm, pyexpat, zlib).
BUILD_PACKAGES = (
    "build-essential",
    "libssl-dev",
    "libffi-dev",
    "zlib1g-dev",
    "libbz2-dev",
    "liblzma-dev",
    "libsqlite3-dev",
    "libreadline-dev",
    "libncurses-dev",
    "uuid-dev",
    "libgdbm-dev",
    "libexpat1-dev",
    "xz-utils",
    "dpkg-dev",
    "debootstrap",
    "patchelf",
)
# The two builds of trixie's source: (name suffix, configure arguments).
BUILDS = (
    ("", ["--enable-optimizations", "--with-lto"]),
    ("t", ["--enable-optimizations", "--with-lto", "--disable-gil"]),
)
# The names of trixie's two builds, as --list prints them once made (the
# source package's version: TRIXIE_SOURCE is 3.13.5).
TRIXIE_NAMES = ("cpython-3.13.5", "cpython-3.13.5t")
# What --only and --rebuild take besides the names --list prints.
ALIASES = {
    "cpython-3.13": "both builds of CPython 3.13.5 (with the GIL, and free-threaded)",
    "cpython-3.14": "Debian unstable's root, which holds 3.14 and 3.15",
    "cpython-3.15": "the same root",
    "sid": "the same root",
    "all": "every one",
}
SID_ALIASES = ("cpython-3.14", "cpython-3.15", "sid")
# The PGO training run: CPython's own (-m test --pgo), failures re-run once.
PROFILE_TASK = "-m test --pgo --timeout=1200"
PROFILE_FAILED = "roundbench: the PGO training run had failing tests"
# Requirements the Python children do not need (the tools of make lint).
NOT_FOR_CHILDREN = {"black", "ruff", "import-linter"}
MULTIARCH = "x86_64-linux-gnu"
LOADER = "lib64/ld-linux-x86-64.so.2"
# A --python value that is a version, not a path: 3.15, 3.13.5, 3.13t.
VERSION_SPEC = re.compile(r"\d+\.\d+(\.\d+)?t?")


class Refused(Exception):
    """This machine cannot provision; the message is the one line that says why."""


class Failed(Exception):
    """A provisioning step failed; the message says which and why."""


@dataclass
class Interpreter:
    name: str  # cpython-3.13.5, cpython-3.13.5t, cpython-3.15.2
    version: str  # 3.13.5
    python: str  # the venv's python: what --python gets
    base: str  # the interpreter the venv was made from
    source: str  # where it came from, in words
    build: str  # how it was built, in words
    seconds: float  # how long getting and building it took
    bytes: int  # its size on disk (the root's share for sid's)
    made: str  # when (UTC, ISO 8601)
    free_threaded: bool = False
    missing_wheels: list = field(default_factory=list)  # requirements with no wheel for it

    @property
    def feature(self) -> str:
        return ".".join(self.version.split(".")[:2])


def cache_dir() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "roundbench" / "pythons"


def read_manifest(root: Optional[Path] = None) -> dict:
    """name -> Interpreter for what is provisioned (and still there)."""
    root = root or cache_dir()
    try:
        data = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    got = {}
    for entry in data.get("interpreters", []):
        try:
            interp = Interpreter(**entry)
        except TypeError:
            continue
        if os.access(interp.python, os.X_OK):
            got[interp.name] = interp
    return got


def _write_manifest(root: Path, interps: dict) -> None:
    body = {"interpreters": [asdict(i) for i in sorted(interps.values(), key=lambda i: i.name)]}
    tmp = root / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(body, indent=2) + "\n")
    os.replace(tmp, root / MANIFEST)


def _version_tuple(version: str) -> tuple:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def resolve(version: str, root: Optional[Path] = None) -> Optional[str]:
    """The venv python of the newest provisioned interpreter whose version
    starts with `version` ("3.15", "3.13.5", "3.13t" for the free-threaded
    one), or None. A trailing t asks for the free-threaded build, and only
    then is one chosen."""
    want_ft = version.endswith("t")
    prefix = version[:-1] if want_ft else version
    if not re.fullmatch(r"\d+(\.\d+){0,2}", prefix):
        return None
    best = None
    for interp in read_manifest(root).values():
        if interp.free_threaded != want_ft:
            continue
        if interp.version != prefix and not interp.version.startswith(prefix + "."):
            continue
        if best is None or _version_tuple(interp.version) > _version_tuple(best.version):
            best = interp
    return best.python if best else None


def newest(root: Optional[Path] = None) -> Optional[Interpreter]:
    """The newest provisioned interpreter with the GIL: the default verdict's."""
    interps = [i for i in read_manifest(root).values() if not i.free_threaded]
    return max(interps, key=lambda i: _version_tuple(i.version), default=None)


# -- the machine's checks ---------------------------------------------------


def refusal(
    platform: str = sys.platform,
    debian_version: Path = Path("/etc/debian_version"),
    euid: Callable[[], int] = os.geteuid,
    which: Callable[[str], Optional[str]] = shutil.which,
) -> Optional[str]:
    """Why this machine cannot provision, in one line, or None. (The network
    is checked by the first step that needs it: `_apt_update`.)"""
    goes_on = "the suite runs with the interpreters it has"
    if platform != "linux":
        return f"roundbench pythons: not Linux ({platform}): provisioning uses Debian's packages; {goes_on}"
    if not debian_version.exists() or which("apt-get") is None:
        return f"roundbench pythons: not Debian (no {debian_version} or no apt-get): {goes_on}"
    if euid() != 0:
        return (
            "roundbench pythons: needs root (apt-get install and debootstrap); run it as root (sudo make pythons): "
            + goes_on
        )
    return None


def no_network(detail: str) -> str:
    return f"roundbench pythons: no network: {detail}: the suite runs with the interpreters it has"


def mirror() -> str:
    """The Debian mirror the system's apt already uses (read, never changed)."""
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        try:
            text = path.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            m = re.match(r"\s*(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s*)?)(\S+/debian)/?\s", line + " ")
            if m and "security" not in m.group(1):
                return m.group(1)
    return DEFAULT_MIRROR


# -- steps ------------------------------------------------------------------


def _say(text: str) -> None:
    print(f"pythons: {text}", file=sys.stderr, flush=True)


def _run(cmd: list, what: str, cwd: Optional[Path] = None, log: Optional[Path] = None, env=None) -> str:
    """Runs a step; its output goes to `log` when given (the last lines are
    in the error when it fails)."""
    out = open(log, "w") if log else subprocess.PIPE
    try:
        done = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
    except OSError as e:
        raise Failed(f"{what}: cannot run {cmd[0]}: {e.strerror or e}") from None
    finally:
        if log:
            out.close()
    text = Path(log).read_text(errors="replace") if log else done.stdout
    if done.returncode != 0:
        tail = " / ".join(line.strip() for line in text.strip().splitlines()[-6:])
        where = f" (whole log: {log})" if log else ""
        raise Failed(f"{what} failed (exit status {done.returncode}){where}: {tail}")
    return text


def _apt_private(root: Path) -> list:
    """apt-get's options for the private configuration: trixie's sources
    only, lists under the cache; the system's sources are never read."""
    apt = root / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    signed = f"[signed-by={KEYRING}] " if Path(KEYRING).exists() else ""
    (apt / "sources.list").write_text(f"deb-src {signed}{mirror()} trixie main\n")
    return [
        "-o",
        f"Dir::Etc::sourcelist={apt / 'sources.list'}",
        "-o",
        "Dir::Etc::sourceparts=-",
        "-o",
        f"Dir::State::Lists={apt / 'lists'}",
    ]


def _apt_update(opts: list) -> None:
    try:
        _run(["apt-get", *opts, "update"], "apt-get update (trixie's sources, private lists)")
    except Failed as e:
        raise Refused(no_network(str(e))) from None


def _du(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _install_build_packages() -> None:
    missing = [p for p in BUILD_PACKAGES if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if not missing:
        return
    _say(f"installing {' '.join(missing)} (apt-get)")
    try:
        _run(["apt-get", "install", "-y", "-q", *missing], "apt-get install")
    except Failed:
        _run(["apt-get", "update", "-q"], "apt-get update")
        _run(["apt-get", "install", "-y", "-q", *missing], "apt-get install")


def _tarballs(src: Path) -> list:
    """The upstream tarballs apt-get source brought (not their signatures)."""
    return sorted(p for p in src.glob(f"{TRIXIE_SOURCE}_*.orig.tar.*") if not p.name.endswith(".asc"))


def _fetch_trixie_source(root: Path) -> tuple:
    """(upstream version, the unpacked upstream source folder)."""
    src = root / "src"
    src.mkdir(parents=True, exist_ok=True)
    tarballs = _tarballs(src)
    if not tarballs:
        opts = _apt_private(root)
        _say("apt-get update of trixie's source lists (private configuration)")
        _apt_update(opts)
        _say(f"apt-get source --download-only {TRIXIE_SOURCE} (trixie)")
        _run(["apt-get", *opts, "source", "--download-only", TRIXIE_SOURCE], "apt-get source", cwd=src)
        tarballs = _tarballs(src)
        if not tarballs:
            raise Failed(f"apt-get source brought no upstream tarball into {src}")
    tarball = tarballs[-1]
    version = re.match(rf"{TRIXIE_SOURCE}_([0-9.]+)\.orig", tarball.name).group(1)
    unpacked = src / f"Python-{version}"
    if not (unpacked / "configure").exists():
        _run(["tar", "-xf", str(tarball), "-C", str(src)], f"unpacking {tarball.name}")
    if not (unpacked / "configure").exists():
        raise Failed(f"{tarball.name} did not unpack to {unpacked}")
    return version, unpacked


def _profile_failures(make_log: Path) -> str:
    """What the PGO training run's log says about failed tests, in words
    ("" when every test passed)."""
    try:
        text = make_log.read_text(errors="replace")
    except OSError:
        return ""
    # make echoes the recipe (which holds the words too): the echo's own
    # output is the line that is nothing else.
    if not re.search(rf"^{re.escape(PROFILE_FAILED)}$", text, re.M):
        return ""
    failed = sorted(set(re.findall(r"^test (test_\w+) failed", text, re.M)))
    named = ", ".join(failed) if failed else "see make.log"
    return f" (training tests that failed, profile kept: {named})"


def _build_trixie(root: Path, version: str, source: Path, suffix: str, args: list) -> Interpreter:
    name = f"cpython-{version}{suffix}"
    prefix = root / name
    build = root / "build" / name
    if build.exists():
        shutil.rmtree(build)
    build.mkdir(parents=True)
    jobs = str(os.cpu_count() or 1)
    started = time.monotonic()
    _say(f"{name}: configure {' '.join(args)}, make -j{jobs} (PGO runs CPython's test profile; logs in {build})")
    _run(
        [str(source / "configure"), f"--prefix={prefix}", *args],
        f"{name}: configure",
        cwd=build,
        log=build / "configure.log",
    )
    # CPython 3.13's profile run fails the whole build on one failing test
    # (3.11's Makefile ended the task with `|| true`). One failing test does
    # not spoil the profile (test_generators failed in the training sequence
    # here, twice, and passes alone), so the failure is kept in the build's
    # words, not fatal.
    _run(
        ["make", f"-j{jobs}", f"PROFILE_TASK={PROFILE_TASK} || echo {PROFILE_FAILED}"],
        f"{name}: make",
        cwd=build,
        log=build / "make.log",
    )
    training = _profile_failures(build / "make.log")
    if prefix.exists():
        shutil.rmtree(prefix)
    _run(["make", "install"], f"{name}: make install", cwd=build, log=build / "install.log")
    feature = ".".join(version.split(".")[:2])
    base = prefix / "bin" / f"python{feature}{suffix}"
    if not os.access(base, os.X_OK):
        raise Failed(f"{name}: make install left no {base}")
    seconds = time.monotonic() - started
    shutil.rmtree(build)
    return Interpreter(
        name=name,
        version=version,
        python="",
        base=str(base),
        source=(
            f"Debian 13 (trixie) source package {TRIXIE_SOURCE}: the upstream CPython {version} tarball, "
            "built here (Debian's patches not applied)"
        ),
        build="configure "
        + " ".join(args)
        + f"; PGO trained by CPython's {PROFILE_TASK.split(' --timeout')[0]}"
        + training,
        seconds=round(seconds, 1),
        bytes=_du(prefix),
        made=_now(),
        free_threaded="--disable-gil" in args,
    )


# The name of the root's interpreter as it runs here: a copy of
# ROOT/usr/bin/python3.X beside it (so its prefix is the root's /usr) whose
# ELF interpreter and library path are the root's own (patchelf).
RELOCATED = "python{feature}-roundbench"


def _relocate(sid: Path, feature: str) -> Path:
    """A copy of the root's python3.X that the kernel starts with the root's
    loader and libraries: PT_INTERP set to the root's ld.so, DT_RPATH (which,
    unlike RUNPATH, serves every library loaded later too: the extension
    modules' libssl, libffi, ...) to the root's library folders. Nothing
    runs before the interpreter: no script, no chroot, no mount."""
    real = sid / "usr" / "bin" / f"python{feature}"
    out = real.with_name(RELOCATED.format(feature=feature))
    tmp = out.with_name(out.name + ".tmp")
    shutil.copy2(real, tmp)
    libs = ":".join(str(sid / d / MULTIARCH) for d in ("lib", "usr/lib"))
    _run(
        ["patchelf", "--set-interpreter", str(sid / LOADER), "--force-rpath", "--set-rpath", libs, str(tmp)],
        f"patchelf of python{feature}",
    )
    os.replace(tmp, out)
    return out


def _sid_root(root: Path, rebuild: bool) -> tuple:
    """(the root, seconds it took, bytes): debootstrap of sid with its
    CPython 3.14 and 3.15, made once."""
    sid = root / "sid"
    done = sid / ".complete"
    if done.exists() and not rebuild:
        data = json.loads(done.read_text())
        return sid, data["seconds"], data["bytes"]
    if sid.exists():
        _remove_root(sid)
    include = []
    for feature in SID_VERSIONS:
        include += [f"python{feature}", f"python{feature}-dev", f"python{feature}-venv"]
    started = time.monotonic()
    _say(f"debootstrap --variant=minbase sid {sid} ({mirror()}; {', '.join(include)})")
    log = root / "debootstrap.log"
    try:
        _run(
            ["debootstrap", "--variant=minbase", f"--include={','.join(include)}", "sid", str(sid), mirror()],
            "debootstrap sid",
            log=log,
        )
    except Failed as e:
        if "Failure trying to run" not in str(e) and ("resolve" in str(e) or "Couldn't download" in str(e)):
            raise Refused(no_network(str(e))) from None
        raise
    seconds = round(time.monotonic() - started, 1)
    size = _du(sid)
    done.write_text(json.dumps({"seconds": seconds, "bytes": size}))
    return sid, seconds, size


def _remove_root(sid: Path) -> None:
    """Removes a root, refusing while anything is mounted inside it (a bind
    mount of the checkout would be deleted with it)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().split("\n")
    except OSError:
        mounts = []
    inside = [m.split()[1] for m in mounts if len(m.split()) > 1 and m.split()[1].startswith(str(sid.resolve()) + "/")]
    if inside:
        raise Failed(f"{sid} has mounts inside it ({', '.join(inside)}): unmount them first; nothing was removed")
    shutil.rmtree(sid)


def _sid_interpreters(sid: Path, seconds: float, size: int) -> list:
    got = []
    for feature in SID_VERSIONS:
        real = sid / "usr" / "bin" / f"python{feature}"
        if not real.exists():
            _say(f"sid's root has no python{feature}: left out")
            continue
        exe = _relocate(sid, feature)
        version = _run(
            [str(exe), "-c", "import platform; print(platform.python_version())"], f"running sid's python{feature}"
        ).strip()
        package = (
            _run(["chroot", str(sid), "dpkg-query", "-W", "-f=${Version}", f"python{feature}"], "dpkg-query").strip()
            if os.geteuid() == 0
            else "?"
        )
        got.append(
            Interpreter(
                name=f"cpython-{version}",
                version=version,
                python="",
                base=str(exe),
                source=(
                    f"Debian unstable (sid) binary package python{feature} {package}, in a debootstrap root ({sid}), "
                    f"run as {exe.name}: a copy whose ELF interpreter and library path are the root's (patchelf)"
                ),
                build=(
                    "Debian's own build: its rules build the interpreter with PGO (the profile-opt target) and LTO "
                    "on amd64 and keep frame pointers; the binary is stripped, so its provenance cannot confirm "
                    "PGO and LTO"
                ),
                seconds=seconds,
                bytes=size,
                made=_now(),
            )
        )
    return got


def _requirements(checkout: Path) -> list:
    reqs = []
    for line in (checkout / "requirements-dev.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name = re.match(r"[A-Za-z0-9_.-]+", line).group(0).lower()
        if name not in NOT_FOR_CHILDREN:
            reqs.append(line)
    return reqs


def _make_venv(root: Path, interp: Interpreter, checkout: Path) -> Interpreter:
    venv = root / "venvs" / interp.name
    if venv.exists():
        shutil.rmtree(venv)
    started = time.monotonic()
    _say(f"{interp.name}: venv {venv}, the project's requirements from wheels")
    py = venv / "bin" / "python"
    wheels = sorted((Path(interp.base).parents[1] / "share" / "python-wheels").glob("pip-*.whl"))  # ROOT/usr/share
    if "unstable" in interp.source and wheels:
        # Debian's ensurepip takes pip from /usr/share/python-wheels, an
        # absolute path: the machine's, not the root's. The root's own pip
        # wheel bootstraps the venv instead.
        _run([interp.base, "-m", "venv", "--without-pip", str(venv)], f"{interp.name}: python -m venv")
        _run(
            [str(py), str(wheels[-1]) + "/pip", "install", "-q", "--disable-pip-version-check", str(wheels[-1])],
            f"{interp.name}: pip from the root's wheel",
        )
    else:
        _run([interp.base, "-m", "venv", str(venv)], f"{interp.name}: python -m venv")
    missing = _install_requirements(interp, py, checkout)
    interp.python = str(py)
    interp.missing_wheels = missing
    interp.seconds = round(interp.seconds + time.monotonic() - started, 1)
    interp.bytes += _du(venv)
    return interp


# Requirements that PyPI has as a source archive only, pure Python that
# builds anywhere: installed from it (Nuitka, round startup's py-nuitka).
FROM_SOURCE = {"nuitka"}


def _name(req: str) -> str:
    """A requirement's distribution name, lower case: 'nuitka==4.3.3' -> 'nuitka'."""
    return re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower().replace("_", "-")


# In each venv: the requirements it was last given, one a line.
REQUIREMENTS_STAMP = ".roundbench-requirements"


def _install_requirements(interp: Interpreter, py: Path, checkout: Path) -> list:
    """pip-installs the project's requirements from wheels into the venv of
    `py`, all at once, else one at a time; the ones that have no wheel for
    it (a skip row where a variant needs one), said in one line. Records
    what it was given in the venv (REQUIREMENTS_STAMP)."""
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--only-binary", ":all:"]
    reqs = _requirements(checkout)
    missing = []
    wheels = [r for r in reqs if _name(r) not in FROM_SOURCE]
    try:
        _run([*pip, *wheels], f"{interp.name}: pip install")
    except Failed:
        for req in wheels:  # one at a time: what has no wheel is left out, the rest installs
            try:
                _run([*pip, req], f"{interp.name}: pip install {req}")
            except Failed:
                missing.append(req)
    for req in reqs:
        if _name(req) in FROM_SOURCE:  # pure Python, published as a source archive only
            try:
                _run([*pip[:-2], req], f"{interp.name}: pip install {req} (from its source archive)")
            except Failed:
                missing.append(req)
    if missing:
        installed = _installed(py)
        for k, req in enumerate(missing):
            name = re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower().replace("_", "-")
            if name in installed:
                missing[k] = f"{req} ({name} {installed[name]} installed instead, for another requirement)"
        _say(f"{interp.name}: no wheel for {', '.join(missing)}: what is not installed at all is a skip row")
    (py.parents[1] / REQUIREMENTS_STAMP).write_text("".join(r + "\n" for r in _stamped(reqs)))
    return missing


def _stamped(reqs: list) -> list:
    """What a venv's REQUIREMENTS_STAMP holds: the requirements, and which
    of them come from source (a change of either installs again)."""
    return [*reqs, "# from source: " + " ".join(sorted(FROM_SOURCE))]


def _sync_venv(interp: Interpreter, checkout: Path) -> Interpreter:
    """A venv provisioned before requirements-dev.txt changed gets what it
    now asks for (a new library variant's package), so that a cached
    interpreter runs the same variants as a new one."""
    py = Path(interp.python)
    stamp = py.parents[1] / REQUIREMENTS_STAMP
    try:
        if stamp.read_text().splitlines() == _stamped(_requirements(checkout)):
            return interp
    except OSError:
        pass
    if not py.exists():
        return interp
    _say(f"{interp.name}: the project's requirements changed since its venv was made: installing them")
    interp.missing_wheels = _install_requirements(interp, py, checkout)
    return interp


def _installed(py: Path) -> dict:
    """name -> version of what pip installed in a venv."""
    try:
        listed = json.loads(
            _run([str(py), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"], "pip list")
        )
    except (Failed, ValueError):
        return {}
    return {p["name"].lower().replace("_", "-"): p["version"] for p in listed}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def valid_names(have: Optional[dict] = None) -> list:
    """What --only and --rebuild take: the names of what is provisioned
    (--list), of trixie's two builds, and the aliases."""
    have = read_manifest() if have is None else have
    return sorted(set(have) | set(TRIXIE_NAMES)) + list(ALIASES)


def check_names(option: str, given: Optional[list], have: Optional[dict] = None) -> None:
    """ValueError naming the first of `given` that is none of valid_names."""
    valid = valid_names(have)
    for name in given or ():
        if name not in valid:
            raise ValueError(
                f"{option} {name!r}: not a Python this provisions; want one of {', '.join(valid)} "
                "(roundbench pythons --help says what each alias stands for)"
            )


def _wants_trixie(only: Optional[list], free_threaded: bool) -> bool:
    """Whether --only asks for trixie's build with (or without) the GIL."""
    if not only or "all" in only or "cpython-3.13" in only:
        return True
    return any(o.startswith("cpython-3.13.") and o.endswith("t") == free_threaded for o in only)


def _wants_sid(only: Optional[list], sid_names: list) -> bool:
    """Whether --only asks for Debian unstable's root (3.14 and 3.15)."""
    if not only or "all" in only:
        return True
    return any(o in SID_ALIASES or o in sid_names for o in only)


def provision(checkout: Path, only: Optional[list] = None, rebuild: Optional[list] = None) -> dict:
    """Provisions what is missing (or named in `rebuild`); the manifest."""
    why = refusal()
    if why:
        raise Refused(why)
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    # One provisioner at a time: each rewrites the manifest it read.
    with open(root / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"waiting for another roundbench pythons ({root / '.lock'})")
            fcntl.flock(lock, fcntl.LOCK_EX)
        return _provision(root, checkout, only, rebuild)


def _provision(root: Path, checkout: Path, only: Optional[list], rebuild: Optional[list]) -> dict:
    rebuild = set(rebuild or [])
    have = read_manifest(root)
    _install_build_packages()
    # trixie's 3.13, each build asked for
    builds = [(suffix, args) for suffix, args in BUILDS if _wants_trixie(only, suffix == "t")]
    if builds:
        version, source = None, None
        for suffix, args in builds:
            names = [n for n in have if n.startswith("cpython-3.13.") and n.endswith("t") == (suffix == "t")]
            name = names[0] if names else None
            again = name in rebuild or "all" in rebuild or "cpython-3.13" in rebuild
            if name and not again:
                _say(f"{name}: provisioned already ({have[name].python}); --rebuild {name} makes it again")
                have[name] = _sync_venv(have[name], checkout)
                continue
            if version is None:
                version, source = _fetch_trixie_source(root)
            interp = _build_trixie(root, version, source, suffix, args)
            have[interp.name] = _make_venv(root, interp, checkout)
            _write_manifest(root, have)
            _say(f"{interp.name}: {interp.seconds / 60:.1f} min, {interp.bytes / 2**20:.0f} MiB")
    # sid's 3.14 and 3.15
    sid_names = [n for n, i in have.items() if "unstable" in i.source]
    if _wants_sid(only, sid_names):
        again = bool(rebuild & (set(sid_names) | set(SID_ALIASES))) or "all" in rebuild
        if sid_names and not again and len(sid_names) == len(SID_VERSIONS):
            for n in sid_names:
                _say(f"{n}: provisioned already ({have[n].python}); --rebuild sid makes the root again")
                have[n] = _sync_venv(have[n], checkout)
        else:
            sid, seconds, size = _sid_root(root, again)
            for interp in _sid_interpreters(sid, seconds, size):
                have[interp.name] = _make_venv(root, interp, checkout)
                _write_manifest(root, have)
                _say(
                    f"{interp.name}: {interp.seconds / 60:.1f} min (the root's {size / 2**20:.0f} MiB shared), "
                    f"{interp.bytes / 2**20:.0f} MiB with its venv"
                )
    _write_manifest(root, have)
    return have
