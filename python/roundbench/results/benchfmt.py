"""The Go benchmark data format (golang.org/design/14313-benchmark-format),
written by the runner and read by the report.

A result file is a sequence of lines:

    key: value                         configuration (provenance); keys are
                                       lower case without spaces
    Unit ns/iter better=lower          what a unit means
    BenchmarkLoop/impl=c/n=20000000 1 31867008 ns/op 1.59 ns/iter ...
    --- FAIL: BenchmarkLoop/impl=py/n=20000000 (run 2): exit status 3
        <last stderr lines, indented>
    --- SKIP: BenchmarkFfi/impl=py-cffi-api: <why it cannot run here>
    --- KILLED: BenchmarkSleep/impl=py-threads/n=10000/fit=1 (run 3): killed after 129 s at its cell's bound ...
                                       a run that outran what its cell had
                                       shown (run/policy.py, BOUND_FACTOR): not a
                                       failure; the cell keeps the runs
                                       that finished
    --- FACT: BenchmarkDelivery/impl=c: KEY VALUE
                                       a fact a child of a facts round found
                                       (a file's linkage, a build's error),
                                       written before that child's run line
    --- RUNS: BenchmarkLoop/impl=c/n=20000000: 9 runs, converged: ...
                                       how many runs a variant of a cell took
                                       and why no more were made (adaptive
                                       run counts: RunPolicy)
    --- TRIAL: 7 BenchmarkLoop/impl=py-c/n=20000000 BenchmarkLoop/impl=go-c/n=20000000
                                       the runs of one cell's trial 7, in
                                       the random order they are made: the
                                       next run line of each name belongs
                                       to that trial (a comparison pairs
                                       the two sides' runs trial by trial)
    --- VALUES: BenchmarkLoop/impl=go-c/n=20000000: ns/iter 1.71 1.69 1.74
                                       the values one process timed (several
                                       when its round allows), in the unit
                                       its cell is scored by: the run line
                                       that follows is the process's, its
                                       median value's line
    --- END: 2026-12-01T03:50:12Z after 3475 s sha256=9f86d0...
                                       the command finished (or was
                                       stopped: "interrupted" follows),
                                       after that much wall time; the
                                       seal is the SHA-256 of the
                                       section's bytes before this line
                                       (from its first configuration
                                       line), so an edited or cut file
                                       can be told from the one written

Tools that read the format (benchstat) take the first three kinds and skip
the rest, as they skip `go test`'s own --- FAIL lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

_CONFIG = re.compile(r"^([a-z][^\s:A-Z]*): ?(.*)$")


def config_line(key: str, value: str) -> str:
    if not _CONFIG.match(f"{key}: x") or key.startswith("Benchmark"):
        raise ValueError(f"bad configuration key {key!r}")
    return f"{key}: {' '.join(str(value).split())}\n"


def unit_line(unit: str, better: str) -> str:
    return f"Unit {unit} better={better}\n"


def split_name(name: str) -> tuple:
    """'BenchmarkLoop/impl=c/n=20' -> ('loop', {'impl': 'c', 'n': '20'})."""
    base, *parts = name.split("/")
    if not base.startswith("Benchmark") or len(base) <= len("Benchmark"):
        raise ValueError(f"not a benchmark name: {name!r}")
    rnd = base[len("Benchmark") :]
    rnd = rnd[:1].lower() + rnd[1:]
    params = {}
    for p in parts:
        k, sep, v = p.partition("=")
        params[k if sep else p] = v if sep else ""
    return rnd, params


@dataclass
class Run:
    name: str
    iters: int
    metrics: dict  # unit -> value
    config: dict  # the configuration in force for this line
    trial: Optional[int] = None  # the cell's trial it ran in (--- TRIAL:), None in older files
    # The values its process timed (--- VALUES:), in values_unit; None: one.
    values: Optional[list] = None
    values_unit: str = ""

    @property
    def round(self) -> str:
        return split_name(self.name)[0]

    @property
    def params(self) -> dict:
        return split_name(self.name)[1]


@dataclass
class Failure:
    name: str
    run: Optional[int]
    reason: str
    detail: list = field(default_factory=list)


@dataclass
class Skip:
    name: str
    reason: str


@dataclass
class Fact:
    name: str
    key: str
    value: str


@dataclass
class Stop:
    name: str
    runs: int
    why: str


@dataclass
class Killed:
    name: str
    run: int
    reason: str
    detail: list = field(default_factory=list)


def killed_line(name: str, run: int, reason: str) -> str:
    return f"--- KILLED: {name} (run {run}): {reason}\n"


@dataclass
class End:
    date: str
    seconds: float
    interrupted: bool
    sha256: Optional[str] = None  # the seal: the section's bytes before this line (None: an older file)


def end_line(date: str, seconds: float, interrupted: bool = False, sha256: Optional[str] = None) -> str:
    seal = f" sha256={sha256}" if sha256 else ""
    return f"--- END: {date} after {seconds:.0f} s{' interrupted' if interrupted else ''}{seal}\n"


@dataclass
class ResultSet:
    runs: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    skips: list = field(default_factory=list)
    units: dict = field(default_factory=dict)  # unit -> better
    configs: list = field(default_factory=list)  # one dict per file section
    facts: list = field(default_factory=list)
    stops: list = field(default_factory=list)
    killed: list = field(default_factory=list)
    ends: list = field(default_factory=list)
    bad_lines: list = field(default_factory=list)  # "file:line: why", when not strict


def parse_bench_line(line: str, config: Optional[dict] = None, need_ns: bool = True) -> Run:
    """One result line. The suite's own lines always carry ns/op (need_ns);
    `go test -bench` may print a benchmark with its own units only."""
    fields = line.split()
    if len(fields) < 4 or len(fields) % 2 != 0:
        raise ValueError(f"malformed benchmark line: {line.strip()!r}")
    name = fields[0]
    try:
        iters = int(fields[1])
        metrics = {unit: float(value) for value, unit in zip(fields[2::2], fields[3::2])}
    except ValueError:
        raise ValueError(f"malformed benchmark line: {line.strip()!r}") from None
    if need_ns and "ns/op" not in metrics:
        raise ValueError(f"benchmark line without ns/op: {line.strip()!r}")
    return Run(name, iters, metrics, dict(config or {}))


_FAIL = re.compile(r"^--- FAIL: (\S+)(?: \(run (\d+)\))?: (.*)$")
_SKIP = re.compile(r"^--- SKIP: (\S+): (.*)$")
_FACT = re.compile(r"^--- FACT: (\S+): (\S+) ?(.*)$")
_KILLED = re.compile(r"^--- KILLED: (\S+) \(run (\d+)\): (.*)$")
_RUNS = re.compile(r"^--- RUNS: (\S+): (\d+) runs, (.*)$")
_TRIAL = re.compile(r"^--- TRIAL: (\d+)((?: Benchmark\S+)+)$")
_VALUES = re.compile(r"^--- VALUES: (\S+): (\S+)((?: \S+)+)$")
_END = re.compile(r"^--- END: (\S+) after (\d+(?:\.\d+)?) s( interrupted)?(?: sha256=([0-9a-f]{64}))?$")


# The key prefix of a fact that names a check its variant is known to fail
# (a library's shortcoming, declared by the round with the reason): the run
# is measured and passes, the check is reported FAILED and counted apart.
KNOWN_FAILURE = "known-failure/"


def trial_line(trial: int, names: Iterable[str]) -> str:
    """The `--- TRIAL:` record: the runs of one cell's trial, by name, in
    the order they are made."""
    names = list(names)
    if trial < 1 or not names or any(not n.startswith("Benchmark") or len(n.split()) != 1 for n in names):
        raise ValueError(f"bad trial record: {trial} {names!r}")
    return f"--- TRIAL: {trial} {' '.join(names)}\n"


def values_line(name: str, unit: str, values: Iterable[float]) -> str:
    """The `--- VALUES:` record of one process's values in `unit`."""
    values = list(values)
    if not values:
        raise ValueError(f"no values for {name}")
    return f"--- VALUES: {name}: {unit} {' '.join(_value_text(v) for v in values)}\n"


