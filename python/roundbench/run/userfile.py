"""A user's own file as a round's input (Round.user_input: `roundbench run
jsonl --param lines=PATH`): the file checked before any child runs, the
round bound to it as one cell named by a token, and the provenance line
that says which file it was."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import stat
from typing import Callable, Optional

from .. import rounds
from ..errors import UsageError
from ..rounds import Round

# What a token keeps of a file's name: the characters that mean nothing in a
# benchmark name (benchfmt: `/` splits the keys, `=` a key from its value,
# white space ends the name) nor in the report's Markdown tables (`|`).
_TOKEN_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


TOKEN_NAME_MAX = 40


def input_token(path: str) -> str:
    """The value that names a user's file in a cell: its file name, with
    every run of other characters than letters, digits and `._+-` made one
    `_` and cut to TOKEN_NAME_MAX characters, then `-` and 8 hex digits of
    the SHA-256 of its whole path, so that two files of one name are two
    cells ("my log.jsonl" -> "my_log.jsonl-1f0c9a2e")."""
    name = _TOKEN_UNSAFE.sub("_", os.path.basename(path)).strip("_")[:TOKEN_NAME_MAX] or "input"
    return f"{name}-{hashlib.sha256(os.fsencode(path)).hexdigest()[:8]}"


def _shown(value: str) -> str:
    """A path as a message shows it: as given, or quoted when it holds a
    character that would not print on one line."""
    return value if value.isprintable() else repr(value)


def checked_file(key: str, value: str) -> str:
    """The whole path of the user's file that `--param KEY=VALUE` names,
    checked before any child runs: UsageError, naming it, when it is
    missing, a directory, not a regular file (each child reads it more than once)
    or unreadable."""

    where = f"--param {key}={_shown(value)}"
    if not value:
        raise UsageError(f"{where}: names no file")
    path = os.path.realpath(os.path.expanduser(value))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except OSError as e:
        raise UsageError(f"{where}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{where}: is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{where}: is not a regular file (each child reads it more than once)")
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise UsageError(f"{where}: cannot read it: {e.strerror}") from None
    return path


def _refused(why: str) -> Callable[[], Optional[str]]:
    return lambda: why


def bind_user_file(rnd: Round, path: str) -> Round:
    """The round for a run on the user's file at `path` (whole, checked):
    one cell, PARAM=TOKEN, whatever its declared or --quick sizes; the
    reference variant first (the runner's cross-check takes the first
    result of a cell as the one the others must equal); every variant that
    counts a user's file made to find it, and run whatever its default_if
    says (a size given on the command line runs every variant); the others
    skipped with their reason."""
    ui = rnd.user_input
    token = input_token(path)
    cell = {ui.param: token}
    variants = []
    for v in sorted(rnd.variants, key=lambda v: v.name != rnd.reference):
        why = ui.refuses(v)
        if why:
            variants.append(dataclasses.replace(v, requires=_refused(why), default_if=None, runs_if=None))
        else:
            variants.append(
                dataclasses.replace(
                    v, make_inputs=functools.partial(ui.make_inputs, path=path), default_if=None, runs_if=None
                )
            )
    return dataclasses.replace(
        rnd, sizes=[cell], more_sizes=[], quick=[cell], variants=variants, user_file=(token, path)
    )


def user_inputs(selected: list, overrides: dict) -> tuple:
    """`roundbench run`'s --param overrides, read for the user's files: a
    KEY=VALUE that names one for a round that takes it (Round.user_input)
    is checked (checked_file), leaves the overrides, and binds each such
    round to the file (bind_user_file). A round in the run that takes no
    user's file under KEY makes it a usage error rather than a parameter
    passed on: a user's log given to the loop round is a mistake, not a
    size. Returns (the rounds, the overrides left)."""

    rest = dict(overrides)
    out = list(selected)
    for key, value in overrides.items():
        value = str(value)
        takers = [r for r in rounds.all_rounds() if r.user_input and r.user_input.param == key]
        takers = [r.name for r in takers if r.user_input.is_path(value)]
        if not takers:
            continue
        others = [r.name for r in out if r.name not in takers]
        if others:
            which = " and ".join(takers)
            those = ", ".join(others) if len(others) <= 3 else f"the {len(others)} other rounds of this run"
            raise UsageError(
                f"--param {key}={_shown(value)} names a user's file, which only round {which} takes (not "
                f"{those}): run `roundbench run {which} --param {key}=PATH`"
            )
        path = checked_file(key, value)
        del rest[key]
        out = [bind_user_file(r, path) for r in out]
    return out, rest


def user_file_line(rnd: Round) -> Optional[tuple]:
    """The provenance line of a round bound to a user's file, (key, value),
    or None: which cell it is and the file's whole path (white space and `%`
    %-escaped, so that the line keeps it exactly), size and time."""
    if rnd.user_file is None:
        return None
    # only to describe a user's file in the header
    import datetime
    import string
    import urllib.parse

    token, path = rnd.user_file
    try:
        st = os.stat(path)
        mtime = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        about = f"{st.st_size} bytes, modified {mtime}"
    except OSError as e:
        about = f"unreadable now: {e.strerror}"
    shown = urllib.parse.quote(os.fsencode(path), safe=string.punctuation.replace("%", ""))
    return f"{rnd.name}-user-file", f"{rnd.user_input.param}={token} is {shown} ({about})"
