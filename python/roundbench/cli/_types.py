"""argparse types that check a value as it is parsed, so that bad input is
refused before a subcommand does any work: exit 2 and one line naming the
option, the value and what was wanted (docs/usage.md, "Exit statuses").

Each type raises argparse.ArgumentTypeError, whose text argparse puts after
"argument --opt: "; the parser class in cli/__init__.py prints that as one
line with the command's name."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path


def _bad(text: str, want: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"{text!r}: want {want}")


def integer(lo: int = 0, hi: int | None = None):
    """An integer in [lo, hi] (hi None: no upper bound)."""
    want = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _bad(text, want) from None
        if value < lo or (hi is not None and value > hi):
            raise _bad(text, want)
        return value

    parse.__name__ = "integer"
    return parse


def number(lo: float = 0.0, hi: float | None = None, *, above: bool = False, what: str = "a number"):
    """A finite number >= lo (> lo when `above`), <= hi when given; `what`
    says what it is in the message ("a number of seconds")."""
    want = f"{what} {'>' if above else '>='} {lo:g}" + (f" and <= {hi:g}" if hi is not None else "")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _bad(text, want) from None
        if not math.isfinite(value) or value < lo or (above and value == lo) or (hi is not None and value > hi):
            raise _bad(text, want)
        return value

    parse.__name__ = "number"
    return parse


def text(what: str):
    """Any text but an empty one; `what` says what it names."""

    def parse(value: str) -> str:
        if not value.strip():
            raise _bad(value, what)
        return value

    parse.__name__ = "text"
    return parse


def _creatable(path: Path) -> str | None:
    """Why `path` cannot be made (as a folder, or a file in its folder), or
    None: the nearest existing ancestor must be a folder we may write."""
    for up in (path, *path.parents):
        if up.exists():
            if not up.is_dir():
                return f"{up} is not a folder"
            if not os.access(up, os.W_OK | os.X_OK):
                return f"{up} is not writable"
            return None
    return None


def out_dir(value: str) -> str:
    """A folder to write into: made when missing, so it must be makeable."""
    if not value.strip():
        raise _bad(value, "a folder to write into")
    p = Path(value).expanduser()
    if p.exists() and not p.is_dir():
        raise _bad(value, "a folder to write into (it is a file)")
    why = _creatable(p)
    if why:
        raise _bad(value, f"a folder to write into ({why})")
    return value


def out_file(value: str) -> str:
    """A file to write: its folder must exist or be makeable, and it must
    not be a folder."""
    if not value.strip():
        raise _bad(value, "a file to write")
    p = Path(value).expanduser()
    if p.is_dir():
        raise _bad(value, "a file to write (it is a folder)")
    why = _creatable(p.parent if str(p.parent) else Path("."))
    if why:
        raise _bad(value, f"a file to write ({why})")
    return value


def in_path(value: str) -> str:
    """A file or folder that exists, to read."""
    if not value.strip():
        raise _bad(value, "a file or folder to read")
    if not Path(value).expanduser().exists():
        raise _bad(value, "a file or folder to read (there is none)")
    return value


def in_file(value: str) -> str:
    """A file that exists, to read."""
    if not value.strip():
        raise _bad(value, "a file to read")
    p = Path(value).expanduser()
    if not p.is_file():
        raise _bad(value, "a file to read (" + ("it is a folder" if p.is_dir() else "there is none") + ")")
    return value
