"""`roundbench machine`: this machine's checks (measure/machine.py), each
with its fix."""

from __future__ import annotations

from ..measure import machine


def add_parser(sub) -> None:
    m = sub.add_parser(
        "machine",
        help="check this machine for what harms repeatable measurements (and how to fix it)",
        description="What a careful benchmarker checks before trusting a run: CPUs (online, isolated, SMT), "
        "frequency governor and boost, load, transparent huge pages, swap, ASLR, perf counters, and whether "
        "this is a VM or a container. `roundbench run` writes the same checks into every result file, and "
        "each warning into the report's fairness section.",
    )
    m.set_defaults(func=main_args)


def main_args(args) -> int:
    rows = machine.checks()
    width = max(len(c.name) for c in rows)
    for c in rows:
        print(f"{c.name:<{width}}  {c.status:<4}  {c.value}")
        if c.fix:
            print(f"{'':<{width}}        fix: {c.fix}")
    warns = sum(1 for c in rows if c.status == "warn")
    print(f"\n{warns} condition(s) that harm repeatability" if warns else "\nnothing found that harms repeatability")
    return 0
