"""Round aspects: a small real program people rewrite "for speed".

Search a list of dated events for a combination of planetary aspects (an
astrology research tool; the published comparison behind "Go is 3.8x to
404x, about 300x, faster than Python + pandas"). The input, generated once
and cached by roundbench.rounds.aspects.ephemeris: a daily ephemeris of ten bodies for
1900-2100 (73,414 rows, tab-separated text) and N events (time, latitude,
longitude, name; 277 as published, and 100,000). Per event: the bodies'
longitudes interpolated between two daily rows, the sidereal time, the
Midheaven and Ascendant, the 12 Porphyry cusps, the 66 pairwise separations
and the aspects within 8 degrees. Test 1 prints the events where the
combination holds and how many aspects each point took part in; test 2
also prints every event's cusps and 20 most exact aspects
(roundbench.pure.aspects has the exact rules).

The child contract, the same for the C, Go and Python children: the env
hook (the runner calls it before each child) generates the files and sets
ROUNDBENCH_ASPECTS_EPHEMERIS and ROUNDBENCH_ASPECTS_EVENTS; the expected
output of each (test, combo) is in the file ROUNDBENCH_ASPECTS_EXPECT names
(EVENTS.expect beside the events; set empty for a user's own events file,
`roundbench run aspects --param events=PATH`, which has none: the child
then prints its result unchecked and keeps it as a fact, and `events` only
names the file). The
child takes parameters events=N (the events file's count, checked), seed=S
(names the file only), test=1|2 (default 1) and combo=... (default
Moon-120-Jupiter,Asc-90-Mars); it loads both files untimed, searches the
first 16 events untimed for 50 ms (the harnesses' warm-up rule), times one
search of all events into an
in-memory buffer, checks the output's matches, byte length and CRC-32
against the .expect, prints `result: matches=M crc=xxxxxxxx len=L` and
emits ns/op and ns/event.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import zlib
from pathlib import Path

from ...measure import harness
from ...runtimes import interp, programs
from ...pure import aspects as pa
from . import ephemeris
from .. import _numba as jit
from .. import (
    go_build_twins,
    Headline,
    one_of,
    Param,
    Round,
    UserInput,
    Variant,
    needs_all,
    needs_command,
    needs_module,
    needs_program,
    user_result,
)

EPHEMERIS_ENV = "ROUNDBENCH_ASPECTS_EPHEMERIS"
EVENTS_ENV = "ROUNDBENCH_ASPECTS_EVENTS"
# The file holding the events' expected output (harness.expect_path): the
# generator's EVENTS.expect, or empty for a user's events file.
EXPECT_ENV = "ROUNDBENCH_ASPECTS_EXPECT"
DEFAULT_EVENTS = ephemeris.DEFAULT_EVENTS
MAX_EVENTS = 10_000_000
WARMUP_EVENTS = 16
UNITS = ["ns/event"]


def _make_inputs(params: dict) -> dict:
    """Runs in the runner before each child: the paths of the table and of
    the events, generated on first use and cached by their arguments; the
    .expect gets the lines of a combination other than the default the
    first time a cell asks for it."""
    n = int(params.get("events", DEFAULT_EVENTS))
    seed = int(params.get("seed", ephemeris.DEFAULT_SEED))
    data = programs.build_dir() / "data"
    eph = ephemeris.cached_ephemeris(data)
    events = ephemeris.cached_events(data, n, seed)
    combo = str(params.get("combo", pa.DEFAULT_COMBO))
    if combo != pa.DEFAULT_COMBO:
        ephemeris.ensure_expected(events, eph, combo)
    return {EPHEMERIS_ENV: str(eph), EVENTS_ENV: str(events), EXPECT_ENV: f"{events}.expect"}


def _user_events(params: dict, path: str) -> dict:
    """make_inputs for a user's events file (UserInput): the generated
    table, the user's events, no expected output (the variants are held to
    each other)."""
    return {
        EPHEMERIS_ENV: str(ephemeris.cached_ephemeris(programs.build_dir() / "data")),
        EVENTS_ENV: path,
        EXPECT_ENV: "",
    }


def _names_file(value: str) -> bool:
    """events=VALUE names a user's file unless VALUE is an integer (a count
    of generated events)."""
    try:
        int(value, 10)
    except ValueError:
        return True
    return False


def _small(params: dict) -> bool:
    return int(params.get("events", DEFAULT_EVENTS)) <= DEFAULT_EVENTS


def _v(name: str, program: str, explain: str, **kw) -> Variant:
    return Variant(name, program, explain, make_inputs=_make_inputs, **kw)


# The round's own subcommand (cli.py adds it): its input's generator.
GENERATORS = (ephemeris.generator(),)

# Where a launch cell's program writes its output (sink=...).
SINKS = ("pipe", "file", "devnull", "pty")


def _combo(text: str) -> str:
    """Param parser of `combo`: a combination the search understands."""
    pa.parse_combo(text)
    return text


ROUND = Round(
    name="aspects",
    title="aspects: search dated events for a combination of planetary aspects",
    explain=(
        "A whole small program: per event, ten longitudes interpolated from a daily ephemeris, the "
        "sidereal time, Ascendant, Midheaven and Porphyry cusps, the 66 pairwise aspects within 8 degrees; "
        "the events where Moon 120 Jupiter and Asc 90 Mars both hold are printed (test 1) into memory. "
        "Every variant prints the same bytes, checked against the generator's length and CRC-32."
    ),
    variants=[
        _v("c", "rb-c", "the C core: the table as an array of rows, the output into a growing buffer"),
        _v("go", "rb-go", "pure Go, the table as a slice of structs (one per day)"),
        # Both are pure Go and its standard library: the language alone.
        _v("go-columns", "rb-go", "pure Go, the table as a struct of slices (one per column)", level="alone"),
        _v(
            "go-reflect",
            "rb-go",
            "pure Go, each body's field reached by name through package reflect, as the published Go port did",
            level="alone",
        ),
        _v("go-c", "rb-go", "Go calling the C core through cgo"),
        # Go's own toolchain at its fastest, the go variant's build twins:
        # go-pgo, go-v3, go-pgo-v3 (docs/go-builds.md).
        *go_build_twins("aspects", _v),
        _v("py", "python", "plain Python: the table as a list of tuples, the math module"),
        _v("py-c", "python", "Python calling the C core through the extension"),
        _v(
            "py-numpy",
            "python",
            "numpy, vectorised over events: arrays of (events x points) in blocks of 512 events",
            requires=needs_module("numpy", "pip install numpy"),
        ),
        _v(
            "py-numba",
            "python",
            "numba: an @njit kernel over py-numpy's arrays, one event at a time (points, cusps, the 66 pairs' "
            "aspects, the combination and the counts), the text written by py-numpy's writer; fastmath off, not "
            "cached: each run compiles, and compile-ns is that first call on a one-event input, timed apart",
            requires=needs_module("numba", "pip install numba"),
            level="ecosystem",
        ),
        _v(
            "py-pandas",
            "python",
            "the newcomer's version, on purpose: DataFrames from pd.read_csv, each event a row of iterrows(), its "
            "two ephemeris rows found with .loc and read by column name; nothing vectorised (277 events by default)",
            requires=needs_module("pandas", "pip install pandas"),
            default_if=_small,
        ),
    ],
    # The bounds every child takes (the C runner's launch starts: 1000).
    params=[
        Param("events", "generated events (an integer), or an events file of the user's own", 0, MAX_EVENTS),
        Param("seed", "the generated events' seed", 0, 2**63 - 1),
        Param("combo", "a combination, POINT-ANGLE-POINT,...", parse=_combo),
        Param("test", "1: the matches; 2: every event's angles too", 1, 2),
        Param("sink", f"a launch cell's output: {', '.join(SINKS)}", parse=one_of(*SINKS)),
        Param("starts", "a launch cell's starts a run", 1, 1000),
    ],
    sizes=[{"events": DEFAULT_EVENTS}, {"events": 100_000}],
    quick=[{"events": DEFAULT_EVENTS}],
    metric="ns/event",
    order=13,
    values=True,
    # The whole round, 6 runs of every variant at both sizes, within 5
    # minutes: py at 100,000 events takes several seconds a run.
    budget_s=30.0,
    units={"ns/event": "lower", "compile-ns": "lower", "import-ns": "lower"},
    # A JIT's compile beside its run time (numba's first call), as round loop's.
    columns=[("compile-ns", "JIT compile (ns)")],
    metric_explain=(
        "ns/event: wall time of one search over all events (test 1, output into memory, files loaded "
        "beforehand) divided by the number of events"
    ),
)


# ---- the report ------------------------------------------------------------------

PUBLISHED = (
    "A newcomer's Python + pandas program rewritten in Go ran 3.8x faster in the worst case, 404x in the best, "
    "about 300x in the most typical uses"
)
PURE_GO = ("go", "go-columns", "go-reflect")

# The gap, one cause at a time: each step replaces one thing.
STEPS = (
    ("py-pandas", "py", "pandas row access: iterrows, a Timestamp and two .loc rows per event, columns by name"),
    ("py", "py-numpy", "vectorising the Python: numpy over all events at once"),
    ("py-numpy", "go*", "the language: compiled Go, one event at a time"),
    ("go*", "c", "Go to C: the same loop in the C core"),
)


def report_section(size: dict, cells: dict, config: dict) -> str:
    if "mode" in size or "sink" in size:
        return _launch_section(size, cells, config)
    events = str(size.get("events", DEFAULT_EVENTS))
    if _names_file(events):
        return _user_events_section(size, cells, config) + _section("your events", cells)
    return _section(f"{events} events", cells)


def _user_events_section(size: dict, cells: dict, config: dict) -> str:
    """A user's events file: what the C core found in it, the result every
    other variant was held to."""
    where = config.get("aspects-user-file", f"events={size.get('events')}")
    ref, others = user_result(ROUND, cells)
    if ref is None:
        return f"Your events: {where}. No variant searched them (see the failures above).\n\n"
    impl, text = ref
    who = "the C core (variant c)" if impl == ROUND.reference else f"{impl} (c did not search them)"
    w = [
        f"Your events: {where}. Searched by {who} for {size.get('combo', pa.DEFAULT_COMBO)} (test "
        f"{_test(size)}): {text} (the events where the combination holds, and the CRC-32 and length of the "
        "output); every other variant's result "
        "was held to this one (a variant that finds anything else fails its run)."
    ]
    if others:
        w.append(f"**Variants kept different results: {'; '.join(others)}** (their runs failed above).")
    return "\n\n".join(w) + "\n\n"


def _section(at: str, cells: dict) -> str:
    """The in-process cells' comparison with the published claim, at `at`
    ("277 events", "your events")."""
    med = {impl: c.median_of("ns/event") for impl, c in cells.items()}
    med = {impl: m for impl, m in med.items() if m}
    go = [(med[g], g) for g in PURE_GO if g in med]
    best_go = min(go)[1] if go else None
    if best_go:
        med["go*"] = med[best_go]

    def name(impl: str) -> str:
        if impl != "go*":
            return impl
        return f"{best_go} (the fastest pure Go)" if best_go else "the fastest pure Go"

    def ns(impl: str) -> str:
        m = med[impl]
        return f"{name(impl)}: {m:,.0f} ns/event" if m >= 100 else f"{name(impl)}: {m:.3g} ns/event"

    def ratio(a: str, b: str) -> str:
        if a not in med or b not in med:
            return "not measured"
        r = med[a] / med[b]
        return f"{r:,.0f}x" if r >= 100 else f"{r:.3g}x"

    w = [
        f"Published: {PUBLISHED}: whole programs, started from a shell, printing to a console. "
        f"Here, at {at}: the search alone, both files loaded beforehand, "
        "the output into memory (ratios of median ns/event; the launch cells, where run, add start-up and "
        "printing).",
        "",
        "| comparison | published | this run |",
        "|---|---|---|",
        f"| py-pandas against the fastest pure Go | 3.8x .. 404x, about 300x | {ratio('py-pandas', 'go*')} |",
        f"| py-pandas against go-reflect (the published port's style) | | {ratio('py-pandas', 'go-reflect')} |",
        f"| py (plain Python) against the fastest pure Go | | {ratio('py', 'go*')} |",
        f"| py-numpy against the fastest pure Go | | {ratio('py-numpy', 'go*')} |",
        f"| py-pandas against c | | {ratio('py-pandas', 'c')} |",
        "",
        "Where the gap comes from, one step at a time (each factor is the ratio of the two medians):",
        "",
        "| step | from | to | factor |",
        "|---|---|---|---|",
    ]
    for a, b, what in STEPS:
        if a in med and b in med:
            w.append(f"| {what} | {ns(a)} | {ns(b)} | {ratio(a, b)} |")
        else:
            w.append(f"| {what} | {name(a)} | {name(b)} | not measured |")
    if "go" in med:
        layout = [f"{g} / go = {med[g] / med['go']:.3g}" for g in ("go-columns", "go-reflect") if g in med]
        if layout:
            w += [
                "",
                "Go's data layout: a struct of slices and fields reached through reflect against a slice of "
                f"structs: {'; '.join(layout)} (the published author found the first two about equal).",
            ]
    w += [
        "",
        "Launch modes (process start to exit: `python aspects.py`, `go run` with a cold and a warm build "
        "cache, the Go binary, the C binary; output to a pipe, a file, /dev/null and a terminal) are their own "
        "cells, reported in their own section when the result file has them.",
    ]
    return "\n".join(w) + "\n"


# ---- the launch modes: the whole program, started from outside -------------------
#
# Cells of their own, named by a sink= parameter. Each variant starts the
# whole program (both files read, the search, the output printed) and is
# timed from process start to exit by build/rb-c-static, the launcher of
# round startup (csrc/runner/run_aspects.c, "The launch modes"; launch.c),
# with the program's stdout on the cell's sink, every start checked against
# the .expect. Test 1 at a pipe with every mode; test 2 at every sink with
# the compiled programs and the Python script (and `go run` at the pipe),
# each run also starting test 1 at the same sink, interleaved, so that the
# cost of printing (print-ms) is a paired difference within one process.
# The cold `go run` (about 10 s a start on a 2-core machine) runs in the
# test 1 cell only, one start a run. Launch cells take their minimum runs
# (6): each run is the median of several starts, and the whole round stays
# within 5 minutes. py-pandas has no launch mode (the issue leaves it
# optional, and the round's 5 minutes would not hold it): its start would
# add pandas's import (round startup's py-pandas row) and pd.read_csv of the
# table to its in-process search.

LAUNCHER = "rb-c-static"
SINK_WHAT = {
    "pipe": "a pipe the launcher reads while the program runs (`aspects | consumer`)",
    "file": "a file (`aspects > out`: a temporary file, in the page cache, read back after the program exits)",
    "devnull": "/dev/null (`aspects > /dev/null`: nothing can be read back, so the output is not checked at "
    "this sink; the same programs are checked at the other three)",
    "pty": "a terminal: a pseudo-terminal in raw mode (no \\r added), read as fast as the kernel passes the "
    "output on",
}
LAUNCH_UNITS = {
    "ms": "lower",
    "spread-ms": "lower",
    "start-peak-B": "lower",
    "cpu-ms": "lower",
    "t1-ms": "lower",
    "print-ms": "lower",
}
CHECKED = (
    "; every start checked: exit 0, and the output's length and CRC-32 wherever it can be read back (not /dev/null)"
)


def _is_launch(params: dict) -> bool:
    return "sink" in params


def _test(params: dict) -> str:
    return str(params.get("test", 1))


def _needs_go_sources() -> str | None:
    """go run builds from the module's sources: go/cmd/aspects must be there."""
    main = programs.go_module() / "go" / "cmd" / "aspects"
    return None if main.is_dir() else f"{main} is missing: `go run` needs the module's sources"


