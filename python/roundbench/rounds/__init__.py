"""The rounds: what each one measures, its variants, sizes and metrics.

Every module or package in this package is one round, named after it: it
exports ROUND (a Round, whose contract is its docstring) and registers its
Python variants with harness.implements. Rounds are found here, not listed:
adding a round adds rounds/<round> (a module, or a package when it has an
input generator, a driver or library variants of its own), its pure Python
version pure/<round>.py, its C glue csrc/runner/run_<round>.c and its Go
runner go/cmd/rb-go/<round>/ (tests/test_registry.py holds every child
program's `--list` to the declarations), and touches no other Python file.

Extra rounds can be loaded from modules named in the environment variable
ROUNDBENCH_PLUGINS (comma-separated), built the same way; the tests use
this to run the runner against variants that crash or lie.

This module holds the declarations (Variant, Round and what they are made
of), the checks a declaration names (needs_*), and the registry of the
rounds there are. How a child is launched from a declaration is
run/launch.py's; a user's own file bound to a round is run/userfile.py's.
Modules here whose name starts with `_` are not rounds.

Layer: above pure, runtimes, measure and results; imported by report, run,
crossing and cli.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import shutil
import subprocess
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Optional

from ..results import levels
from ..results.levels import LEVELS
from ..runtimes import aotbuild, interp, nuitkabuild, programs

LANGS = ("c", "go", "py")

# The child programs a variant may name: the C runner (three links of the
# same sources: static core, the core as a shared library, all static), the
# Go runner, this package's child (`python -m roundbench.run.child`), and the
# programs of library variants built apart (programs.LIBRARY_PROGRAMS).
# "rb-go" is the round's own Go runner, rb-go-<round> (run/launch.py,
# program_of).
# "generated": a program built for one run, whose command line is the
# variant's `argv` (roundbench crossing's callers of the user's function).
PROGRAMS = ("rb-c", "rb-c-so", "rb-c-static", "rb-go", "python", "generated", *programs.LIBRARY_PROGRAMS)

# The units every result line carries whatever the round: ns/op from the
# child, the rest added by the runner from wait4.
# Concurrency models (Round.models): what runs the tasks of sleep, chain,
# cores and http.
MODELS = {
    "os-thread": "OS threads",
    "stackful": "stackful coroutines",
    "event-loop": "stackless coroutines or callbacks on an event loop",
    "process": "processes",
    # Tasks with no channel and no scheduler: the caller hands each its
    # value in turn (generators sent into, pull iterators, closures called,
    # greenlets switched into). Round chain scores them apart (Round.apart).
    "caller-driven": "coroutines the caller drives in turn (no channel, no scheduler)",
}

BASE_UNITS = ("ns/op", "peak-B", "user-ns/op", "sys-ns/op")

# Expert tools (tools_of): what a variant brings beyond its language's plain
# build, which the other side should bring too or say why it need not
# (judge/fairness.py's tool-asymmetry check).
TOOLS = {
    "jit": "a JIT compiler",
    "compiler": "an ahead-of-time compiler of the language's own code",
    "pgo": "a profile-guided build",
    "isa": "a build for a newer instruction set",
    "batch": "batch decoding, many records a call",
}
# The first word after "py-" that names a tool (py-numba-prange: numba).
TOOL_WORDS = {"numba": "jit", "cython": "compiler", "mypyc": "compiler", "pythran": "compiler", "nuitka": "compiler"}
# What stands for a tool on a side with no variant that has it, in every
# round: the language's own answer. Round.counterparts adds a round's.
COUNTERPARTS = {
    ("jit", "go"): "Go is compiled ahead of time by its own toolchain: every Go variant is compiled code",
    ("compiler", "go"): "Go is compiled ahead of time by its own toolchain: every Go variant is compiled code",
    ("pgo", "py"): "CPython has no profile-guided build of a program's own code (the interpreter's own build is "
    "the provenance's python-build line)",
    ("isa", "py"): "CPython has no instruction-set build of a program's own code (a JIT such as numba compiles for "
    "the host CPU where it applies)",
}


def language(variant_name: str) -> str:
    """The language of a variant, from its name: `py-c` is Python's."""
    return variant_name.split("-", 1)[0]


