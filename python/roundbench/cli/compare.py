"""`roundbench compare A B`: report/compare.py's judgement cell by cell,
then which points of the score moved between A and B and why
(report/scorechanges.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ..report import compare, scorechanges
from . import _types
from ._common import add_rule_options, rule_of


def add_parser(sub) -> None:
    c = sub.add_parser(
        "compare",
        help="judge the difference between two result sets, cell by cell",
        description=compare.__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("a", type=_types.in_path, metavar="A", help="the baseline: a results directory or one result file")
    c.add_argument("b", type=_types.in_path, metavar="B", help="the one compared with it")
    c.add_argument(
        "--unit",
        action="append",
        type=_types.text("a unit, e.g. ns/op"),
        metavar="U",
        help="compare only this unit (repeatable; default every unit but peak-B, user-ns/op and sys-ns/op)",
    )
    add_rule_options(c)
    c.add_argument("--md", type=_types.out_file, metavar="FILE", help="also write the comparison as a Markdown table")
    c.add_argument("--html", type=_types.out_file, metavar="FILE", help="also write the comparison as an HTML page")
    c.add_argument(
        "--repeatability",
        action="store_true",
        help="A and B are two runs of the same rounds: the share of score cells whose outcome (faster, equivalent, "
        "inconclusive) agrees, the cells that changed with both intervals, and each cell by its round's metric "
        "(same, worse, better or inconclusive; unstable flags); --md writes that table",
    )
    c.add_argument(
        "--fail-above",
        type=_types.number(0, what="a percentage"),
        metavar="PCT",
        help="exit 1 when a cell is worse than in A by the rule (its interval beyond the margin) and by more than "
        "PCT percent",
    )
    c.add_argument(
        "--no-score",
        action="store_true",
        help="leave out the score's changes (by default printed after the cells: the points that moved between A "
        "and B, per level, and why; with --md, appended to that file)",
    )
    c.set_defaults(func=run_command)


def run_command(args) -> int:
    status = _cells(args)
    if args.repeatability or args.no_score:
        return status
    found, rows_a, rows_b = scorechanges.changes(compare.load(args.a), compare.load(args.b), rule_of(args))
    if not rows_a and not rows_b:
        return status
    print(scorechanges.format_text(found, rows_a, rows_b, args.a, args.b))
    if args.md:
        with _written(args.md).open("a", encoding="utf-8") as fh:
            fh.write(scorechanges.format_markdown(found, rows_a, rows_b, args.a, args.b))
    return status


def _written(path: str) -> Path:
    """--md or --html as a path whose folder exists (made when missing;
    _types.out_file checked that it can be)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def _cells(args) -> int:
    """compare.py's judgement cell by cell: printed, and written to --md and --html."""
    rule = rule_of(args)
    try:
        a, b = compare.load(args.a), compare.load(args.b)
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None
    for label, rs in ((args.a, a), (args.b, b)):
        if rs.bad_lines:
            print(
                f"roundbench compare: {label}: skipped {len(rs.bad_lines)} line(s) that hold no result, "
                f"first {rs.bad_lines[0]}",
                file=sys.stderr,
            )
    if args.repeatability:
        rep = compare.repeatability(a, b, rule)
        if not rep.rows:
            raise UsageError(f"{args.a} and {args.b} have no cell in common")
        text = compare.format_repeatability(rep, args.a, args.b)
        print(text.split("\n\n| cell")[0])
        if args.md:
            _written(args.md).write_text(text, encoding="utf-8")
        return EXIT_OK
    rows = compare.compare(a, b, units=args.unit, rule=rule)
    if not rows:
        if args.unit:
            raise UsageError(f"--unit {', '.join(args.unit)}: {args.a} and {args.b} have no benchmark in common in it")
        raise UsageError(f"{args.a} and {args.b} have no benchmark and unit in common")
    print(compare.format_text(rows, args.a, args.b))
    gone, new = compare.only_in(a, b)
    if gone:
        print(f"only in A ({len(gone)}): " + ", ".join(gone[:10]) + (" ..." if len(gone) > 10 else ""))
    if new:
        print(f"only in B ({len(new)}): " + ", ".join(new[:10]) + (" ..." if len(new) > 10 else ""))
    if args.md:
        _written(args.md).write_text(compare.format_markdown(rows, args.a, args.b, rule), encoding="utf-8")
    if args.html:
        _written(args.html).write_text(compare.format_html(rows, args.a, args.b, rule), encoding="utf-8")
    if args.fail_above is not None:
        bad = compare.regressions(rows, args.fail_above)
        if bad:
            for r in bad:
                print(
                    f"REGRESSION: {r.name} {r.unit}: {r.worse_pct:+.1f}% worse {compare.stat_line(r)}", file=sys.stderr
                )
            return EXIT_FAILED
    return EXIT_OK
