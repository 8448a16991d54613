"""Property tests (Hypothesis) across the core's two untrusted inputs.

Round jsonl: the pure Python rules (roundbench.pure.jsonl) against the
core's count of the same buffer, under every kernel this CPU runs; the
whole result must be equal: counts, statuses, reported lines and reasons.
The inputs: arbitrary bytes and a soup of JSON's tokens; generated JSON
Lines logs (records with "status" keys, duplicates, nesting around the
depth limit, escapes, numbers of every edge form, whitespace, invalid
UTF-8, NaN, stray commas; valid lines, lines with one flaw, and byte
mutations); and the same logs after filler, repeated and at every buffer
alignment, with long strings that look like structure, so that lines fall
at every place in the kernels' blocks, groups of blocks and chunks.

Round http: the core's server with a Python handler (py-c) on generated
request heads, valid and mutated, split into several writes. Every answer
is a well-formed HTTP/1.1 response, 200 from the handler or 400, 413, 431
or 501 from the parser (the last answer, then the server closes); a head
still incomplete gets no answer; the same bytes in one write get the same
answers; the handler sees only a method and a target that were sent; a
fresh connection is served after every example and no connection is left
open; where the generator knows the answer (a valid request, a pipelined
pair, a truncated head, a head around the size and header-count limits, a
bare CR) it must be that answer.

The example counts are fixed and the generation derandomized, so `make
test` runs the same examples every time (for one Hypothesis release and
the same sources, whose constants it draws on);
ROUNDBENCH_HYPOTHESIS_EXAMPLES sets every test's count for a longer
search. No example database is kept.
"""

from __future__ import annotations

import io
import os
import platform
import random
import re
import socket
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import roundbench
from roundbench.pure import jsonl as pure

_LONG = int(os.environ.get("ROUNDBENCH_HYPOTHESIS_EXAMPLES", "0") or 0)


