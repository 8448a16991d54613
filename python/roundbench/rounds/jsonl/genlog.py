"""The access log of round jsonl: a deterministic JSON Lines generator.

`generate(path, lines, seed, bad_rate, kinds)` writes `lines` lines from a
seed (the same bytes for the same arguments and the same generator) and
returns what every variant must find in it: the expected result text, which
it also writes to `path + ".expect"`. It knows each line's class because it
built it, so the expectation comes from the generator, not from a parser.

Most lines are access-log records with varying key order and optional
fields and a realistic status mix. A fraction `bad_rate` of the lines are of
the kinds in KINDS instead, bad or awkward (docs/rounds/jsonl.md has the
rules they follow). `roundbench gen-log` is the command-line front end;
`cached(...)` gives the round its input, built once per (size, seed,
generator) in the build directory.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable, Optional

# The reasons every variant prints, in the rules' words.
INVALID_JSON, NOT_OBJECT, NO_STATUS = "invalid-json", "not-object", "no-status"
MAX_REPORTED = 100

# kind -> what the line is: a reason, "blank", or "valid" (it counts).
KINDS = {
    "not-json": INVALID_JSON,  # plain text, or JSON with a syntax error
    "truncated": INVALID_JSON,  # a record cut short
    "nan": INVALID_JSON,  # NaN / Infinity, which JSON does not have
    "bad-utf8": INVALID_JSON,  # a byte sequence that is not UTF-8
    "deep": INVALID_JSON,  # nested deeper than the limit of 512
    "not-object": NOT_OBJECT,  # an array, a string, a number
    "no-status": NO_STATUS,  # the key is missing
    "status-string": NO_STATUS,  # "status":"200"
    "status-float": NO_STATUS,  # "status":200.0 or 2e2
    "status-null": NO_STATUS,
    "nested-status": NO_STATUS,  # "status" only inside a nested object
    "long": "valid",  # a record longer than 64 KiB
    "unicode": "valid",  # \\u escapes and raw UTF-8 in strings
    "crlf": "valid",  # ends with \r\n
    "duplicate": "valid",  # "status" twice: the last one counts
    "blank": "blank",  # empty or only whitespace
    "no-final-newline": "valid",  # the file's last line lacks its newline
}
DEFAULT_LINES = 1_000_000
DEFAULT_SEED = 1

_METHODS = (("GET", 0.80), ("POST", 0.12), ("PUT", 0.03), ("DELETE", 0.02), ("HEAD", 0.02), ("PATCH", 0.01))
_STATUSES = (
    (200, 0.70),
    (201, 0.03),
    (204, 0.03),
    (301, 0.01),
    (302, 0.03),
    (304, 0.06),
    (400, 0.02),
    (401, 0.02),
    (403, 0.01),
    (404, 0.05),
    (429, 0.01),
    (500, 0.015),
    (502, 0.005),
    (503, 0.005),
    (504, 0.005),
)
_PATHS = ("/", "/login", "/api/users/{}", "/items/{}", "/js/{}.js", "/img/{}.png", "/search?q={}", "/health")
_UAS = ("curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64)", "Go-http-client/1.1", "python-requests/2.31")


def _cumulative(pairs):
    total, out = 0.0, []
    for value, w in pairs:
        total += w
        out.append((total, value))
    return [(c / total, v) for c, v in out]


_METHOD_CUM = _cumulative(_METHODS)
_STATUS_CUM = _cumulative(_STATUSES)


def _pick(cum, u: float):
    for c, v in cum:
        if u < c:
            return v
    return cum[-1][1]


def generator_version() -> str:
    """A hash of this file: a cached log is rebuilt when the generator changes."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


