"""The fairness audit: every way a comparison of languages is known to go
wrong that a run can detect, each judged from the facts the runner
collected (run/provenance.py gathers them; this module decides).

Each check is a checks.py Check (ok / warn / info, the finding, the fix).
The runner writes each as a `fairness-<name>` provenance line beside the
`machine-<name>` lines, and the report lists them all, passed ones
included, so a reader sees what was looked for and not only what was
found. A `warn` is also one item of the `fairness` line, which the report
prints in bold.

What is judged here (`audit`): the builds (a Go runner built with -race or
-gcflags, a debug Python, tuned flags on one side only), the environment
(GOGC, GOMAXPROCS, GODEBUG; Python's development mode; a tracer attached),
the runtimes' ages (the release table in data/releases.tsv), where peak
memory comes from; `resource_checks`: the CPUs, GOMAXPROCS and BLAS threads
each variant of a cell gets. What the timed code does is scan.py's; the
machine's own checks are measure/machine.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import rounds
from ..measure.machine import Check, usable_cpus
from ..runtimes import programs, releases
from .checks import info, judged, ok, warn

# The environment variables that change how Go runs (go-env).
GO_ENV_VARS = ("GOMAXPROCS", "GOGC", "GODEBUG")


@dataclass
class Facts:
    """What the audit judges, as the runner collected it."""

    go: dict  # the Go runners' build settings (programs.go_build_settings)
    go_version: str  # as the provenance's go-version line gives it
    env: dict  # the runner's environment (os.environ)
    child: Optional[object]  # the Python children's interp.Info, None when unusable
    runner_dev_mode: bool  # the runner itself in Python's development mode
    numpy: str  # the children's numpy version, or "not installed"
    tracer_pid: int  # a tracer or debugger attached to the runner (0: none)
    c_build: str  # the C runner's build line (`rb-c --info`)
    ext_build: str  # the extension's build line (_core.build_info())
    no_spawn: Optional[str]  # why rb-spawn is missing, None when it is built


FIX_PY = "run the Python children with a newer CPython: --python PATH or ROUNDBENCH_PYTHON"
FIX_GO = "build with a newer Go"


def audit(f: Facts) -> list:
    """Every check of the builds, the environment, the runtimes' ages, the
    tuning and peak memory, in the order the report lists them."""
    go = f.go
    checks = [
        judged(
            "go-race",
            go.get("-race") == "true",
            "the Go runner was built with -race",
            "build without -race: make build",
            "the Go runners are built without -race",
        ),
        judged(
            "go-gcflags",
            bool(go.get("-gcflags")),
            f"the Go runner was built with -gcflags={go.get('-gcflags')}",
            "build without -gcflags",
            "the Go runners are built without -gcflags (optimiser and inliner on)",
        ),
    ]
    overrides = [f"{var}={f.env[var]}" for var in GO_ENV_VARS if f.env.get(var)]
    checks.append(
        judged(
            "go-env",
            bool(overrides),
            f"{', '.join(overrides)} set for the Go variants",
            "unset them, or state why in the report",
            "no GOMAXPROCS, GOGC or GODEBUG override",
        )
    )
    child = f.child
    if child is not None:
        checks.append(
            judged(
                "python-build",
                child.debug,
                f"the Python children run a debug build ({child.describe()})",
                "a release build",
                f"the Python children run a release build ({child.version})",
            )
        )
        checks.append(
            judged(
                "python-dev-mode",
                bool(child.dev_mode or f.runner_dev_mode),
                "Python runs in development mode (-X dev)",
                "unset PYTHONDEVMODE",
                "Python is not in development mode",
            )
        )
    checks += runtime_ages(f)
    checks.append(
        judged(
            "tracer",
            bool(f.tracer_pid),
            f"a tracer or debugger (pid {f.tracer_pid}) is attached to the runner",
            "detach it and run again",
            "no tracer or debugger attached to the runner",
        )
    )
    checks.append(tuning_check(f.c_build, f.ext_build, go))
    if f.no_spawn is None:
        checks.append(ok("peak-rss", "every peak RSS is the child's own (wait4 in rb-spawn)"))
    else:
        checks.append(
            warn("peak-rss", f"every peak-B includes the Python runner's own RSS at spawn: {f.no_spawn}", "make build")
        )
    return checks


def runtime_ages(f: Facts) -> list:
    """A new runtime on one side and an old one on the other: CPython's and
    numpy's release dates against Go's (the release table)."""
    if releases.feature(f.go_version) is None:
        return [info("runtime-age", f"no Go version to compare ({f.go_version})")]
    out = []
    child = f.child
    if child is not None and child.implementation == "CPython":
        status, text, fix = releases.age_check(
            ("cpython", child.version), ("go", f.go_version), {"cpython": FIX_PY, "go": FIX_GO}
        )
        out.append(Check("runtime-age", status, text, fix))
    if f.numpy != "not installed":
        status, text, fix = releases.age_check(
            ("numpy", f.numpy), ("go", f.go_version), {"numpy": "pip install a newer numpy", "go": FIX_GO}
        )
        out.append(Check("numpy-age", status, text, fix))
    return out


def tuning_check(c_info: str, ext: str, go: dict) -> Check:
    """Tuned on one side only? The C runner's and the extension's flags
    (-march=native), the Go runner's GOAMD64 and, where it calls the core
    through cgo, the C flags cgo compiled the core with (TUNE=1 sets
    CGO_CFLAGS): a Go side at v3 over a core at -O2 is not the tuned build."""
    sides = {
        "C runner": "-march=native" in c_info,
        "Python extension": "-march=native" in ext,
        "Go": go.get("GOAMD64", "v1") not in ("v1", ""),
    }
    if go.get("CGO_ENABLED") == "1":
        sides["Go's cgo core"] = "-march=native" in programs.cgo_cflags(go)
    text = ", ".join(f"{side} {'tuned' if tuned else 'portable'}" for side, tuned in sides.items())
    return judged(
        "tuning",
        len(set(sides.values())) > 1,
        f"build flags differ in tuning: {text}",
        "build everything with the same TUNE",
        f"the same tuning on every side: {text}",
    )


# ---- expert tools on one side ---------------------------------------------------

# The levels whose variants a side's expert tools matter at: a crossing into
# C (core), the C core and a published program are no side's own code.
_TOOL_LEVELS = ("alone", "ecosystem", "program")


def tool_asymmetries(plans: list) -> tuple:
    """(missing, covered) over the rounds of the plans: an expert tool
    (rounds.TOOLS) that one side's variants bring and the other's do not,
    as "round: what it is ... (variants), Go has none" lines; missing where
    neither the round (Round.counterparts) nor the language
    (rounds.COUNTERPARTS) says what stands for it there, covered where one
    does (with why)."""
    names = {"go": "Go", "py": "Python"}
    missing, covered = [], []
    seen: dict = {}
    for plan in plans:
        rnd = plan.round
        if rnd.facts or not rnd.scored:
            continue
        have = seen.setdefault(rnd.name, (rnd, {}))[1]
        for v in plan.variants:
            if v.language not in names or v.level not in _TOOL_LEVELS or v.stands_for:
                continue
            for tool in rounds.tools_of(rnd, v):
                have.setdefault(tool, {}).setdefault(v.language, [])
                if v.name not in have[tool][v.language]:
                    have[tool][v.language].append(v.name)
    for rnd, have in seen.values():
        for tool, sides in have.items():
            for side, other in (("go", "py"), ("py", "go")):
                if side not in sides or other in sides:
                    continue
                what = f"{rnd.name}: {names[side]} has {rounds.TOOLS[tool]} ({', '.join(sides[side])})"
                why = rnd.counterparts.get(tool, {}).get(other) or rounds.COUNTERPARTS.get((tool, other))
                if why:
                    covered.append(f"{what}; {names[other]}: {why}")
                else:
                    missing.append(f"{what}, {names[other]} has no counterpart")
    return missing, covered


def tool_check(plans: list) -> Check:
    """A warning for each round where one side brings an expert tool (a JIT,
    a compiler, PGO, a newer instruction set, batch decoding) and the
    other side's counterpart is missing, as tuned flags on one side are."""
    missing, covered = tool_asymmetries(plans)
    if missing:
        return warn(
            "tools",
            "an expert tool on one side only: " + "; and ".join(missing),
            "add the other side's counterpart, or declare why it has none (Round.counterparts)",
        )
    if covered:
        return ok("tools", "each side's expert tools have their counterparts: " + "; ".join(covered))
    return ok("tools", "no variant brings an expert tool the other side lacks")


