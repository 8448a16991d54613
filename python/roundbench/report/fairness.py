"""The fairness checks: every way a comparison of languages is known to go
wrong that a run can detect, each with its verdict.

Each check is a machine.Check (ok / warn / info, the finding, the fix). The
runner writes each as a `fairness-<name>` provenance line beside the
`machine-<name>` lines, and the report lists them all, passed ones included,
so a reader sees what was looked for and not only what was found. A `warn`
is also one item of the `fairness` line, which the report prints in bold.

What is checked here: the builds (debug Python, -race or -gcflags Go, tuned
flags on one side only), the environment (GOGC, GOMAXPROCS, GODEBUG,
Python's development mode, a tracer attached), the runtimes' ages (the
release table in data/releases.tsv), where peak memory comes from, and what
the timed code does (scan.py). The machine's own checks are machine.py's.
"""

from __future__ import annotations

from ..measure.machine import Check


def ok(name: str, value: str) -> Check:
    return Check(name, "ok", value)


def warn(name: str, value: str, fix: str = "") -> Check:
    return Check(name, "warn", value, fix)


def judged(name: str, failed: bool, warning: str, fix: str, passed: str) -> Check:
    """A check with two outcomes: warn(name, warning, fix) when it failed,
    else ok(name, passed)."""
    return warn(name, warning, fix) if failed else ok(name, passed)


def info(name: str, value: str) -> Check:
    return Check(name, "info", value)


def provenance_items(checks: list) -> dict:
    """`fairness-<name>` -> the check's line, in order."""
    return {f"fairness-{c.name}": c.line() for c in checks}


def warnings(checks: list) -> list:
    """The warn checks as the `fairness` line's items: the finding and its fix."""
    return [c.value + (f" (fix: {c.fix})" if c.fix else "") for c in checks if c.status == "warn"]


def parse_line(text: str) -> tuple:
    """A `fairness-*` or `machine-*` provenance value back into (status,
    finding, fix): 'warn: GOGC=50 is set (fix: unset it)' -> ('warn',
    'GOGC=50 is set', 'unset it')."""
    status, sep, rest = text.partition(": ")
    if not sep or status not in ("ok", "warn", "info"):
        return "info", text, ""
    finding, sep, fix = rest.rpartition(" (fix: ")
    if sep and fix.endswith(")"):
        return status, finding, fix[:-1]
    return status, rest, ""


# ---- unequal resources --------------------------------------------------------

_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _resources(plan, placement) -> dict:
    """variant -> {resource: value} for one cell: the CPUs its child may use,
    Go's GOMAXPROCS (which Go sizes from those CPUs unless set), the BLAS
    threads it is told to use."""
    from .. import rounds

    out = {}
    usable = None
    for v in plan.variants:
        env = v.env(plan.params) if v.env is not None else {}
        cpus = placement.cpus(rounds.threads_of(plan.round, v, plan.params)) if placement is not None else None
        if cpus is None:
            from ..measure.machine import usable_cpus

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


def warned(configs: list) -> list:
    """Every check that warned (machine-* and fairness-* lines), as
    (name, finding, fix); from the older `fairness` line where the file
    predates the per-check lines."""
    out = []
    seen = set()
    for cfg in configs:
        for k, v in cfg.items():
            if (k.startswith("fairness-") or k.startswith("machine-")) and k not in seen:
                seen.add(k)
                status, found, fix = parse_line(v)
                if status == "warn":
                    out.append((k.split("-", 1)[1], found, fix))
    if out or seen:
        return out
    for cfg in configs:
        fair = cfg.get("fairness")
        if fair and fair != "no unfair condition found":
            out.append(("fairness", fair, ""))
    return out