@dataclass(frozen=True)
class Variant:
    """One way to do a round's work. Its language is the first word of its
    name (`go-c`: Go calling the core); `program` is the child program
    that runs it (one of PROGRAMS), which need not be that language's: the
    http round's Python driver runs every server. `requires` returns why
    the variant cannot run here, or None."""

    name: str
    program: str
    explain: str = ""
    requires: Optional[Callable[[], Optional[str]]] = None
    # Sizes this variant runs at by default (None: all); a size given on the
    # command line (--n, --param, a round's options) runs every variant.
    default_if: Optional[Callable[[dict], bool]] = None
    # The cells this variant can run in at all, whatever the command line
    # gives (None: every one): round aspects' in-process variants never run
    # in a launch cell, nor its launch modes outside one.
    runs_if: Optional[Callable[[dict], bool]] = None
    # The settings the child runs under, from the cell's parameters (e.g.
    # OPENBLAS_NUM_THREADS, GOMAXPROCS): extra environment, computed without
    # side effects (the fairness check reads it too). Recorded in the result
    # line's name only if the round puts it in its parameters.
    env: Optional[Callable[[dict], dict]] = None
    # Generates the cell's input: runs in the runner before each child,
    # makes the input files the cell's parameters name on first use (cached
    # by their arguments: round jsonl's log, round aspects' ephemeris and
    # events) and returns the environment variables that tell the child
    # where they are.
    make_inputs: Optional[Callable[[dict], dict]] = None
    # "one" when the variant's work runs on one thread (its child is pinned
    # to one CPU), "many" when it uses several OS threads or processes (its
    # cell gets every usable CPU), or a function of the cell's parameters
    # giving either; None: the round's `threads` (roundbench.measure.placement).
    threads: object = None
    # The runtime this row of the variant runs under when a run has runtimes
    # as an axis (runtimes.Runtime: `roundbench run --go V --python PATH`),
    # else None: the installed Go, the children's one interpreter.
    runtime: object = None
    # For program "generated": the command that runs the variant, before
    # `ROUND VARIANT key=value...` (a caller's path, or an interpreter and
    # `-m MODULE`).
    argv: tuple = ()
    # A concurrency round's model for this variant (one of MODELS): the
    # report labels its rows with it and says so when a point goes across
    # models (goroutines against OS threads, say).
    model: Optional[str] = None
    # For a variant whose Python entry point only drives the timed code (the
    # http round's load driver): the dotted names of the functions that the
    # static scan (judge/scan.py) reads instead, () when that code is C or
    # Go, scanned there; None: the entry point itself.
    scan: Optional[tuple] = None
    # Why this variant's runs are known to be heavy-tailed: the report says
    # it beside the runs' distribution (a result, not a failure).
    tail: str = ""
    # The checks of the round's robustness stress (the http round's, on each
    # cell's first run) that this variant is known to fail on every machine,
    # each (check, why): such a run keeps its figures and reports the check
    # FAILED, a finding about the library, not a fault of the run.
    known_failures: tuple = ()
    # For a variant that its round's driver starts itself (the http round's
    # servers): the function that gives its command line and environment.
    start: Optional[Callable] = None
    # The level the variant scores at (levels.ALL_LEVELS): "alone" for the
    # language and its standard toolchain and library (a Go build with PGO
    # included), "ecosystem" for a library or a compiler or JIT from
    # outside the language's distribution, "core" for a crossing into C,
    # "program" for a whole program timed from outside, "published" for a
    # published program as published, "c" for the ceiling. None: the level
    # the name gives (levels.by_name), filled in here.
    level: Optional[str] = None
    # Whether this variant times one value a process, whatever its round's
    # `values` says: its work leaves state behind that a second run in the
    # same process would see (a high-water mark, a warmed cache it measures).
    one_value: bool = False
    # A placebo run's stand-in (`roundbench run --placebo`): the variant
    # whose child this one runs, under its own name on the other side
    # (levels.placebo_name); None for every declared variant.
    stands_for: Optional[str] = None
    # The expert tools (TOOLS) the variant brings; None: what its name or
    # its build says (tools_of).
    tools: Optional[tuple] = None

    def __post_init__(self) -> None:
        if self.level is None:
            object.__setattr__(self, "level", levels.by_name(self.name))
        if self.level not in levels.ALL_LEVELS:
            raise ValueError(f"variant {self.name}: level {self.level!r} is none of {', '.join(levels.ALL_LEVELS)}")
        if self.level == "c" and self.language != "c":
            raise ValueError(f"variant {self.name}: level c is the C variants' alone")
        if (self.program == "generated") != bool(self.argv):
            raise ValueError(f"variant {self.name}: a generated program is named by its argv, and only it")
        if self.program not in PROGRAMS:
            raise ValueError(f"variant {self.name}: program {self.program!r} is none of {', '.join(PROGRAMS)}")
        if self.language not in LANGS:
            raise ValueError(f"variant {self.name}: a name starts with its language ({', '.join(LANGS)})")
        if self.model is not None and self.model not in MODELS:
            raise ValueError(f"variant {self.name}: model {self.model!r} is none of {', '.join(MODELS)}")
        for t in self.tools or ():
            if t not in TOOLS:
                raise ValueError(f"variant {self.name}: tool {t!r} is none of {', '.join(TOOLS)}")

    @property
    def language(self) -> str:
        return language(self.name)

    @property
    def runs_as(self) -> str:
        """The variant its child runs: its own, or a stand-in's original."""
        return self.stands_for or self.name

    @property
    def key(self) -> str:
        """The variant's name, and its runtime where it has one
        ("go-c/go=1.20.14"): what tells its rows apart within a cell."""
        return self.name if self.runtime is None else f"{self.name}/{self.runtime.key()}"