# ---- PGO profiles: what they were trained on, and whether they are current -------


def pgo_check(plans: list, root=None) -> Optional[Check]:
    """One check over the PGO profiles of the Go build twins the plans run
    (go/pgo/<round>.pgo): each one's record (runtimes/programs.py,
    pgo_record) says what it was taken from; a warning where there is
    none, where the round's Go source has changed since (a stale profile:
    `make pgo-profiles`), or where it was taken from an input the run
    measures (the best case, which no user's profile is). None when no
    twin with a profile is planned."""
    root = root if root is not None else programs.go_module()
    profiles: dict = {}  # profile -> (round, the measured inputs' key=value sets)
    for plan in plans:
        rnd = plan.round
        for v in plan.variants:
            build = programs.GO_BUILD_RUNNERS.get(v.program)
            if build is None or not build.pgo or rounds.twin_base(rnd, v) is None:
                continue
            measured = profiles.setdefault(build.pgo, (rnd.name, []))[1]
            cell = {f"{k}={val}" for k, val in plan.params.items()}
            if cell not in measured:
                measured.append(cell)
    if not profiles:
        return None
    bad, good = [], []
    for profile, (rnd_name, measured) in sorted(profiles.items()):
        rec = programs.pgo_record(root, profile)
        if rec is None:
            bad.append(f"{profile} has no record of what it was taken from")
            continue
        taken = set(rec.get("input", "").split())
        if rec.get("source-sha256") != programs.go_source_hash(root, rnd_name):
            bad.append(f"{profile} is stale: round {rnd_name}'s Go source has changed since it was taken")
        elif any(cell and cell <= taken for cell in measured):
            bad.append(f"{profile} was taken from {rec.get('input')}, an input this run measures")
        else:
            good.append(f"{profile} from {rec.get('input')} ({rec.get('runs', '?')} runs, {rec.get('go', '?')})")
    if bad:
        return warn("pgo-profiles", "; ".join(bad), "make pgo-profiles (scripts/pgo-profiles.sh), then make build")
    return ok(
        "pgo-profiles",
        "each PGO profile was taken from an input the run does not measure, from the current source: "
        + "; ".join(good),
    )


