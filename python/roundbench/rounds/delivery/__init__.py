"""Round delivery: what it costs to ship each program, as facts.

Not timings with error bars but a table of facts, each measured here:
- the size (as built and stripped) of the C and Go programs of round
  startup, and whether each is static or dynamic, read from the ELF file
  itself (binfmt: PT_INTERP and DT_NEEDED);
- cross-compilation of the Go hello, of the Go program that calls the
  core and of the Go package itself, for linux/arm64, windows/amd64 and
  darwin/arm64, cgo off and on: each cell is the output's format and
  architecture read from its header (a package's is its Go archive), or
  the build's first error line (a cgo build without a cross C toolchain
  fails: that is a finding, recorded, not a failure of the round; so does
  the program that calls the core with cgo off);
- clean and incremental build times (one source file edited) of the C
  core, the Go package and the Python extension;
- the wheel `pip wheel .` builds: its size and the shared libraries its
  extension modules need at run time;
- round startup's Python hello-world compiled by Nuitka for the children's
  interpreter, beside Go's hello: the builds' wall time (as recorded when
  they were built, before the runs: runtimes/nuitkabuild.py), the
  standalone folder's size and file count, the onefile program's size, and
  how each program links (binfmt). A onefile build that fails is a finding,
  recorded with its message; the standalone one is what the variant needs.

Each variant is one child (this module, run by the Python child runner)
that works in a temporary copy of the source tree, so build/ and the
checkout are never touched; it prints `fact: KEY JSON` lines, which the
runner keeps in the result file (Round.facts: one run per cell), and a
result line with the numeric facts. Variant names say whose delivery it is:
c (the C programs and the core), go (the Go hello), go-c (the Go program
using the core, and the Go package), py-c (the extension and the wheel),
py-nuitka (Python compiled by Nuitka).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Callable, Optional

from ...measure import harness
from ...runtimes import nuitkabuild, programs
from . import binfmt
from .. import Round, Variant

CROSS_TARGETS = [("linux", "arm64"), ("windows", "amd64"), ("darwin", "arm64")]
CROSS_FORMAT = {"linux": "ELF", "windows": "PE", "darwin": "Mach-O"}
CROSS_ARCH = {"arm64": "arm64", "amd64": "x86-64"}
BUILD_TIMEOUT_S = 600


def _source() -> Callable:
    def check() -> Optional[str]:
        return (
            None
            if programs.checkout() is not None
            else "needs the source checkout (it builds from csrc/, go/ and setup.py)"
        )

    return check


def _nuitka_built(exe: Optional[str] = None) -> Optional[str]:
    """py-nuitka's `requires`: Nuitka's standalone build of round startup's
    hello-world for the children's interpreter (built here where it is
    missing or stale: nuitkabuild.ensure), and its onefile build tried too,
    whose failure is the child's to report, as a finding."""
    why = nuitkabuild.ensure(nuitkabuild.STANDALONE, exe)
    if why:
        return why
    nuitkabuild.ensure(nuitkabuild.ONEFILE, exe)
    return None


ROUND = Round(
    name="delivery",
    threads="many",  # build times: the compilers use every CPU they are given
    title="delivery: what shipping each program costs",
    explain=(
        "Facts, measured here: binary sizes and linkage read from the ELF files, Go cross-compilation "
        "results read from the outputs' headers, clean and incremental build times, the wheel."
    ),
    variants=[
        Variant("c", "python", "the C hello programs; the C core's build", requires=_source()),
        Variant("go", "python", "the Go hello programs; their cross-compilation", requires=_source()),
        Variant(
            "go-c",
            "python",
            "the Go program that calls the core; its cross-compilation; the Go package's build",
            requires=_source(),
        ),
        Variant("py-c", "python", "the Python extension's build; the wheel", requires=_source()),
        Variant(
            "py-nuitka",
            "python",
            "a Python hello-world compiled by Nuitka: the standalone folder and the onefile program, "
            "their builds, sizes and linkage",
            requires=_nuitka_built,
            level="ecosystem",
        ),
    ],
    sizes=[{}],
    quick=[{}],
    metric="ns/op",
    order=6,
    units={
        "clean-s": "lower",
        "incremental-s": "lower",
        "cross-ok": "higher",
        "wheel-B": "lower",
        "dist-B": "lower",
        "dist-files": "lower",
        "onefile-B": "lower",
        "onefile-clean-s": "lower",
    },
    metric_explain="ns/op: how long the child took to gather its facts",
    reference="c",
    cross_check=False,
    facts=True,
)


