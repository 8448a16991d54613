"""The command's error and its exit statuses: a leaf that every layer may
import (the child programs' own statuses are harness.EXIT_*, the child
protocol's)."""

EXIT_OK = 0
EXIT_FAILED = 1  # some run failed (its reason is in the report and on stderr)
EXIT_USAGE = 2  # the command line asks for what cannot be: one line says what


def exit_for_signal(signum: int) -> int:
    """The status of a run stopped by a signal: 128 + its number, as a shell
    reports it (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + signum


class UsageError(Exception):
    """The command line asks for something that does not exist or cannot
    be: cli.main() prints the message after the command's name and exits
    EXIT_USAGE. Every subcommand raises it, none exits by itself."""