class _Gen:
    """One record at a time from one seeded stream. Only Random.random() is
    used, whose sequence Python keeps stable across versions."""

    def __init__(self, seed: int):
        # only when a log is generated
        import random

        self.r = random.Random(seed).random
        self.t = 1_709_251_200  # seconds: 2024-03-01

    def int(self, n: int) -> int:
        return int(self.r() * n)

    def fields(self, status) -> list:
        r = self.r
        self.t += int(r() * 1.5)
        path = _PATHS[int(r() * len(_PATHS))].format(int(r() * 10000))
        f = [
            f'"ts":{self.t}',
            f'"method":"{_pick(_METHOD_CUM, r())}"',
            f'"path":"{path}"',
            f'"status":{status}',
        ]
        if r() < 0.6:
            f.append(f'"bytes":{int(r() * r() * 60000)}')
        if r() < 0.2:
            f.append(f'"ms":{r() * 250:.3f}')
        if r() < 0.05:
            f.append(f'"ua":"{_UAS[int(r() * len(_UAS))]}"')
        if r() < 0.05:
            f.append(f'"user":{int(r() * 1e6)}')
        if r() < 0.25:  # key order varies
            for i in range(len(f) - 1, 0, -1):
                j = int(r() * (i + 1))
                f[i], f[j] = f[j], f[i]
        return f

    def status(self) -> int:
        return _pick(_STATUS_CUM, self.r())

    def record(self, status=None) -> bytes:
        return ("{" + ",".join(self.fields(self.status() if status is None else status)) + "}").encode()

    def bad(self, kind: str) -> tuple:
        """(line bytes without newline, status or None)."""
        r, s = self.r, self.status()
        if kind == "not-json":
            return [b"GET /index.html HTTP/1.1 200", b'{"status":200,}', b"{'status': 200}", b'{"status":200'][
                self.int(4)
            ], None
        if kind == "truncated":
            line = self.record(s)
            return line[: 1 + self.int(len(line) - 1)], None
        if kind == "nan":
            return self.record(s)[:-1] + (b',"ms":NaN}' if r() < 0.5 else b',"ms":-Infinity}'), None
        if kind == "bad-utf8":
            junk = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"caf\xe9"][self.int(4)]
            return self.record(s)[:-1] + b',"ua":"' + junk + b'"}', None
        if kind == "deep":
            return b'{"status":' + str(s).encode() + b',"d":' + b"[" * 600 + b"]" * 600 + b"}", None
        if kind == "not-object":
            return [b"[" + self.record(s) + b"]", b'"' + str(s).encode() + b'"', str(s).encode()][self.int(3)], None
        if kind == "no-status":
            return ("{" + ",".join(f for f in self.fields(s) if not f.startswith('"status"')) + "}").encode(), None
        if kind == "status-string":
            return self.record(f'"{s}"'), None
        if kind == "status-float":
            return self.record(f"{s}.0" if r() < 0.5 else f"{s / 100:g}e2"), None
        if kind == "status-null":
            return self.record("null"), None
        if kind == "nested-status":
            f = [x for x in self.fields(s) if not x.startswith('"status"')]
            return ("{" + ",".join(f) + f',"upstream":{{"status":{s}}}}}').encode(), None
        if kind == "long":
            pad = "a" * (65536 + self.int(4096))
            return self.record(s)[:-1] + f',"pad":"{pad}"}}'.encode(), s
        if kind == "unicode":
            return self.record(s)[:-1] + ',"ua":"caf\\u00e9 \\ud83d\\ude00 \u00e9\u20ac"}'.encode(), s
        if kind == "duplicate":
            return self.record(500)[:-1] + f',"status":{s}}}'.encode(), s
        if kind == "crlf":
            return self.record(s) + b"\r", s
        if kind == "blank":
            return [b"", b"  ", b"\t", b"\r"][self.int(4)], None
        raise ValueError(f"gen-log: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")


def result_text(lines: int, blank: int, valid: int, invalid: int, statuses: dict, reported: Iterable) -> str:
    """The `result:` text every variant prints: the counts, the statuses and
    an FNV-1a hash of the first 100 invalid lines ("LINE:REASON\\n" each)."""
    h = 0xCBF29CE484222325
    n = 0
    for line, reason in reported:
        n += 1
        for b in f"{line}:{reason}\n".encode():
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    st = ",".join(f"{k}:{statuses[k]}" for k in sorted(statuses))
    return f"lines={lines} blank={blank} valid={valid} invalid={invalid} statuses={st} reported={n}:{h:016x}"


