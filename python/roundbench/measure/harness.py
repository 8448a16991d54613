"""The Python side of the measurement protocol, for child processes.

One child process runs one (round, variant, size): it builds its inputs
(untimed), warms up, times the work with the monotonic clock
(time.perf_counter_ns), verifies the result and prints one line in the Go
benchmark format. The parent adds peak RSS and CPU time from wait4. The C
(csrc/runner/harness.c) and Go (go/internal/harness) children do the same,
with the same exit statuses and the same output.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from dataclasses import dataclass
from itertools import repeat
from typing import Callable, Iterable, Mapping, Sequence

from ..errors import UsageError

# The child protocol's exit statuses (testdata/vectors/protocol.txt,
# protocol-exit), the same in the C and Go harnesses; the command's own
# statuses are errors.py's, and docs/usage.md, "Exit statuses", sets the
# two tables side by side.
EXIT_OK = 0
EXIT_USAGE = 2  # bad arguments: the message names which
EXIT_WRONG = 3  # the work ran but its result is wrong
EXIT_CANNOT = 4  # this variant cannot run here: stderr says why
EXIT_FAILED = 5  # the work raised

# The environment variable that asks a child for several values, and the
# most it may ask (testdata/vectors/protocol.txt, protocol-values); the C and
# Go harnesses read the same.
VALUES_ENV = "ROUNDBENCH_VALUES"
MAX_VALUES = 100

now_ns = time.perf_counter_ns

CALIBRATE_TARGET_NS = 100_000_000  # one timing of the calibrated loop lasts >= 100 ms


def values_wanted() -> int:
    """$ROUNDBENCH_VALUES: how many times the child runs its variant in the
    one process, each run printing its own line (docs/measurement.md,
    "Values per process"); 1 when unset or empty. UsageError when it is not
    an integer from 1 to MAX_VALUES."""
    raw = os.environ.get(VALUES_ENV, "")
    if not raw:
        return 1
    try:
        k = int(raw, 10)
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_VALUES:
        raise UsageError(f"{VALUES_ENV}={raw}: want an integer from 1 to {MAX_VALUES}")
    return k


class WrongResult(Exception):
    """A variant's result disagrees with the expected one (EXIT_WRONG)."""

    def __init__(self, what: str, got: object, want: object):
        super().__init__(f"wrong result: {what} = {got!r}; want {want!r}")


class CannotRun(Exception):
    """This variant cannot run on this machine (EXIT_CANNOT); says why."""