@dataclass(frozen=True)
class Option:
    """A `roundbench run` option that a round owns: `--FLAG VALUE` sets the
    round's parameter `param` to parse(VALUE) in every cell of the round
    (and so in every result's name). parse raises ValueError with what it
    wants. A setting (matmul's threads) is how to run, not a size: giving it
    does not make the variants limited to some sizes (default_if) run."""

    flag: str
    param: str
    help: str
    parse: Callable[[str], object]
    metavar: str = "V"
    setting: bool = False


@dataclass(frozen=True)
class Param:
    """A parameter a round's cells take (a size's key, an Option's param,
    `--param NAME=VALUE`): its name and what a value must be. `roundbench
    run` checks every value given against it before any child starts, with
    the message a child would give (measure/harness.Args.int). An integer
    parameter takes lo..hi, the range that every variant's child accepts;
    any other is checked by `parse` (a function of the text that raises
    ValueError saying what it wants)."""

    name: str
    help: str
    lo: Optional[int] = None
    hi: Optional[int] = None
    parse: Optional[Callable[[str], object]] = None

    def __post_init__(self) -> None:
        if self.parse is None and (self.lo is None or self.hi is None):
            raise ValueError(f"parameter {self.name}: an integer one needs lo and hi, else a parse function")

    def check(self, round_name: str, raw: object) -> None:
        """ValueError with the child's message when raw is no value of it."""
        text = str(raw)
        if self.parse is not None:
            try:
                self.parse(text)
            except ValueError as e:
                raise ValueError(f"{round_name}: {self.name}={text}: {e}") from None
            return
        try:
            value = int(text, 10)
        except ValueError:
            raise ValueError(f"{round_name}: {self.name}={text} is not an integer") from None
        if not self.lo <= value <= self.hi:
            raise ValueError(f"{round_name}: {self.name}={value} is out of range [{self.lo}, {self.hi}]")

    def wants(self) -> str:
        """What a value must be, for --help and errors."""
        return f"an integer in [{self.lo}, {self.hi}]" if self.parse is None else self.help


def one_of(*choices: str) -> Callable[[str], str]:
    """A Param parser: one of these words."""

    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"want one of {', '.join(choices)}")
        return text

    return parse


def a_path(text: str) -> str:
    """A Param parser: a file's path (run/userfile.py reads the file)."""
    if not text:
        raise ValueError("want a file's path")
    return text


