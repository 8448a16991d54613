"""Round aspects: a small real program people rewrite "for speed".

Search a list of dated events for a combination of planetary aspects (an
astrology research tool; the published comparison behind "Go is 3.8x to
404x, about 300x, faster than Python + pandas"). The input, generated once
and cached by roundbench.ephemeris: a daily ephemeris of ten bodies for
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
output of each (test, combo) is in EVENTS.expect beside the events. The
child takes parameters events=N (the events file's count, checked), seed=S
(names the file only), test=1|2 (default 1) and combo=... (default
Moon-120-Jupiter,Asc-90-Mars); it loads both files untimed, searches the
first 16 events untimed (warm-up), times one search of all events into an
in-memory buffer, checks the output's matches, byte length and CRC-32
against the .expect, prints `result: matches=M crc=xxxxxxxx len=L` and
emits ns/op and ns/event.
"""

from __future__ import annotations

import os
import zlib

from .. import ephemeris, harness
from ..pure import aspects as pa
from . import Round, Variant, build_dir, needs_module

EPHEMERIS_ENV = "ROUNDBENCH_ASPECTS_EPHEMERIS"
EVENTS_ENV = "ROUNDBENCH_ASPECTS_EVENTS"
DEFAULT_EVENTS = ephemeris.DEFAULT_EVENTS
MAX_EVENTS = 10_000_000
WARMUP_EVENTS = 16
UNITS = ["ns/event"]


def _data_env(params: dict) -> dict:
    """Runs in the runner before each child: the paths of the table and of
    the events, generated on first use and cached by their arguments; the
    .expect gets the lines of a combination other than the default the
    first time a cell asks for it."""
    n = int(params.get("events", DEFAULT_EVENTS))
    seed = int(params.get("seed", ephemeris.DEFAULT_SEED))
    data = build_dir() / "data"
    eph = ephemeris.cached_ephemeris(data)
    events = ephemeris.cached_events(data, n, seed)
    combo = str(params.get("combo", pa.DEFAULT_COMBO))
    if combo != pa.DEFAULT_COMBO:
        ephemeris.ensure_expected(events, eph, combo)
    return {EPHEMERIS_ENV: str(eph), EVENTS_ENV: str(events)}


def _small(params: dict) -> bool:
    return int(params.get("events", DEFAULT_EVENTS)) <= DEFAULT_EVENTS


def _v(name: str, program: str, explain: str, **kw) -> Variant:
    return Variant(name, program, explain, env=_data_env, **kw)


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
        _v("go-columns", "rb-go", "pure Go, the table as a struct of slices (one per column)"),
        _v(
            "go-reflect",
            "rb-go",
            "pure Go, each body's field reached by name through package reflect, as the published Go port did",
        ),
        _v("go-c", "rb-go", "Go calling the C core through cgo"),
        _v("py", "python", "plain Python: the table as a list of tuples, the math module"),
        _v("py-c", "python", "Python calling the C core through the extension"),
        _v(
            "py-numpy",
            "python",
            "numpy, vectorised over events: arrays of (events x points) in blocks of 256 events",
            requires=needs_module("numpy", "pip install numpy"),
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
    sizes=[{"events": DEFAULT_EVENTS}, {"events": 100_000}],
    quick=[{"events": DEFAULT_EVENTS}],
    metric="ns/event",
    order=13,
    # The whole round, 6 runs of every variant at both sizes, within 5
    # minutes: py at 100,000 events takes several seconds a run.
    budget_s=30.0,
    units={"ns/event": "lower"},
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
        f"Here, at {size.get('events', DEFAULT_EVENTS)} events: the search alone, both files loaded beforehand, "
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


def _launch_section(size: dict, cells: dict, config: dict) -> str:
    """The launch-mode cells (mode=/sink= parameters): the cost of printing
    per sink and of `go run` against the binary. Filled in with those cells."""
    return ""


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


def _run(args: harness.Args, load, head, search) -> None:
    """The protocol of every Python variant: load(ephemeris, events) -> data
    (untimed), head(data, k) -> the data of the first k events (the
    warm-up), search(data, combo text, terms, print_all) -> (output as str
    or bytes, matches) (timed)."""
    n = args.int("events", DEFAULT_EVENTS, 0, MAX_EVENTS)
    args.int("seed", ephemeris.DEFAULT_SEED, 0, 2**63 - 1)
    test = args.int("test", 1, 1, 2)
    combo = args.get("combo", pa.DEFAULT_COMBO)
    try:
        terms = pa.parse_combo(combo)
    except ValueError as e:
        raise harness.UsageError(f"aspects: combo={combo}: {e}") from None
    eph_path, events_path = _paths(args)
    want = ephemeris.expected(events_path, test, combo)
    if want is None:
        raise harness.UsageError(f"aspects: {events_path}.expect has no line for test={test} combo={combo}")

    data = load(eph_path, events_path)
    count = _count_events(events_path)
    if count != n:
        raise harness.UsageError(f"aspects: events={n}, but {events_path} holds {count} events")
    search(head(data, WARMUP_EVENTS), combo, terms, test == 2)
    elapsed, (text, matches) = harness.time_once(lambda: search(data, combo, terms, test == 2))

    raw = text.encode("ascii") if isinstance(text, str) else bytes(text)
    crc = zlib.crc32(raw)
    harness.check("matches", str(matches), want["matches"])
    harness.check("output length", str(len(raw)), want["len"])
    harness.check("output CRC-32", f"{crc:08x}", want["crc"])
    harness.result(f"matches={matches} crc={crc:08x} len={len(raw)}")
    harness.emit(args, 1, elapsed, {"ns/event": elapsed / n if n else 0.0})


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
    try:
        from ..pure import aspects_numpy as m
    except ImportError:
        raise harness.CannotRun("numpy is not installed (pip install numpy)") from None
    _run(args, m.load, m.head, _into_memory(m.search))


@harness.implements("aspects", "py-pandas", units=UNITS)
def run_py_pandas(args: harness.Args) -> None:
    try:
        from ..pure import aspects_pandas as m
    except ImportError:
        raise harness.CannotRun("pandas is not installed (pip install pandas)") from None
    _run(args, m.load, m.head, _into_memory(m.search))


@harness.implements("aspects", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    from .. import _core

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
