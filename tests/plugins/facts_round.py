"""A round of facts (Round.facts), loaded by the delivery tests through
ROUNDBENCH_PLUGINS: it must run once whatever --runs says, and its facts
must reach the result file and the report."""

from roundbench.measure import harness
from roundbench.rounds import Round, Variant

ROUND = Round(
    name="factsonly",
    title="factsonly: a round of facts",
    explain="Test round.",
    variants=[Variant("py", "python", "prints two facts")],
    sizes=[{}],
    quick=[{}],
    metric="ns/op",
    cross_check=False,
    facts=True,
)


@harness.implements("factsonly", "py")
def run(args):
    print("fact: colour blue, as measured")
    print("fact: empty")
    harness.result("ok")
    harness.emit(args, 1, 1000.0)


def report_section(size, cells, config):
    return "facts: " + "; ".join(f"{k}={v}" for c in cells.values() for k, v in c.facts.items())
