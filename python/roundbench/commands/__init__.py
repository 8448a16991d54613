"""The subcommands of `roundbench`: each module here, like every other
subcommand module (report, compare, machine, and a round's own, such as
jsonl's gen-log), exposes add_parser(sub), which adds its parser to
argparse's subparsers and sets `func`, the function that runs it and returns
the exit status. Usage errors are raised as errors.UsageError; cli.main
prints them and exits errors.EXIT_USAGE."""

from __future__ import annotations

import os

from .. import rounds
from ..errors import UsageError


def rounds_arg(names: list) -> list:
    if not names:
        return rounds.all_rounds()
    out = []
    for n in names:
        try:
            out.append(rounds.get(n))
        except KeyError as e:
            raise UsageError(e.args[0]) from None
    return out


def use_python(path) -> None:
    """--python PATH, or ROUNDBENCH_PYTHON: the Python children's interpreter."""
    from .. import interp

    path = path or os.environ.get(interp.ENV)
    if not path:
        return
    try:
        interp.use(path)
    except interp.BadInterpreter as e:
        raise UsageError(f"--python {e}") from None
