"""What a reader needs to judge a result file: the machine, the builds, the
runtimes and their settings, gathered here, and the unfair conditions
found in them (a debug Python, a tracer attached, a busy machine, tuned
flags on one side...), which the judging layer decides (judge/fairness.py,
judge/scan.py). Each item becomes one `key: value` configuration line."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig

from ..judge import checks as checks_mod
from ..judge import fairness, scan
from ..runtimes import interp, programs, pybuild
from .. import rounds
from ..measure import machine
from ..measure.machine import cpu_id, cpu_model
from . import userfile


def _run(cmd, timeout=20) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable ({e.__class__.__name__})"
    text = (out.stdout or out.stderr).strip()
    return text if out.returncode == 0 else f"unavailable (exit {out.returncode}: {text[:120]})"


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


# The build settings of a Go runner that the go-build line shows.
GO_BUILD_KEYS = ("-compiler", "-race", "-gcflags", "-ldflags", "-tags", "-pgo", "CGO_ENABLED", "CGO_CFLAGS", "GOAMD64")


def _module_path(path: str, program: str) -> str:
    """A path the go command recorded in `program` (its PGO profile's),
    relative to the Go module it is in: the checkout, or the copy of an
    installed package's sources that its programs are built from
    (programs.go_sources_copy); else as recorded."""
    for root in (programs.go_module(), programs.path(program).parent / "src"):
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            return rel
    return path


def go_build_line(runner: str, go: dict) -> str:
    """The go-build line's first part: runner's build settings (go), from
    its own build information; the cgo core's C flags spelt out."""
    if not go:
        return f"{runner} not built"
    flags = [f"{k}={go[k]}" for k in GO_BUILD_KEYS if k in go and k != "CGO_CFLAGS"]
    if go.get("CGO_ENABLED") == "1":
        cflags = go.get("CGO_CFLAGS") or f"(unset: Go's default, {programs.CGO_DEFAULT_CFLAGS})"
        flags.insert(flags.index("CGO_ENABLED=1") + 1, f"CGO_CFLAGS={cflags}")
    return f"{' '.join(flags)} (from {runner})"


def go_twins_line(selected_rounds) -> str:
    """The go-build line's second part: the Go build twins of the selected
    rounds (the build table's GO_BUILD_RUNNERS), each with its PGO profile
    and GOAMD64 as its own build information records them (`go version -m`),
    not as the table says: "; build twins: rb-go-loop-pgo
    -pgo=go/pgo/loop.pgo GOAMD64=v1 CGO_ENABLED=1, ..."; "" when no
    selected round has any."""
    packages = {f"{programs.GO_RUNNERS}/{r.name}" for r in selected_rounds}
    parts = []
    for name, build in programs.GO_BUILD_RUNNERS.items():
        if build.package not in packages:
            continue
        got = programs.go_build_settings(programs.path(name))
        if not got:
            parts.append(f"{name} not built")
            continue
        pgo = got.get("-pgo")
        parts.append(
            f"{name} -pgo={_module_path(pgo, name) if pgo else 'off'} GOAMD64={got.get('GOAMD64', '?')} "
            f"CGO_ENABLED={got.get('CGO_ENABLED', '?')}"
        )
    return f"; build twins: {', '.join(parts)}" if parts else ""


def _machine_items() -> dict:
    """The machine, the command and the checkout."""
    items = {}
    items["goos"] = sys.platform
    items["goarch"] = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    items["pkg"] = "roundbench"
    items["cpu"] = cpu_model()
    items["cpu-id"] = cpu_id()
    ncpu = os.cpu_count() or 1
    items["cores"] = f"{ncpu} online, {len(os.sched_getaffinity(0))} usable by this process"
    items["kernel"] = f"{platform.system()} {platform.release()} {platform.version()}"
    load = os.getloadavg()
    items["loadavg"] = " ".join(f"{x:.2f}" for x in load)
    # The command line, when this process is the command (not a test or
    # another program calling the Python API).
    if sys.argv and os.path.basename(sys.argv[0]) in ("roundbench", "__main__.py"):
        items["command"] = shlex.join(["roundbench", *sys.argv[1:]])
    items["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    root = programs.checkout()
    if root is not None and shutil.which("git"):
        rev = _run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"])
        dirty = _run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
        items["roundbench-commit"] = rev + (
            " (with uncommitted changes)" if dirty and not dirty.startswith("unavailable") else ""
        )
    return items


def _python_items(items: dict):
    """The runner's Python, the children's (when --python names another)
    and its build, the extension's build and numpy; returns the children's
    interp.Info, or None when it is unusable."""
    debug = bool(sysconfig.get_config_var("Py_DEBUG"))
    items["python"] = (
        f"{platform.python_implementation()} {platform.python_version()} ({'debug' if debug else 'release'} build)"
    )
    try:
        child = interp.info()
    except interp.BadInterpreter as e:
        child = None
        items["python-children"] = f"unusable: {e}"
    if child is not None:
        items["python-children"] = child.describe() + (
            " (--python / ROUNDBENCH_PYTHON)" if interp.is_alternate() else " (the runner's own)"
        )
        # How that interpreter was built (PGO, LTO, a shared libpython, ...):
        # what the binary shows first, "not recorded" where nothing says.
        items["python-build"] = pybuild.describe(child)
        # Its key, as rows of the runtime axis name it (python=cpython-3.15.2):
        # make suite's companion run of the builds is read against it.
        items["python-key"] = child.key
    items["python-cflags"] = " ".join((sysconfig.get_config_var("CFLAGS") or "").split())
    try:
        # The extension is optional here: a checkout not yet built still
        # gets its provenance, which says so.
        from .. import _core

        ext = _core.build_info()
    except ImportError as e:
        ext = f"not built ({e})"
    items["python-ext-build"] = ext
    if child is not None and interp.is_alternate():
        items["numpy"] = child.numpy or "not installed"
    else:
        try:
            items["numpy"] = importlib.metadata.version("numpy")
        except importlib.metadata.PackageNotFoundError:
            items["numpy"] = "not installed"
    return child


def collect(selected_rounds, runs, quick: bool, placement=None, plans=None) -> tuple:
    """Returns (items, warnings): the provenance lines in order, and the
    fairness warnings found. The facts are gathered here; judge/fairness.py
    and judge/scan.py judge them, and every check, passed or not, is a
    `fairness-<name>` line; the warnings are the failed ones."""
    items = _machine_items()
    # C
    rbc = programs.path("rb-c")
    c_info = _run([str(rbc), "--info"]) if rbc.exists() else "not built"
    items["c-build"] = c_info
    # Go: every Go runner is built by the same rule (the Makefile's, or one
    # build per runner into an installed package's cache), so one speaks
    # for all: the loop round's, the one every suite has.
    go_runner = programs.go_runner("loop")
    go = programs.go_build_settings(programs.path(go_runner))
    items["go-version"] = go.get("go", _run(["go", "version"]) if shutil.which("go") else "not installed")
    items["go-build"] = go_build_line(go_runner, go) + go_twins_line(selected_rounds)
    ncpu = os.cpu_count() or 1
    items["gomaxprocs"] = os.environ.get("GOMAXPROCS", f"unset (Go uses {ncpu})")
    items["gogc"] = os.environ.get("GOGC", "unset (100)")
    child = _python_items(items)
    # A round that uses a BLAS says which in its own provenance().
    items["blas"] = "not used by the rounds in this file"
    items["perf-instructions"] = perf_instructions()
    no_spawn = programs.missing("rb-spawn")
    if no_spawn is None:
        items["peak-rss"] = "each child's own, from wait4 in rb-spawn (a small launcher)"
    else:
        items["peak-rss"] = "from wait4 on children forked from the Python runner"
    items["runs"] = str(runs)
    items["quick"] = "yes" if quick else "no"
    if placement is not None:
        items["placement"] = placement.describe()

    checks = fairness.audit(
        fairness.Facts(
            go=go,
            go_version=items["go-version"],
            env=dict(os.environ),
            child=child,
            runner_dev_mode=bool(sys.flags.dev_mode),
            numpy=items["numpy"],
            tracer_pid=tracer_pid(),
            c_build=c_info,
            ext_build=items["python-ext-build"],
            no_spawn=no_spawn,
        )
    )
    # Unequal resources between the variants of a cell.
    if plans is not None:
        checks.extend(fairness.resource_checks(plans, placement))
        # An expert tool on one side and no counterpart on the other.
        checks.append(fairness.tool_check(plans))
        # What the PGO profiles were taken from, and whether they are current.
        pgo = fairness.pgo_check(plans)
        if pgo is not None:
            checks.append(pgo)
    got_items, got_warnings = machine.provenance()
    items.update(got_items)
    warnings = checks_mod.warnings(checks) + got_warnings
    for r in selected_rounds:
        user = userfile.user_file_line(r)
        if user is not None:
            items[user[0]] = user[1]
        extra = rounds.hook(r.name, "provenance")
        if extra:
            got_items, got_warnings = extra()
            items.update(got_items)
            warnings.extend(got_warnings)
    # What the timed code does: the static scan of every selected variant.
    scan_checks, scan_items = scan.provenance(selected_rounds)
    checks.extend(scan_checks)
    items.update(scan_items)
    warnings = checks_mod.warnings(scan_checks) + warnings
    items.update(checks_mod.provenance_items(checks))
    items["fairness"] = "; ".join(warnings) if warnings else "no unfair condition found"
    return items, warnings
