"""A round with one variant per exit status of the child protocol, loaded
through ROUNDBENCH_PLUGINS by tests/test_exit_statuses.py: each variant
ends its child the way its name says."""

from roundbench.measure import harness
from roundbench.rounds import Param, Round, Variant

UNITS = ["ns/iter"]
NAMES = ("py-ok", "py-usage", "py-wrong", "py-cannot", "py-failed")

ROUND = Round(
    name="exits",
    title="exits: one variant per exit status of a child",
    explain="Test round.",
    variants=[Variant(n, "python", n) for n in NAMES],
    params=[Param("n", "the size", 0, 10)],
    sizes=[{"n": 3}],
    quick=[{"n": 3}],
    metric="ns/iter",
    units={"ns/iter": "lower"},
    reference="py-ok",
    cross_check=False,
)


@harness.implements("exits", "py-ok", units=UNITS)
def ok(args):
    harness.result(f"n={args.int('n', 3, 0, 10)}")
    harness.emit(args, 1, 1000.0, {"ns/iter": 10.0})


@harness.implements("exits", "py-usage", units=UNITS)
def usage(args):
    args.int("n", 3, 5, 10)  # the size, 3, is out of this range: a usage error


@harness.implements("exits", "py-wrong", units=UNITS)
def wrong(args):
    harness.check("sum", 1, 2)


@harness.implements("exits", "py-cannot", units=UNITS)
def cannot(args):
    raise harness.CannotRun("this machine has no such thing")


@harness.implements("exits", "py-failed", units=UNITS)
def failed(args):
    raise harness.WorkFailed("the input stopped at line 1")
