"""A placebo run (`roundbench run --placebo SIDE`): one side's variants
stand in for both, under two names, so that every cell the verdict
decides as *faster* is by construction a false decision.

Each cell keeps SIDE's scored variants (at the levels the score compares:
not the C ceiling, not a published program) and adds, for each, a
stand-in named for the other side (results/levels.py's placebo_name:
`go-placebo-py-numba`), which runs the same child as its original
(Variant.stands_for) and is interleaved with it like any variant. A round
of crossings (ffi) gets its pairs again, each pair's SIDE variants against
their stand-ins. The result file's `placebo` line says which side stood in;
the report then counts the decisions (judge/score.py's placebo_counts), by
the rule in force and by the rule it replaced, against the nominal rate.
"""

from __future__ import annotations

import dataclasses

from .. import rounds
from ..results import levels

SIDES = ("py", "go")


def other(side: str) -> str:
    return "go" if side == "py" else "py"


def _stand_ins(variants: list, side: str) -> list:
    """SIDE's scored variants, each followed by its stand-in."""
    out = []
    for v in variants:
        if v.language != side or v.level not in levels.LEVELS:
            continue
        out.append(v)
        out.append(dataclasses.replace(v, name=levels.placebo_name(v.name, other(side)), stands_for=v.name))
    return out


def _round(rnd: rounds.Round, side: str) -> rounds.Round:
    """The round with the stand-ins declared beside SIDE's variants, and its
    pairs (a round of crossings) set SIDE against its own stand-ins."""
    variants = [*rnd.variants, *(v for v in _stand_ins(rnd.variants, side) if v.stands_for)]
    return dataclasses.replace(rnd, variants=variants, pairs=placebo_pairs(rnd.pairs, side))


def placebo_pairs(pairs: list, side: str) -> list:
    """A round of crossings' pairs in a placebo run: each pair's SIDE
    variants against their stand-ins; a pair whose SIDE holds a variant of
    another language (ffi's C callbacks) has no stand-in and is left out."""
    out = []
    for p in pairs:
        names = getattr(p, side)
        if not names or any(rounds.language(n) != side for n in names):
            continue
        out.append(dataclasses.replace(p, **{other(side): tuple(levels.placebo_name(n, other(side)) for n in names)}))
    return out


def plans(planned: list, side: str) -> list:
    """The placebo's cells from the planned ones (plans.py's Plan): each
    with SIDE's variants and their stand-ins only; a cell left with none is
    dropped, and so is a round of facts (nothing to decide)."""
    if side not in SIDES:
        raise ValueError(f"placebo side {side!r}: want one of {', '.join(SIDES)}")
    out = []
    for p in planned:
        if p.round.facts or not p.round.scored:
            continue
        variants = _stand_ins(p.variants, side)
        if not variants:
            continue
        skipped = [(v, why) for v, why in p.skipped if v.language == side]
        out.append(dataclasses.replace(p, round=_round(p.round, side), variants=variants, skipped=skipped))
    return out


def header_line(side: str) -> dict:
    """The provenance line that marks a placebo run's result file."""
    return {
        "placebo": f"{side} stands in for both sides: each {side} variant also runs as "
        f"{levels.placebo_name('<variant>', other(side))}; every decided cell is a false decision"
    }
