"""A round whose variants misbehave on purpose, loaded by the runner tests
through ROUNDBENCH_PLUGINS: the runner must record each failure and go on."""

import os
import sys
import time

from roundbench import harness
from roundbench.rounds import Round, Variant

ROUND = Round(
    name="faulty",
    title="faulty: variants that fail in every way",
    explain="Test round.",
    variants=[
        Variant(n, "py", n)
        for n in ("py-good", "py-exit", "py-crash", "py-wrong", "py-disagree", "py-hang", "py-silent", "py-good2")
    ],
    sizes=[{"n": 3}],
    quick=[{"n": 3}],
    metric="ns/iter",
    units={"ns/iter": "lower"},
    reference="py-good",
)


def _emit(args, value):
    harness.result(f"value={value}")
    harness.emit(args, 1, 1000.0, {"ns/iter": 10.0})


def good(args):
    _emit(args, args.int("n", 3, 0, 10))


def exit_(args):
    print("about to fail", file=sys.stderr)
    sys.exit(7)


def crash(args):
    print("about to crash", file=sys.stderr, flush=True)
    os.abort()


def wrong(args):
    harness.check("value", 1, 2)


def disagree(args):
    _emit(args, 99)


def hang(args):
    time.sleep(60)


def silent(args):
    pass


PY_VARIANTS = {
    "py-good": good,
    "py-exit": exit_,
    "py-crash": crash,
    "py-wrong": wrong,
    "py-disagree": disagree,
    "py-hang": hang,
    "py-silent": silent,
    "py-good2": good,
}
