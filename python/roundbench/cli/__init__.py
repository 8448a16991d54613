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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roundbench",
        description=run.DESCRIPTION,
        epilog=run.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMANDS:
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