def require(module: str, pip: str = ""):
    """The module a library variant needs, imported; CannotRun (EXIT_CANNOT,
    a skip) naming it and how to install it where it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise CannotRun(f"the Python module {module} is not installed (pip install {pip or module})") from None


class WorkFailed(Exception):
    """The work stopped on its input (EXIT_FAILED); the message says where
    and why, and is all the child prints (no traceback): a published
    program that stops at the first line it cannot read, say."""


class UndeclaredUnit(UsageError):
    """A variant tried to print a unit it did not declare (EXIT_USAGE): its
    --list line would not say what it prints."""


@dataclass(frozen=True)
class Implementation:
    """The Python child's implementation of one variant: the function that
    runs it and the units its result line may carry besides ns/op."""

    round: str
    variant: str
    run: Callable[["Args"], None]
    units: tuple


_implementations: dict = {}


def implements(round_name: str, *variants: str, units: Sequence[str] = ()) -> Callable:
    """Registers the decorated function as the Python child's `round_name
    VARIANT` for each of variants; emit() then refuses any unit not in
    units. The child's --list prints these registrations."""

    def register(fn: Callable[["Args"], None]) -> Callable[["Args"], None]:
        for v in variants:
            key = (round_name, v)
            if key in _implementations:
                raise ValueError(f"{round_name} {v}: implemented twice ({_implementations[key].run.__qualname__})")
            _implementations[key] = Implementation(round_name, v, fn, tuple(units))
        return fn

    return register


def implementation(round_name: str, variant: str) -> Implementation:
    """The registered implementation; KeyError with the variants there are."""
    try:
        return _implementations[(round_name, variant)]
    except KeyError:
        have = ", ".join(sorted(v for r, v in _implementations if r == round_name)) or "none"
        raise KeyError(f"{round_name}: no Python variant {variant!r} (have: {have})") from None


def implementations() -> list:
    """Every registered implementation, sorted by round, then variant."""
    return [_implementations[k] for k in sorted(_implementations)]


class Args:
    """A child's key=value parameters, in command-line order (the order is
    kept in the benchmark name), with checked accessors."""

    def __init__(self, round_name: str, impl: str, params: Sequence[tuple[str, str]]):
        self.round = round_name
        self.impl = impl
        self.params = list(params)

    @classmethod
    def parse(cls, round_name: str, impl: str, argv: Iterable[str]) -> "Args":
        params = []
        for item in argv:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"{round_name}: bad parameter {item!r} (want key=value)")
            params.append((key, value))
        return cls(round_name, impl, params)

    def get(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.params:
            if k == key:
                return v
        return default

    def int(self, key: str, default: int, lo: int, hi: int) -> int:
        raw = self.get(key)
        if raw is None:
            return default
        try:
            value = int(raw, 10)
        except ValueError:
            raise UsageError(f"{self.round}: {key}={raw} is not an integer") from None
        if not lo <= value <= hi:
            raise UsageError(f"{self.round}: {key}={value} is out of range [{lo}, {hi}]")
        return value

    def bench_name(self) -> str:
        name = f"Benchmark{self.round[:1].upper()}{self.round[1:]}/impl={self.impl}"
        return name + "".join(f"/{k}={v}" for k, v in self.params)


def _fmt(x: float) -> str:
    # Large values in plain digits, the rest with 6 significant digits, as
    # the C and Go harnesses print them.
    return f"{x:.0f}" if abs(x) >= 1e5 else f"{x:.6g}"


def emit(args: Args, iters: int, ns_per_op: float, metrics: Mapping[str, float] = ()) -> None:
    """Prints the result line and flushes it. A unit that the variant did
    not declare (implements(..., units=)) is refused before anything is
    printed: UndeclaredUnit."""
    metrics = dict(metrics)
    impl = _implementations.get((args.round, args.impl))
    declared = impl.units if impl is not None else ()
    for unit in metrics:
        if unit not in declared:
            raise UndeclaredUnit(
                f"{args.round} {args.impl}: unit {unit!r} is not declared for this variant "
                f"(declared: {', '.join(declared) or 'none'})"
            )
    fields = [args.bench_name(), str(iters), _fmt(ns_per_op), "ns/op"]
    for unit, value in metrics.items():
        fields += [_fmt(value), unit]
    sys.stdout.write(" ".join(fields) + "\n")
    sys.stdout.flush()


def result(text: str) -> None:
    """Prints `result: text`, the value the parent compares across variants."""
    sys.stdout.write(f"result: {text}\n")
    sys.stdout.flush()


def expect_path(env: str, input_path: str) -> str | None:
    """Where the expected result of an input is: the file $env names when
    it is set; None when it is set empty (the input is the user's own, with
    no expected result: print the result with result_unchecked); else
    INPUT.expect beside the input (a generated input run by hand). Same
    rule as the C and Go harnesses."""
    named = os.environ.get(env)
    if named is None:
        return f"{input_path}.expect"
    return named or None


def result_unchecked(text: str) -> None:
    """`result: text` for an input with no expected result (the user's
    own): also kept as the fact `result TEXT`, so that the result file
    holds what each variant found (the runner holds the variants to each
    other; the report shows the reference's)."""
    result(text)
    fact("result", text)


def fact(key: str, value: str) -> None:
    """Prints `fact: KEY VALUE`, which the runner keeps in the result file
    before the run's line (benchfmt's --- FACT:)."""
    if not key or any(c.isspace() for c in key):
        raise ValueError(f"a fact's key is one word, not {key!r}")
    sys.stdout.write(f"fact: {key} {' '.join(value.split())}\n")
    sys.stdout.flush()


def check(what: str, got: object, want: object) -> None:
    if got != want:
        raise WrongResult(what, got, want)


_once: dict = {}


def once(key: str, make: Callable[[], object]) -> object:
    """make() the first time this process asks for key, the same object
    after: what a variant builds once a process (a numba kernel, compiled on
    its first call) when the child runs it for several values, each value
    after the first finding it built, as a program's later calls would."""
    if key not in _once:
        _once[key] = make()
    return _once[key]


def time_once(fn: Callable[[], object]) -> tuple[int, object]:
    """Runs fn once; returns (elapsed ns, its return value)."""
    t0 = now_ns()
    value = fn()
    t1 = now_ns()
    return t1 - t0, value


def proc_bytes(path: str, key: str) -> int:
    """A `Key:   123 kB` line of a /proc file (e.g. "/proc/self/status",
    "VmHWM"), in bytes; -1 when the file or the key is absent. The rounds
    that measure memory from inside (sleep, chain) read their baselines
    with it."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


WARMUP_NS = 50_000_000


def warm_up(fn: Callable[[], object]) -> None:
    """Calls fn until at least 50 ms have passed (at most 1000 calls), so the
    timed run starts from a steady state whatever ran before. Same rule as
    the C and Go harnesses."""
    t0 = now_ns()
    for _ in range(1000):
        fn()
        if now_ns() - t0 >= WARMUP_NS:
            break


def call_timer(f: Callable[..., object], *args: object) -> Callable[[int], int]:
    """A timed loop of `count` calls f(*args), written the way timeit writes
    its inner loop (a for over itertools.repeat, callee and argument in
    locals). The call site is spelled out for the argument count (compiled
    once for two or more) so that no extra frame or argument packing is
    timed."""
    if len(args) == 0:

        def timed0(count: int) -> int:
            it = repeat(None, count)
            t0 = now_ns()
            for _ in it:
                f()
            return now_ns() - t0

        return timed0
    if len(args) == 1:
        (x,) = args

        def timed1(count: int) -> int:
            it = repeat(None, count)
            t0 = now_ns()
            for _ in it:
                f(x)
            return now_ns() - t0

        return timed1
    return _spelled_timer(f, args)


# The loop of call_timer for two or more arguments, spelled out for their
# count: the callee and each argument are the closure's cells, as in timed1,
# so that the call is f(a0, a1, ...) and nothing is packed per call.
_SPELLED = """\
def make(f, {names}):
    def timed(count):
        it = repeat(None, count)
        t0 = now_ns()
        for _ in it:
            f({names})
        return now_ns() - t0
    return timed
"""


def _spelled_timer(f: Callable[..., object], args: tuple) -> Callable[[int], int]:
    names = ", ".join(f"a{i}" for i in range(len(args)))
    scope = {"repeat": repeat, "now_ns": now_ns}
    exec(compile(_SPELLED.format(names=names), "<call_timer>", "exec"), scope)
    return scope["make"](f, *args)


def empty_timer(count: int) -> int:
    """The same loop with nothing in its body: the baseline to subtract."""
    it = repeat(None, count)
    t0 = now_ns()
    for _ in it:
        pass
    return now_ns() - t0


def calibrated(op: Callable[[int], int], empty: Callable[[int], int]) -> tuple[float, int]:
    """Grows the count until one timing of op(count) lasts >= 100 ms, then
    takes the best of three of op and of empty and returns
    ((op - empty) / count, count): the cost of one operation with the loop's
    own cost removed. Same rule as the C and Go harnesses."""
    count = 1000
    while True:
        t = op(count)
        if t >= CALIBRATE_TARGET_NS:
            break
        grow = 1.2 * CALIBRATE_TARGET_NS / t if t > 0 else 100.0
        count = int(count * min(100.0, max(1.5, grow)))
    best_op = best_empty = float("inf")
    for _ in range(3):
        best_op = min(best_op, op(count))
        best_empty = min(best_empty, empty(count))
    return (best_op - best_empty) / count, count