# py-script-numba's program: the py-numba variant's module, run as a file.
_NUMBA_SCRIPT = Path(__file__).resolve().parent / "with_numba.py"

# Variant -> the variables that tell the launcher where its program is.
PROGRAM_ENV: dict = {}


def _launch(name: str, explain: str, program_env, requires=None, where=_is_launch) -> Variant:
    """A launch variant: the launcher starts the program that
    program_env() names, with the cell's data files."""
    PROGRAM_ENV[name] = program_env
    return Variant(
        name,
        LAUNCHER,
        explain + CHECKED,
        requires=requires,
        default_if=where,
        runs_if=_is_launch,
        env=lambda params: program_env(),
        make_inputs=_make_inputs,
        one_value=True,  # a whole program's start to exit: a value is a process
    )


def _go_run_env() -> dict:
    return {"RB_ASPECTS_GO_TOOL": shutil.which("go") or "", "RB_ASPECTS_GO_MODULE": str(programs.go_module())}


LAUNCH_VARIANTS = [
    _launch(
        "c-binary",
        "the C program (build/aspects-c, csrc/tools/aspects.c) started from outside, start to exit",
        lambda: {"RB_ASPECTS_C": str(programs.path("aspects-c"))},
        requires=needs_program("aspects-c"),
    ),
    _launch(
        "go-binary",
        "the compiled Go program (build/aspects-go, go/cmd/aspects: the go variant's code, pure Go), start to exit",
        lambda: {"RB_ASPECTS_GO": str(programs.path("aspects-go"))},
        requires=needs_program("aspects-go"),
    ),
    _launch(
        "go-run",
        "`go run ./go/cmd/aspects` with a warm build cache (the warm-up start fills it): the go command checks "
        "every package against the cache, then starts the cached program (GOPROXY=off, GOTOOLCHAIN=local, "
        "CGO_ENABLED=0)",
        _go_run_env,
        requires=needs_all(needs_command("go"), _needs_go_sources),
        where=lambda p: p.get("sink") == "pipe",
    ),
    _launch(
        "go-run-cold",
        "`go run ./go/cmd/aspects` with a new, empty GOCACHE for every start: it compiles the runtime, the standard "
        "library and the program each time (one start a run, no warm-up; nothing fetched: GOPROXY=off, "
        "GOTOOLCHAIN=local); cpu-ms includes the compiler's processes; not in --quick (one start a run, "
        "starts=1, is a whole compilation)",
        _go_run_env,
        requires=needs_all(needs_command("go"), _needs_go_sources),
        where=lambda p: p.get("sink") == "pipe" and _test(p) == "1" and str(p.get("starts", "")) != "1",
    ),
    _launch(
        "py-script",
        "`python aspects.py` (python/roundbench/pure/aspects.py: the py variant's code, standard library only), "
        "with the interpreter the Python children run",
        lambda: {"RB_ASPECTS_PYTHON": interp.executable(), "RB_ASPECTS_SCRIPT": str(Path(pa.__file__).resolve())},
    ),
    _launch(
        "py-script-numba",
        "`python with_numba.py` (python/roundbench/rounds/aspects/with_numba.py: the py-numba variant's code), "
        "with the interpreter the Python children run: each start imports numpy and numba and compiles the kernel "
        "(not cached); at the pipe only, one start a run (over a second each)",
        lambda: {"RB_ASPECTS_PYTHON": interp.executable(), "RB_ASPECTS_SCRIPT": str(_NUMBA_SCRIPT)},
        requires=needs_module("numba", "pip install numba"),
        where=lambda p: p.get("sink") == "pipe",
    ),
]
LAUNCH_SIZES = [{"events": DEFAULT_EVENTS, "test": 1, "sink": "pipe"}] + [
    {"events": DEFAULT_EVENTS, "test": 2, "sink": s} for s in SINKS
]


