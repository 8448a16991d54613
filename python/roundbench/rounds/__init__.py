"""The rounds: what each one measures, its variants, sizes and metrics.

Each round is one module here exporting ROUND (a Round) and PY_VARIANTS (the
Python-side variants the child runs, by name). The C variants live in
csrc/runner/run_<round>.c and the Go ones in go/cmd/rb-go/<round>.go; a
Variant's `lang` says which child program runs it.

A round module may also define:
  provenance() -> (items, warnings): extra provenance lines for the result
      file (e.g. the BLAS library and kernel) and fairness warnings;
  report_section(size, cells) -> str: Markdown the report prints after the
      round's table for that size (cells: impl -> report.Cell).

Extra rounds can be loaded from modules named in the environment variable
ROUNDBENCH_PLUGINS (comma-separated), with the same two names; the tests use
this to run the runner against variants that crash or lie.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional

from .. import programs

# The suite's rounds, in the order they run and are reported (DESIGN.md's
# order; loc last, since it measures the others' source files).
ROUND_MODULES = [
    "loop",
    "matmul",
    "temps",
    "ffi",
    "startup",
    "delivery",
    "sleep",
    "chain",
    "cores",
    "jsonl",
    "http",
    "loc",
]

LANGS = ("c", "go", "py")


@dataclass(frozen=True)
class Variant:
    """One way to do a round's work. `lang` picks the child program (c: the
    C runner, go: the Go runner, py: this package's child); `program`
    overrides the binary's name for C variants that differ only in linkage;
    `requires` returns why the variant cannot run here, or None."""

    name: str
    lang: str
    explain: str = ""
    program: Optional[str] = None
    requires: Optional[Callable[[], Optional[str]]] = None
    # Sizes this variant runs at by default (None: all); a size given on the
    # command line (--n, --param) runs every variant.
    default_if: Optional[Callable[[dict], bool]] = None
    # Extra environment for the child, from the cell's parameters (e.g.
    # OPENBLAS_NUM_THREADS, GOMAXPROCS). Recorded in the result line's name
    # only if the round puts it in its parameters.
    env: Optional[Callable[[dict], dict]] = None


@dataclass(frozen=True)
class Round:
    name: str
    title: str
    explain: str
    variants: list
    sizes: list  # default sizes: a list of {param: value}
    quick: list  # the --quick sizes
    metric: str  # the round's declared metric, e.g. "ns/iter"
    units: dict = field(default_factory=dict)  # unit -> "lower" | "higher"
    # The column a reader should look at first, with its one-line meaning.
    metric_explain: str = ""
    # The variant the "x c" column divides by: the C core timed in C.
    reference: str = "c"
    # Whether all variants compute the same value, which the runner then
    # compares across variants (ffi's mechanisms each check their own).
    cross_check: bool = True
    # Whether the round's Python-against-Go point counts in the final score
    # (a speed round does; a facts round such as loc only informs).
    scored: bool = True
    # Whether py-c and go-c minus c is the cost of a crossing (it is when
    # the three do the same work in the core; in startup they start whole
    # different programs).
    binding_overhead: bool = True
    # Extra report columns: (unit, header) pairs, shown as the median of
    # that unit over the runs (e.g. ("traffic-B", "memory traffic")).
    columns: list = field(default_factory=list)
    # A round of facts, not samples (delivery: sizes, linkage, build
    # results): each cell runs once whatever --runs says, its children may
    # print `fact: KEY VALUE` lines that the result file keeps, and the
    # report shows only the round's report_section.
    facts: bool = False

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def bench_prefix(self) -> str:
        return "Benchmark" + self.name[:1].upper() + self.name[1:]


def repo_root() -> Optional[Path]:
    """The source checkout this package runs from, if it runs from one."""
    here = Path(__file__).resolve().parents[3]
    return here if (here / "csrc" / "roundbench.h").is_file() else None


def build_dir() -> Path:
    """Where generated inputs are kept (e.g. round jsonl's logs, in data/):
    $ROUNDBENCH_BUILD, else the checkout's build/ folder, else the per-user
    cache of an installed package. The child programs are found by
    roundbench.programs."""
    env = os.environ.get("ROUNDBENCH_BUILD")
    if env:
        return Path(env)
    root = repo_root()
    if root is not None:
        return root / "build"
    return programs.cache_root()


PROGRAMS = {"c": "rb-c", "go": "rb-go"}


def child_env(v: Variant, params: dict) -> Optional[dict]:
    """The child's environment: ours, plus what the variant asks for."""
    if v.env is None:
        return None
    env = dict(os.environ)
    env.update({k: str(val) for k, val in v.env(params).items()})
    return env


def command(rnd: Round, v: Variant, params: dict) -> list:
    """The child's command line for one run."""
    kv = [f"{k}={params[k]}" for k in params]
    if v.lang == "py":
        return [sys.executable, "-m", "roundbench.child", rnd.name, v.name, *kv]
    program = programs.path(v.program or PROGRAMS[v.lang])
    return [str(program), rnd.name, v.name, *kv]


def unavailable(rnd: Round, v: Variant) -> Optional[str]:
    """Why variant v cannot run here, or None."""
    if v.lang in PROGRAMS:
        why = programs.missing(v.program or PROGRAMS[v.lang])
        if why is not None:
            return why
    elif v.lang == "py":
        if importlib.util.find_spec("roundbench._core") is None:
            return "the extension roundbench._core is not built (run `make build`)"
    if v.requires is not None:
        return v.requires()
    return None


def needs_module(name: str, hint: str) -> Callable[[], Optional[str]]:
    """A `requires` check: the Python module `name` can be imported."""

    def check() -> Optional[str]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        return None if found else f"Python module {name} is not installed ({hint})"

    return check


def needs_command(name: str) -> Callable[[], Optional[str]]:
    def check() -> Optional[str]:
        return None if shutil.which(name) else f"command {name} is not on PATH"

    return check


_loaded: dict = {}


def modules() -> dict:
    """Round name -> module, in suite order, plugins last."""
    if not _loaded:
        names = [f"roundbench.rounds.{m}" for m in ROUND_MODULES]
        names += [m.strip() for m in os.environ.get("ROUNDBENCH_PLUGINS", "").split(",") if m.strip()]
        for modname in names:
            mod = importlib.import_module(modname)
            _loaded[mod.ROUND.name] = mod
    return _loaded


def all_rounds() -> list:
    return [m.ROUND for m in modules().values()]


def get(name: str) -> Round:
    try:
        return modules()[name].ROUND
    except KeyError:
        raise KeyError(f"unknown round {name!r} (rounds: {', '.join(modules())})") from None


def _module_for(round_name: str) -> ModuleType:
    """One round's module, importing only that one when it is a suite round:
    a child process must not pay (in start-up and peak RSS) for the imports
    of every other round."""
    if round_name in ROUND_MODULES:
        return importlib.import_module(f"roundbench.rounds.{round_name}")
    try:
        return modules()[round_name]
    except KeyError:
        raise KeyError(f"unknown round {round_name!r} (rounds: {', '.join(modules())})") from None


def py_variant(round_name: str, impl: str) -> Callable:
    mod: ModuleType = _module_for(round_name)
    try:
        return mod.PY_VARIANTS[impl]
    except KeyError:
        have = ", ".join(mod.PY_VARIANTS) or "none"
        raise KeyError(f"{round_name}: no Python variant {impl!r} (have: {have})") from None
