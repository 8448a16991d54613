"""Round jsonl's library variants: orjson, msgspec and pysimdjson, each
asked first about every line, the lines it refuses or cannot judge handed to
the pure Python rules (pure/jsonl.py), so that each library is held to the
round's rules (UTF-8, control characters, duplicates, depth) and every
variant agrees exactly, bad lines included. Imported by the variants that
use them: importing this module needs none of the libraries."""

from __future__ import annotations

from ...pure import jsonl as pure


def orjson_classifier():
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
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
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
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
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
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


# ---- msgspec's batch decoding ---------------------------------------------------

# How many bytes py-msgspec-batch hands msgspec at once (then up to the end
# of the line the block ends in), and the fewest lines a refused block is
# split at: smaller, it is counted line by line.
BATCH_BYTES = 1 << 16
SPLIT_LINES = 32


def count_file_msgspec_batch(path, batch_bytes: int = BATCH_BYTES) -> dict:
    """The round's count with msgspec's batch decoder: Decoder.decode_lines
    decodes a whole block of lines in one call. A block is trusted only
    when the round's rules cannot tell another story about any of its
    lines: it is valid UTF-8, none of its lines is long enough to nest past
    MAX_DEPTH (or it does not, checked), decode_lines succeeds, it gives one
    record per line (a blank line or a line with two values would not) and
    every status is an int64. A block refused is split in two at a line's
    end and each half tried again, down to SPLIT_LINES lines, which are
    counted line by line as py-msgspec counts them (msgspec first, the
    rules for what it refuses): a bad line costs a few decodes of the
    blocks around it, and the result, bad lines and their numbers
    included, is exactly the rules'. Reads the file in binary (lines split
    on b"\\n" only)."""
    # the batch variant's counting, only in its child
    from collections import Counter

    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    import msgspec

    class Status(msgspec.Struct):
        status: int

    decode_lines, DecodeError = msgspec.json.Decoder(Status).decode_lines, msgspec.DecodeError
    per_line = msgspec_classifier()
    too_deep, lo, hi = pure.too_deep, pure.INT64_MIN, pure.INT64_MAX
    max_depth = pure.MAX_DEPTH
    statuses: dict = {}
    reported: list = []
    tally = {"blank": 0, "invalid": 0, "lines": 0}

    def by_line(block: bytes) -> None:
        lines = block.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        for line in lines:
            tally["lines"] += 1
            status, reason = per_line(line)
            if status is not None:
                statuses[status] = statuses.get(status, 0) + 1
            elif reason is None:
                tally["blank"] += 1
            else:
                tally["invalid"] += 1
                if len(reported) < pure.MAX_REPORTED:
                    reported.append((tally["lines"], reason))

    def at_once(block: bytes) -> bool:
        if not block.isascii():
            try:
                block.decode("utf-8")
            except UnicodeDecodeError:
                return False
        # Only a line longer than MAX_DEPTH can nest past it, and only with
        # more brackets than that in the block.
        if block.count(b"[") + block.count(b"{") > max_depth:
            lines = block.split(b"\n")
            if max(map(len, lines)) > max_depth and any(len(x) > max_depth and too_deep(x) for x in lines):
                return False
        try:
            records = decode_lines(block)
        except DecodeError:
            return False
        n = block.count(b"\n") + (not block.endswith(b"\n"))
        if len(records) != n:
            return False
        got = [r.status for r in records]
        if got and (min(got) < lo or max(got) > hi):
            return False
        for s, k in Counter(got).items():  # counted in C
            statuses[s] = statuses.get(s, 0) + k
        tally["lines"] += n
        return True

    def count(block: bytes) -> None:
        if not block or at_once(block):
            return
        if block.count(b"\n", 0, len(block) - 1) < SPLIT_LINES:
            by_line(block)
            return
        cut = block.rfind(b"\n", 0, len(block) // 2) + 1 or block.find(b"\n") + 1
        count(block[:cut])
        count(block[cut:])

    try:
        with open(path, "rb") as f:
            carry = b""
            while True:
                chunk = f.read(batch_bytes)
                if not chunk:
                    break
                data = carry + chunk
                cut = data.rfind(b"\n") + 1
                block, carry = data[:cut], data[cut:]
                count(block)
            count(carry)
    except OSError as e:  # a read error: say how far the count got
        raise OSError(e.errno, f"{e.strerror} after {tally['lines']} lines", e.filename) from e
    n = tally["lines"]
    valid = n - tally["blank"] - tally["invalid"]
    return {
        "lines": n,
        "blank": tally["blank"],
        "valid": valid,
        "invalid": tally["invalid"],
        "statuses": statuses,
        "reported": reported,
    }