def _fact(key: str, value: dict) -> None:
    # The result file's --- FACT: line ends its key at the first space.
    if not key or any(ch.isspace() for ch in key):
        raise ValueError(f"a fact's key has no spaces: {key!r}")
    print(f"fact: {key} {json.dumps(value, sort_keys=True)}", flush=True)


def first_error(text: str) -> str:
    """The first line of a failed build's output that says what failed (go
    prints `# package` headers first)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # Prefer a line that says error: gcc and the assembler print context first.
    for ln in lines:
        if "error" in ln.lower() and not ln.startswith("#"):
            return ln[:240]
    for ln in lines:
        if not ln.startswith("#"):
            return ln[:240]
    return lines[0][:240] if lines else "(no output)"


def _clean_env(**extra: str) -> dict:
    env = dict(os.environ)
    # A make that started the suite must not hand its jobserver to ours.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    env.update(extra)
    return env


def _run(cmd: list, cwd: Path, env: Optional[dict] = None) -> float:
    """Runs a build step of the project itself; returns its wall seconds.
    A step that fails is a failure of the round (the project must build)."""
    t0 = time.perf_counter_ns()
    p = subprocess.run(cmd, cwd=cwd, env=env or _clean_env(), capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    t = (time.perf_counter_ns() - t0) / 1e9
    if p.returncode != 0:
        raise RuntimeError(f"`{' '.join(map(str, cmd))}` failed: {first_error(p.stderr + p.stdout)}")
    return t


def copy_source(dst: Path) -> Path:
    """A copy of the checkout's sources (no build outputs) to build in."""
    root = programs.checkout()
    if root is None:
        raise harness.CannotRun("needs the source checkout")
    # The virtual environment stays out (it is large, and without its .so
    # files it would be broken): builds in the copy use the checkout's own
    # (make VENV=..., _venv_arg).
    anywhere = shutil.ignore_patterns(
        ".git", "__pycache__", "*.so", "*.o", "*.egg-info", ".pytest_cache", "_cffi_api.c"
    )
    at_root = {".venv", "build", "results", "dist"}  # outputs at the root (python/roundbench/results is code)

    def ignore(folder, names):
        skipped = set(anywhere(folder, names))
        return skipped | (at_root & set(names)) if Path(folder) == root else skipped

    shutil.copytree(root, dst, symlinks=True, ignore=ignore)
    return dst


def _venv_arg() -> list:
    """`VENV=<the checkout's venv>` for a make run in the copy, when there is
    one: the Makefile's BLAS link and Python steps run its interpreter."""
    root = programs.checkout()
    venv = root / ".venv" if root is not None else None
    return [f"VENV={venv}"] if venv is not None and (venv / "bin" / "python").exists() else []


