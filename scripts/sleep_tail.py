"""The sleep round's Python-threads tail, measured: the fit=1 cell's work
(N threads, all live, each sleeping until a common start + 1 s) in a fresh
process per run, under each switch interval (sys.setswitchinterval) and
thread count given, each run bounded (a run past the bound is killed and
counted, never waited for). Prints each setting's distribution of the
round's figure (overhead: the wall time beyond the 1 s wait) and of the
child's CPU time.

    python scripts/sleep_tail.py [--runs 20] [--n 10000 ...] [--switch-ms 5 ...] [--bound 120]

The suite's cell is --n 10000 --switch-ms 5 (CPython's default interval).
Nothing here is a test: it is a benchmark, and its figures move with the
machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys
sys.setswitchinterval({switch_s!r})
from roundbench.pure.sleep import sleep_threads
s = sleep_threads({n}, 1_000_000_000)
assert s["completed"] == {n} and s["peak_live"] == {n} and not s["early"], s
print(s["overhead_ns"] / 1e9, s["setup_ns"] / 1e9)
"""


def one_run(n: int, switch_ms: float, bound: float) -> tuple:
    """(overhead s, setup s, CPU s) of one fresh child, or None for the
    overhead when the bound killed it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    code = CHILD.format(switch_s=switch_ms / 1000, n=n)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        out = None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out is None:
        return None, None, cpu
    if proc.returncode:
        raise SystemExit(f"sleep_tail: a child failed (exit {proc.returncode}) at n={n} switch={switch_ms} ms")
    over, setup = (float(x) for x in out.split())
    return over, setup, cpu


def quantiles(xs: list) -> str:
    xs = sorted(xs)
    if not xs:
        return "none finished"
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return f"min {xs[0]:.3g}  q1 {q[0]:.3g}  median {q[1]:.3g}  q3 {q[2]:.3g}  max {xs[-1]:.3g}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20, help="runs per setting (default 20)")
    ap.add_argument("--n", type=int, nargs="+", default=[10_000], help="thread counts (default 10000)")
    ap.add_argument("--switch-ms", type=float, nargs="+", default=[5.0], help="switch intervals in ms (default 5)")
    ap.add_argument("--bound", type=float, default=120.0, help="kill a run after this many seconds (default 120)")
    args = ap.parse_args()
    print(f"# {sys.version.split()[0]} {sys.executable}; {os.cpu_count()} CPUs; bound {args.bound:g} s", flush=True)
    for n in args.n:
        for sw in args.switch_ms:
            overs, cpus, killed, t0 = [], [], 0, time.monotonic()
            for _ in range(args.runs):
                over, _, cpu = one_run(n, sw, args.bound)
                cpus.append(cpu)
                if over is None:
                    killed += 1
                else:
                    overs.append(over)
            print(
                f"n={n} switch={sw:g} ms: {len(overs)} finished, {killed} killed at {args.bound:g} s "
                f"({time.monotonic() - t0:.0f} s in all)\n"
                f"  overhead s: {quantiles(overs)}\n  all: {' '.join(f'{x:.3g}' for x in overs)}\n"
                f"  CPU s per run: {quantiles(cpus)}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
