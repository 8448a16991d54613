"""What a reader needs to judge a result file: the machine, the builds, the
runtimes and their settings, and the unfair conditions found (a debug
Python, a tracer attached, a busy machine, tuned flags on one side...).
Each item becomes one `key: value` configuration line."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from . import programs, rounds


def _run(cmd, timeout=20) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable ({e.__class__.__name__})"
    text = (out.stdout or out.stderr).strip()
    return text if out.returncode == 0 else f"unavailable (exit {out.returncode}: {text[:120]})"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def tracer_pid() -> int:
    """Non-zero when a debugger or tracer is attached to this process."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def perf_instructions() -> str:
    """Whether `perf stat` counts instructions here: 'yes', or why not."""
    if not shutil.which("perf"):
        return "no: perf is not installed"
    out = _run(["perf", "stat", "-x,", "-e", "instructions", "true"])
    if "not supported" in out or "not counted" in out or out.startswith("unavailable"):
        return "no: perf stat reports instructions as not supported on this machine"
    return "yes"


def go_build_settings(binary: Path) -> dict:
    """`go version -m` of a Go program: toolchain, GOAMD64, -race, flags."""
    info = {}
    if not binary.exists() or not shutil.which("go"):
        return info
    text = _run(["go", "version", "-m", str(binary)])
    for line in text.splitlines():
        parts = line.strip().split("\t")
        if line.startswith(str(binary)) or (parts and parts[0].endswith(": go1")):
            info["go"] = line.split(":", 1)[-1].strip()
        elif parts and parts[0] == "build" and len(parts) > 1:
            k, _, v = parts[1].partition("=")
            info[k] = v
    return info


def go_module_versions(binary: Path) -> dict:
    """The modules a Go program was built with, path -> version, from the
    `dep` lines of `go version -m` (a `=>` replacement's version wins)."""
    mods = {}
    if not binary.exists() or not shutil.which("go"):
        return mods
    for line in _run(["go", "version", "-m", str(binary)]).splitlines():
        parts = line.strip().split("\t")
        if len(parts) >= 3 and parts[0] in ("dep", "=>"):
            if parts[0] == "dep":
                last = parts[1]
                mods[last] = parts[2]
            elif mods:
                mods[last] = f"{parts[2]} (replaced by {parts[1]})"
    return mods


def collect(selected_rounds, runs, quick: bool, placement=None) -> tuple:
    """Returns (items, warnings): the provenance lines in order, and the
    fairness warnings found."""
    items = {}
    warnings = []
    items["goos"] = sys.platform
    items["goarch"] = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    items["pkg"] = "roundbench"
    items["cpu"] = cpu_model()
    ncpu = os.cpu_count() or 1
    items["cores"] = f"{ncpu} online, {len(os.sched_getaffinity(0))} usable by this process"
    items["kernel"] = f"{platform.system()} {platform.release()} {platform.version()}"
    load = os.getloadavg()
    items["loadavg"] = " ".join(f"{x:.2f}" for x in load)
    items["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    root = rounds.repo_root()
    if root is not None and shutil.which("git"):
        rev = _run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"])
        dirty = _run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
        items["roundbench-commit"] = rev + (
            " (with uncommitted changes)" if dirty and not dirty.startswith("unavailable") else ""
        )

    # C
    rbc = rounds.program_path("rb-c")
    c_info = _run([str(rbc), "--info"]) if rbc.exists() else "not built"
    items["c-build"] = c_info
    # Go: every Go runner is built by the same rule (the Makefile's, or one
    # build per runner into an installed package's cache), so one speaks
    # for all: the loop round's, the one every suite has.
    go_runner = programs.go_runner("loop")
    go = go_build_settings(rounds.program_path(go_runner))
    items["go-version"] = go.get("go", _run(["go", "version"]) if shutil.which("go") else "not installed")
    flags = [
        f"{k}={go[k]}"
        for k in ("-compiler", "-race", "-gcflags", "-ldflags", "CGO_ENABLED", "CGO_CFLAGS", "GOAMD64")
        if k in go
    ]
    items["go-build"] = f"{' '.join(flags)} (from {go_runner})" if flags else f"{go_runner} not built"
    if go.get("-race") == "true":
        warnings.append("the Go runner was built with -race")
    if go.get("-gcflags"):
        warnings.append(f"the Go runner was built with -gcflags={go['-gcflags']}")
    items["gomaxprocs"] = os.environ.get("GOMAXPROCS", f"unset (Go uses {ncpu})")
    items["gogc"] = os.environ.get("GOGC", "unset (100)")
    for var in ("GOMAXPROCS", "GOGC", "GODEBUG"):
        if os.environ.get(var):
            warnings.append(f"{var}={os.environ[var]} is set for the Go variants")
    # Python
    debug = bool(sysconfig.get_config_var("Py_DEBUG"))
    items["python"] = (
        f"{platform.python_implementation()} {platform.python_version()} ({'debug' if debug else 'release'} build)"
    )
    if debug:
        warnings.append("Python is a debug build")
    if sys.flags.dev_mode:
        warnings.append("Python runs in development mode (-X dev)")
    items["python-cflags"] = " ".join((sysconfig.get_config_var("CFLAGS") or "").split())
    try:
        from . import _core

        ext = _core.build_info()
    except ImportError as e:
        ext = f"not built ({e})"
    items["python-ext-build"] = ext
    try:
        items["numpy"] = importlib.metadata.version("numpy")
    except importlib.metadata.PackageNotFoundError:
        items["numpy"] = "not installed"
    # A round that uses a BLAS says which in its own provenance().
    items["blas"] = "not used by the rounds in this file"
    items["perf-instructions"] = perf_instructions()
    tracer = tracer_pid()
    if tracer:
        warnings.append(f"a tracer or debugger (pid {tracer}) is attached to the runner")
    # Tuned on one side only?
    tuned_c = "-march=native" in c_info
    tuned_ext = "-march=native" in ext
    tuned_go = go.get("GOAMD64", "v1") not in ("v1", "")
    if len({tuned_c, tuned_ext, tuned_go}) > 1:
        warnings.append(
            f"build flags differ in tuning: C runner {'tuned' if tuned_c else 'portable'}, "
            f"Python extension {'tuned' if tuned_ext else 'portable'}, Go {'tuned' if tuned_go else 'portable'}"
        )
    no_spawn = rounds.program_missing("rb-spawn")
    if no_spawn is None:
        items["peak-rss"] = "each child's own, from wait4 in rb-spawn (a small launcher)"
    else:
        items["peak-rss"] = "from wait4 on children forked from the Python runner"
        warnings.append(f"every peak-B includes the Python runner's own RSS at spawn: {no_spawn}")
    items["runs"] = str(runs)
    items["quick"] = "yes" if quick else "no"
    if placement is not None:
        items["placement"] = placement.describe()
    from . import machine

    got_items, got_warnings = machine.provenance()
    items.update(got_items)
    warnings.extend(got_warnings)
    for r in selected_rounds:
        extra = rounds.hook(r.name, "provenance")
        if extra:
            got_items, got_warnings = extra()
            items.update(got_items)
            warnings.extend(got_warnings)
    items["fairness"] = "; ".join(warnings) if warnings else "no unfair condition found"
    return items, warnings
