"""roundbench: which language is faster at what, measured.

The functions here are the C core (csrc/) called through the extension
module roundbench._core, whose public names this package re-exports as they
are: the extension's source is the one list of them, and its type stubs are
generated from it at build time. Each round's pure-Python version lives in
roundbench.pure. Importing this package loads only the extension: numpy and
the rest are imported by the rounds that need them, when they run. Without
the extension (not built, or not for this interpreter) the package still
imports, so the runner and the pure variants work, and each of the core's
names raises an AttributeError that says what to build.

    >>> import roundbench
    >>> roundbench.loop(10)
    27

The suite itself is `roundbench run` / `python -m roundbench run`; see
`roundbench --help`.
"""

__version__ = "0.1.0"

try:
    from . import _core
except ImportError as e:
    # Not built for this interpreter (a checkout before `make build`, or
    # another interpreter named by --python): the runner and the pure
    # variants still work; the core's functions say what is missing.
    _missing = f"the extension roundbench._core is not built for this interpreter ({e}): run `make build`"
    __all__: list = []

    def __getattr__(name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"roundbench.{name}: {_missing}")

else:
    from ._core import *  # noqa: F403 (the extension's public names are the package's)

    __all__ = sorted(name for name in vars(_core) if not name.startswith("_"))