def _edit(path: Path, comment: str) -> None:
    """An edit that changes the file's bytes and time but not its meaning
    (Go's build cache keys on content, so touch alone would rebuild nothing)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"\n{comment}\n")


def stripped_size(path: Path, tmp: Path) -> Optional[int]:
    strip = shutil.which("strip")
    if strip is None:
        return None
    out = tmp / (path.name + ".stripped")
    subprocess.run([strip, "-o", str(out), str(path)], check=True, capture_output=True, timeout=60)
    return out.stat().st_size


def program_fact(name: str, want_linkage: str, tmp: Path) -> dict:
    """Size, stripped size and linkage of build/<name>, checked against how
    the Makefile links it."""
    path = programs.path(name)
    why = programs.missing(name)
    if why:
        raise harness.CannotRun(why)
    info = binfmt.read(path)
    harness.check(f"{name} linkage", info.linkage, want_linkage)
    size = path.stat().st_size
    stripped = stripped_size(path, tmp)
    if stripped is not None and stripped > size:
        raise harness.WrongResult(f"{name} stripped size", stripped, f"at most {size}")
    value = {
        "size": size,
        "stripped": stripped,
        "format": info.format,
        "arch": info.arch,
        "linkage": info.linkage,
        "interp": info.interp,
        "needed": info.needed,
    }
    _fact(f"program:{name}", value)
    return value


def go_archive_target(path: Path) -> Optional[tuple]:
    """(GOOS, GOARCH) from the header of the Go archive that `go build -o`
    writes for a package that is not a program, or None for anything else."""
    with open(path, "rb") as f:
        head = f.read(512)
    if not head.startswith(b"!<arch>\n"):
        return None
    for line in head.split(b"\n"):
        if line.startswith(b"go object "):
            fields = line.decode("ascii", "replace").split()
            return (fields[2], fields[3]) if len(fields) >= 4 else None
    return None


def cross_cell(go: str, pkg: str, goos: str, goarch: str, cgo: int, src: Path, out_dir: Path) -> dict:
    """One cross-compilation: success with the output's format and
    architecture read from its header, or the build's first error line. A
    failed build is a finding, never an exception."""
    name = f"{pkg.rstrip('/').rsplit('/', 1)[-1]}-{goos}-{goarch}-cgo{cgo}" + (".exe" if goos == "windows" else "")
    out = out_dir / name
    env = _clean_env(GOOS=goos, GOARCH=goarch, CGO_ENABLED=str(cgo))
    t0 = time.perf_counter_ns()
    try:
        p = subprocess.run(
            [go, "build", "-o", str(out), pkg],
            cwd=src,
            env=env,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {BUILD_TIMEOUT_S} s"}
    secs = (time.perf_counter_ns() - t0) / 1e9
    if p.returncode != 0:
        # Paths inside the temporary copy read better relative to it.
        text = (p.stderr + p.stdout).replace(str(src) + os.sep, "")
        return {"ok": False, "error": first_error(text), "s": round(secs, 2)}
    target = go_archive_target(out)
    if target is not None:  # a package, not a program
        harness.check(f"{name} target", target, (goos, goarch))
        arch = CROSS_ARCH.get(goarch, goarch)
        return {
            "ok": True,
            "format": "Go archive",
            "arch": arch,
            "bits": None,
            "linkage": None,
            "size": out.stat().st_size,
            "s": round(secs, 2),
        }
    info = binfmt.read(out)
    # A build that succeeds must have made what was asked for.
    harness.check(f"{name} format", info.format, CROSS_FORMAT.get(goos, info.format))
    harness.check(f"{name} arch", info.arch, CROSS_ARCH.get(goarch, info.arch))
    return {
        "ok": True,
        "format": info.format,
        "arch": info.arch,
        "bits": info.bits,
        "linkage": info.linkage if info.format == "ELF" else None,
        "size": out.stat().st_size,
        "s": round(secs, 2),
    }


def _cross_all(program: str, pkg: str, src: Path, tmp: Path) -> int:
    go = shutil.which("go")
    if go is None:
        raise harness.CannotRun("command go is not on PATH")
    out_dir = tmp / "cross"
    out_dir.mkdir(exist_ok=True)
    ok = 0
    for goos, goarch in CROSS_TARGETS:
        for cgo in (0, 1):
            cell = cross_cell(go, pkg, goos, goarch, cgo, src, out_dir)
            ok += cell["ok"]
            _fact(f"cross:{program}:{goos}/{goarch}:cgo={cgo}", cell)
    return ok


def _emit(args: harness.Args, t0: int, metrics: dict) -> None:
    harness.result(f"{args.impl}-facts")
    harness.emit(args, 1, time.perf_counter_ns() - t0, metrics)


@harness.implements("delivery", "c", units=["clean-s", "incremental-s"])
def run_c(args: harness.Args) -> None:
    t0 = time.perf_counter_ns()
    with tempfile.TemporaryDirectory(prefix="rb-delivery-") as d:
        tmp = Path(d)
        program_fact("hello-c", "dynamic", tmp)
        program_fact("hello-c-static", "static", tmp)
        src = copy_source(tmp / "src")
        targets = ["build/libroundbench.a", "build/libroundbench.so"]
        # The suite's own build flags: TUNE=1 when it runs tuned (Makefile).
        tune = ["TUNE=1"] if os.environ.get("ROUNDBENCH_TUNE") == "1" else []
        make = ["make", "--no-print-directory", *_venv_arg(), *tune, *targets]
        clean = _run(make, src)
        lib = src / "build" / "libroundbench.a"
        before = lib.stat().st_mtime_ns
        _edit(src / "csrc" / "loop.c", "/* delivery round: an edit */")
        incr = _run(make, src)
        if lib.stat().st_mtime_ns == before:
            raise harness.WrongResult("libroundbench.a rebuilt after editing csrc/loop.c", False, True)
        _fact(
            "build:c-core",
            {
                "what": "the C core: make build/libroundbench.a build/libroundbench.so (serial)",
                "edited": "csrc/loop.c",
                "clean_s": round(clean, 3),
                "incremental_s": round(incr, 3),
            },
        )
    _emit(args, t0, {"clean-s": clean, "incremental-s": incr})


@harness.implements("delivery", "go", units=["cross-ok"])
def run_go(args: harness.Args) -> None:
    t0 = time.perf_counter_ns()
    with tempfile.TemporaryDirectory(prefix="rb-delivery-") as d:
        tmp = Path(d)
        program_fact("hello-go", "static", tmp)
        program_fact("hello-go-cgo", "dynamic", tmp)
        src = copy_source(tmp / "src")
        ok = _cross_all("hello-go", "./go/cmd/rb-hello", src, tmp)
        _pgo_build_times(src, tmp)
    _emit(args, t0, {"cross-ok": ok})


# What profile-guided optimisation costs at build time: the jsonl round's Go
# runner (its pure Go variants, cgo off), built clean without a profile and
# with the profile its go-pgo twin is built with.
PGO_RUNNER = "jsonl"


def _pgo_build_times(src: Path, tmp: Path) -> None:
    """Facts build:go-runner-<round> and build:go-runner-<round>-pgo: the
    round's Go runner built with an empty build cache (so the standard
    library's packages are compiled too: PGO recompiles them with the
    profile) and again after an edit, without a profile and with it."""
    go = shutil.which("go")
    profile = src / "go" / "pgo" / f"{PGO_RUNNER}.pgo"
    if go is None or not profile.is_file():
        return
    pkg = f"./go/cmd/rb-go/{PGO_RUNNER}"
    for suffix, pgo, what in (
        ("", "off", "no profile (-pgo=off)"),
        ("-pgo", str(profile), f"PGO with go/pgo/{PGO_RUNNER}.pgo"),
    ):
        env = _clean_env(GOCACHE=str(tmp / f"gocache{suffix}"), CGO_ENABLED="0")
        build = [go, "build", f"-pgo={pgo}", "-o", str(tmp / f"rb-go-{PGO_RUNNER}{suffix}"), pkg]
        clean = _run(build, src, env)
        _edit(src / "go" / "cmd" / "rb-go" / PGO_RUNNER / f"{PGO_RUNNER}.go", f"// delivery round: an edit{suffix}")
        incr = _run(build, src, env)
        _fact(
            f"build:go-runner-{PGO_RUNNER}{suffix}",
            {
                "what": f"round {PGO_RUNNER}'s Go runner, cgo off, {what}, empty GOCACHE",
                "edited": f"go/cmd/rb-go/{PGO_RUNNER}/{PGO_RUNNER}.go",
                "clean_s": round(clean, 3),
                "incremental_s": round(incr, 3),
            },
        )


@harness.implements("delivery", "go-c", units=["clean-s", "incremental-s", "cross-ok"])
def run_go_c(args: harness.Args) -> None:
    t0 = time.perf_counter_ns()
    go = shutil.which("go")
    if go is None:
        raise harness.CannotRun("command go is not on PATH")
    with tempfile.TemporaryDirectory(prefix="rb-delivery-") as d:
        tmp = Path(d)
        program_fact("hello-go-c", "dynamic", tmp)
        src = copy_source(tmp / "src")
        ok = _cross_all("hello-go-c", "./go/cmd/rb-hello-core", src, tmp)
        # The package alone: with cgo off it is its pure variants, what a Go
        # user without a C toolchain for the target can build.
        ok += _cross_all("roundbench/go", "./go", src, tmp)
        # Clean: an empty build cache, so the standard library packages the
        # package imports (runtime/cgo included) are compiled too: what a
        # first build on a new machine or in CI pays.
        env = _clean_env(GOCACHE=str(tmp / "gocache"), CGO_ENABLED="1")
        build = [go, "build", "./go"]
        clean = _run(build, src, env)
        _edit(src / "go" / "loop.go", "// delivery round: an edit")
        incr = _run(build, src, env)
        _fact(
            "build:go-package",
            {
                "what": "the Go package (cgo, the core compiled in): go build ./go, empty GOCACHE",
                "edited": "go/loop.go",
                "clean_s": round(clean, 3),
                "incremental_s": round(incr, 3),
            },
        )
    _emit(args, t0, {"clean-s": clean, "incremental-s": incr, "cross-ok": ok})


@harness.implements("delivery", "py-c", units=["clean-s", "incremental-s", "wheel-B"])
def run_py_c(args: harness.Args) -> None:
    t0 = time.perf_counter_ns()
    with tempfile.TemporaryDirectory(prefix="rb-delivery-") as d:
        tmp = Path(d)
        src = copy_source(tmp / "src")
        build = [
            sys.executable,
            "setup.py",
            "-q",
            "build_ext",
            "--build-lib",
            str(tmp / "lib"),
            "--build-temp",
            str(tmp / "temp"),
        ]
        clean = _run(build, src)
        _edit(src / "csrc" / "loop.c", "/* delivery round: an edit */")
        incr = _run(build, src)
        _fact(
            "build:py-extension",
            {
                "what": "the Python extension: setup.py build_ext (the core compiled in)",
                "edited": "csrc/loop.c",
                "clean_s": round(clean, 3),
                "incremental_s": round(incr, 3),
            },
        )
        wheel_dir = tmp / "wheel"
        wheel_s = _run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                ".",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "--disable-pip-version-check",
                "-w",
                str(wheel_dir),
            ],
            src,
        )
        wheels = sorted(wheel_dir.glob("roundbench-*.whl"))
        harness.check("wheels built", len(wheels), 1)
        whl = wheels[0]
        libs = {}
        with zipfile.ZipFile(whl) as z:
            for member in z.namelist():
                if member.endswith(".so"):
                    path = Path(z.extract(member, tmp / "unpacked"))
                    info = binfmt.read(path)
                    libs[member] = {"needed": info.needed, "arch": info.arch, "linkage": info.linkage}
        if not any(m.startswith("roundbench/_core") for m in libs):
            raise harness.WrongResult("extension roundbench._core in the wheel", sorted(libs), "roundbench/_core*.so")
        size = whl.stat().st_size
        _fact("wheel", {"file": whl.name, "size": size, "build_s": round(wheel_s, 3), "modules": libs})
    _emit(args, t0, {"clean-s": clean, "incremental-s": incr, "wheel-B": size})


def _nuitka_output(rec: dict) -> dict:
    """What one of Nuitka's builds made, checked: it prints what round
    startup's launcher wants, and its headers are read."""
    path = Path(rec["path"])
    out = subprocess.run([str(path)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    harness.check(f"{path.name} ({rec['mode']}) exit status", out.returncode, 0)
    harness.check(f"{path.name} ({rec['mode']}) output", out.stdout, "hello, world\n")
    info = binfmt.read(path)
    value = {
        "ok": True,
        "version": rec.get("version"),
        "interpreter": rec.get("interpreter"),
        "command": rec.get("command"),
        "cpus": rec.get("cpus"),
        "build_s": round(rec["build_ns"] / 1e9, 2),
        "size": rec["size"],
        "files": rec["files"],
        "program_size": path.stat().st_size,
        "format": info.format,
        "arch": info.arch,
        "linkage": info.linkage,
        "interp": info.interp,
        "needed": info.needed,
    }
    if "compressed" in rec:
        value["compressed"] = rec["compressed"]
    return value


@harness.implements("delivery", "py-nuitka", units=["clean-s", "dist-B", "dist-files", "onefile-B", "onefile-clean-s"])
def run_py_nuitka(args: harness.Args) -> None:
    t0 = time.perf_counter_ns()
    try:
        standalone = _nuitka_output(nuitkabuild.record(nuitkabuild.STANDALONE))
    except nuitkabuild.NotBuilt as e:
        raise harness.CannotRun(str(e)) from None
    _fact("nuitka:standalone", standalone)
    metrics = {"clean-s": standalone["build_s"], "dist-B": standalone["size"], "dist-files": standalone["files"]}
    try:
        onefile = _nuitka_output(nuitkabuild.record(nuitkabuild.ONEFILE))
    except nuitkabuild.NotBuilt as e:
        _fact("nuitka:onefile", {"ok": False, "error": str(e)})
    else:
        _fact("nuitka:onefile", onefile)
        metrics.update({"onefile-B": onefile["size"], "onefile-clean-s": onefile["build_s"]})
    _emit(args, t0, metrics)


# --- the report --------------------------------------------------------------


def _mib(b) -> str:
    if b is None:
        return "—"
    return f"{b / 1024 / 1024:.2f} MiB" if b >= 1024 * 1024 else f"{b / 1024:.1f} KiB"


def _facts(cells: dict) -> dict:
    out = {}
    for c in cells.values():
        for k, v in c.facts.items():
            try:
                out[k] = json.loads(v)
            except ValueError:
                out[k] = {"error": f"unreadable fact: {v[:80]}"}
    return out


NUITKA_LABELS = {
    nuitkabuild.STANDALONE: "py-nuitka: `--standalone`, the folder",
    nuitkabuild.ONEFILE: "py-nuitka-onefile: `--onefile`",
}


def _nuitka_table(facts: dict) -> list:
    """Nuitka's builds of round startup's hello-world, with Go's static
    hello beside them where the go variant ran."""
    rows = [(m, facts[f"nuitka:{m}"]) for m in nuitkabuild.MODES if f"nuitka:{m}" in facts]
    if not rows:
        return []
    made = next((v for _, v in rows if v.get("ok")), {})
    w = [
        f"Round startup's Python hello-world compiled by Nuitka {made.get('version', '?')} for "
        f"{made.get('interpreter', '?')}, beside Go's. Each build ran once, from an empty Nuitka cache on "
        f"{made.get('cpus', '?')} CPUs, before the runs that needed it (it is rebuilt when the source or "
        "Nuitka's version changes); the size is what ships: the whole folder for standalone, the one "
        "file for onefile (which unpacks that folder at every start). Linkage of the program itself, "
        "from its ELF file.\n",
        "| program | build | size | files | format | linkage | needed libraries |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, v in rows:
        label = NUITKA_LABELS.get(mode, mode)
        if not v.get("ok"):
            error = str(v.get("error", "?")).replace("|", "/").replace("`", "'")
            w.append(f"| {label} | fails: `{error}` | — | — | — | — | — |")
            continue
        packed = ""
        if "compressed" in v:
            packed = ", zstd-compressed" if v["compressed"] else ", uncompressed"
        w.append(
            f"| {label} | {v.get('build_s', 0):.1f} s | {_mib(v.get('size'))}{packed} | {v.get('files')} | "
            f"{v.get('format')} {v.get('arch')} | {v.get('linkage')} | {', '.join(v.get('needed') or []) or '—'} |"
        )
    go = facts.get("program:hello-go")
    if go:
        w.append(
            f"| go: hello-go, `CGO_ENABLED=0` | — | {_mib(go.get('size'))} | 1 | {go.get('format')} {go.get('arch')} | "
            f"{go.get('linkage')} | {', '.join(go.get('needed') or []) or '—'} |"
        )
    w.append("")
    return w


def report_section(size: dict, cells: dict, config: dict) -> str:
    facts = _facts(cells)
    w = []
    progs = [(k.split(":", 1)[1], v) for k, v in facts.items() if k.startswith("program:")]
    if progs:
        w.append(
            "Programs of round startup, as built in build/ (linkage from the ELF file: "
            "program interpreter and needed libraries):\n"
        )
        w.append("| program | size | stripped | format | linkage | interpreter | needed libraries |")
        w.append("|---|---|---|---|---|---|---|")
        for name, v in progs:
            w.append(
                f"| {name} | {_mib(v.get('size'))} | {_mib(v.get('stripped'))} | "
                f"{v.get('format')} {v.get('arch')} | "
                f"{v.get('linkage')} | {v.get('interp') or '—'} | {', '.join(v.get('needed') or []) or '—'} |"
            )
        w.append("")
    w.extend(_nuitka_table(facts))
    cross = [(k.split(":")[1:], v) for k, v in facts.items() if k.startswith("cross:")]
    if cross:
        w.append(
            "Go cross-compilation (`GOOS`/`GOARCH`, `CGO_ENABLED`): the output's format and architecture "
            "read from its header, or the build's first error line. A cgo build needs a C cross toolchain "
            "for the target; without one it fails, and that is the finding.\n"
        )
        w.append("| program | target | cgo off | cgo on |")
        w.append("|---|---|---|---|")
        rows: dict = {}
        for key, v in cross:
            if len(key) != 3:
                continue  # not a cross fact of this format; the raw facts keep it
            prog, target, cgo = key
            rows.setdefault((prog, target), {})[cgo] = v

        def cell(v) -> str:
            if v is None:
                return "—"
            if v.get("ok"):
                return f"ok: {v['format']} {v['arch']}, {_mib(v.get('size'))}"
            return "fails: `" + v.get("error", "?").replace("|", "/").replace("`", "'") + "`"

        for (prog, target), by in rows.items():
            w.append(f"| {prog} | {target} | {cell(by.get('cgo=0'))} | {cell(by.get('cgo=1'))} |")
        w.append("")
    builds = [v for k, v in facts.items() if k.startswith("build:")]
    if builds:
        w.append(
            "Build times in a temporary copy of the sources, serial, on this machine (one build each: "
            "compare within the table); incremental: after appending a comment to one file.\n"
        )
        w.append("| what | clean | incremental | file edited |")
        w.append("|---|---|---|---|")
        for v in builds:
            w.append(
                f"| {v.get('what')} | {v.get('clean_s', 0):.2f} s | {v.get('incremental_s', 0):.2f} s | "
                f"{v.get('edited')} |"
            )
        w.append("")
    wheel = facts.get("wheel")
    if wheel:
        w.append(
            f"Wheel from `pip wheel . --no-deps --no-build-isolation`: `{wheel.get('file')}`, "
            f"{_mib(wheel.get('size'))}, built in {wheel.get('build_s', 0):.2f} s. Its extension modules "
            "and the shared libraries they need at run time (DT_NEEDED):\n"
        )
        for mod, v in (wheel.get("modules") or {}).items():
            w.append(
                f"- `{mod}`: {v.get('linkage')}, {v.get('arch')}; needs "
                f"{', '.join(v.get('needed') or []) or 'nothing beyond the interpreter'}"
            )
        w.append("")
    if not w:
        w.append("No delivery facts were recorded.\n")
    return "\n".join(w)
