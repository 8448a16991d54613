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
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import os
import pkgutil
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional

from .. import interp, programs, runtimes
from ..levels import LEVELS, level

LANGS = ("c", "go", "py")

# The child programs a variant may name: the C runner (three links of the
# same sources: static core, the core as a shared library, all static), the
# Go runner, this package's child (`python -m roundbench.child`), and the
# programs of library variants built apart (programs.LIBRARY_PROGRAMS).
# "rb-go" is the round's own Go runner, rb-go-<round> (program_of).
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
}

BASE_UNITS = ("ns/op", "peak-B", "user-ns/op", "sys-ns/op")


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
    # giving either; None: the round's `threads` (roundbench.placement).
    threads: object = None
    # The runtime this row of the variant runs under when a run has runtimes
    # as an axis (runtimes.Runtime: `roundbench run --go V --python PATH`),
    # else None: the installed Go, the children's one interpreter.
    runtime: object = None
    # For program "generated": the command that runs the variant, before
    # `ROUND VARIANT key=value...` (a caller's path, or an interpreter and
    # `-m MODULE`).
    argv: tuple = ()

    def __post_init__(self) -> None:
        if (self.program == "generated") != bool(self.argv):
            raise ValueError(f"variant {self.name}: a generated program is named by its argv, and only it")
        if self.program not in PROGRAMS:
            raise ValueError(f"variant {self.name}: program {self.program!r} is none of {', '.join(PROGRAMS)}")
        if self.language not in LANGS:
            raise ValueError(f"variant {self.name}: a name starts with its language ({', '.join(LANGS)})")

    @property
    def language(self) -> str:
        return language(self.name)

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
    cell with the largest value of that parameter); `crossing` picks, in a
    round of crossings, the row of that Crossing's label ("" is the round's
    own row). `rank` orders every round's headlines (the first ten that ran
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
    crossing: str = ""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"headline {self.rank}: level {self.level!r} is none of {', '.join(LEVELS)}")


FASTER = "is {x} faster than"


