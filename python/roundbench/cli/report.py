"""`roundbench report DIR`: report.md, report.html and their pictures from
result files (report/document.py)."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..report import document
from . import _types
from ._common import add_rule_options, rule_of


def add_parser(sub) -> None:
    rep = sub.add_parser(
        "report", help="write report.md and report.html (with their pictures, report-*.png) from result files"
    )
    rep.add_argument(
        "dir", type=_types.in_path, metavar="DIR", help="a results directory (every *.txt in it) or one result file"
    )
    rep.add_argument(
        "-o",
        "--output",
        type=_types.out_file,
        metavar="FILE",
        help="where to write the Markdown (default DIR/report.md); the HTML and the pictures go beside it",
    )
    add_rule_options(rep)
    rep.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    try:
        path = document.write_report(Path(args.dir), Path(args.output) if args.output else None, rule_of(args))
    except (FileNotFoundError, ValueError) as e:  # no result file; a malformed line (file:line: why)
        raise UsageError(str(e)) from None
    print(path)
    if path.with_suffix(".html").exists():
        print(path.with_suffix(".html"))
    return 0
