"""`roundbench compare A B`: compare.py's judgement cell by cell, then which
points of the score moved between A and B and why (scorechanges.py)."""

from __future__ import annotations

from pathlib import Path

from .. import compare, scorechanges


def add_parser(sub) -> None:
    compare.add_parser(sub)
    p = sub.choices["compare"]
    p.add_argument(
        "--no-score",
        action="store_true",
        help="leave out the score's changes (by default printed after the cells: the points that moved between A "
        "and B, per level, and why; with --md, appended to that file)",
    )
    p.set_defaults(func=run_command)


def run_command(args) -> int:
    status = compare.run_command(args)
    if args.repeatability or args.no_score:
        return status
    found, rows_a, rows_b = scorechanges.changes(compare.load(args.a), compare.load(args.b))
    if not rows_a and not rows_b:
        return status
    print(scorechanges.format_text(found, rows_a, rows_b, args.a, args.b))
    if args.md:
        with Path(args.md).open("a", encoding="utf-8") as fh:
            fh.write(scorechanges.format_markdown(found, rows_a, rows_b, args.a, args.b))
    return status