def _in_process(v: Variant) -> Variant:
    """An in-process variant keeps out of the launch cells, whatever size
    the command line gives."""
    return dataclasses.replace(v, runs_if=lambda p: not _is_launch(p))


def _refuses_user_events(v: Variant) -> str | None:
    """The launch modes run on the generated events only: each start is
    checked against the events' expected output, which a user's file lacks."""
    if v.name in PROGRAM_ENV:
        return (
            f"{v.name} is a launch mode: it runs on the generated events only (each start is checked against "
            "their expected output, which a user's events file has not)"
        )
    return None


def _budget(in_process):
    return lambda params: 0.0 if _is_launch(params) else in_process


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(15, {"events": "max"}, "alone", "searching dated events for combinations of aspects"),
    Headline(16, {"test": "1", "sink": "pipe"}, "program", "started, run and exited"),
]

# The round declared above, with the launch cells, their variants, units
# and report columns added; the in-process variants keep out of them.
ROUND = dataclasses.replace(
    ROUND,
    headlines=HEADLINES,
    explain=ROUND.explain
    + " The launch cells (sink=...) start the whole program instead, from process start to exit, its output "
    "on a pipe, a file, /dev/null or a terminal.",
    variants=[_in_process(v) for v in ROUND.variants] + LAUNCH_VARIANTS,
    # Test 2 at the other sinks says what printing costs there, beside the
    # verdict: --sizes all (make suite SIZES=all) adds those cells.
    sizes=ROUND.sizes + [s for s in LAUNCH_SIZES if s["sink"] == "pipe"],
    more_sizes=[s for s in LAUNCH_SIZES if s["sink"] != "pipe"],
    # --quick keeps the pipe's cells, one start a run, and leaves the cold
    # `go run` out (each of its starts compiles the runtime): the suite's
    # quick run stays within its few minutes.
    quick=ROUND.quick + [{**s, "starts": 1} for s in LAUNCH_SIZES if s["sink"] == "pipe"],
    units={**ROUND.units, **LAUNCH_UNITS},
    columns=ROUND.columns + [("ms", "ms per launch"), ("print-ms", "printing: test 2 − test 1 (ms)")],
    budget_s=_budget(ROUND.budget_s),
    user_input=UserInput("events", _user_events, is_path=_names_file, refuses=_refuses_user_events),
    metric_explain=ROUND.metric_explain
    + "; in the launch cells, the whole program's start to exit divided by the events (ms per launch beside it)",
)


