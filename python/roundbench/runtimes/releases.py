"""Release dates of the compared runtimes, and the runtime-age check.

A comparison of a 2026 Go with a 2022 CPython measures four years of one
runtime's optimisation as much as it measures the languages. The table
(data/releases.tsv, one row per feature release) gives the day each X.Y
came out; `age_checks` compares the runtimes a run used and warns when they
are more than MAX_APART_DAYS apart, naming both dates and the fix (run the
Python side with a newer interpreter: `--python PATH`).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from importlib import resources
from typing import Optional

MAX_APART_DAYS = 365  # "released more than 12 months apart"


@dataclass(frozen=True)
class Release:
    name: str  # cpython, go, numpy
    version: str  # the feature release, X.Y
    released: datetime.date


def _parse(text: str) -> dict:
    table = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"releases.tsv line {lineno}: want 3 tab-separated fields, got {len(fields)}")
        name, version, day = fields
        try:
            released = datetime.date.fromisoformat(day)
        except ValueError:
            raise ValueError(f"releases.tsv line {lineno}: {day!r} is not a YYYY-MM-DD date") from None
        table[(name, version)] = Release(name, version, released)
    return table


_TABLE: Optional[dict] = None


def table() -> dict:
    """(name, 'X.Y') -> Release, read once from the package's data file."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _parse(resources.files("roundbench").joinpath("data/releases.tsv").read_text(encoding="utf-8"))
    return _TABLE


def feature(version: str) -> Optional[str]:
    """'3.11.7' -> '3.11', 'go1.26.8' -> '1.26', '2.4.6' -> '2.4'; None when
    the text holds no X.Y version."""
    m = re.search(r"(\d+)\.(\d+)", version)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def lookup(name: str, version: str) -> Optional[Release]:
    """The feature release `version` belongs to, or None if the table lacks it."""
    x_y = feature(version)
    return table().get((name, x_y)) if x_y else None


LABELS = {"cpython": "CPython", "go": "Go", "numpy": "numpy"}


def _label(name: str, version: str) -> str:
    m = re.search(r"\d+\.\d+(\.\d+)?", version)
    return f"{LABELS.get(name, name)} {m.group(0) if m else version}"


def age_check(a: tuple, b: tuple, fixes: dict) -> tuple:
    """Compares two (name, version) runtimes: (status, text, fix), status
    "ok", "warn" (released more than MAX_APART_DAYS apart; fix: fixes[the
    older one's name]), or "info" (a version the table lacks: said so, never
    guessed)."""
    ra, rb = lookup(*a), lookup(*b)
    missing = [_label(*x) for x, r in ((a, ra), (b, rb)) if r is None]
    if missing:
        return (
            "info",
            f"{' and '.join(missing)} not in the release table (python/roundbench/data/releases.tsv): "
            "add its release date to check its age",
            "",
        )
    apart = abs((ra.released - rb.released).days)
    text = (
        f"{_label(*a)} ({ra.version} released {ra.released}) and {_label(*b)} ({rb.version} released {rb.released}): "
        f"{apart} days apart"
    )
    if apart > MAX_APART_DAYS:
        older = a if ra.released < rb.released else b
        return "warn", f"{text}: the {_label(*older)} side is {apart * 12 // 365} months older", fixes.get(older[0], "")
    return "ok", text, ""
