"""What several subcommands share: the rounds they were given, and the
Python interpreter the children run."""

from __future__ import annotations

import os

from .. import rounds
from ..judge import decide
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


def add_rule_options(p, alpha: bool = True) -> None:
    """--margin and --alpha: the decision rule's two settings
    (judge/decide.py), the same words in every subcommand that judges
    (alpha False: a subcommand that takes the margin only)."""
    p.add_argument(
        "--margin",
        type=float,
        default=decide.MARGIN * 100,
        metavar="PCT",
        help=f"the smallest difference that counts, in percent (default {decide.MARGIN * 100:g}): a side is "
        "faster only when the whole interval of the ratio lies beyond it, equivalent when it lies within it",
    )
    if not alpha:
        return
    p.add_argument(
        "--alpha",
        type=float,
        default=decide.ALPHA,
        metavar="Q",
        help=f"the false-discovery rate held across the comparisons judged together (default {decide.ALPHA:g})",
    )


def rule_of(args) -> decide.Rule:
    """The rule --margin and --alpha ask for; UsageError naming the option
    when either is out of range."""
    if not 0 < args.margin < 100:
        raise UsageError(f"--margin {args.margin:g}: want a percentage between 0 and 100 (e.g. 5)")
    alpha = getattr(args, "alpha", decide.ALPHA)
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha {alpha:g}: want a rate between 0 and 1 (e.g. 0.05)")
    return decide.Rule(margin=args.margin / 100, alpha=alpha)
