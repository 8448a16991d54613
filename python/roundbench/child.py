"""`python -m roundbench.child ROUND IMPL [key=value...]`: run one Python
variant once and print its result line (see harness.py). The runner starts
one of these per run; it is not meant to be called by hand, but can be."""

from __future__ import annotations

import sys
import traceback

from . import harness, rounds


def main(argv: list) -> int:
    if len(argv) < 2:
        print("usage: python -m roundbench.child ROUND IMPL [key=value...]", file=sys.stderr)
        return harness.EXIT_USAGE
    round_name, impl, *rest = argv
    try:
        fn = rounds.py_variant(round_name, impl)
        args = harness.Args.parse(round_name, impl, rest)
        fn(args)
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return harness.EXIT_USAGE
    except harness.UsageError as e:
        print(e, file=sys.stderr)
        return harness.EXIT_USAGE
    except harness.WrongResult as e:
        print(e, file=sys.stderr)
        return harness.EXIT_WRONG
    except harness.CannotRun as e:
        print(f"cannot run here: {e}", file=sys.stderr)
        return harness.EXIT_CANNOT
    except Exception:
        traceback.print_exc()
        return harness.EXIT_FAILED
    return harness.EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
