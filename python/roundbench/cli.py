"""The roundbench command: its parser, made of every subcommand module's
add_parser(sub), and main(), the one place that turns a UsageError into
one line on stderr and errors.EXIT_USAGE."""

from __future__ import annotations

import argparse
import sys

from . import machine, report, rounds
from .commands import compare, crossing, listing, run
from .errors import EXIT_OK, EXIT_USAGE, UsageError

# The subcommands, in `roundbench --help` order; the rounds add their own
# (rounds.subcommands(): jsonl's gen-log, aspects' gen-ephemeris) after these.
COMMANDS = (run, listing, report, machine, compare, crossing)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roundbench",
        description=run.DESCRIPTION,
        epilog=run.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in (*COMMANDS, *rounds.subcommands()):
        mod.add_parser(sub)
    return p


def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)  # argparse's own usage errors exit 2 as well
    if not getattr(args, "func", None):
        p.print_usage(sys.stderr)
        print("roundbench: a command is required (roundbench --help lists them)", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.func(args)
    except UsageError as e:
        print(f"roundbench {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `roundbench list | head`: the reader left; that is not an error.
        sys.stderr.close()
        return EXIT_OK
