"""Round jsonl's published Python program, as published (a Counter over
json.loads(line)["status"]), and what the round makes of its count."""

from __future__ import annotations

import json
from collections import Counter

from ...measure import harness


def published_count(path) -> Counter:
    """The published Python program's count, as published: every line of
    the file, opened in text mode, through json.loads, its "status" counted.
    No rules: it raises at the first line that is not JSON, not an object or
    has no status, and counts whatever value a status has."""
    with open(path) as f:
        return Counter(json.loads(line)["status"] for line in f)


def _published_stop(path, err: Exception) -> str:
    """Where and why the published program stopped, found again line by
    line once it has (text mode decodes ahead of the line it hands out, so
    its own exception cannot say which line)."""
    with open(path) as f:
        encoding = f.encoding
    where = str(path)
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                json.loads(raw.decode(encoding))["status"]
            except Exception as e:  # noqa: BLE001 - whatever stopped the published program
                where, err = f"{path}:{number}", e
                break
    return (
        f"{where}: the published program stops at its first bad line ({type(err).__name__}: {err}); "
        "it counts a clean log only (bad-rate=0)"
    )


def count_file_published(path) -> dict:
    """The published count as the round's result: every line it read is a
    valid line with an integer status, or it stopped (harness.WorkFailed,
    naming the line); a status of another type is a wrong result."""
    try:
        counts = published_count(path)
    except Exception as e:  # noqa: BLE001 - the published program has no error handling of its own
        raise harness.WorkFailed(_published_stop(path, e)) from None
    odd = sorted(repr(k) for k in counts if type(k) is not int)
    if odd:
        raise harness.WrongResult("statuses that are not integers", ", ".join(odd), "none")
    n = sum(counts.values())
    return {"lines": n, "blank": 0, "valid": n, "invalid": 0, "statuses": dict(counts), "reported": []}
