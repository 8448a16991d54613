"""A round whose children are told their run (Round.run_index_env) and one
of whose variants reports a known failure on its first run, loaded by the
runner tests through ROUNDBENCH_PLUGINS: the run passes, the failure is
counted apart and named, and each child sees its own run number."""

import os

from roundbench.results import benchfmt
from roundbench.measure import harness
from roundbench.rounds import RUN_INDEX_ENV, Round, Variant

ROUND = Round(
    name="knownfail",
    title="knownfail: a known failure, and the run index",
    explain="Test round.",
    variants=[Variant("py-lib", "python", "fails check-x, known"), Variant("py-ok", "python", "passes")],
    sizes=[{}],
    quick=[{}],
    metric="ns/op",
    cross_check=False,
    run_index_env=True,
)


@harness.implements("knownfail", "py-lib", "py-ok")
def run(args):
    k = os.environ.get(RUN_INDEX_ENV, "none")
    harness.fact("run", k)
    if args.impl == "py-lib" and k == "001":
        harness.fact(f"{benchfmt.KNOWN_FAILURE}check-x", "got 200, want 431 (the library's limit is larger)")
    harness.result("ok")
    harness.emit(args, 1, 1000.0)
