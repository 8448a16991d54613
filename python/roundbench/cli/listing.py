"""`roundbench list`: the rounds, their variants, the program that runs
each, and why any cannot run here."""

from __future__ import annotations

from .. import rounds
from ._common import use_python
from ..run import launch


def add_parser(sub) -> None:
    ls = sub.add_parser("list", help="list rounds and variants, and why any cannot run here")
    ls.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    use_python(None)
    for rnd in rounds.all_rounds():
        print(f"{rnd.name}: {rnd.title}")

        def text(sizes: list) -> str:
            return "; ".join(", ".join(f"{k}={v}" for k, v in s.items()) or "-" for s in sizes)

        more = f"   (--sizes all adds: {text(rnd.more_sizes)})" if rnd.more_sizes else ""
        print(f"  sizes: {text(rnd.sizes)}{more}   (--quick: {text(rnd.quick)})   metric: {rnd.metric}")
        for v in rnd.variants:
            why = launch.unavailable(rnd, v)
            print(f"  {v.name:<16} {launch.program_of(rnd, v):<12} {v.explain}")
            if why:
                print(f"  {'':<16} {'':<12} cannot run here: {why}")
        print()
    return 0
