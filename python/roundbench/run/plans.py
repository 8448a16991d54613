"""What runs: each round's cells (a round at one size, with the variants
that run there and those that cannot, each with why), the rows a variant
makes under a runtime axis, and the names their results carry.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from .. import rounds, runtimes
from . import launch


def bench_name(rnd: rounds.Round, impl: str, params: dict, runtime=None) -> str:
    """A result's name: the round, the variant, its runtime when the run
    has runtimes as an axis (runtimes.py: `go=1.20.14`, its own key so that
    `benchstat -col /go` splits by it), then the cell's parameters."""
    rt = f"/{runtime.key()}" if runtime is not None else ""
    return f"{rnd.bench_prefix}/impl={impl}{rt}" + "".join(f"/{k}={v}" for k, v in params.items())


def _renamed(line: str, name: str) -> str:
    """A child's result line under the runner's name for it (the child
    knows nothing of the runtime axis, so its line lacks the runtime key)."""
    return name + line[len(line.split(None, 1)[0]) :]


@dataclass
class Plan:
    """One cell: a round at one size, with the variants that will run."""

    round: rounds.Round
    params: dict
    variants: list
    skipped: list  # (variant, reason)


def expand(rnd: rounds.Round, v: rounds.Variant, axes: Optional[dict]) -> list:
    """The rows of variant v under the runtimes of the axis (axes: kind ->
    [runtimes.Runtime], from `--go` and `--python`): (variant with its
    runtime, why it cannot run or None) each. A Go variant runs under each
    Go toolchain when a Go runner runs it; a Python variant under each
    interpreter when it is a Python child. Any other (a program that
    another starts: round startup's, round aspects' whole programs, the
    http round's servers) runs under the runtime a run without the axis
    uses, and is a skip row, saying so, under the others. A round of facts
    is not on the axis."""
    kind = {"go": runtimes.GO, "py": runtimes.PYTHON}.get(v.language)
    if not axes or rnd.facts or kind not in axes:
        return [(v, None)]
    out = []
    for rt in axes[kind]:
        row = dataclasses.replace(v, runtime=rt)
        ours = launch.runs_go(v) if kind == runtimes.GO else v.program == "python"
        if ours or rt.default:
            out.append((row, None))
            continue
        program = launch.program_of(rnd, v)
        if kind == runtimes.GO:
            why = (
                f"{v.name} is run by {program}, not a Go runner: the Go toolchain axis builds the Go runners "
                f"(rb-go-<round>) with each toolchain, and {v.name} runs with the installed Go's build only"
            )
        else:
            why = (
                f"{v.name} is started by {program}, not run as a Python child: it runs under the runner's own "
                f"interpreter only, not under {runtimes.describe(rt.kind, rt.label)}"
            )
        out.append((row, why))
    return out


def _go_release_missing(rnd: rounds.Round, v: rounds.Variant) -> Optional[str]:
    """Why a Go row built with another Go release than the installed one
    cannot run (its toolchain cannot be fetched, its program not built, or
    the variant is not in that release's build: the version it needs), or
    None; builds the program first, once."""
    version = launch.go_toolchain(v)
    if version is None:
        return None
    # the go command's toolchains, only for a --go axis
    from ..runtimes import gotoolchains

    program = launch.program_of(rnd, v)
    why = gotoolchains.missing(program, version)
    if why:
        return why
    try:
        return gotoolchains.variant_missing(rnd, v, program, version)
    except ValueError as e:
        return f"{v.name} cannot be checked in {program} built with go{version}: {e}"


def make_plans(
    selected: list,
    impls: Optional[set],
    quick: bool,
    overrides: dict,
    options: Optional[dict] = None,
    axes: Optional[dict] = None,
    all_sizes: bool = False,
) -> list:
    """The cells to run. overrides (--n, --param) apply to every round;
    options (round name -> {param: value}, from each round's own Options)
    to their round only; axes (kind -> [runtimes.Runtime]) puts each
    variant's rows under each runtime (expand); all_sizes (`--sizes all`)
    adds each round's more_sizes to its default sizes (not to --quick's)."""
    plans = []
    for rnd in selected:
        mine = {**overrides, **(options or {}).get(rnd.name, {})}
        # A run setting (Option.setting, e.g. matmul's threads) is not a
        # size: giving one does not make the variants limited to some sizes
        # (default_if) run at all.
        settings = {o.param for o in rnd.options if o.setting}
        sized = {k for k in mine if k not in settings}
        sizes = rnd.quick if quick else rnd.sizes + (rnd.more_sizes if all_sizes else [])
        sizes = [{k: mine.get(k, v) for k, v in size.items()} for size in sizes]
        # A key the round's sizes lack (sleep's fit=1, wait_ms) is passed on
        # too, and so named in the results; --n still only sets rounds that
        # have an n.
        extra = {k: v for k, v in mine.items() if k != "n"}
        sizes = [{**size, **{k: v for k, v in extra.items() if k not in size}} for size in sizes]
        # Several sizes that became one after an override run once.
        unique = []
        for s in sizes:
            if s not in unique:
                unique.append(s)
        for params in unique:
            run, skipped = [], []
            for v in rnd.variants:
                if impls and v.name not in impls:
                    continue
                if v.runs_if and not v.runs_if(params):
                    continue
                if v.default_if and not sized and not v.default_if(params):
                    continue
                for row, why in expand(rnd, v, axes):
                    why = why or _go_release_missing(rnd, row) or launch.unavailable(rnd, row)
                    (skipped.append((row, why)) if why else run.append(row))
            plans.append(Plan(rnd, params, run, skipped))
    return plans


def newest_pair(plans: list) -> dict:
    """kind -> the label of the newest runtime of that kind among the
    plans' rows (runtimes.newest_of)."""
    seen: dict = {}
    for p in plans:
        for v in p.variants:
            if v.runtime is not None:
                labels = seen.setdefault(v.runtime.kind, [])
                if v.runtime.label not in labels:
                    labels.append(v.runtime.label)
    return runtimes.newest_of(seen)
