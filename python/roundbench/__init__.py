"""roundbench: which language is faster at what, measured.

The functions here are the C core (csrc/) called through the extension
module roundbench._core, whose public names this package re-exports as they
are: the extension's source is the one list of them, and its type stubs are
generated from it at build time. Each round's pure-Python version lives in
roundbench.pure. Importing this package loads only the extension: numpy and
the rest are imported by the rounds that need them, when they run.

    >>> import roundbench
    >>> roundbench.loop(10)
    27

The suite itself is `roundbench run` / `python -m roundbench run`; see
`roundbench --help`.
"""

from . import _core
from ._core import *  # noqa: F403 (the extension's public names are the package's)

__version__ = "0.1.0"

__all__ = sorted(name for name in vars(_core) if not name.startswith("_"))
