"""How the report and the summary write numbers, ratios, durations, bytes
and sizes: a leaf module, so every layer that prints a figure prints it one
way."""

from __future__ import annotations

import math
from typing import Optional


def fmt(x: Optional[float], digits: int = 3) -> str:
    if x is None:
        return "—"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}" if ax >= 1 else f"{x:.{digits}g}"


def fmt_bytes(b: Optional[float]) -> str:
    if b is None:
        return "—"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} GiB"


def fmt_unit(x: Optional[float], unit: str) -> str:
    """Bytes in binary units, anything else as a number."""
    if unit.endswith("-B") or unit == "B":
        return fmt_bytes(x)
    return fmt(x)


def size_key(params: dict) -> tuple:
    return tuple((k, v) for k, v in params.items() if k != "impl")


def size_label(size: tuple) -> str:
    return ", ".join(f"{k}={v}" for k, v in size) or "default"


def ratio_text(r: float) -> str:
    if not math.isfinite(r):
        return str(r)
    if r >= 100:
        return f"{r:,.0f}"
    if r >= 10:
        return f"{r:.1f}"
    if 0.9 < r < 1.1:
        return f"{r:.3f}"  # 1.003 is not 1.00: a bound near 1 keeps its third digit
    return f"{r:.2f}"


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
