"""Which points of the score moved between two result sets, and why:
`roundbench compare A B` prints it after the cells (the summary's table,
score.score, computed for both sets by this version's rules, so that what
moved is what the data moved: a new variant at a level, a faster variant
taking its side, an outcome that changed as the ratio's interval moved
against the margin, a cell that is new or gone), and the repeatability
figure: the share of the cells both score whose outcome agrees
(score.agreement)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..results import benchfmt
from ..judge import cells
from ..judge import decide, score
from ..results import textfmt
from ..results.levels import LEVEL_TITLES, LEVELS
from ..results.textfmt import size_key


@dataclass
class Change:
    label: str  # the score row, as the table shows it
    level: str
    before: str  # the point in A, as the table shows it ("" when A has no such row)
    after: str
    why: str


def _key(r: score.ScoreRow) -> tuple:
    return (r.round, r.size, r.pair)


def _pair(c: Optional[score.ScoreCell]) -> Optional[tuple]:
    return (c.point.a.impl, c.point.b.impl) if c is not None and c.point is not None else None


def _winner(c: Optional[score.ScoreCell]) -> Optional[str]:
    return c.winner if c is not None else None


def _ratio(c: score.ScoreCell) -> str:
    p = c.point
    ci = f" [{textfmt.ratio_text(p.ci[0])}, {textfmt.ratio_text(p.ci[1])}]" if p.ci else ""
    return f"{textfmt.ratio_text(p.ratio)}{ci}"


def _why(ra, rb, ca, cb, cells_a: dict, cells_b: dict) -> str:
    if ra is None:
        return "a cell new in B"
    if rb is None:
        return "a cell B did not run"
    if cb.undecided and not ca.undecided:
        return f"listed, not counted in B: {cb.undecided}"
    if ca.undecided and not cb.undecided:
        return "counted in B, listed only in A"
    pa, pb = _pair(ca), _pair(cb)
    if pa is None:
        new = [i for i in pb if i not in cells_a]
        return f"a point in B: {', '.join(new)} new in B" if new else "a point in B: both sides ran at this level"
    if pb is None:
        return f"no point in B: {cb.why or 'a side did not run'}"
    if pa != pb:
        moved = []
        for old, new, side in ((pa[0], pb[0], "Go"), (pa[1], pb[1], "Python")):
            if old == new:
                continue
            if new not in cells_a:
                moved.append(f"{side}'s side is {new}, new in B (was {old})")
            elif old not in cells_b:
                moved.append(f"{side}'s side is {new}: {old} did not run in B")
            else:
                moved.append(f"{side}'s best is {new} in B, {old} in A")
        return "the pair changed: " + "; ".join(moved)
    ptb = cb.point
    how = f"same pair, ratio {_ratio(ca)} in A, {_ratio(cb)} in B"
    margin = f"{ptb.decision.margin * 100:g}%" if ptb.decision is not None else "the margin"
    now = {
        decide.FASTER: f"its interval lies beyond the {margin} margin in B",
        decide.EQUIVALENT: f"its interval lies within ±{margin} in B",
        decide.INCONCLUSIVE: f"its interval straddles the {margin} margin in B",
    }[ptb.outcome]
    if ptb.outcome == decide.FASTER and ca.point.outcome == decide.FASTER:
        now = "the other side is faster in B"
    return f"{how}: {now}"


def changes(a: benchfmt.ResultSet, b: benchfmt.ResultSet, rule: Optional[decide.Rule] = None) -> tuple:
    """(the Changes, A's rows, B's rows): every level of every score row
    whose winner, pair or presence differs between A and B."""
    ga, gb = cells.group(a), cells.group(b)
    rows_a, rows_b = score.score(ga, a, rule), score.score(gb, b, rule)
    by_a, by_b = {_key(r): r for r in rows_a}, {_key(r): r for r in rows_b}
    keys = list(by_a) + [k for k in by_b if k not in by_a]
    out = []
    for k in keys:
        ra, rb = by_a.get(k), by_b.get(k)
        # The row's cells, by the size key cells.group made from its parameters.
        cells_a = ga[k[0]][size_key(ra.params)] if ra is not None else {}
        cells_b = gb[k[0]][size_key(rb.params)] if rb is not None else {}
        for lvl in LEVELS:
            ca = ra.levels[lvl] if ra is not None else None
            cb = rb.levels[lvl] if rb is not None else None
            if _pair(ca) is None and _pair(cb) is None:
                continue
            same = (
                _winner(ca) == _winner(cb)
                and _pair(ca) == _pair(cb)
                and bool(ca and ca.undecided) == bool(cb and cb.undecided)
            )
            if same:
                continue
            label = (ra or rb).label
            out.append(
                Change(
                    label,
                    lvl,
                    ca.text() if ca is not None else "",
                    cb.text() if cb is not None else "",
                    _why(ra, rb, ca, cb, cells_a, cells_b),
                )
            )
    return out, rows_a, rows_b


def format_text(found: list, rows_a: list, rows_b: list, label_a: str, label_b: str) -> str:
    ta, tb = score.tallies(rows_a), score.tallies(rows_b)
    lines = [
        "",
        f"Score changes from A ({label_a}) to B ({label_b}), both scored by this version's rules "
        "(judge/score.py): the outcomes that moved and why.",
    ]
    lines.append(f"  Repeatability: {agreement_text(rows_a, rows_b)}")
    for lvl in LEVELS:
        if ta[lvl].total or tb[lvl].total:
            lines.append(f"  {LEVEL_TITLES[lvl]}: A {ta[lvl].text()}; B {tb[lvl].text()}")
    if not found:
        lines.append("No point moved: every level of every row has the same pair and the same outcome.")
        return "\n".join(lines)
    lines.append(f"{len(found)} point(s) moved:")
    for c in found:
        lines.append(f"- {c.label}, {LEVEL_TITLES[c.level]}: {c.before or '(no row)'} -> {c.after or '(no row)'}")
        lines.append(f"    why: {c.why}")
    return "\n".join(lines)


def format_markdown(found: list, rows_a: list, rows_b: list, label_a: str, label_b: str) -> str:
    ta, tb = score.tallies(rows_a), score.tallies(rows_b)
    out = [
        "",
        "## Score changes",
        "",
        f"From A (`{label_a}`) to B (`{label_b}`), both scored by this version's rules.",
        "",
        f"Repeatability: {agreement_text(rows_a, rows_b)}",
        "",
        "| level | A | B |",
        "|---|---|---|",
    ]
    out += [f"| {LEVEL_TITLES[lvl]} | {ta[lvl].text()} | {tb[lvl].text()} |" for lvl in LEVELS]
    out += ["", "| row | level | A | B | why |", "|---|---|---|---|---|"]
    for c in found:
        cols = (c.label, LEVEL_TITLES[c.level], c.before or "(no row)", c.after or "(no row)", c.why)
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in cols) + " |")
    return "\n".join(out) + "\n"


def agreement_text(rows_a: list, rows_b: list) -> str:
    """The repeatability figure in one line: the share of the score cells
    both sets count whose outcome agrees, and the cells that changed, each
    with both intervals."""
    agree, total, changed = score.agreement(rows_a, rows_b)
    if not total:
        return "no score cell is counted in both"
    text = f"{agree} of {total} score cells ({agree / total * 100:.0f}%) have the same outcome in both"
    if changed:
        text += "; changed: " + "; ".join(
            f"{label} ({LEVEL_TITLES[lvl].lower()}): {ta} -> {tb}" for label, lvl, ta, tb in changed
        )
    return text