def _value_text(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 1e5 else f"{x:.6g}"


def fact_line(name: str, fact: str) -> str:
    """`fact` is a child's `KEY VALUE` (one line; the value may be empty)."""
    key, _, value = " ".join(fact.split("\n")).strip().partition(" ")
    if not key:
        raise ValueError("empty fact")
    return f"--- FACT: {name}: {key} {value.strip()}\n"


def classify(line: str) -> Optional[tuple]:
    """The kind of one line of a result file (without its newline) and its
    match: ("config", m), ("unit", parts), ("bench", None), ("fail", m),
    ("killed", m), ("fact", m), ("stop", m), ("trial", m), ("values", m), ("end", m), ("skip", m),
    ("blank", None), ("detail", None) for an indented line; None for a line
    that is none of these. Whether a detail line follows what may carry one
    (a failure, a kill) is the caller's to check."""
    if not line.strip():
        return ("blank", None)
    if line.startswith("    "):
        return ("detail", None)
    if line.startswith("Benchmark"):
        return ("bench", None)
    if line.startswith("Unit "):
        parts = line.split()
        ok = len(parts) >= 3 and all(kv.partition("=")[1] for kv in parts[2:])
        return ("unit", parts) if ok else None
    for kind, rx in (
        ("fail", _FAIL),
        ("killed", _KILLED),
        ("fact", _FACT),
        ("stop", _RUNS),
        ("trial", _TRIAL),
        ("values", _VALUES),
        ("end", _END),
        ("skip", _SKIP),
        ("config", _CONFIG),
    ):
        m = rx.match(line)
        if m:
            return (kind, m)
    return None


def parse_lines(
    lines: Iterable[str], into: Optional[ResultSet] = None, strict: bool = True, source: str = "results"
) -> ResultSet:
    """Parses result lines into a ResultSet. strict (the suite's own files):
    a malformed benchmark line raises ValueError naming source:line. Not
    strict (anything benchstat reads, such as `go test -bench` output,
    whose lines may be bare names or carry no ns/op): such lines are kept
    in `bad_lines` and skipped, as benchstat skips them."""
    rs = into or ResultSet()
    config: dict = {}
    section_open = False
    last_failure = None
    # name -> the trial its next run line belongs to (--- TRIAL:), and the
    # values of its process (--- VALUES:)
    pending: dict = {}
    pending_values: dict = {}
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if line.startswith("    ") and last_failure is not None:
            last_failure.detail.append(line[4:])
            continue
        last_failure = None
        if not line.strip():
            continue
        if line.startswith("Benchmark"):
            try:
                run = parse_bench_line(line, config, need_ns=strict)
            except ValueError as e:
                if strict:
                    raise ValueError(f"{source}:{number}: {e}") from None
                rs.bad_lines.append(f"{source}:{number}: {e}")
                continue
            section_open = False
            run.trial = pending.pop(run.name, None)
            if run.name in pending_values:
                run.values_unit, run.values = pending_values.pop(run.name)
            rs.runs.append(run)
            continue
        if line.startswith("Unit "):
            parts = line.split()
            for kv in parts[2:]:
                k, _, v = kv.partition("=")
                if k == "better":
                    rs.units[parts[1]] = v
            continue
        m = _FAIL.match(line)
        if m:
            last_failure = Failure(m.group(1), int(m.group(2)) if m.group(2) else None, m.group(3))
            pending.pop(m.group(1), None)
            pending_values.pop(m.group(1), None)
            rs.failures.append(last_failure)
            continue
        m = _KILLED.match(line)
        if m:
            last_failure = Killed(m.group(1), int(m.group(2)), m.group(3))
            pending.pop(m.group(1), None)
            rs.killed.append(last_failure)
            continue
        m = _FACT.match(line)
        if m:
            rs.facts.append(Fact(m.group(1), m.group(2), m.group(3)))
            continue
        m = _RUNS.match(line)
        if m:
            rs.stops.append(Stop(m.group(1), int(m.group(2)), m.group(3)))
            continue
        m = _VALUES.match(line)
        if m:
            try:
                pending_values[m.group(1)] = (m.group(2), [float(x) for x in m.group(3).split()])
            except ValueError:
                if strict:
                    raise ValueError(f"{source}:{number}: malformed values record: {line.strip()!r}") from None
                rs.bad_lines.append(f"{source}:{number}: malformed values record")
            continue
        m = _TRIAL.match(line)
        if m:
            for name in m.group(2).split():
                pending[name] = int(m.group(1))
            continue
        m = _END.match(line)
        if m:
            pending.clear()
            pending_values.clear()
            rs.ends.append(End(m.group(1), float(m.group(2)), bool(m.group(3)), m.group(4)))
            continue
        m = _SKIP.match(line)
        if m:
            rs.skips.append(Skip(m.group(1), m.group(2)))
            continue
        m = _CONFIG.match(line)
        if m:
            if not section_open:
                config = dict(config)
                rs.configs.append(config)
                section_open = True
            config[m.group(1)] = m.group(2)
    return rs


def read_dir(path: Path, strict: bool = True) -> ResultSet:
    """Reads every *.txt result file in a directory (or one file); strict
    as parse_lines."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.glob("*.txt"))
    if not files:
        raise FileNotFoundError(f"no result files (*.txt) in {path}")
    rs = ResultSet()
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            parse_lines(fh, rs, strict=strict, source=str(f))
    return rs