def int_at_least(lo: int) -> Callable[[str], int]:
    """An Option parser: an integer >= lo."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or value < lo:
            raise ValueError(f"want an integer >= {lo}")
        return value

    return parse


@dataclass(frozen=True)
class Headline:
    """One headline finding a round offers the report's first page: one of
    the score's own points, so that a finding can never contradict its row.
    `level` names the score's column (levels.LEVELS: the same level on both
    sides, best Go variant of that level against best Python variant);
    `where` picks the cell (params it must have; a value "max" picks the
    cell with the largest value of that parameter); `pair` picks, in a
    round of crossings, the row of that Pair's label ("" is the round's own
    row). `rank` orders every round's headlines (the first ten that ran
    are shown). `verb` says how the winner stands to the other side, "is
    {x} faster than", x being the ratio and its interval; `context` ends
    the sentence ("on the arithmetic loop"). `memory`: quote each side's
    bytes per task beside the times."""

    rank: int
    where: dict
    level: str
    context: str
    verb: str = "is {x} faster than"
    memory: bool = False
    pair: str = ""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"headline {self.rank}: level {self.level!r} is none of {', '.join(LEVELS)}")


FASTER = "is {x} faster than"


@dataclass(frozen=True)
class Pair:
    """Which Python variants the score's calling-C level sets against which
    Go variants, for a round whose variants are kinds of crossing into C
    (ffi): a Python C call against a cgo call, not against a Go-to-Go call.
    The first of a round's pairs is its own row; the others get rows of
    their own, labelled."""

    label: str
    py: tuple
    go: tuple


def _any_path(value: str) -> bool:
    return True


def _counts_any(v: Variant) -> Optional[str]:
    return None


@dataclass(frozen=True)
class UserInput:
    """A size parameter of a round that may name the user's own input file
    instead of the one the round generates (`roundbench run jsonl --param
    file=PATH`, `roundbench run aspects --param events=PATH`). A run given
    one (user_inputs) has one cell of that round, PARAM=TOKEN (input_token:
    the file's name made safe for a benchmark name, and a hash of its whole
    path), and the whole path is in the result file's provenance
    (user_file_line). A user's file has no expected result: each child is
    told so by its round's expect variable, set empty, prints its result
    unchecked and keeps it as a `result` fact; the variants are held to
    each other by the runner's cross-check, whose reference is the round's
    `reference` variant, run first in the cell."""

    param: str
    # (the cell's parameters, the file's whole path) -> the child's
    # environment: Variant.make_inputs for a user's file.
    make_inputs: Callable[[dict, str], dict]
    # Whether a value of `param` names a file (aspects: anything that is not
    # an integer; an integer is still a count of generated events).
    is_path: Callable[[str], bool] = _any_path
    # Why a variant does not count a user's file (None: it does); such a
    # variant is a skip row of the cell, with that reason.
    refuses: Callable[[Variant], Optional[str]] = _counts_any


@dataclass(frozen=True)
class Round:
    """A round, as its module declares it: the contract between a round and
    the rest of the suite.

    Declared here (the fields below): its variants (each run by a child
    program that implements it and says so in `--list`), sizes, metric and
    units, options, run budget, concurrency models, and what the report's
    first page takes from it: `headlines` (its headline findings) and
    `pairs` (for a round of crossings, which variants the score pairs).

    Hooks: functions the round's module may define, called by name
    (rounds.hook), each optional:
      provenance() -> (items, warnings): extra provenance lines for the
          result file (matmul: the BLAS library and kernel) and fairness
          warnings;
      report_section(size, cells, config) -> str: Markdown the report prints
          after the round's table for that size (cells: impl ->
          cells.Cell; config: the result file's provenance lines);
      charts(sizes, out_dir) -> [charts.Figure]: the round's own pictures
          (sizes: size -> impl -> cells.Cell), drawn with charts.py's
          helpers; the report puts them in its gallery;
      GENERATORS: the round's input generators (Generator), each a
          subcommand of its own: jsonl's gen-log.

    A variant's `make_inputs` generates the cell's input (cached) before
    each child; its `env` says how the child runs (threads). A round whose
    input may be the user's own file says under which size parameter
    (`user_input`: UserInput)."""

    name: str
    title: str
    explain: str
    variants: list
    sizes: list  # default sizes: a list of {param: value}
    quick: list  # the --quick sizes
    metric: str  # the round's declared metric, e.g. "ns/iter"
    # Where the round runs and is reported in the suite (the table of rounds
    # in docs/ARCHITECTURE.md); ties go by name.
    order: int = 1000
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
    # Whether each child is told which run of its cell it is ($ROUNDBENCH_RUN,
    # 001 for the first, first_run()): the http round stresses a fresh server
    # and the ffi round counts what a million calls leave behind on the first
    # run only. The value has a fixed width, so the environment keeps its
    # size from run to run (its size moves the stack).
    run_index_env: bool = False
    # Whether a child may time several values in one process (the runner
    # asks for them through $ROUNDBENCH_VALUES, values_env): the variant
    # runs again in the same process, inputs, warm-up and check included,
    # each run printing its line. True for rounds whose work leaves nothing
    # behind that the next run would measure; a variant opts out with
    # Variant.one_value, and whole and published programs never give more.
    values: bool = False
    # The round's own `roundbench run` options (Option), which the CLI
    # offers and applies to this round only.
    options: list = field(default_factory=list)
    # Entry points that children implement in the variant's place but that
    # are no variants (matmul's blas-info: what BLAS the program loads).
    helpers: tuple = ()
    # The default of Variant.threads for this round's variants.
    threads: object = "one"
    # With adaptive run counts (--runs auto), the most seconds a cell may
    # spend on runs beyond the minimum before it stops short of its target
    # (run/policy.py, RunPolicy); --budget overrides it for every round. A function
    # of the cell's parameters gives each cell its own (round aspects: its
    # launch cells, whose runs are medians of several starts already, stop
    # at the minimum).
    budget_s: object = 60.0
    # What the static scan of the timed code (scan.py) finds that is this
    # round's work and not a trick: ("sleep",) for the sleep round.
    scan_allows: tuple = ()
    # The report's first page: the headline findings this round offers
    # (Headline), and, for a round of crossings, which variants the score
    # pairs (Pair; empty: the calling-C level pairs every core variant).
    headlines: list = field(default_factory=list)
    pairs: list = field(default_factory=list)
    # Why a side needs no variant with a tool the other side's variants
    # bring (TOOLS): tool -> {side: why} (COUNTERPARTS holds the language's
    # own answers); a tool on one side with neither is a fairness warning.
    counterparts: dict = field(default_factory=dict)
    # Concurrency models (MODELS) whose variants the score sets only against
    # each other, in a row of their own labelled by the model (a headline
    # names it as its `pair`): round chain's caller-driven coroutines are no
    # chain of tasks joined by channels. Every other variant stays in the
    # round's own row.
    apart: tuple = ()
    # The unit the score compares in a cell when it is not the round's
    # metric: a function of the cell's parameters returning one of `units`,
    # or None for the metric (http: at a fixed rate every server serves the
    # rate, so p99 latency decides). The adaptive runs converge on it too.
    score_unit: Optional[Callable] = None
    # A cell whose metric is fixed by construction cannot decide anything: a
    # function of the cell's parameters returning why (cores at one worker:
    # every speed-up is 1), or None. The score lists such a cell and counts
    # no point from it.
    undecided: Optional[Callable] = None
    # A size parameter that may name the user's own input file (UserInput),
    # and, in the round user_inputs binds to one for a run, that file:
    # (the cell's token, its whole path).
    user_input: Optional[UserInput] = None
    user_file: Optional[tuple] = None
    # Cells that only `--sizes all` (make suite SIZES=all) adds to the
    # default sizes: findings beside the verdict's (what printing costs at
    # each output sink, a log without bad lines, ten chains at once) whose
    # runs the default suite's half hour cannot also pay for.
    more_sizes: list = field(default_factory=list)
    # The parameters its cells take (Param): every key of its sizes, its
    # Options' params and its user input's must be one, and every value
    # given on the command line is checked against them before any child
    # starts (check_params).
    params: list = field(default_factory=list)

    def __post_init__(self) -> None:
        declared = {p.name: p for p in self.params}
        if len(declared) != len(self.params):
            raise ValueError(f"round {self.name}: a parameter is declared twice")
        used = [(k, v) for size in self.sizes + self.more_sizes + self.quick for k, v in size.items()]
        used += [(o.param, None) for o in self.options]
        used += [(self.user_input.param, None)] if self.user_input else []
        for key, value in used:
            if key not in declared:
                raise ValueError(f"round {self.name}: parameter {key!r} is used but not declared (Round.params)")
            # A cell bound to a user's file names it by a token (userfile).
            bound = self.user_file is not None and key == self.user_input.param
            if value is not None and not bound:
                declared[key].check(self.name, value)
        names = {v.name for v in self.variants}
        for v in self.variants:
            levels.declare(v.name, v.level)
        # A renamed variant fails here, at import, not silently in the report.
        labels = {c.label for c in self.pairs[1:]} | set(self.apart)
        for tool, sides in self.counterparts.items():
            if tool not in TOOLS or not set(sides) <= {"go", "py"}:
                raise ValueError(f"round {self.name}: counterparts of {tool!r} for {sorted(sides)}: want a tool of "
                                 f"{', '.join(TOOLS)} and the sides go, py")  # fmt: skip
        for m in self.apart:
            if m not in MODELS:
                raise ValueError(f"round {self.name}: apart names model {m!r}, none of {', '.join(MODELS)}")
        for h in self.headlines:
            if h.pair and h.pair not in labels:
                raise ValueError(f"round {self.name}: headline {h.rank} names pair {h.pair!r}, none of its")
        for c in self.pairs:
            unknown = (set(c.py) | set(c.go)) - names
            if unknown:
                raise ValueError(f"round {self.name}: pair {c.label!r} names {sorted(unknown)}, no variants of it")

    @property
    def models(self) -> dict:
        """Variant -> its concurrency model, for the variants that name one."""
        return {v.name: v.model for v in self.variants if v.model is not None}

    @property
    def scan_entries(self) -> dict:
        """Variant -> the functions the static scan reads in its place."""
        return {v.name: list(v.scan) for v in self.variants if v.scan is not None}

    @property
    def tails(self) -> dict:
        """Variant -> why its runs are heavy-tailed, for those that say."""
        return {v.name: v.tail for v in self.variants if v.tail}

    @property
    def python_entries(self) -> tuple:
        """The variants this package's child runs (program "python"), for
        harness.implements."""
        return tuple(v.name for v in self.variants if v.program == "python")

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def bench_prefix(self) -> str:
        return "Benchmark" + self.name[:1].upper() + self.name[1:]


@dataclass(frozen=True)
class Generator:
    """A round's input generator, run as a subcommand of its own (jsonl's
    `gen-log`; cli/generate.py makes its parser): OUT, the file to write,
    and --seed (default `default_seed`), then `options`, each a flag and
    its argparse keywords. run(args) writes OUT and prints what it wrote; a
    ValueError or OSError it raises is a usage error saying what was wrong
    (without the `NAME: ` its message may start with)."""

    name: str
    run: Callable
    help: str
    description: str
    default_seed: int
    seed_help: str
    options: tuple = ()  # ((flag, {argparse keywords}), ...)
    epilog: Optional[str] = None


def score_unit(rnd: Round, params: dict) -> str:
    """The unit the score (and the adaptive runs) judge a cell by."""
    unit = rnd.score_unit(params) if rnd.score_unit is not None else None
    return unit or rnd.metric


def undecided(rnd: Round, params: dict) -> Optional[str]:
    """Why a cell cannot decide a point (Round.undecided), or None."""
    return rnd.undecided(params) if rnd.undecided is not None else None


def threads_of(rnd: Round, v: Variant, params: dict) -> str:
    """ "one" or "many": whether variant v's child in this cell runs on one
    thread (and so is pinned to one CPU) or on several."""
    t = v.threads if v.threads is not None else rnd.threads
    if callable(t):
        t = t(params)
    if t not in ("one", "many"):
        raise ValueError(f"{rnd.name}/{v.name}: threads must be 'one' or 'many', not {t!r}")
    return t


# How many values a child times in one process ($ROUNDBENCH_VALUES, the
# child protocol's: testdata/vectors/protocol.txt, protocol-values), written
# in three digits for the same reason as $ROUNDBENCH_RUN below.
VALUES_ENV = "ROUNDBENCH_VALUES"
# What a child's later values do not pay again (the first run in a process
# imports and compiles; the later ones find it done): taken from its first
# value's line.
PER_PROCESS_UNITS = ("compile-ns", "import-ns")
# The child programs that run a variant several times on $ROUNDBENCH_VALUES
# (their harness's main); a generated caller does not.
_VALUE_PROGRAMS = ("rb-c", "rb-c-so", "rb-c-static", "rb-go", "python")


def gives_values(rnd: Round, v: Variant) -> bool:
    """Whether variant v's child may time several values in one process
    (Round.values, Variant.one_value)."""
    if not rnd.values or rnd.facts or v.one_value or v.level in ("program", "published"):
        return False
    return v.program in _VALUE_PROGRAMS or v.program in programs.LIBRARY_PROGRAMS


def values_value(k: int) -> str:
    """$ROUNDBENCH_VALUES for k values."""
    return f"{k:03d}"


# The run of its cell a child is ($ROUNDBENCH_RUN, from 1), for the rounds
# that ask (Round.run_index_env); absent when a child is run by hand. Its
# value is written in RUN_INDEX_WIDTH digits (001), so that the child's
# environment keeps one size from run to run (its size moves the stack).
RUN_INDEX_ENV = "ROUNDBENCH_RUN"
RUN_INDEX_WIDTH = 3


def run_index_value(k: int) -> str:
    """$ROUNDBENCH_RUN for a cell's k-th run."""
    return f"{k:0{RUN_INDEX_WIDTH}d}"


