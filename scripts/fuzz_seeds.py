"""Writes the fuzz targets' seed inputs (csrc/fuzz/) from the project's own
test data into DIR/<target>/: `make fuzz` starts every campaign from them
and from the committed corpus, testdata/fuzz/<target>/.

    python scripts/fuzz_seeds.py DIR

- http_request: every request of testdata/vectors.txt (the `http` vectors),
  alone, twice pipelined and with a body, under several head limits and
  read splits (the first two bytes of a seed choose them).
- jsonl_kernels: small logs from the round's generator, one per kind of bad
  line and one of every kind, at several alignments and piece counts, and
  the `doc` vectors of testdata/jsonl_vectors.txt.
- jsonl_line: every `line` vector's payload.
- aspects_input: the round's test tables and events (testdata/aspects/, the
  bad ones too), alone and in pairs, and the combinations the tests use.
"""

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from roundbench.rounds.jsonl import genlog  # noqa: E402


def decode(payload: str) -> bytes:
    """A jsonl vector's payload as bytes (testdata/jsonl_vectors.txt's escapes)."""
    out = re.sub(r"%\{(\d+)\*([^}]*)\}", lambda m: m.group(2) * int(m.group(1)), payload)
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), out.encode("latin-1"))


def jsonl_vectors(kind: str) -> list:
    out = []
    for raw in (ROOT / "testdata" / "jsonl_vectors.txt").read_text(encoding="latin-1").splitlines():
        if raw.startswith(kind + " "):
            parts = raw.split(" ", 2)
            out.append(decode(parts[2] if len(parts) > 2 else ""))
    return out


def http_requests() -> list:
    out = []
    for raw in (ROOT / "testdata" / "vectors.txt").read_text().splitlines():
        if raw.startswith("http "):
            fields = dict(f.split("=", 1) for f in raw.split()[1:])
            out.append(bytes.fromhex(fields["hex"]))
    return out


class Seeds:
    def __init__(self, root: Path, target: str):
        self.dir = root / target
        self.dir.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def add(self, data: bytes) -> None:
        (self.dir / hashlib.sha1(data).hexdigest()).write_bytes(data)
        self.count += 1


def main(argv: list) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    root = Path(argv[0])

    http = Seeds(root, "http_request")
    body = b"POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
    for i, req in enumerate(http_requests()):
        # byte 0: the head limit (8192, 4096, ..., 8); byte 1: the reads
        http.add(bytes([0, 0]) + req)
        http.add(bytes([i % 8, 1 + i % 7]) + req + req)
        http.add(bytes([0, 3]) + body + req)

    line = Seeds(root, "jsonl_line")
    for payload in jsonl_vectors("line"):
        if len(payload) <= 4096:
            line.add(payload)

    kernels = Seeds(root, "jsonl_kernels")
    tmp = root / "genlog.jsonl"
    kinds = [k for k in genlog.KINDS if k != "long"]
    for i, kind in enumerate(kinds + [None]):
        genlog.generate(tmp, lines=24, seed=i + 1, bad_rate=0.3, kinds=None if kind is None else [kind])
        data = tmp.read_bytes()
        if len(data) <= 8192:
            kernels.add(bytes([(7 * i) % 64, i % 4]) + data)
    tmp.unlink()
    Path(str(tmp) + ".expect").unlink()
    for doc in jsonl_vectors("doc"):
        if len(doc) <= 8192:
            kernels.add(bytes([0, 0]) + doc)

    aspects = Seeds(root, "aspects_input")
    data = ROOT / "testdata" / "aspects"
    eph = (data / "ephemeris.tsv").read_bytes()
    short_eph = b"".join(eph.splitlines(keepends=True)[:45])
    for f in sorted(data.glob("eph*.tsv")) + sorted((data / "bad").glob("eph-*.tsv")):
        aspects.add(b"\x00" + f.read_bytes())
    for f in sorted(data.glob("events*.tsv")) + sorted((data / "bad").glob("ev-*.tsv")):
        ev = f.read_bytes()
        aspects.add(b"\x01" + b"".join(ev.splitlines(keepends=True)[:12]))
        aspects.add(b"\x02" + short_eph + b"\x00" + b"".join(ev.splitlines(keepends=True)[:12]))
    for combo in (b"Moon-120-Jupiter,Asc-90-Mars", b"Sun-0-Moon", b"MC-180-Asc,Venus-60-Pluto", b"Sun-45-Moon"):
        aspects.add(b"\x03" + combo)

    for s in (http, line, kernels, aspects):
        print(f"fuzz seeds: {s.count} for {s.dir.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