def _launch_section(size: dict, cells: dict, config: dict) -> str:
    """A launch cell: what printing costs at its sink (test 2), and `go
    run` and the script against the binaries (test 1)."""

    def med(impl: str, unit: str = "ms"):
        c = cells.get(impl)
        return c.median_of(unit) if c is not None else None

    def ms(x: float) -> str:
        return f"{x:,.0f} ms" if abs(x) >= 100 else f"{x:.3g} ms"

    def times(a: str, b: str) -> str:
        x, y = med(a), med(b)
        if not x or not y:
            return "not measured"
        r = x / y
        return f"{r:,.0f}x" if r >= 100 else f"{r:.3g}x"

    sink = str(size.get("sink"))
    w = [
        f"Launch modes, test {_test(size)}, stdout on {SINK_WHAT.get(sink, sink)}. Each figure is the median "
        "over the runs of each run's median start, process start to exit: the interpreter or runtime starting, "
        "the 8.7 MB ephemeris read and parsed, the search, the output written.",
        "",
    ]
    if _test(size) == "2":
        rows = []
        for impl in (v.name for v in LAUNCH_VARIANTS):
            p, t1, t2 = med(impl, "print-ms"), med(impl, "t1-ms"), med(impl)
            if p is not None and t1 is not None and t2 is not None:
                rows.append(f"| {impl} | {ms(t1)} | {ms(t2)} | {p:+.3g} ms |")
        if rows:
            w += [
                "The cost of printing at this sink: every run starts test 1 and test 2 in turn at the same sink, "
                "and the printing is the median of their differences: writing test 2's output (every event's "
                "angles, cusps and 20 most exact aspects) and the work of sorting and formatting it:",
                "",
                "| launch | test 1 | test 2 | printing |",
                "|---|---|---|---|",
                *rows,
                "",
            ]
        if sink == "pty":
            w += [
                "The published worst case was an IDE's console, which also draws every line: slower than this "
                "terminal, which only passes the bytes on. Python writes a line at a time to a terminal (its "
                "stdout is line-buffered there); the C and Go programs write their output at once.",
                "",
            ]
        return "\n".join(w) + "\n"

    go, c, py = med("go-binary"), med("c-binary"), med("py-script")
    run, cold = med("go-run"), med("go-run-cold")
    if go is not None and (run is not None or cold is not None):
        parts = []
        if run is not None:
            parts.append(
                f"with a warm build cache {ms(run)}, {ms(run - go)} more than the binary "
                f"({times('go-run', 'go-binary')})"
            )
        if cold is not None:
            cpu = med("go-run-cold", "cpu-ms")
            parts.append(
                f"with an empty build cache {ms(cold)} ({times('go-run-cold', 'go-binary')} the binary"
                + (f"; {ms(cpu)} of CPU, the compiler's processes included" if cpu else "")
                + ")"
            )
        w += [
            f"`go run` against the compiled program ({ms(go)}): " + "; ".join(parts) + ". Published: a repeated "
            "`go run` got sharply faster after the third start. That is Go's build cache: the first `go run` "
            "compiles the runtime, the standard library and the program; the next ones find them in the cache and "
            "only check it, then start the cached program.",
            "",
        ]
    if py is not None and go is not None:
        w += [
            f"Whole programs started from outside: `python aspects.py` against the Go binary "
            f"{times('py-script', 'go-binary')}, against the C binary {times('py-script', 'c-binary')}; the Go "
            f"binary against the C binary {times('go-binary', 'c-binary')}"
            + (f" (C {ms(c)})" if c is not None else "")
            + ". The published 3.8x .. 404x was Python with pandas against compiled Go: the in-process table "
            "above has the pandas search itself, and round startup the cost of `import pandas`.",
            "",
        ]
    numba = med("py-script-numba")
    if numba is not None and (py is not None or go is not None):
        against = [f"against `python aspects.py` {times('py-script-numba', 'py-script')}"] if py is not None else []
        if go is not None:
            against.append(f"against the Go binary {times('py-script-numba', 'go-binary')}")
        w += [
            f"The numba program, `python with_numba.py` ({ms(numba)}): " + ", ".join(against) + ". Every start "
            "imports numpy and numba and compiles its kernel (not cached) before its compiled search, and the whole "
            "program's level counts them; the in-process py-numba cells time the search alone, with the compile "
            "(compile-ns) and numba's import (import-ns) beside it.",
            "",
        ]
    return "\n".join(w) + "\n"


