"""Round jsonl's library variants: orjson, msgspec and pysimdjson, each
asked first about every line, the lines it refuses or cannot judge handed to
the pure Python rules (pure/jsonl.py), so that each library is held to the
round's rules (UTF-8, control characters, duplicates, depth) and every
variant agrees exactly, bad lines included. Imported by the variants that
use them: importing this module needs none of the libraries."""

from __future__ import annotations

from ...pure import jsonl as pure


def orjson_classifier():
    import orjson

    loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
    classify, too_deep = pure.classify, pure.too_deep
    lo, hi, max_depth = pure.INT64_MIN, pure.INT64_MAX, pure.MAX_DEPTH

    def classify_orjson(line: bytes):
        if len(line) > max_depth and too_deep(line):
            return None, pure.INVALID_JSON
        try:
            obj = loads(line)
        except JSONDecodeError:
            # Blank lines, lone surrogate escapes, integers past 64 bits:
            # the rules decide.
            return classify(line)
        if type(obj) is not dict:
            return None, pure.NOT_OBJECT
        s = obj.get("status")
        if type(s) is int and lo <= s <= hi:
            return s, None
        return None, pure.NO_STATUS

    return classify_orjson


def msgspec_classifier():
    import msgspec

    class Status(msgspec.Struct):
        status: int

    decode, DecodeError = msgspec.json.Decoder(Status).decode, msgspec.DecodeError
    classify, too_deep = pure.classify, pure.too_deep
    lo, hi, max_depth = pure.INT64_MIN, pure.INT64_MAX, pure.MAX_DEPTH

    def classify_msgspec(line: bytes):
        if len(line) > max_depth and too_deep(line):
            return None, pure.INVALID_JSON
        # msgspec skips the fields it does not decode without checking
        # their UTF-8: bytes.isascii settles almost every line at C speed.
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return None, pure.INVALID_JSON
        try:
            s = decode(line).status
        except DecodeError:
            # Not an object, no integer status, a status that is not the
            # last one, and what msgspec refuses but JSON allows: the rules
            # decide (ValidationError is a DecodeError).
            return classify(line)
        if lo <= s <= hi:
            return s, None
        return None, pure.NO_STATUS

    return classify_msgspec


def simdjson_classifier():
    import simdjson

    parse, Object = simdjson.Parser().parse, simdjson.Object
    classify, too_deep = pure.classify, pure.too_deep
    lo, hi, max_depth = pure.INT64_MIN, pure.INT64_MAX, pure.MAX_DEPTH

    def classify_simdjson(line: bytes):
        # simdjson skips a byte order mark at the start of a document; on a
        # line it is invalid (only the rules see lines starting with 0xEF).
        if (len(line) > max_depth and too_deep(line)) or line[:1] == b"\xef":
            return classify(line)
        try:
            obj = parse(line)
        except (ValueError, RuntimeError):
            # Blank lines, lone surrogate escapes, numbers past a double's
            # range (ValueError), integers past 64 bits and nesting past its
            # 1024 (RuntimeError), and every bad line: the rules decide.
            return classify(line)
        if type(obj) is not Object:
            return None, pure.NOT_OBJECT
        if b"\\" in line or line.count(b'"status"') > 1:
            # A duplicate "status", possibly escaped: Object.get finds the
            # first one, the rules take the last.
            s = None
            for k, v in obj.items():
                if k == "status":
                    s = v
        else:
            s = obj.get("status")
        if type(s) is int:
            if lo <= s <= hi:
                return s, None
        elif type(s) is float:  # the rules tell an integer by its text (-0 has been a float to simdjson)
            return classify(line)
        return None, pure.NO_STATUS

    return classify_simdjson


def count_file_orjson(path) -> dict:
    return pure.count_file(path, orjson_classifier())


def count_file_msgspec(path) -> dict:
    return pure.count_file(path, msgspec_classifier())


def count_file_simdjson(path) -> dict:
    return pure.count_file(path, simdjson_classifier())