@dataclass(frozen=True)
class Crossing:
    """A kind of crossing into C that the score's calling-C level pairs
    across the languages (a Python C call against a cgo call, not against a
    Go-to-Go call), for a round whose variants are crossings (ffi). The
    first of a round's crossings is its own row; the others get rows of
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
    `crossings` (for a round of crossings, which ones the score pairs).

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
      COMMANDS: subcommand modules the round brings (each with
          add_parser(sub), as every subcommand module: jsonl's gen-log).

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
    # 1 for the first): the http round stresses a fresh server on the first
    # run only. Off elsewhere: a timed child's environment stays the same
    # from run to run (its size moves the stack).
    run_index_env: bool = False
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
    # (runner.RunPolicy); --budget overrides it for every round. A function
    # of the cell's parameters gives each cell its own (round aspects: its
    # launch cells, whose runs are medians of several starts already, stop
    # at the minimum).
    budget_s: object = 60.0
    # What the static scan of the timed code (scan.py) finds that is this
    # round's work and not a trick: ("sleep",) for the sleep round.
    scan_allows: tuple = ()
    # Variants whose Python entry point only drives the timed code (the http
    # round's load driver): variant -> the dotted names of the functions the
    # scan reads instead ([] when that code is C or Go, scanned there).
    scan_entries: dict = field(default_factory=dict)
    # A concurrency round's model per variant (variant -> one of MODELS):
    # the report labels each row with it and says so when a point goes
    # across models (goroutines against OS threads, say).
    models: dict = field(default_factory=dict)
    # Variants whose runs are known to be heavy-tailed, and why (variant ->
    # the reason): the report says it beside the runs' distribution.
    tails: dict = field(default_factory=dict)
    # The report's first page: the headline findings this round offers
    # (Headline), and, for a round of crossings, which crossings the score
    # pairs (Crossing; empty: the calling-C level pairs every core variant).
    headlines: list = field(default_factory=list)
    crossings: list = field(default_factory=list)
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

    def __post_init__(self) -> None:
        names = {v.name for v in self.variants}
        # A renamed variant fails here, at import, not silently in the report.
        labels = {c.label for c in self.crossings[1:]}
        for h in self.headlines:
            if h.crossing and h.crossing not in labels:
                raise ValueError(f"round {self.name}: headline {h.rank} names crossing {h.crossing!r}, none of its")
        for c in self.crossings:
            unknown = (set(c.py) | set(c.go)) - names
            if unknown:
                raise ValueError(f"round {self.name}: crossing {c.label!r} names {sorted(unknown)}, no variants of it")
        for name, model in self.models.items():
            if name not in names:
                raise ValueError(f"round {self.name}: models names {name!r}, which is no variant of it")
            if model not in MODELS:
                raise ValueError(f"round {self.name}: {name}'s model {model!r} is none of {', '.join(MODELS)}")

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def bench_prefix(self) -> str:
        return "Benchmark" + self.name[:1].upper() + self.name[1:]


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


# The run of its cell a child is ($ROUNDBENCH_RUN, from 1), for the rounds
# that ask (Round.run_index_env); absent when a child is run by hand.
RUN_INDEX_ENV = "ROUNDBENCH_RUN"


def child_env(v: Variant, params: dict) -> Optional[dict]:
    """The child's environment: ours, plus the variant's settings, plus
    where its inputs are (made now if they are not yet), plus what its
    interpreter needs to import this package (a runtime of the axis)."""
    extra = {}
    rt = v.runtime
    if rt is not None and rt.kind == runtimes.PYTHON and not rt.default:
        extra = interp.child_env(rt.where)
    if v.env is None and v.make_inputs is None and not extra:
        return None
    env = dict(os.environ)
    env.update(extra)
    for hook in (v.env, v.make_inputs):
        if hook is not None:
            env.update({k: str(val) for k, val in hook(params).items()})
    return env


def program_of(rnd: Round, v: Variant) -> str:
    """The program that runs variant v of round rnd: v.program, except that
    the Go runner is the round's own (rb-go-<round>: a child then maps no
    other round's code, and its peak RSS is its round's)."""
    return programs.go_runner(rnd.name) if v.program == "rb-go" else v.program


def runs_go(v: Variant) -> bool:
    """Whether v's own program is a Go runner (the round's or a library's),
    which the Go toolchain axis builds with each toolchain."""
    return v.program == "rb-go" or v.program.startswith(programs.GO_RUNNER_PREFIX)


def go_toolchain(v: Variant) -> Optional[str]:
    """The Go release v's runner is built with, when the axis names one
    that is not the installed toolchain's build (the runner then finds the
    program and says whether it can run: gotoolchains). None for a
    generated program: its argv names the build of its release already."""
    rt = v.runtime
    if rt is None or rt.kind != runtimes.GO or rt.default or v.program == "generated":
        return None
    return rt.where


def _interpreter(v: Variant) -> str:
    rt = v.runtime
    return rt.where if rt is not None and rt.kind == runtimes.PYTHON else interp.executable()


def command(rnd: Round, v: Variant, params: dict, program: Optional[Path] = None) -> list:
    """The child's command line for one run; `program`: the program that
    runs it when not the installed build's (a Go runner built with another
    Go release: the runner finds it, gotoolchains.program_path)."""
    kv = [f"{k}={params[k]}" for k in params]
    if v.program == "generated":
        return [*v.argv, rnd.name, v.name, *kv]
    if v.program == "python":
        return [_interpreter(v), "-m", "roundbench.child", rnd.name, v.name, *kv]
    return [str(program or programs.path(program_of(rnd, v))), rnd.name, v.name, *kv]


def ask(check: Callable[..., Optional[str]], exe: Optional[str]) -> Optional[str]:
    """A `requires` check, asked of interpreter `exe` where the check takes
    one (needs_module's, or a round's own with an interpreter parameter),
    else as it is."""
    import inspect

    try:
        takes = bool(inspect.signature(check).parameters)
    except (TypeError, ValueError):
        takes = False
    return check(exe) if takes and exe is not None else check()


def unavailable(rnd: Round, v: Variant) -> Optional[str]:
    """Why variant v cannot run here, or None. A Python variant under an
    interpreter of the runtime axis is asked of that interpreter: the
    extension is built for it first where it is missing (interp.ensure_extension),
    and a variant that calls the core needs it. A Go runner built with
    another Go release is not looked for here: the runner asks
    gotoolchains, which builds it."""
    rt = v.runtime
    exe = rt.where if rt is not None and rt.kind == runtimes.PYTHON and v.program == "python" else None
    if exe is not None:
        if level(v.name) == "core":
            why = interp.ensure_extension(exe)
            if why:
                return why
    elif v.program == "python":
        why = interp.extension_missing()
        if why:
            return why
    elif go_toolchain(v) is not None:
        pass  # the runner asks gotoolchains (runner.expand)
    elif v.program == "generated":
        pass  # built for the run by whoever made the variant, which says why where it is not
    else:
        why = programs.missing(program_of(rnd, v))
        if why:
            return why
    if v.requires is not None:
        return ask(v.requires, exe)
    return None


def needs_module(name: str, hint: str) -> Callable[..., Optional[str]]:
    """A `requires` check: the Python module `name` can be imported by the
    interpreter the Python children run under (interp.py), or by `exe`, the
    interpreter of the runtime axis a row runs under."""

    def check(exe: Optional[str] = None) -> Optional[str]:
        return interp.module_missing(name, hint, exe)

    return check


def uvloop_loop_factory() -> Callable[[], object]:
    """uvloop's new_event_loop, for the py-uvloop variants (asyncio's code
    on uvloop's loop); CannotRun in a child where uvloop is missing."""
    from .. import harness

    uvloop = harness.require("uvloop")
    return uvloop.new_event_loop


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