# ---- the child side ---------------------------------------------------------------


def _paths(args: harness.Args) -> tuple:
    paths = []
    for env in (EPHEMERIS_ENV, EVENTS_ENV):
        p = os.environ.get(env)
        if not p:
            raise harness.UsageError(
                f"aspects: {env} names no file (run it through `roundbench run aspects`, which generates them)"
            )
        paths.append(p)
    return tuple(paths)


def _run(args: harness.Args, load, head, search, extra: dict | None = None) -> None:
    """The protocol of every Python variant: load(ephemeris, events) -> data
    (untimed), head(data, k) -> the data of the first k events (the
    warm-up), search(data, combo text, terms, print_all) -> (output as str
    or bytes, matches) (timed); `extra`, metrics that load measured
    (numba's compile-ns and import-ns), is emitted with the run."""
    eph_path, events_path = _paths(args)
    expect = harness.expect_path(EXPECT_ENV, events_path)
    # A user's events file has no expected output, and its events=... only
    # names it: the count is the file's.
    n = args.int("events", DEFAULT_EVENTS, 0, MAX_EVENTS) if expect is not None else None
    args.int("seed", ephemeris.DEFAULT_SEED, 0, 2**63 - 1)
    test = args.int("test", 1, 1, 2)
    combo = args.get("combo", pa.DEFAULT_COMBO)
    try:
        terms = pa.parse_combo(combo)
    except ValueError as e:
        raise harness.UsageError(f"aspects: combo={combo}: {e}") from None
    want = None
    if expect is not None:
        want = ephemeris.read_expected(expect, test, combo)
        if want is None:
            raise harness.UsageError(f"aspects: {expect} has no line for test={test} combo={combo}")

    data = load(eph_path, events_path)
    count = _count_events(events_path)
    if n is None:
        n = count
    elif count != n:
        raise harness.UsageError(f"aspects: events={n}, but {events_path} holds {count} events")
    first = head(data, WARMUP_EVENTS)
    harness.warm_up(lambda: search(first, combo, terms, test == 2))
    elapsed, (text, matches) = harness.time_once(lambda: search(data, combo, terms, test == 2))

    raw = text.encode("ascii") if isinstance(text, str) else bytes(text)
    crc = zlib.crc32(raw)
    text = f"matches={matches} crc={crc:08x} len={len(raw)}"
    if want is None:
        harness.result_unchecked(text)
    else:
        harness.check("matches", str(matches), want["matches"])
        harness.check("output length", str(len(raw)), want["len"])
        harness.check("output CRC-32", f"{crc:08x}", want["crc"])
        harness.result(text)
    harness.emit(args, 1, elapsed, {"ns/event": elapsed / n if n else 0.0, **(extra or {})})


