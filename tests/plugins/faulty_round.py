"""A round whose variants misbehave on purpose, loaded by the runner tests
through ROUNDBENCH_PLUGINS: the runner must record each failure and go on."""

import os
import sys
import time

from roundbench.measure import harness
from roundbench.rounds import Param, Round, Variant

UNITS = ["ns/iter"]

ROUND = Round(
    name="faulty",
    title="faulty: variants that fail in every way",
    explain="Test round.",
    variants=[
        Variant(n, "python", n)
        for n in ("py-good", "py-exit", "py-crash", "py-wrong", "py-disagree", "py-hang", "py-silent", "py-good2")
    ],
    params=[Param("n", "the size", 0, 10)],
    sizes=[{"n": 3}],
    quick=[{"n": 3}],
    metric="ns/iter",
    units={"ns/iter": "lower"},
    reference="py-good",
)


def _emit(args, value):
    harness.result(f"value={value}")
    harness.emit(args, 1, 1000.0, {"ns/iter": 10.0})


@harness.implements("faulty", "py-good", "py-good2", units=UNITS)
def good(args):
    _emit(args, args.int("n", 3, 0, 10))


@harness.implements("faulty", "py-exit", units=UNITS)
def exit_(args):
    print("about to fail", file=sys.stderr)
    sys.exit(7)


@harness.implements("faulty", "py-crash", units=UNITS)
def crash(args):
    print("about to crash", file=sys.stderr, flush=True)
    os.abort()


@harness.implements("faulty", "py-wrong", units=UNITS)
def wrong(args):
    harness.check("value", 1, 2)


@harness.implements("faulty", "py-disagree", units=UNITS)
def disagree(args):
    _emit(args, 99)


@harness.implements("faulty", "py-hang", units=UNITS)
def hang(args):
    time.sleep(60)


@harness.implements("faulty", "py-silent", units=UNITS)
def silent(args):
    pass


def report_section(size, cells, config):
    """A round hook with a bug: the report must survive it."""
    raise RuntimeError("a bug in the round's own section")