# ---- the user's own input ----------------------------------------------------------

# What a token keeps of a file's name: the characters that mean nothing in a
# benchmark name (benchfmt: `/` splits the keys, `=` a key from its value,
# white space ends the name) nor in the report's Markdown tables (`|`).
_TOKEN_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")
TOKEN_NAME_MAX = 40


def input_token(path: str) -> str:
    """The value that names a user's file in a cell: its file name, with
    every run of other characters than letters, digits and `._+-` made one
    `_` and cut to TOKEN_NAME_MAX characters, then `-` and 8 hex digits of
    the SHA-256 of its whole path, so that two files of one name are two
    cells ("my log.jsonl" -> "my_log.jsonl-1f0c9a2e")."""
    name = _TOKEN_UNSAFE.sub("_", os.path.basename(path)).strip("_")[:TOKEN_NAME_MAX] or "input"
    return f"{name}-{hashlib.sha256(os.fsencode(path)).hexdigest()[:8]}"


def _shown(value: str) -> str:
    """A path as a message shows it: as given, or quoted when it holds a
    character that would not print on one line."""
    return value if value.isprintable() else repr(value)


def checked_file(key: str, value: str) -> str:
    """The whole path of the user's file that `--param KEY=VALUE` names,
    checked before any child runs: UsageError, naming it, when it is
    missing, a directory, not a regular file (each child reads it more than once)
    or unreadable."""
    from ..errors import UsageError

    where = f"--param {key}={_shown(value)}"
    if not value:
        raise UsageError(f"{where}: names no file")
    path = os.path.realpath(os.path.expanduser(value))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except OSError as e:
        raise UsageError(f"{where}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{where}: is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{where}: is not a regular file (each child reads it more than once)")
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise UsageError(f"{where}: cannot read it: {e.strerror}") from None
    return path


def _refused(why: str) -> Callable[[], Optional[str]]:
    return lambda: why


def bind_user_file(rnd: Round, path: str) -> Round:
    """The round for a run on the user's file at `path` (whole, checked):
    one cell, PARAM=TOKEN, whatever its declared or --quick sizes; the
    reference variant first (the runner's cross-check takes the first
    result of a cell as the one the others must equal); every variant that
    counts a user's file made to find it, and run whatever its default_if
    says (a size given on the command line runs every variant); the others
    skipped with their reason."""
    ui = rnd.user_input
    token = input_token(path)
    cell = {ui.param: token}
    variants = []
    for v in sorted(rnd.variants, key=lambda v: v.name != rnd.reference):
        why = ui.refuses(v)
        if why:
            variants.append(dataclasses.replace(v, requires=_refused(why), default_if=None))
        else:
            variants.append(
                dataclasses.replace(v, make_inputs=functools.partial(ui.make_inputs, path=path), default_if=None)
            )
    return dataclasses.replace(rnd, sizes=[cell], quick=[cell], variants=variants, user_file=(token, path))