def first_run() -> bool:
    """Whether this child is its cell's first run (or run by hand): what a
    round does once a cell, not every run (http's stress, ffi's left-B)."""
    return int(os.environ.get(RUN_INDEX_ENV, "1")) == 1


# ---- what a variant needs (Variant.requires) ----------------------------------------
# The runner asks these of each variant (run/launch.py, unavailable).


def ask(check: Callable[..., Optional[str]], exe: Optional[str]) -> Optional[str]:
    """A `requires` check, asked of interpreter `exe` where the check takes
    one (needs_module's, or a round's own with an interpreter parameter),
    else as it is."""
    try:
        takes = bool(inspect.signature(check).parameters)
    except (TypeError, ValueError):
        takes = False
    return check(exe) if takes and exe is not None else check()


def needs_module(name: str, hint: str) -> Callable[..., Optional[str]]:
    """A `requires` check: the Python module `name` can be imported by the
    interpreter the Python children run under (interp.py), or by `exe`, the
    interpreter of the runtime axis a row runs under."""

    def check(exe: Optional[str] = None) -> Optional[str]:
        return interp.module_missing(name, hint, exe)

    return check


def needs_aot(name: str) -> Callable[..., Optional[str]]:
    """A `requires` check: the module `name` compiled ahead of time
    (aotbuild.MODULES: Cython's, mypyc's, Pythran's, the ffi round's
    binding modules) is built for the
    interpreter the Python children run under, or for `exe`. It is built
    here where it is missing or stale (once per process and interpreter,
    under a file lock), so that the build is done before the runs and never
    timed."""

    def check(exe: Optional[str] = None) -> Optional[str]:
        return aotbuild.ensure(name, exe)

    return check


