"""Round jsonl in pure Python: the json module, made to follow the rules.

The rules (docs/rounds/jsonl.md) are stricter than json.loads in three ways
and looser in two, and a careful user handles all five: json.loads accepts
NaN and Infinity (parse_constant rejects them), guesses an encoding from
bytes (each line is decoded as UTF-8 here, strictly, so a bad line is just
invalid), and has no nesting limit of its own (deeper than 512 is invalid
by rule: RFC 8259 section 9 allows the limit); it raises RecursionError on
very deep input and refuses integers of more than 4300 digits, which are
valid JSON (both are caught, and the second is parsed again). Lines are
split on b"\\n" only (binary iteration), never by str.splitlines.
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 512
MAX_REPORTED = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INVALID_JSON, NOT_OBJECT, NO_STATUS = "invalid-json", "not-object", "no-status"
_WHITESPACE = b" \t\r\n"
# A JSON string, for depth measurement: on valid JSON it matches exactly
# the strings, so the brackets left over are the structure.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class NotJSON(ValueError):
    """NaN, Infinity or -Infinity: json accepts them, JSON does not."""


def _reject_constant(name: str):
    raise NotJSON(f"{name} is not JSON")


class _Huge:
    """Stands for an integer too long for int(): not an int64 status."""


def _int_any_length(digits: str):
    return int(digits) if len(digits) <= 20 else _Huge()


_decode = json.JSONDecoder(parse_constant=_reject_constant).decode
_decode_huge = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_int_any_length).decode


def too_deep(line: bytes) -> bool:
    """Whether a line nests arrays and objects deeper than MAX_DEPTH. Only
    lines longer than MAX_DEPTH bytes can; callers check the length first."""
    depth = 0
    for c in _STRING.sub(b"", line):
        d = _BRACKETS.get(c)
        if d is not None:
            depth += d
            if depth > MAX_DEPTH:
                return True
    return False


def classify(line: bytes):
    """(status, reason) for one line, with or without its newline; the
    status is an int64 top-level "status" (bool is no int): (status, None)
    for a valid line, (None, None) for a blank one, (None, reason) else."""
    if len(line) > MAX_DEPTH and too_deep(line):
        return None, INVALID_JSON
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, INVALID_JSON
    try:
        obj = _decode(text)
    except (json.JSONDecodeError, NotJSON, RecursionError):
        if not line.strip(_WHITESPACE):
            return None, None
        return None, INVALID_JSON
    except ValueError:  # an integer longer than int() takes: still JSON
        try:
            obj = _decode_huge(text)
        except (ValueError, RecursionError):
            return None, INVALID_JSON
    if type(obj) is not dict:
        return None, NOT_OBJECT
    s = obj.get("status")
    if type(s) is int and INT64_MIN <= s <= INT64_MAX:
        return s, None
    return None, NO_STATUS


def count_lines(lines, classify=classify) -> dict:
    """Tallies lines (an iterable of bytes, each with or without its b"\\n")
    as the round's result dict: lines, blank, valid, invalid, statuses and
    the first 100 invalid lines as (line number, reason)."""
    statuses: dict = {}
    reported = []
    blank = invalid = n = 0
    try:
        for n, line in enumerate(lines, 1):
            status, reason = classify(line)
            if status is not None:
                statuses[status] = statuses.get(status, 0) + 1
            elif reason is None:
                blank += 1
            else:
                invalid += 1
                if len(reported) < MAX_REPORTED:
                    reported.append((n, reason))
    except OSError as e:  # a read error: say how far the count got
        raise OSError(e.errno, f"{e.strerror} after {n} lines", e.filename) from e
    valid = n - blank - invalid
    return {"lines": n, "blank": blank, "valid": valid, "invalid": invalid, "statuses": statuses, "reported": reported}


def count_file(path, classify=classify) -> dict:
    """The round's work over a file: read in binary (lines split on b"\\n"
    only, any length), never stopped by a bad line. A read error raises
    OSError saying after how many lines."""
    with open(path, "rb") as f:
        return count_lines(f, classify)
