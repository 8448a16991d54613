"""Plants a known fault in a copy of the core, builds a fuzz target against
the copy and shows that the target catches it: the check that a target can
fail (issue: "no target that cannot fail"). Nothing in csrc/ is touched.

    python scripts/fuzz_plants.py [--seconds S | --replay] [PLANT...]

Plants:
  http-oob     csrc/http.c: the head's line end reads the byte after a CR
               without checking that one was received (an out-of-bounds
               read of one byte past the buffer); target http_request.
  jsonl-parity csrc/jsonl.c: the avx512 kernel does not carry the string
               parity from one group of eight blocks to the next (a group
               with an odd number of quotes leaves the next group's strings
               inverted); target jsonl_kernels. Needs a CPU with AVX-512.

--seconds S (default 60): fuzz from the seeds alone (scripts/fuzz_seeds.py),
without the committed corpus, for at most S seconds: how long discovery
takes from scratch. --replay: run the committed corpus (testdata/fuzz/)
plus FUZZ_RUNS seeded executions, as `make test` does. Exits 0 when every
plant is caught (printing how long each took), 1 when one is not, 3 when
a plant cannot be applied (the code it edits changed: update it here).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from roundbench.runtimes import buildtable  # noqa: E402

# As the Makefile builds the targets: the sanitizer build's flags and libFuzzer.
TABLE = buildtable.read()
FUZZ_CFLAGS = buildtable.words(TABLE, "SAN_CFLAGS") + buildtable.words(TABLE, "FUZZ_SAN_CFLAGS")

PLANTS = {
    "http-oob": {
        "file": "csrc/http.c",
        # EOL(): after a CR, NEED(1) guards the read of the next byte.
        "pattern": r"(\n[ ]+i\+\+;[ ]+\\\n)[ ]+NEED\(1\);[ ]+\\\n([ ]+if \(p\[i\] != '\\n'\))",
        "replace": r"\1\2",
        "target": "http_request",
        "sources": ["csrc/http.c", "csrc/common.c"],
        "caught": "heap-buffer-overflow",
    },
    "jsonl-parity": {
        "file": "csrc/jsonl.c",
        "pattern": r"\n[ ]+l->instr \^= odd >> 7 & 1;",
        "replace": "",
        "target": "jsonl_kernels",
        "sources": ["csrc/jsonl.c", "csrc/common.c"],
        "caught": "invariant broken: kernel avx512",
        "needs": "avx512bw",
    },
}


def cpu_flags() -> set:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


class PlantError(Exception):
    pass


def build(name: str, out_dir: Path) -> Path:
    """The plant's target built against a planted copy of the core in out_dir."""
    plant = PLANTS[name]
    src = out_dir / "csrc"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "csrc", src, ignore=shutil.ignore_patterns("tests", "runner", "simdjson", "tools"))
    path = src / Path(plant["file"]).name
    text, n = re.subn(plant["pattern"], plant["replace"], path.read_text(), count=1)
    if n != 1:
        raise PlantError(f"{name}: the code it plants into is not in {plant['file']} any more")
    path.write_text(text)
    exe = out_dir / f"{plant['target']}-{name}"
    cmd = ["clang", *FUZZ_CFLAGS, f"-I{src}", str(src / "fuzz" / f"{plant['target']}.c")]
    cmd += [str(src / Path(s).name) for s in plant["sources"]] + ["-o", str(exe), "-lpthread", "-lm"]
    subprocess.run(cmd, check=True, cwd=ROOT)
    return exe


def run(name: str, exe: Path, work: Path, seconds: int, replay: bool, runs: int) -> tuple:
    """(caught, seconds taken, the report's telling line)."""
    plant = PLANTS[name]
    target = plant["target"]
    corpus = work / f"corpus-{name}"
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    args = [str(exe), "-timeout=25", "-rss_limit_mb=2048", f"-artifact_prefix={work}/{name}-"]
    if replay:
        args += [f"-runs={runs}", "-seed=1", str(corpus), str(ROOT / "testdata" / "fuzz" / target)]
    else:
        seeds = work / "seeds"
        if not seeds.exists():
            subprocess.run(
                [sys.executable, str(ROOT / "scripts" / "fuzz_seeds.py"), str(seeds)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        args += [f"-max_total_time={seconds}", "-max_len=8192", str(corpus), str(seeds / target)]
    start = time.monotonic()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    took = time.monotonic() - start
    lines = [ln for ln in p.stderr.splitlines() if plant["caught"] in ln]
    return p.returncode != 0 and bool(lines), took, lines[0].strip() if lines else p.stderr.strip()[-300:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("plants", nargs="*", metavar="PLANT", help=f"which ({', '.join(PLANTS)}; default all)")
    ap.add_argument(
        "--seconds", type=int, default=60, help="fuzz from the seeds alone for at most this long (default 60)"
    )
    ap.add_argument(
        "--replay", action="store_true", help="run the committed corpus plus FUZZ_RUNS seeded executions instead"
    )
    ap.add_argument("--work", default=str(ROOT / "build" / "fuzz" / "plants"), help="where the copies and builds go")
    a = ap.parse_args(argv)
    names = a.plants or list(PLANTS)
    for n in names:
        if n not in PLANTS:
            ap.error(f"no plant {n!r} (plants: {', '.join(PLANTS)})")
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    runs = int(os.environ.get("FUZZ_RUNS", "20000"))
    flags = cpu_flags()
    status = 0
    for n in names:
        need = PLANTS[n].get("needs")
        if need and need not in flags:
            print(f"plant {n}: not run: it is in a kernel this CPU cannot run (needs {need})")
            continue
        try:
            exe = build(n, work)
        except PlantError as e:
            print(f"plant {e}", file=sys.stderr)
            return 3
        caught, took, line = run(n, exe, work, a.seconds, a.replay, runs)
        how = "the committed corpus replayed" if a.replay else "fuzzing from the seeds alone"
        if caught:
            print(f"plant {n}: caught by {PLANTS[n]['target']} in {took:.1f} s ({how}): {line}")
        else:
            print(f"plant {n}: NOT caught by {PLANTS[n]['target']} in {took:.1f} s ({how}): {line}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
