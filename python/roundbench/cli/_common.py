"""What several subcommands share: the rounds they were given, and the
Python interpreter the children run."""

from __future__ import annotations

import os

from .. import rounds
from ..errors import UsageError
from ..runtimes import interp
from ..runtimes import provision


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


def python_path(spec: str) -> str:
    """A --python value as a path: a version (3.15, 3.13.5, 3.13t for the
    free-threaded build) names a provisioned interpreter (roundbench
    pythons), as --go 1.27 names a Go release; anything else is a path or a
    name on PATH, as given."""
    if not provision.VERSION_SPEC.fullmatch(spec):
        return spec
    found = provision.resolve(spec)
    if found is None:
        have = ", ".join(sorted(provision.read_manifest())) or "none"
        raise UsageError(
            f"--python {spec}: no provisioned CPython {spec} in {provision.cache_dir()} "
            f"(provisioned: {have}; roundbench pythons makes them, or give a path)"
        )
    return found


def use_python(path) -> None:
    """--python PATH, or ROUNDBENCH_PYTHON: the Python children's interpreter."""
    path = path or os.environ.get(interp.ENV)
    if not path:
        return
    path = python_path(path)
    try:
        interp.use(path)
    except interp.BadInterpreter as e:
        raise UsageError(f"--python {e}") from None