def needs_nuitka(*modes: str) -> Callable[..., Optional[str]]:
    """A `requires` check: round startup's hello-world compiled by Nuitka
    in each of `modes` (nuitkabuild.MODES: standalone, onefile) is built
    for the interpreter the Python children run under, or for `exe`. It is
    built here where it is missing or stale (a minute or more each, once
    per process and interpreter, under a file lock), before the runs and
    never timed; where Nuitka is missing or its build fails, the variant is
    a skip row that says why."""

    def check(exe: Optional[str] = None) -> Optional[str]:
        for mode in modes:
            why = nuitkabuild.ensure(mode, exe)
            if why:
                return why
        return None

    return check


def needs_command(name: str) -> Callable[[], Optional[str]]:
    """A `requires` check: the command `name` is on PATH."""

    def check() -> Optional[str]:
        return None if shutil.which(name) else f"command {name} is not on PATH"

    return check


def needs_program(name: str) -> Callable[[], Optional[str]]:
    """A `requires` check: the project's program `name` is built."""

    def check() -> Optional[str]:
        return programs.missing(name)

    return check


def needs_listed(round_name: str, variant: str, program: str) -> Callable[[], Optional[str]]:
    """A `requires` check: the project's program `program` is built, runs
    here, and lists `round_name variant` (`PROGRAM --list`). A Go build
    twin names its variants from its own build information (docs/go-builds.md),
    so this is the check that the binary really is the build its variant
    says; a GOAMD64=v3 program on a machine without x86-64-v3 stops at its
    start, with the Go runtime's message."""

    def check() -> Optional[str]:
        why = programs.missing(program)
        if why:
            return why
        path = programs.path(program)
        try:
            out = subprocess.run([str(path), "--list"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"`{path} --list` failed: {e}"
        if out.returncode != 0:
            last = (out.stderr or out.stdout).strip().splitlines()
            return f"`{path} --list` failed (exit {out.returncode}): {last[-1] if last else 'no message'}"
        if any(line.split()[:2] == [round_name, variant] for line in out.stdout.splitlines()):
            return None
        listed = ", ".join(" ".join(line.split()[:2]) for line in out.stdout.splitlines() if line.strip())
        return (
            f"{path} does not list {round_name} {variant} (it lists {listed or 'nothing'}): its build information "
            f"does not show the options the name says (`go version -m {path}`)"
        )

    return check


def needs_all(*checks: Callable[..., Optional[str]]) -> Callable[..., Optional[str]]:
    """A `requires` check: every one of checks passes (the first failure
    says why), each asked of interpreter `exe` where it takes one."""

    def check(exe: Optional[str] = None) -> Optional[str]:
        for c in checks:
            why = ask(c, exe)
            if why:
                return why
        return None

    return check


# ---- the Go build twins ----------------------------------------------------------------
# A round's Go runner built apart by the standard toolchain with its own
# speed options (the build table's GO_BUILD_RUNNERS; docs/go-builds.md).


def go_build_twins(round_name: str, make: Callable[..., Variant] = Variant, base: str = "go") -> list:
    """The variants of round `round_name` that its Go runner's build twins
    run: one per program of GO_BUILD_RUNNERS built from the round's
    directory, named after base and what the program's name adds (go-pgo,
    go-v3, go-pgo-v3), at level alone (the standard toolchain's own
    options are the language alone). `make` is the round's own variant
    maker (its inputs), called as make(name, program, explain,
    requires=..., level=...). Each requires its program to list it
    (needs_listed): a twin runs only in a binary whose build information
    shows its options."""
    prefix = f"{programs.go_runner(round_name)}-"
    twins = []
    for program, build in programs.GO_BUILD_RUNNERS.items():
        if build.package != f"{programs.GO_RUNNERS}/{round_name}" or not program.startswith(prefix):
            continue
        name = f"{base}-{program[len(prefix):]}"
        pgo = f"PGO from {build.pgo} (a CPU profile of {base}; make pgo-profiles)" if build.pgo else "no PGO"
        level = f"GOAMD64={build.goamd64}" + (" (AVX2, BMI2, FMA...)" if build.goamd64 == "v3" else "")
        explain = (
            f"{base} built apart ({program}): {pgo}, {level}; it runs only where its binary's own "
            "build information shows these options"
        )
        twins.append(make(name, program, explain, requires=needs_listed(round_name, name, program), level="alone"))
    return twins


def twin_base(rnd: Round, v: Variant) -> Optional[str]:
    """The variant whose code build twin v of round rnd runs (go for
    go-pgo), or None when v is no build twin."""
    prefix = f"{programs.go_runner(rnd.name)}-"
    if v.program not in programs.GO_BUILD_RUNNERS or not v.program.startswith(prefix):
        return None
    suffix = "-" + v.program[len(prefix) :]
    return v.name[: -len(suffix)] if v.name.endswith(suffix) else None


def tools_of(rnd: Round, v: Variant) -> tuple:
    """The expert tools (TOOLS) variant v of round rnd brings: its declared
    ones, else those its name or its build gives: a Go build twin its
    build's (PGO, GOAMD64 above v1), a Python variant the tool its first
    word names (TOOL_WORDS), a name ending in -batch batch decoding."""
    if v.tools is not None:
        return tuple(v.tools)
    if twin_base(rnd, v) is not None:
        build = programs.GO_BUILD_RUNNERS[v.program]
        return tuple(t for t, on in (("pgo", bool(build.pgo)), ("isa", build.goamd64 not in ("", "v1"))) if on)
    out = []
    words = v.name.split("-")
    if v.language == "py" and len(words) > 1 and words[1] in TOOL_WORDS:
        out.append(TOOL_WORDS[words[1]])
    if words[-1] == "batch":
        out.append("batch")
    return tuple(out)


# ---- the user's own input (run/userfile.py binds a round to it) ---------------------


def user_result(rnd: Round, cells: dict) -> tuple:
    """For a round's report_section at a user's file's cell (impl -> Cell,
    whose facts hold each variant's unchecked `result`): (impl, text) of the
    result the others were held to, the reference variant's (the first
    result of its cell), else the first there is, or None when no variant
    found one; and the other results some variants found, sorted (their
    runs failed the cross-check)."""
    found = [(impl, c.facts["result"]) for impl, c in cells.items() if "result" in c.facts]
    ref = next((f for f in found if f[0] == rnd.reference), found[0] if found else None)
    others = sorted({text for _, text in found} - {ref[1]}) if ref else []
    return ref, others


# ---- the rounds there are ------------------------------------------------------------


def module_names() -> list:
    """The suite's round modules, by name, found in this package without
    importing them (a child imports only its own)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def plugin_names() -> list:
    return [m.strip() for m in os.environ.get("ROUNDBENCH_PLUGINS", "").split(",") if m.strip()]


_loaded: dict = {}


def _check(mod: ModuleType, want: Optional[str]) -> ModuleType:
    rnd = getattr(mod, "ROUND", None)
    if not isinstance(rnd, Round):
        raise TypeError(f"{mod.__name__} is a round module but has no ROUND (a roundbench.rounds.Round)")
    if want is not None and rnd.name != want:
        raise ValueError(f"{mod.__name__} declares round {rnd.name!r}: a round's module is named after it")
    return mod


def modules() -> dict:
    """Round name -> module, in suite order (Round.order), plugins last."""
    if not _loaded:
        suite = [_check(importlib.import_module(f"{__name__}.{m}"), m) for m in module_names()]
        suite.sort(key=lambda mod: (mod.ROUND.order, mod.ROUND.name))
        plugins = [_check(importlib.import_module(m), None) for m in plugin_names()]
        for mod in suite + plugins:
            name = mod.ROUND.name
            if name in _loaded:
                raise ValueError(f"round {name!r} is declared twice: in {_loaded[name].__name__} and {mod.__name__}")
            _loaded[name] = mod
    return _loaded


def check_params(selected: list, given: dict) -> dict:
    """The parameters given on the command line (--n, --param), checked
    against the selected rounds' declarations before anything runs: round
    name -> {param: value}, each round getting the ones it declares. A name
    no selected round declares, or a value a round that declares it does
    not accept, is a ValueError naming it and what was wanted."""
    out: dict = {r.name: {} for r in selected}
    for key, value in given.items():
        owners = [r for r in selected if any(p.name == key for p in r.params)]
        if not owners:
            have = "; ".join(f"{r.name}: {', '.join(p.name for p in r.params) or 'none'}" for r in selected)
            raise ValueError(f"no selected round has a parameter {key!r} (their parameters: {have})")
        for r in owners:
            param = next(p for p in r.params if p.name == key)
            param.check(r.name, value)
            out[r.name][key] = value
    return out


def all_rounds() -> list:
    return [m.ROUND for m in modules().values()]


def get(name: str) -> Round:
    try:
        return modules()[name].ROUND
    except KeyError:
        raise KeyError(f"unknown round {name!r} (rounds: {', '.join(modules())})") from None


def generators() -> list:
    """The input generators the rounds bring (a round module's
    GENERATORS), in suite order."""
    return [g for mod in modules().values() for g in getattr(mod, "GENERATORS", ())]


def module_for(round_name: str) -> ModuleType:
    """One round's module, importing only that one when it is a suite round:
    a child process must not pay (in start-up and peak RSS) for the imports
    of every other round."""
    if round_name in module_names():
        return _check(importlib.import_module(f"{__name__}.{round_name}"), round_name)
    try:
        return modules()[round_name]
    except KeyError:
        raise KeyError(f"unknown round {round_name!r} (rounds: {', '.join(modules())})") from None


def hook(round_name: str, name: str) -> Optional[Callable]:
    """A round module's optional function (provenance, report_section), or
    None for a round without one or a round that is not known here."""
    mod = modules().get(round_name)
    return getattr(mod, name, None) if mod is not None else None
