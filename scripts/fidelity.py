#!/usr/bin/env python3
"""Does the suite agree with the ecosystem's own tools?

Compares, in one sitting, the suite's median ns/call for
  go-c    with `go test -bench BenchmarkCgoCall` (a b.N loop around the cgo
          call, as the Go runtime's own cgo benchmarks write it), and
  py-c-o  with `python -m timeit` of the same METH_O call, minus timeit of
          `pass` (the suite subtracts its empty loop; timeit does not).
Prints both comparisons and exits 1 if either differs by more than 10%.

This machine's speed drifts in phases of seconds (shared hosts), so the
three are interleaved: each of ROUNDS rounds runs the suite once, the Go
benchmark once and timeit once, and the medians over the rounds are
compared. Every figure the script prints comes from this one sitting.
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from roundbench.results import benchfmt  # noqa: E402

ROUNDS = 16
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "python"))


def suite_once(out: Path) -> dict:
    """One `roundbench run` of both variants; returns impl -> ns/call."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "roundbench",
            "run",
            "ffi",
            "--impl",
            "go-c",
            "--impl",
            "py-c-o",
            "--runs",
            "1",
            "--out",
            str(out),
            "--no-report",
            "--quiet",
        ],
        check=True,
        env=ENV,
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    rs = benchfmt.read_dir(out)
    return {r.params["impl"]: r.metrics["ns/call"] for r in rs.runs}


def go_bench_once(test_binary: str) -> float:
    out = subprocess.run(
        [test_binary, "-test.run", "^$", "-test.bench", "^BenchmarkCgoCall$", "-test.count", "1"],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT / "go",
    ).stdout
    return float(re.search(r"^BenchmarkCgoCall\S*\s+\d+\s+([\d.]+) ns/op", out, re.M).group(1))


def timeit_once(stmt: str) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "timeit", "-s", "from roundbench import ffi_o as f; x = 41", stmt],
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
    ).stdout
    m = re.search(r"best of \d+: ([\d.]+) (nsec|usec|msec) per loop", out)
    return float(m.group(1)) * {"nsec": 1, "usec": 1e3, "msec": 1e6}[m.group(2)]


def main() -> int:
    med = statistics.median
    with tempfile.TemporaryDirectory() as d:
        test_binary = str(Path(d) / "roundbench.test")
        subprocess.run(["go", "test", "-c", "-o", test_binary, "./go/"], check=True, cwd=ROOT)
        suite = {"go-c": [], "py-c-o": []}
        go, call, empty = [], [], []
        for i in range(ROUNDS):
            for k, v in suite_once(Path(d) / f"r{i}").items():
                suite[k].append(v)
            go.append(go_bench_once(test_binary))
            call.append(timeit_once("f(x)"))
            empty.append(timeit_once("pass"))
            print(
                f"round {i + 1}/{ROUNDS}: suite go-c {suite['go-c'][-1]:.1f}, go test {go[-1]:.1f}, "
                f"suite py-c-o {suite['py-c-o'][-1]:.1f}, timeit {call[-1]:.1f} - {empty[-1]:.1f} ns",
                file=sys.stderr,
            )
    ok = True
    tdiff = [c - e for c, e in zip(call, empty)]
    rows = [
        ("go-c", med(suite["go-c"]), med(go), "go test -bench BenchmarkCgoCall"),
        (
            "py-c-o",
            med(suite["py-c-o"]),
            med(tdiff),
            f"python -m timeit 'f(x)' {med(call):.1f} ns minus 'pass' {med(empty):.1f} ns",
        ),
    ]
    print(f"medians of {ROUNDS} interleaved rounds:")
    for name, ours, theirs, how in rows:
        diff = (ours - theirs) / theirs * 100
        verdict = "agree" if abs(diff) <= 10 else "DISAGREE"
        ok &= abs(diff) <= 10
        print(f"  {name:7} suite {ours:6.2f} ns/call | {how}: {theirs:6.2f} ns | {diff:+5.1f}% {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
