"""The roundbench command line: the only place argparse is used.

Each module here is one subcommand (or, generate, the rounds' input
generators) and exposes add_parser(sub), which adds its parser to
argparse's subparsers and sets `func`, the function that runs it and
returns the exit status. Usage errors are raised as errors.UsageError;
main() is the one place that turns one into a line on stderr and
errors.EXIT_USAGE. This layer may import every other one; none imports it.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_OK, EXIT_USAGE, UsageError
from . import compare, crossing, generate, listing, machine, pythons, report, run, store

# The subcommands, in `roundbench --help` order; the rounds' input
# generators (jsonl's gen-log, aspects' gen-ephemeris) come last.
COMMANDS = (run, listing, report, machine, pythons, compare, store, crossing, generate)


class Parser(argparse.ArgumentParser):
    """argparse's parser with the project's usage contract: a bad option is
    one line on stderr, naming the command, the option and what was wanted,
    and exit status 2 (errors.EXIT_USAGE). argparse would print the whole
    usage first; the line says where the usage is instead. Subcommands'
    parsers are made by add_subparsers and are of this class too."""

    def error(self, message):
        # "argument --out: ...": the option's own name is enough
        message = message.removeprefix("argument ")
        self.exit(EXIT_USAGE, f"{self.prog}: {message} ({self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="roundbench",
        description=run.DESCRIPTION,
        epilog=run.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMANDS:
        mod.add_parser(sub)
    return p


def _innermost(p: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The parser of the (sub)command that `args` chose, so that its error
    names it: `roundbench store list: ...`."""
    while True:
        sub = next((a for a in p._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(args, sub.dest, None) if sub else None
        if chosen not in (sub.choices if sub else {}):
            return p
        p = sub.choices[chosen]


def main(argv=None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)  # argparse's own usage errors exit 2 as well
    if extra:
        _innermost(p, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        print("roundbench: a command is required (roundbench --help lists them)", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.func(args)
    except UsageError as e:
        verb = getattr(args, "verb", None)  # store's: `roundbench store trends: ...`
        print(f"roundbench {args.command}{' ' + verb if verb else ''}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `roundbench list | head`: the reader left; that is not an error.
        sys.stderr.close()
        return EXIT_OK