# ---- unequal resources --------------------------------------------------------

_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _resources(plan, placement) -> dict:
    """variant -> {resource: value} for one cell: the CPUs its child may use,
    Go's GOMAXPROCS (which Go sizes from those CPUs unless set), the BLAS
    threads it is told to use."""
    out = {}
    usable = None
    for v in plan.variants:
        env = v.env(plan.params) if v.env is not None else {}
        cpus = placement.cpus(rounds.threads_of(plan.round, v, plan.params)) if placement is not None else None
        if cpus is None:
            usable = usable or len(usable_cpus())
            ncpu = usable
        else:
            ncpu = len(cpus)
        res = {"CPUs": ncpu}
        if v.language == "go" and v.program != "python":
            res["GOMAXPROCS"] = int(env.get("GOMAXPROCS", ncpu))
        for var in _BLAS_VARS:
            if var in env:
                res["BLAS threads"] = int(env[var])
                break
        out[v.name] = res
    return out


def resource_checks(plans: list, placement) -> list:
    """One check over every cell: the resources each variant of a cell is
    given (CPUs, GOMAXPROCS, BLAS threads), warned where variants differ.
    Workers, server and load-generator cores are the cell's parameters, the
    same for every variant by construction, and named in each result line."""
    mismatches = []
    for plan in plans:
        if plan.round.facts or len(plan.variants) < 2:
            continue
        res = _resources(plan, placement)
        kinds = sorted({k for r in res.values() for k in r})
        for kind in kinds:
            have = {name: r[kind] for name, r in res.items() if kind in r}
            if len(set(have.values())) > 1:
                by_value: dict = {}
                for name, value in have.items():
                    by_value.setdefault(value, []).append(name)
                parts = ", ".join(f"{'/'.join(names)} {value}" for value, names in sorted(by_value.items()))
                size = ",".join(f"{k}={v}" for k, v in plan.params.items()) or "default"
                mismatches.append(f"{plan.round.name} {size}: {kind} {parts}")
    if mismatches:
        return [
            warn(
                "resources",
                "variants of one cell get different resources: " + ", and ".join(mismatches),
                "read those cells' ratios with the resources beside them",
            )
        ]
    return [
        ok("resources", f"every variant of each of {len(plans)} cells gets the same CPUs, GOMAXPROCS and BLAS threads")
    ]