def bounded(examples: int):
    """The settings of one property: `examples` examples (or the long run's
    count), derandomized, no deadline (the machine is shared), no database."""
    return settings(
        max_examples=_LONG or examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# ---- round jsonl -------------------------------------------------------------


def _refused(kernel: str) -> bool:
    try:
        roundbench.jsonl_kernel(kernel)
        return False
    except ValueError:
        return True
    finally:
        roundbench.jsonl_kernel("auto")


KERNELS = [k for k in ("scan", "sse2", "avx2", "avx512") if not _refused(k)]


def test_kernels_to_compare():
    """The line scanner runs everywhere, and SSE2 wherever x86-64 does."""
    assert "scan" in KERNELS, KERNELS
    if platform.machine() in ("x86_64", "AMD64"):
        assert "sse2" in KERNELS, KERNELS


def pure_count(data: bytes) -> dict:
    """The pure rules over a buffer, split as a file read in binary is."""
    return pure.count_lines(io.BytesIO(data))


def core_counts(data: bytes, offset: int = 0) -> dict:
    """The core's count of data under every kernel, the buffer starting
    `offset` bytes into an allocation (so its alignment varies)."""
    room = bytearray(offset) + data
    view = memoryview(room)[offset:]
    out = {}
    try:
        for k in KERNELS:
            roundbench.jsonl_kernel(k)
            r = roundbench.jsonl_count_buffer(view)
            assert r.pop("bytes") == len(data), k
            out[k] = r
    finally:
        view.release()
        roundbench.jsonl_kernel("auto")
    return out


def _first_line_apart(data: bytes):
    """The first line the pure rules and the scanner judge apart, alone."""
    for n, line in enumerate(io.BytesIO(data), 1):
        want = pure_count(line)
        got = core_counts(line)["scan"]
        if want != got:
            return n, line[:300], want, got
    return None


def check_same(data: bytes, offset: int = 0) -> None:
    want = pure_count(data)
    got = core_counts(data, offset)
    for k, r in got.items():
        assert r == want, (k, _first_line_apart(data), r, want)


# Arbitrary bytes, and a soup of JSON's own tokens, which lands near JSON.
# fmt: off
_SOUP = [
    b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\", b" ", b"\t", b"\r", b"\n", b"\n", b"0", b"1", b"-",
    b".", b"e", b"E", b"+", b"true", b"null", b"status", b'"status":', b'{"status":', b"200", b"u", b"\\u00",
    b"\xff", b"\xc3\xa9", b"\xed\xa0\x80", b"\x00", b"\x1f", b"\x7f", b"a", b"/", b"\\n",
]
# fmt: on
soup = st.lists(st.sampled_from(_SOUP), max_size=300).map(b"".join)
raw_logs = st.one_of(
    st.binary(max_size=3000),
    st.lists(st.binary(max_size=120), max_size=40).map(b"\n".join),
    soup,
)


@bounded(300)
@given(data=raw_logs, offset=st.integers(0, 63))
def test_jsonl_arbitrary_bytes(data, offset):
    check_same(data, offset)


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Every generator below comes in two kinds: "clean" makes valid JSON only
# (so that a line is often valid, and a rule one side gets wrong changes
# its result), "dirty" also makes what is nearly JSON. Byte mutations on
# top reach the rest.
# fmt: off
_NUMBERS = [
    b"0", b"-0", b"1", b"-1", b"200", b"404", b"1e5", b"1E5", b"1e+5", b"1e-5", b"-0.0", b"0.0", b"0.5", b"1.0",
    b"200.0", b"2e2", b"0e0", b"-0e-0", b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808",
    b"-9223372036854775809", b"18446744073709551615", b"18446744073709551616", b"99999999999999999999",
    b"-99999999999999999999", b"1" + b"0" * 30, b"1e400", b"-1e400", b"1e-400", b"4.9e-324",
]
_NOT_NUMBERS = [
    b"01", b"-01", b"00", b"+1", b".5", b"1.", b"-", b"1e", b"1e+", b"1.e5", b"0x10", b"1.2.3", b"--1", b"1_000",
    b"NaN", b"-NaN", b"nan", b"Infinity", b"-Infinity", b"inf", b"\xef\xbc\x91",
]
_ESCAPES = [
    b'\\"', b"\\\\", b"\\/", b"\\b", b"\\f", b"\\n", b"\\r", b"\\t", b"\\u0041", b"\\u00e9", b"\\u0000",
    b"\\uFFFF", b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", b"\\uDBFF\\uDFFF", b"\\u0073tatus",
]
_BAD_ESCAPES = [b"\\a", b"\\x41", b"\\u12", b"\\u12G4", b"\\U0041", b"\\'", b"\\0", b"\\ ", b"\\"]
# Raw bytes in a string: DEL, UTF-8 of 2 to 4 bytes, the highest code point,
# a byte order mark (a character like any other inside a string) ...
_RAW = [b"\x7f", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbb\xbf"]
# ... and not: controls, overlong forms, surrogates, past U+10FFFF, stray
# and cut sequences.
_BAD_RAW = [
    b"\x00", b"\x01", b"\x1f", b"\t", b"\r", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xed\xa0\x80",
    b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"\xc3", b"\xe2\x82",
]
_KEYS = [
    b'"status"', b'"status"', b'"status"', b'"Status"', b'"STATUS"', b'"st\\u0061tus"', b'"\\u0073tatus"',
    b'"status "', b'" status"', b'"stat\\"us"', b'"status\\u0000"', b'"statu"', b'"statuss"', b'"a"',
    b'"code"', b'"msg"', b'""', b'"st\\/atus"',
]
_LITERALS = [b"true", b"false", b"null"]
_NOT_LITERALS = [b"tru", b"nul", b"nulls", b"True", b"None", b"undefined", b"NaN", b"Infinity", b"status", b"'a'"]
# Between tokens: mostly none (the compact lines the block index takes) or
# JSON's whitespace; dirty, also bytes that are not JSON whitespace.
_WS = [b""] * 12 + [b" ", b"\t", b"\r", b"  ", b" \t\r "]
_BAD_WS = [b"\x0c", b"\x0b", b"\xc2\xa0", b"\x00"]
# fmt: on
_DIGITS = "0123456789"


@st.composite
def _number_text(draw):
    """A number by the grammar's parts, each part sometimes wrong."""
    sign = draw(st.sampled_from([b"", b"", b"-", b"+"]))
    whole = draw(st.text(_DIGITS, min_size=0, max_size=22)).encode()
    frac = draw(st.sampled_from([b"", b"", b"."]))
    if frac:
        frac += draw(st.text(_DIGITS, max_size=6)).encode()
    exp = draw(st.sampled_from([b"", b"", b"e", b"E"]))
    if exp:
        exp += draw(st.sampled_from([b"", b"+", b"-"])) + draw(st.text(_DIGITS, max_size=4)).encode()
    return sign + whole + frac + exp


# Statuses that count: HTTP's, any int64, the ends of the range, and the
# first integers past them (which do not count).
statuses = st.one_of(
    st.integers(100, 599).map(lambda n: str(n).encode()),
    st.sampled_from([b"9223372036854775807", b"-9223372036854775808", b"9223372036854775808", b"-0", b"0"]),
    st.sampled_from([b"-9223372036854775809", b"9223372036854775806", b"-9223372036854775807"]),
    st.integers(INT64_MIN, INT64_MAX).map(lambda n: str(n).encode()),
)
# What a dirty kind may get wrong: one of these per kind, so that its lines
# are often wrong in just one place.
FLAWS = ("numbers", "strings", "literals", "ws", "commas", "colons")


class Json:
    """The strategies of one kind: clean, or with one kind of flaw."""

    def __init__(self, flaw: str = ""):
        self.flaw = flaw

        def either(kind: str, good: list, bad: list, share: int = 6):
            """good; in the kind with this flaw, bad one time in `share`."""
            if flaw != kind:
                return st.sampled_from(good)
            return st.one_of(*[st.sampled_from(good)] * (share - 1), st.sampled_from(bad))

        self.numbers = st.one_of(
            either("numbers", _NUMBERS, _NOT_NUMBERS),
            st.integers(-(2**66), 2**66).map(lambda n: str(n).encode()),
            st.integers(INT64_MAX - 2, INT64_MAX + 2)
            .flatmap(lambda n: st.sampled_from([n, -n, -n - 1]))
            .map(lambda n: str(n).encode()),
            st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).encode()),
            # Around the 4300 digits CPython's int() stops at: still JSON.
            st.integers(4295, 4305).map(lambda n: b"7" * n),
            st.integers(4295, 4305).map(lambda n: b"-1" + b"0" * n + b".5"),
            *([_number_text()] if flaw == "numbers" else []),
        )
        text = st.characters(min_codepoint=0x20, exclude_categories=["Cs"], exclude_characters='"\\')
        parts = [
            st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=10),
            st.sampled_from(_ESCAPES),
            st.sampled_from(_RAW),
            st.text(text, max_size=3),
        ]
        if flaw == "strings":  # one part in five bad
            parts.append(st.one_of(st.sampled_from(_BAD_ESCAPES), st.sampled_from(_BAD_RAW), st.text(max_size=3)))
        part = st.one_of(*parts).map(lambda p: p.encode() if isinstance(p, str) else p)
        self.strings = st.lists(part, max_size=5).map(lambda ps: b'"' + b"".join(ps) + b'"')
        self.keys = st.one_of(st.sampled_from(_KEYS), self.strings)
        self.literals = either("literals", _LITERALS, _NOT_LITERALS)
        self.ws = either("ws", _WS, _BAD_WS, 24)
        self.commas = either("commas", [b","], [b",,", b"", b";", b" , "])
        self.colons = either("colons", [b":"], [b"", b"::", b"=", b" : "])
        self.scalars = st.one_of(self.numbers, self.strings, self.literals)
        self.values = st.recursive(self.scalars, lambda c: st.one_of(self.array(c), self.object(c)), max_leaves=10)
        self.records = self.object(self.values, status=True)

    def _join(self, draw, items: list, open_: bytes, close: bytes) -> bytes:
        out = open_ + draw(self.ws)
        stray = self.flaw == "commas" and draw(st.integers(0, 5)) == 0
        if stray and draw(st.booleans()):
            out += b","  # a stray leading comma
        for i, item in enumerate(items):
            if i:
                out += draw(self.commas)
            out += draw(self.ws) + item + draw(self.ws)
        if stray and items and draw(st.booleans()):
            out += b","  # a trailing comma
        return out + draw(self.ws) + close

    def array(self, children):
        return st.composite(lambda draw: self._join(draw, draw(st.lists(children, max_size=4)), b"[", b"]"))()

    def object(self, children, status=False):
        @st.composite
        def make(draw):
            items = draw(st.lists(children, max_size=4))
            pairs = [draw(self.keys) + draw(self.ws) + draw(self.colons) + draw(self.ws) + v for v in items]
            if status:
                # One "status" or more (the last one counts), anywhere among them.
                for _ in range(draw(st.sampled_from([1, 1, 1, 1, 2, 3]))):
                    value = draw(st.one_of(statuses, statuses, statuses, self.numbers, self.scalars, children))
                    pairs.insert(draw(st.integers(0, len(pairs))), b'"status"' + draw(self.colons) + value)
            return self._join(draw, pairs, b"{", b"}")

        return make()


