"""A round one of whose variants stalls after two quick runs, loaded by the
runner tests through ROUNDBENCH_PLUGINS: its third run must be killed at
the bound its cell's runs set (run/policy.py, BOUND_FACTOR), not at --timeout, and
the cell must keep the two runs that finished."""

import os
import sys
import time

from roundbench.measure import harness
from roundbench.rounds import Param, Round, RUN_INDEX_ENV, Variant

ROUND = Round(
    name="stall",
    title="stall: a variant that runs for ever after two quick runs",
    explain="Test round.",
    variants=[
        Variant("py-steady", "python", "always quick"),
        Variant("py-stall", "python", "stalls from run 3", tail="it sleeps for ever from its third run on, on purpose"),
    ],
    params=[Param("n", "the size", 0, 10)],
    sizes=[{"n": 1}],
    quick=[{"n": 1}],
    metric="ns/iter",
    units={"ns/iter": "lower"},
    cross_check=False,
    run_index_env=True,
)


@harness.implements("stall", "py-steady", "py-stall", units=["ns/iter"])
def run(args):
    if args.impl == "py-stall" and int(os.environ[RUN_INDEX_ENV]) >= 3:
        print("stalling", file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)
    harness.emit(args, 1, 1000.0, {"ns/iter": 100.0})