def _into_memory(search):
    """A search(data, terms, print_all, write) as _run's: the lines joined
    into one string, the way a Python program builds its output."""

    def run(data, combo, terms, print_all):
        out: list = []
        matches = search(data, terms, print_all, out.append)
        return "".join(out), matches

    return run


def _count_events(path) -> int:
    with open(path, "rb") as f:
        lines = sum(1 for _ in f)
    return max(lines - 1, 0)


def _plain_load(ephemeris_path, events_path):
    eph = pa.load_ephemeris(ephemeris_path)
    return eph, pa.load_events(events_path, eph)


@harness.implements("aspects", "py", units=UNITS)
def run_py(args: harness.Args) -> None:
    _run(
        args,
        _plain_load,
        lambda d, k: (d[0], d[1][:k]),
        _into_memory(lambda d, terms, print_all, write: pa.search(d[0], d[1], terms, print_all, write)),
    )


@harness.implements("aspects", "py-numpy", units=UNITS)
def run_py_numpy(args: harness.Args) -> None:
    harness.require("numpy")
    from . import with_numpy as m

    _run(args, m.load, m.head, _into_memory(m.search))


def _compile_input(data_class) -> tuple:
    """(data, terms, (text, matches)): numba's compiling first call's input,
    one event on a two-day table of the generator's longitudes, as
    data_class (with_numpy.Data: the types of the run's data, so that the
    run compiles nothing more), at a time the generator's robustness rule
    moved it to, so that the plain variant's test 2 output for it, the
    third item, is exact."""
    day = pa.day_number("2000-01-01")
    eph = pa.Ephemeris("-", day, [tuple(x % 360.0 for x in ephemeris.longitudes(d)) for d in (day, day + 1)])
    lat, lon = 40.0, 10.0
    s = ephemeris.robust_time(eph, day * pa.DAY + pa.DAY // 2, lat, lon)
    event = pa.Event("compile", pa.time_text(s), s, lat, lon)
    terms = pa.parse_combo(pa.DEFAULT_COMBO)
    out: list = []
    matches = pa.search(eph, [event], terms, True, out.append)
    return data_class(eph, [event]), terms, ("".join(out), matches)


@harness.implements("aspects", "py-numba", units=UNITS + jit.UNITS)
def run_py_numba(args: harness.Args) -> None:
    harness.require("numpy")
    # imported by the variant that needs it: numpy is optional for the round
    from . import with_numba as m

    extra: dict = {}

    def load(ephemeris_path, events_path):
        # Called once the parameters are checked: numba's import and the
        # compile are paid only by a run that can go ahead.
        _, extra["import-ns"] = jit.load()
        data = m.load(ephemeris_path, events_path)
        tiny, terms, want = _compile_input(m.Data)
        extra["compile-ns"] = jit.compile_ns(lambda: search(tiny, pa.DEFAULT_COMBO, terms, True), want)
        return data

    in_memory = _into_memory(m.search)

    def search(data, combo, terms, print_all):
        out = in_memory(data, combo, terms, print_all)
        # The compile was the first call's: a search that compiled again
        # (another argument type) would time a compile as work.
        harness.check("the kernel's compiled signatures", len(m.kernel().signatures), 1)
        return out

    _run(args, load, m.head, search, extra)


@harness.implements("aspects", "py-pandas", units=UNITS)
def run_py_pandas(args: harness.Args) -> None:
    harness.require("pandas")
    from . import with_pandas as m

    _run(args, m.load, m.head, _into_memory(m.search))


@harness.implements("aspects", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    from ... import _core

    if not hasattr(_core, "aspects_load"):
        raise harness.CannotRun("the extension has no aspects_load (it was built without the aspects core)")
    # The core reads both files and parses the combination itself; the
    # output comes back as one bytes object. data: (the core's data, how
    # many events to search: None for all).
    _run(
        args,
        lambda eph, events: (_core.aspects_load(eph, events), None),
        lambda data, k: (data[0], min(k, _core.aspects_events(data[0]))),
        lambda data, combo, terms, print_all: _core.aspects_search(data[0], combo, 2 if print_all else 1, 0, data[1]),
    )