CLEAN, DIRTY = Json(), [Json(flaw) for flaw in FLAWS]


@st.composite
def near_miss(draw):
    """A valid record but for one flaw: a value that is not JSON (at the top
    level, or in an array or object), a string with one bad part, one bad
    separator, one byte of whitespace that JSON does not allow, or one
    stray comma; the status may be the flawed value."""
    pairs = [k + b":" + v for k, v in draw(st.lists(st.tuples(CLEAN.keys, CLEAN.values), max_size=3))]
    pairs.insert(draw(st.integers(0, len(pairs))), b'"status":' + draw(statuses))
    flaw = draw(st.sampled_from(["value", "value", "string", "separator", "ws", "comma"]))
    if flaw in ("value", "string"):
        if flaw == "value":
            bad = draw(st.sampled_from(_NOT_NUMBERS + _NOT_LITERALS + [b"-" + n for n in _NUMBERS]))
        else:
            good = draw(st.lists(CLEAN.strings.map(lambda q: q[1:-1]), min_size=2, max_size=2))
            bad = b'"' + good[0] + draw(st.sampled_from(_BAD_ESCAPES + _BAD_RAW)) + good[1] + b'"'
        bad = draw(st.sampled_from([b"%s", b"%s", b"[1,%s]", b"[%s]", b'{"a":%s}', b'{"status":%s}'])) % bad
        key = draw(st.sampled_from([b'"status"', b'"x"']))
        pairs.insert(draw(st.integers(0, len(pairs))), key + b":" + bad)
        return b"{" + b",".join(pairs) + b"}"
    text = b"{" + b",".join(pairs) + b"}"
    at = draw(st.sampled_from([m.start() for m in re.finditer(rb'[{,:}]|(?<=[:,{])"', text)]))
    if flaw == "separator":
        return text[:at] + draw(st.sampled_from([b"", b";", b"=", b",,", b"::"])) + text[at + 1 :]
    if flaw == "ws":
        return text[:at] + draw(st.sampled_from(_BAD_WS)) + text[at:]
    return text[:-1] + b",}" if draw(st.booleans()) else b"{," + text[1:]


