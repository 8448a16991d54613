#!/usr/bin/env python3
"""Where does a child's per-process speed come from? Runs one child command
many times under each placement and prints the distribution of one metric.

    scripts/placement.py [--runs N] [--unit U] [--conditions a,b] -- COMMAND...

Conditions (interleaved, so drift hits all alike):
  free        as the runner started children before pinning: any CPU, ASLR on
  cpuK        pinned to CPU K (sched_setaffinity before exec)
  cpuK-fixed  pinned to CPU K with address-space randomisation off
              (personality ADDR_NO_RANDOMIZE, what `setarch -R` does)
  free-fixed  any CPU, randomisation off
  ...-seedN   any of the above with PYTHONHASHSEED=N (Python's string hashes,
              and so its dicts' layouts, the same in every run)

For each condition: the runs' values sorted into a compact histogram, the
median, the spread between the 10th and 90th percentiles, and how many runs
fall in the slow mode (above the midpoint between the fastest and slowest
decile), which is the bimodality docs/measurement.md's "Placement" section reports.
The command is any child the runner starts, e.g.
    build/rb-c ffi c-direct   or   .venv/bin/python -m roundbench.run.child ffi py-c-o
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys

ADDR_NO_RANDOMIZE = 0x0040000


def _preexec(cpus, fixed):
    def setup():
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
        if fixed:
            libc = ctypes.CDLL(None, use_errno=True)
            old = libc.personality(0xFFFFFFFF)
            libc.personality(old | ADDR_NO_RANDOMIZE)

    return setup


def condition(name: str):
    """(cpus, fixed layout, extra environment) of a condition's name."""
    env = {}
    base, sep, seed = name.rpartition("-seed")
    if sep and seed.isdigit():
        env["PYTHONHASHSEED"] = seed
        name = base
    fixed = name.endswith("-fixed")
    base = name[: -len("-fixed")] if fixed else name
    if base == "free":
        return None, fixed, env
    if base.startswith("cpu") and base[3:].isdigit():
        return {int(base[3:])}, fixed, env
    raise SystemExit(f"placement: unknown condition {name!r}")


def value(out: str, unit: str) -> float:
    for line in out.splitlines():
        if line.startswith("Benchmark"):
            f = line.split()
            for v, u in zip(f[2::2], f[3::2]):
                if u == unit:
                    return float(v)
    raise RuntimeError(f"no {unit} in the child's output:\n{out}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--unit", default="ns/op")
    p.add_argument("--conditions", default="free,cpu0,cpu1,cpu1-fixed")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("give the child command after --")
    names = a.conditions.split(",")
    conds = {n: condition(n) for n in names}
    got = {n: [] for n in names}
    for k in range(a.runs):
        for n in names:
            cpus, fixed, extra = conds[n]
            out = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                preexec_fn=_preexec(cpus, fixed),
                stdin=subprocess.DEVNULL,
                env={**os.environ, **extra},
            )
            if out.returncode != 0:
                print(f"{n}: run {k + 1} failed ({out.returncode}): {out.stderr.strip()[-300:]}", file=sys.stderr)
                return 1
            got[n].append(value(out.stdout, a.unit))
    everything = sorted(v for vs in got.values() for v in vs)
    lo_dec = everything[len(everything) // 10]
    hi_dec = everything[-len(everything) // 10 - 1]
    mid = (lo_dec + hi_dec) / 2
    print(f"{' '.join(cmd)}: {a.unit}, {a.runs} runs per condition, slow mode = above {mid:.4g}")
    for n in names:
        vs = sorted(got[n])
        q = statistics.quantiles(vs, n=10)
        slow = sum(1 for v in vs if v > mid)
        print(
            f"  {n:<12} median {statistics.median(vs):.4g}  p10-p90 {q[0]:.4g}..{q[-1]:.4g} "
            f"({(q[-1] - q[0]) / statistics.median(vs) * 100:.0f}%)  slow mode {slow}/{len(vs)}  "
            f"min {vs[0]:.4g} max {vs[-1]:.4g}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