def generate(
    path,
    lines: int = DEFAULT_LINES,
    seed: int = DEFAULT_SEED,
    bad_rate: float = 0.0002,
    kinds: Optional[Iterable[str]] = None,
) -> str:
    """Writes the log to `path` and its expected result to path + ".expect";
    returns the expected result text."""
    kinds = list(KINDS) if kinds is None else list(kinds)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"gen-log: unknown kind {k!r} (kinds: {', '.join(KINDS)})")
    if lines < 0:
        raise ValueError("gen-log: lines must be >= 0")
    if not 0.0 <= bad_rate <= 1.0:
        raise ValueError("gen-log: bad_rate must be in [0, 1]")
    line_kinds = [k for k in kinds if k != "no-final-newline"]
    g = _Gen(seed)
    statuses: dict = {}
    blank = valid = invalid = 0
    reported = []
    out = []
    for n in range(1, lines + 1):
        if line_kinds and g.r() < bad_rate:
            kind = line_kinds[g.int(len(line_kinds))]
            line, status = g.bad(kind)
            what = KINDS[kind]
        else:
            status = g.status()
            line, what = g.record(status), "valid"
        out.append(line)
        if what == "valid":
            valid += 1
            statuses[status] = statuses.get(status, 0) + 1
        elif what == "blank":
            blank += 1
        else:
            invalid += 1
            if len(reported) < MAX_REPORTED:
                reported.append((n, what))
    data = b"\n".join(out)
    if out and "no-final-newline" not in kinds:
        data += b"\n"
    elif out and out[-1] == b"":
        # Without its newline an empty last line would be no line at all.
        data += b"\n"
    expect = result_text(lines, blank, valid, invalid, statuses, reported)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    Path(str(path) + ".expect").write_text(expect + "\n")
    return expect


def cached(data_dir, lines: int = DEFAULT_LINES, seed: int = DEFAULT_SEED, bad_rate: float = 0.0002) -> Path:
    """The log for these arguments, generated into data_dir the first time
    (and again when this generator changes); returns its path."""
    data_dir = Path(data_dir)
    name = f"access-{lines}-s{seed}-r{bad_rate:g}-{generator_version()}.jsonl"
    path = data_dir / name
    if not (path.is_file() and Path(str(path) + ".expect").is_file()):
        data_dir.mkdir(parents=True, exist_ok=True)
        for old in data_dir.glob(f"access-{lines}-s{seed}-r{bad_rate:g}-*.jsonl*"):
            old.unlink()  # an older generator's file of the same arguments
        generate(path, lines, seed, bad_rate)
    return path


def expected(path) -> str:
    """The expected result text stored beside a generated log."""
    return Path(str(path) + ".expect").read_text().strip()


# ---- the command ------------------------------------------------------------------


def _write_log(args) -> None:
    # Every option is checked, naming it, before OUT is written.
    if args.lines < 0:
        raise ValueError(f"--lines {args.lines}: want a count of lines >= 0")
    if not 0.0 <= args.bad_rate <= 1.0:
        raise ValueError(f"--bad-rate {args.bad_rate:g}: want a fraction in [0, 1]")
    kinds = None
    if args.kinds is not None:
        kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
        if not kinds or any(k not in KINDS for k in kinds):
            raise ValueError(f"--kinds {args.kinds!r}: want one or more of {', '.join(KINDS)}, comma-separated")
    print(generate(args.out, args.lines, args.seed, args.bad_rate, kinds))


def generator():
    """The `gen-log` subcommand (rounds.Generator)."""
    # the registry's class, only when the subcommand is made
    from .. import Generator

    return Generator(
        "gen-log",
        _write_log,
        help="write the jsonl round's deterministic JSON Lines access log",
        description="Writes a deterministic JSON Lines access log (the jsonl round's input) to OUT and "
        "the result every variant must find in it to OUT.expect, and prints that result.",
        epilog=f"bad-line kinds (--kinds, comma-separated; default all): {', '.join(KINDS)}",
        default_seed=DEFAULT_SEED,
        seed_help="random seed (default 1)",
        options=(
            (
                "--lines",
                dict(type=int, default=DEFAULT_LINES, metavar="N", help="lines (default 1000000, about 76 MB)"),
            ),
            (
                "--bad-rate",
                dict(type=float, default=0.0002, metavar="R", help="fraction of bad or awkward lines (default 0.0002)"),
            ),
            ("--kinds", dict(metavar="K,K", help="which kinds of bad lines (default: all)")),
        ),
    )
