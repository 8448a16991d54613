"""A fairness check and its record: each check is a machine.Check (ok,
warn or info; the finding; the fix), written as one `fairness-<name>`
provenance line, and read back from a result file's lines.

The constructors here are what every judge of a run's conditions uses (the
fairness audit, fairness.py; the static scan, scan.py); the readers are
what the report and the store use to list them.
"""

from __future__ import annotations

from ..measure.machine import Check


def ok(name: str, value: str) -> Check:
    return Check(name, "ok", value)


def warn(name: str, value: str, fix: str = "") -> Check:
    return Check(name, "warn", value, fix)


def judged(name: str, failed: bool, warning: str, fix: str, passed: str) -> Check:
    """A check with two outcomes: warn(name, warning, fix) when it failed,
    else ok(name, passed)."""
    return warn(name, warning, fix) if failed else ok(name, passed)


def info(name: str, value: str) -> Check:
    return Check(name, "info", value)


def provenance_items(checks: list) -> dict:
    """`fairness-<name>` -> the check's line, in order."""
    return {f"fairness-{c.name}": c.line() for c in checks}


def warnings(checks: list) -> list:
    """The warn checks as the `fairness` line's items: the finding and its fix."""
    return [c.value + (f" (fix: {c.fix})" if c.fix else "") for c in checks if c.status == "warn"]


def parse_line(text: str) -> tuple:
    """A `fairness-*` or `machine-*` provenance value back into (status,
    finding, fix): 'warn: GOGC=50 is set (fix: unset it)' -> ('warn',
    'GOGC=50 is set', 'unset it')."""
    status, sep, rest = text.partition(": ")
    if not sep or status not in ("ok", "warn", "info"):
        return "info", text, ""
    finding, sep, fix = rest.rpartition(" (fix: ")
    if sep and fix.endswith(")"):
        return status, finding, fix[:-1]
    return status, rest, ""


def warned(configs: list) -> list:
    """Every check that warned (machine-* and fairness-* lines), as
    (name, finding, fix); from the older `fairness` line where the file
    predates the per-check lines."""
    out = []
    seen = set()
    for cfg in configs:
        for k, v in cfg.items():
            if (k.startswith("fairness-") or k.startswith("machine-")) and k not in seen:
                seen.add(k)
                status, found, fix = parse_line(v)
                if status == "warn":
                    out.append((k.split("-", 1)[1], found, fix))
    if out or seen:
        return out
    for cfg in configs:
        fair = cfg.get("fairness")
        if fair and fair != "no unfair condition found":
            out.append(("fairness", fair, ""))
    return out