def user_inputs(selected: list, overrides: dict) -> tuple:
    """`roundbench run`'s --param overrides, read for the user's files: a
    KEY=VALUE that names one for a round that takes it (Round.user_input)
    is checked (checked_file), leaves the overrides, and binds each such
    round to the file (bind_user_file). A round in the run that takes no
    user's file under KEY makes it a usage error rather than a parameter
    passed on: a user's log given to the loop round is a mistake, not a
    size. Returns (the rounds, the overrides left)."""
    from ..errors import UsageError

    rest = dict(overrides)
    out = list(selected)
    for key, value in overrides.items():
        value = str(value)
        takers = [r for r in all_rounds() if r.user_input and r.user_input.param == key]
        takers = [r.name for r in takers if r.user_input.is_path(value)]
        if not takers:
            continue
        others = [r.name for r in out if r.name not in takers]
        if others:
            which = " and ".join(takers)
            those = ", ".join(others) if len(others) <= 3 else f"the {len(others)} other rounds of this run"
            raise UsageError(
                f"--param {key}={_shown(value)} names a user's file, which only round {which} takes (not "
                f"{those}): run `roundbench run {which} --param {key}=PATH`"
            )
        path = checked_file(key, value)
        del rest[key]
        out = [bind_user_file(r, path) for r in out]
    return out, rest


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


def user_file_line(rnd: Round) -> Optional[tuple]:
    """The provenance line of a round bound to a user's file, (key, value),
    or None: which cell it is and the file's whole path (white space and `%`
    %-escaped, so that the line keeps it exactly), size and time."""
    if rnd.user_file is None:
        return None
    import datetime
    import string
    import urllib.parse

    token, path = rnd.user_file
    try:
        st = os.stat(path)
        mtime = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        about = f"{st.st_size} bytes, modified {mtime}"
    except OSError as e:
        about = f"unreadable now: {e.strerror}"
    shown = urllib.parse.quote(os.fsencode(path), safe=string.punctuation.replace("%", ""))
    return f"{rnd.name}-user-file", f"{rnd.user_input.param}={token} is {shown} ({about})"


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


def all_rounds() -> list:
    return [m.ROUND for m in modules().values()]


def get(name: str) -> Round:
    try:
        return modules()[name].ROUND
    except KeyError:
        raise KeyError(f"unknown round {name!r} (rounds: {', '.join(modules())})") from None


def subcommands() -> list:
    """The subcommand modules the rounds bring, in suite order: a round
    module's COMMANDS (modules exposing add_parser(sub), as every
    subcommand module does; jsonl's gen-log, for one)."""
    return [cmd for mod in modules().values() for cmd in getattr(mod, "COMMANDS", ())]


def add_generator(
    sub, name: str, run: Callable, *, help: str, description: str, default_seed: int, seed_help: str, epilog=None
):
    """A round's input generator as a subcommand (jsonl's `gen-log`): its
    parser, with OUT (the file to write) and --seed, for the generator to
    add its own options to. run(args) writes OUT and prints what it wrote;
    a ValueError or OSError it raises is a usage error saying what was
    wrong (without the `NAME: ` its message may start with)."""
    from ..errors import EXIT_OK, UsageError

    g = sub.add_parser(name, help=help, description=description, epilog=epilog)
    g.add_argument("out", metavar="OUT", help="the file to write")
    g.add_argument("--seed", type=int, default=default_seed, metavar="S", help=seed_help)

    def cmd(args) -> int:
        try:
            run(args)
        except (ValueError, OSError) as e:
            raise UsageError(str(e).removeprefix(f"{name}: ")) from None
        return EXIT_OK

    g.set_defaults(func=cmd)
    return g


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
