"""What several subcommands share: the rounds they were given, and the
Python interpreter the children run."""

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
    from ..runtimes import interp

    path = path or os.environ.get(interp.ENV)
    if not path:
        return
    try:
        interp.use(path)
    except interp.BadInterpreter as e:
        raise UsageError(f"--python {e}") from None
