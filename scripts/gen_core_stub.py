"""Writes the type stubs of roundbench._core from the `pyi` comments of its
source, python/roundbench/_core.c.

Each comment that opens with `/*pyi` holds stub lines for what stands beside
it in the C file; this script joins them, in order, into one .pyi. setup.py
runs it when it builds the extension, so a function's stub is kept next to
its code and nowhere else. Run alone: gen_core_stub.py SOURCE OUTPUT.
"""

import re
import sys
from pathlib import Path

BLOCK = re.compile(r"^/\*pyi\n(.*?)^\*/", re.S | re.M)


def stub_text(source: str) -> str:
    blocks = [b.strip("\n") for b in BLOCK.findall(source)]
    if not blocks:
        raise ValueError("no /*pyi ... */ comments in the extension's source")
    return "\n\n".join(blocks) + "\n"


def write_stub(source, output) -> None:
    """Writes the stubs of `source` (a path) to `output`, if they changed."""
    source, output = Path(source), Path(output)
    text = stub_text(source.read_text())
    output.parent.mkdir(parents=True, exist_ok=True)
    if not output.exists() or output.read_text() != text:
        output.write_text(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: gen_core_stub.py SOURCE OUTPUT")
    write_stub(Path(sys.argv[1]), Path(sys.argv[2]))