@st.composite
def deep(draw):
    """Nesting around the limit of 512, as arrays, objects, or inside a record."""
    d = draw(st.integers(505, 520))
    form = draw(st.sampled_from(["array", "object", "record", "unclosed", "mixed"]))
    if form == "array":
        return b"[" * d + draw(CLEAN.scalars) + b"]" * d
    if form == "object":
        return b'{"a":' * d + draw(CLEAN.scalars) + b"}" * d
    if form == "record":
        return b'{"status":200,"deep":' + b"[" * (d - 1) + b"]" * (d - 1) + b"}"
    if form == "unclosed":
        return b"[" * d + b"]" * (d - 1)
    return b'{"a":[' * (d // 2) + b"1" + b"]}" * (d // 2)


blank = st.sampled_from([b"", b" ", b"\t", b"\r", b" \t \r", b"\r\r", b"\x0c", b"\x0b", b" \x00", b"\xc2\xa0"])


@st.composite
def mutate(draw, line: bytes) -> bytes:
    """The line with a few bytes dropped, inserted, flipped, doubled, or cut."""
    b = bytearray(line)
    for _ in range(draw(st.sampled_from([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3]))):
        op = draw(st.sampled_from(["drop", "insert", "flip", "double", "cut"]))
        at = draw(st.integers(0, len(b)))
        if op == "insert":
            b[at:at] = draw(st.sampled_from([b'"', b"\\", b",", b"{", b"}", b"[", b"]", b":", b" ", b"\x00", b"\xff"]))
        elif at < len(b):
            if op == "drop":
                del b[at]
            elif op == "flip":
                b[at] ^= 1 << draw(st.integers(0, 7))
                if b[at] == ord("\n"):
                    b[at] = ord("\r")
            elif op == "double":
                b[at:at] = b[at : at + draw(st.integers(1, 8))]
            else:
                del b[at:]
    return bytes(b)


lines = st.one_of(
    near_miss(),
    near_miss(),
    CLEAN.records,
    CLEAN.records,
    CLEAN.records,
    CLEAN.records,
    CLEAN.values,
    st.sampled_from(DIRTY).flatmap(lambda kind: kind.records),
    st.sampled_from(DIRTY).flatmap(lambda kind: kind.records),
    st.sampled_from(DIRTY).flatmap(lambda kind: kind.values),
    deep(),
    blank,
    soup.map(lambda b: b.replace(b"\n", b"")),
).flatmap(mutate)


def _filler(size: int, spaced: bool) -> bytes:
    """Valid records of about 100 bytes, `size` bytes in all: what comes
    before a line decides where it falls in the kernels' blocks and chunks."""
    out = b""
    while len(out) < size:
        n = min(100, size - len(out))
        line = b'{"pad": "%s", "status": 200}\n' if spaced else b'{"pad":"%s","status":200}\n'
        pad = max(0, n - len(line % b""))
        out += line % (b"x" * pad)
    return out


@st.composite
def logs(draw, layout: bool):
    """Generated lines, each ending in LF or CRLF, the last one maybe in
    neither; with `layout`, after filler and repeated, so that they fall
    at every place in the kernels' blocks and chunks."""
    body = b""
    for line in draw(st.lists(lines, min_size=1, max_size=16)):
        body += line + draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    if draw(st.booleans()):
        body = body[:-1]  # the last line without its newline (or a bare CR)
    if not layout:
        return body
    # Where the lines start: inside the first block, across 64-byte
    # blocks, the AVX-512 kernel's groups of eight and 4 KiB chunks.
    size = draw(st.one_of(st.sampled_from([0, 1, 63, 64, 65, 511, 512, 4095, 4096, 4097]), st.integers(0, 5000)))
    before = _filler(size, draw(st.booleans()))
    # Repeated past 64 KiB now and then: the stretches where the scanner
    # goes on alone and the index takes over again.
    reps = draw(st.sampled_from([1, 1, 2, 30, 300]))
    return before + body * reps + draw(st.sampled_from([b"", before]))


@st.composite
def strings_like_structure(draw):
    """Compact records with long strings of digits, commas, colons and
    brackets, now and then a quote too many: lines that cross the kernels'
    blocks and groups of blocks inside a string, where a kernel that lost
    track of which bytes are in a string would read them as structure. The
    bytes come from a seeded generator (drawn bytes this long make slow
    examples); the seed, the line count and the sizes shrink."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    longest = draw(st.sampled_from([60, 150, 300]))
    lines = []
    for _ in range(draw(st.integers(1, 40))):
        fields = [b'"status":%d' % rng.randint(100, 599)]
        for k in range(rng.randint(1, 4)):
            if rng.random() < 0.7:
                text = bytes(rng.choices(b"0123456789,:{}[]. ab", k=rng.randint(0, longest)))
                fields.insert(rng.randint(0, len(fields)), b'"k%d":"%s"' % (k, text))
            else:
                fields.insert(rng.randint(0, len(fields)), b'"n%d":%d' % (k, rng.randint(0, 10**6)))
        line = b"{" + b",".join(fields) + b"}"
        if rng.random() < 0.3:
            at = rng.randint(0, len(line))
            line = line[:at] + b'"' + line[at:]
        lines.append(line)
    return b"\n".join(lines) + b"\n"


@bounded(400)
@given(data=logs(layout=False))
def test_jsonl_generated_lines(data):
    check_same(data)


@bounded(120)
@given(data=st.one_of(logs(layout=True), strings_like_structure()), offset=st.integers(0, 63))
def test_jsonl_generated_lines_placed(data, offset):
    check_same(data, offset)


# ---- round http --------------------------------------------------------------

_TCHAR = "!#$%&'*+-.^_`|~" + _DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_VCHAR = bytes([9, *range(0x20, 0x7F), *range(0x80, 0x100)])
# Header names whose meaning the generator models itself.
_FRAMING = {"host", "connection", "content-length", "transfer-encoding"}
_ERRORS = {400, 413, 431, 501}
MAX_HEAD, MAX_HEADERS = 8192, 64  # the server's defaults (csrc/roundbench.h)

methods = st.one_of(
    st.sampled_from(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get", "M-SEARCH"]),
    st.text(_TCHAR, min_size=1, max_size=12),
)
targets = st.one_of(
    st.sampled_from(["/", "*", "/index.html", "/a?b=c&d=e#f", "http://example.test/x", "//", "/%00", "/~u/"]),
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=80),
)
header_names = st.text(_TCHAR, min_size=1, max_size=20).filter(lambda n: n.lower() not in _FRAMING)
header_values = st.lists(st.sampled_from(_VCHAR), max_size=60).map(bytes)
ows = st.sampled_from([b"", b" ", b" ", b"\t", b"  \t"])
eols = st.sampled_from([b"\r\n", b"\r\n", b"\r\n", b"\n"])
# Connection values: tokens in lists, any case; a "close" anywhere closes
# (RFC 9112 9.6), a "keep-alive" keeps an HTTP/1.0 connection open.
# fmt: off
connection_values = st.sampled_from([
    b"close", b"keep-alive", b"Keep-Alive", b"CLOSE", b"upgrade", b"close, keep-alive", b"keep-alive, close",
    b"te,close", b"foo", b"keep-alive,upgrade", b",,close ,",
])
# fmt: on


class Request:
    """A generated request: its bytes, where its head ends, and what the
    server must make of it."""

    def __init__(self, raw, head_len, method, target, keep_alive, minor, headers):
        self.raw, self.head_len = raw, head_len
        self.method, self.target = method, target
        self.keep_alive, self.minor, self.headers = keep_alive, minor, headers

    def __repr__(self):
        return f"Request({self.raw[:200]!r}{'...' if len(self.raw) > 200 else ''})"


def _keep_alive(minor: int, connection: list) -> bool:
    tokens = [t.lower() for v in connection for t in re.split(rb"[ \t,]+", v) if t]
    if b"close" in tokens:
        return False
    return minor == 1 or b"keep-alive" in tokens


@st.composite
def requests(draw, headers=None, size=None):
    """A valid request (RFC 9112 as the server reads it) with `headers`
    extra header lines; with `size`, a last header padded so that the head
    is that many bytes where it can be."""
    method, target, minor = draw(methods), draw(targets), draw(st.sampled_from([1, 1, 0]))
    count = draw(st.integers(0, 8) if headers is None else headers)
    fields = [(draw(header_names).encode(), draw(header_values)) for _ in range(count)]
    if minor == 1 or draw(st.booleans()):
        fields.insert(draw(st.integers(0, len(fields))), (draw(st.sampled_from([b"Host", b"host", b"HOST"])), b"x"))
    connection = draw(st.lists(connection_values, max_size=2))
    for v in connection:
        fields.insert(draw(st.integers(0, len(fields))), (b"Connection", v))
    body = b""
    if draw(st.integers(0, 4)) == 0:
        body = draw(st.binary(max_size=40))
        length = draw(st.sampled_from([b"", b"0", b"00"])) + str(len(body)).encode()
        fields.insert(draw(st.integers(0, len(fields))), (b"Content-Length", length))
    if size is not None:
        fields.append((b"X-Pad", None))
    lead = b"".join(draw(st.sampled_from([b"\r\n", b"\n"])) for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))))
    first = f"{method} {target} HTTP/1.{minor}".encode() + draw(eols)
    around = [(draw(ows), draw(ows), draw(eols)) for _ in fields]
    last = draw(eols)

    def render(pad: int) -> bytes:
        head = lead + first
        for (name, value), (before, after, eol) in zip(fields, around):
            head += name + b":" + before + (b"p" * pad if value is None else value) + after + eol
        return head + last

    head = render(0)
    if size is not None:
        head = render(max(0, size - len(head)))
    return Request(head + body, len(head), method, target, _keep_alive(minor, connection), minor, len(fields))


@st.composite
def padded(draw):
    """A request whose head is near MAX_HEAD bytes, or well past it."""
    size = draw(
        st.one_of(
            st.sampled_from([MAX_HEAD - 1, MAX_HEAD, MAX_HEAD + 1]),
            st.sampled_from([MAX_HEAD - 1, MAX_HEAD, MAX_HEAD + 1]),
            st.integers(MAX_HEAD - 40, MAX_HEAD + 40),
            st.integers(MAX_HEAD, 3 * MAX_HEAD),
        )
    )
    return draw(requests(size=size))


# A case: (the chunks sent, the pause between them, what must come back).
# What must come back is a list of (method, target, keep_alive) for the
# requests the handler answers, then the error status or None; or "wait"
# (no answer yet); or None where only the invariants hold.


def _answers(reqs: list) -> tuple:
    out = []
    for r in reqs:
        out.append((r.method, r.target, r.keep_alive, r.minor))
        if not r.keep_alive:
            break
    return out, None


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["one", "pair", "cut", "big", "big", "many", "bare-cr", "mutated", "mutated", "soup"]))
    expect = None
    if kind == "one":
        reqs = [draw(requests())]
        data, expect = reqs[0].raw, _answers(reqs)
    elif kind == "pair":
        reqs = [draw(requests()), draw(requests())]
        data, expect = reqs[0].raw + reqs[1].raw, _answers(reqs)
    elif kind == "cut":
        r = draw(requests())
        data, expect = r.raw[: draw(st.integers(1, r.head_len - 1))], "wait"
    elif kind == "big":
        r = draw(padded())
        data = r.raw
        expect = _answers([r]) if r.head_len <= MAX_HEAD else ([], 431)
    elif kind == "many":
        r = draw(requests(headers=st.integers(MAX_HEADERS - 6, MAX_HEADERS + 4)))
        data = r.raw
        expect = _answers([r]) if r.headers <= MAX_HEADERS else ([], 431)
    elif kind == "bare-cr":
        r = draw(requests())
        data = r.raw
        ends = [m.start() + 1 for m in re.finditer(rb"\r\n", r.raw[: r.head_len - 1])]
        ends = [e for e in ends if r.raw[e + 1] != ord("\n")]
        if ends:
            at = draw(st.sampled_from(ends))
            data = r.raw[:at] + r.raw[at + 1 :]  # the LF after a CR dropped
            expect = ([], 400)
    elif kind == "mutated":
        reqs = draw(st.lists(requests(), min_size=1, max_size=2))
        data = b"".join(r.raw for r in reqs)
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(data)))
            op = draw(st.sampled_from(["drop", "insert", "flip", "double", "crlf"]))
            if op == "insert":
                ins = draw(st.sampled_from([b"\r", b"\n", b"\x00", b" ", b"\t", b":", b"\x7f", b"\x80", b"\r\n", b"/"]))
                data = data[:at] + ins + data[at:]
            elif op == "crlf":
                data = data.replace(b"\r\n", draw(st.sampled_from([b"\r", b"\n\r", b"\r\r\n", b"\n\n"])), 1)
            elif at < len(data):
                if op == "drop":
                    data = data[:at] + data[at + 1 :]
                elif op == "flip":
                    data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
                else:
                    data = data[:at] + data[at : at + draw(st.integers(1, 30))] + data[at:]
    else:
        data = draw(st.one_of(st.binary(max_size=300), requests().map(lambda r: r.raw[: len(r.raw) // 2])))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=4))))
    chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)]) if b > a]
    pause = draw(st.sampled_from([0, 0, 0, 0.002]))
    return chunks, pause, expect


class Server:
    """One py-c server for the module; its handler answers every request
    200 with the method and target it was given, and records them."""

    def __init__(self, srv):
        self.srv, self.port, self.calls = srv, srv.port, []

    def handler(self, method: str, target: str) -> tuple:
        self.calls.append((method, target))
        return 200, f"{method} {target}".encode("latin-1")


@pytest.fixture(scope="module")
def server():
    box = {}
    with roundbench.HTTPServer(lambda m, t: box["s"].handler(m, t), threads=1) as srv:
        srv.start()
        box["s"] = Server(srv)
        yield box["s"]


def converse(port: int, chunks: list, pause: float, half_close: bool, quiet: float = 0.0) -> tuple:
    """Sends the chunks, each its own write; with `quiet`, then checks that
    nothing comes back within that long; with half_close, shuts our side.
    Reads until the server closes (5 s at most). Returns (bytes received,
    what came back within `quiet` or None, whether the server closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i, chunk in enumerate(chunks):
            if i and pause:
                time.sleep(pause)
            s.sendall(chunk)
        early = None
        if quiet:
            s.settimeout(quiet)
            try:
                early = s.recv(65536)
            except TimeoutError:
                pass
            s.settimeout(5.0)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        data = early or b""
        while True:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                return data, early, False
            if not chunk:
                return data, early, True
            data += chunk


_STATUS_LINE = re.compile(rb"HTTP/1\.1 ([1-9]\d\d) ([\x21-\x7e][\x20-\x7e]*)\r\n")
_HEADER_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+): ([\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)\r\n")


def responses(data: bytes, calls: list) -> list:
    """Splits what a connection got into (status, headers, body), checking
    each is well formed: a status line, header lines, one Content-Length
    that frames the body (none after HEAD). The n-th 200 answers the
    handler's n-th call: its body is that call's method and target."""
    out, pos, answered = [], 0, 0
    while pos < len(data):
        m = _STATUS_LINE.match(data, pos)
        assert m, ("no status line", data[pos : pos + 200])
        status, pos, headers = int(m.group(1)), m.end(), {}
        while not data.startswith(b"\r\n", pos):
            h = _HEADER_LINE.match(data, pos)
            assert h, ("bad header line", data[pos : pos + 200])
            name = h.group(1).lower()
            assert name not in headers, ("repeated header", name)
            headers[name], pos = h.group(2), h.end()
        pos += 2
        length = headers.get(b"content-length", b"")
        assert re.fullmatch(rb"0|[1-9]\d*", length), headers
        if status == 200:
            assert answered < len(calls), ("a 200 with no handler call", calls)
            method, target = calls[answered]
            answered += 1
            want = f"{method} {target}".encode("latin-1")
            assert int(length) == len(want)
            body = b"" if method == "HEAD" else data[pos : pos + len(want)]
            assert body == (b"" if method == "HEAD" else want), (body, want)
        else:
            assert status in _ERRORS, (status, data)
            assert length == b"0" and headers.get(b"connection") == b"close", headers
            body = b""
        pos += len(body)
        out.append((status, headers, body))
    assert answered == len(calls), ("handler calls without a 200", calls[answered:])
    return out


def check_conversation(sent: bytes, got: list, calls: list) -> None:
    """What holds for any input: 200s, then at most one error, the last;
    nothing after a response that says it closes; every call's method and
    target were sent, as a request line starts them."""
    for i, (status, headers, _) in enumerate(got):
        if status != 200 or headers.get(b"connection") == b"close":
            assert i == len(got) - 1, ("an answer after a closing one", [g[0] for g in got])
        if status == 413:  # only a request that declares a body gets it
            assert b"content-length" in sent.lower()
    for method, target in calls:
        assert method and all(c in _TCHAR for c in method), method
        assert target and all("\x21" <= c <= "\x7e" for c in target), target
        assert f"{method} {target} HTTP/1.".encode("latin-1") in sent, (method, target)


def check_expectation(expect, got: list, calls: list) -> None:
    if expect is None:
        return
    if expect == "wait":
        assert got == [], got
        return
    answers, error = expect
    assert calls == [(m, t) for m, t, _, _ in answers]
    assert [s for s, _, _ in got] == [200] * len(answers) + ([error] if error else [])
    for (_, _, keep_alive, minor), (_, headers, _) in zip(answers, got):
        connection = headers.get(b"connection")
        if not keep_alive:
            assert connection == b"close"
        else:
            assert connection == (b"keep-alive" if minor == 0 else None)


def _settle(srv, before: dict, connections: int, statuses: list) -> None:
    """The server's counters moved by exactly this example's work, and every
    connection it opened is closed again."""
    deadline = time.monotonic() + 3
    while (now := srv.stats())["open"] and time.monotonic() < deadline:
        time.sleep(0.001)
    assert now["open"] == 0, now
    assert now["accepted"] - before["accepted"] == connections
    assert now["timeouts"] == before["timeouts"]
    assert now["requests"] - before["requests"] == statuses.count(200)
    assert now["bad_requests"] - before["bad_requests"] == sum(s != 200 for s in statuses)


@bounded(300)
@given(case=cases())
def test_http_request_heads(server, case):
    chunks, pause, expect = case
    sent = b"".join(chunks)
    before = server.srv.stats()

    # As generated: split, our side shut after the last write.
    server.calls.clear()
    data, early, closed = converse(server.port, chunks, pause, True, 0.02 if expect == "wait" else 0.0)
    assert closed, ("no close after ours", data)
    if expect == "wait":
        assert early is None, ("answered or closed an incomplete head", early)
    calls = list(server.calls)
    got = responses(data, calls)
    check_conversation(sent, got, calls)
    check_expectation(expect, got, calls)
    statuses = [s for s, _, _ in got]

    # The same bytes in one write: the same answers. Where the last answer
    # closes, the server must close without our side shut.
    closes = bool(got) and (got[-1][0] != 200 or got[-1][1].get(b"connection") == b"close")
    server.calls.clear()
    data2, _, closed2 = converse(server.port, [sent] if sent else [], 0, not closes)
    assert closed2, ("still open after a closing answer", data2)
    calls2 = list(server.calls)
    assert calls2 == calls
    assert [s for s, _, _ in responses(data2, calls2)] == statuses

    # Still serving: a good request on a fresh connection.
    server.calls.clear()
    good = b"GET /alive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    data3, _, _ = converse(server.port, [good], 0, False)
    assert [s for s, _, _ in responses(data3, list(server.calls))] == [200]
    _settle(server.srv, before, 3, statuses * 2 + [200])
