"""`python -m roundbench.run.child ROUND IMPL [key=value...]`: run one Python
variant once (or $ROUNDBENCH_VALUES times) and print its result line each
time (see harness.py). The runner starts
one of these per run; it is not meant to be called by hand, but can be.

`python -m roundbench.run.child --list` prints what this child implements, one
`ROUND VARIANT UNIT...` line per variant (the units its result line may
carry besides ns/op), sorted, as every child program does."""

from __future__ import annotations

import sys
import sysconfig
import traceback

from ..measure import harness
from .. import rounds

USAGE = "usage: python -m roundbench.run.child ROUND IMPL [key=value...] | --list"


def list_implementations(out=sys.stdout) -> None:
    rounds.modules()  # every round registers its variants as it is imported
    for impl in harness.implementations():
        out.write(" ".join((impl.round, impl.variant, *impl.units)) + "\n")


def main(argv: list) -> int:
    if argv == ["--list"]:
        list_implementations()
        return harness.EXIT_OK
    if len(argv) < 2 or argv[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return harness.EXIT_USAGE
    round_name, impl, *rest = argv
    try:
        rounds.module_for(round_name)  # registers this round's variants, and only this round's
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return harness.EXIT_USAGE
    return run(round_name, impl, rest)


def run(round_name: str, impl: str, rest: list) -> int:
    """Runs a registered implementation and maps what it raises to the
    protocol's exit statuses (a child of its own, roundbench.crossing's,
    registers its implementations and comes here too)."""
    try:
        fn = harness.implementation(round_name, impl).run
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return harness.EXIT_USAGE
    try:
        args = harness.Args.parse(round_name, impl, rest)
        # Several values from one process (docs/measurement.md, "Values per
        # process"): the variant runs again, inputs, warm-up and check included.
        for _ in range(harness.values_wanted()):
            fn(args)
    except harness.UsageError as e:
        print(e, file=sys.stderr)
        return harness.EXIT_USAGE
    except harness.WrongResult as e:
        print(e, file=sys.stderr)
        return harness.EXIT_WRONG
    except harness.CannotRun as e:
        print(f"cannot run here: {e}", file=sys.stderr)
        return harness.EXIT_CANNOT
    except harness.WorkFailed as e:
        print(e, file=sys.stderr)
        return harness.EXIT_FAILED
    except ModuleNotFoundError as e:
        # A library this interpreter lacks (--python can name one without
        # numpy, say): the machine cannot run the variant, nothing failed.
        print(f"cannot run here: Python module {e.name} is not installed for {sys.executable}", file=sys.stderr)
        return harness.EXIT_CANNOT
    except Exception:
        traceback.print_exc()
        return harness.EXIT_FAILED
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        # On a free-threaded interpreter: whether the GIL is still off after
        # the variant ran (an import of an unmarked extension turns it on).
        harness.fact("gil", "on" if sys._is_gil_enabled() else "off")
    return harness.EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
