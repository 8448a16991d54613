"""The one usage error and the command's exit statuses: a leaf that every
layer may import. The child programs' statuses are another protocol's
(measure/harness.py's EXIT_*, shared with the C and Go children); docs/usage.md,
"Exit statuses", sets the two tables side by side."""

EXIT_OK = 0
EXIT_FAILED = 1  # some run failed (its reason is in the report and on stderr)
EXIT_USAGE = 2  # the command line asks for what cannot be: one line says what


def exit_for_signal(signum: int) -> int:
    """The status of a run stopped by a signal: 128 + its number, as a shell
    reports it (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + signum


class UsageError(Exception):
    """A request for something that does not exist or cannot be. In the
    command, cli.main() prints the message after the command's name and
    exits EXIT_USAGE: every subcommand raises it, none exits by itself. In
    a child, a bad parameter: the harness prints the message and exits its
    own EXIT_USAGE (harness.main). Both statuses are 2."""
