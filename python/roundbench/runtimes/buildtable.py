"""The build table, build.mk beside this file, read as Make reads it.

The table (its own opening comment says what it holds) is read by the
Makefile (`include`), by setup.py, which loads this file by its path since
the package is not built yet, and by roundbench.runtimes.programs at run time. Only
the standard library is imported here, and nothing from the package.
"""

from __future__ import annotations

import re
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "build.mk"

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/")


def read(path: Path = TABLE) -> dict:
    """The table's `NAME := VALUE` lines as {NAME: VALUE}, in file order.

    ValueError for any line Make could read otherwise than this: a value
    with `$` (a reference), `#` (a comment) or `\\` (an escape or a
    continuation), blanks around a value (Make keeps trailing ones), any
    other assignment or directive, a name given twice, an empty value, and
    a comment that ends in `\\` (Make continues it onto the next line)."""
    table = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        name, sep, value = line.partition(" := ")
        if line == "" or (line.startswith("#") and not line.endswith("\\")):
            continue
        if (
            not sep
            or not name
            or not set(name) <= _NAME_CHARS
            or not value
            or value != value.strip()
            or any(c in value for c in "$#\\")
            or name in table
        ):
            raise ValueError(f"{path}:{number}: not a `NAME := VALUE` line of plain text, once per NAME: {line!r}")
        table[name] = value
    return table


def words(table: dict, name: str) -> list:
    """The value of `name` split as Make splits it, [] where the table has
    no such name."""
    return table.get(name, "").split()


def multiarch_flags(include: str) -> list:
    """Debian's pyconfig.h includes <x86_64-linux-gnu/python3.X/pyconfig.h>,
    found under the include folder's parent. For an interpreter outside
    /usr (a Debian root's) that parent is given after the system's own
    folders (-idirafter), so that the machine's C library headers still
    win: extbuild's builds and setup.py's (a `pip install` or the delivery
    round under a root's interpreter) both add it."""
    try:
        text = (Path(include) / "pyconfig.h").read_text(errors="replace")
    except OSError:
        return []
    parent = Path(include).parent
    if re.search(r"#\s*include\s*<[a-z0-9_]+-linux-gnu/python", text) and str(parent) != "/usr/include":
        return [f"-idirafter{parent}"]
    return []
