"""Round cores in pure Python: the loop round's sum split into equal
contiguous ranges, one per worker, on threads or on processes.

This file imports only the standard library, so that a free-threaded
interpreter without the roundbench extension can run it as a script:
`python3.13t cores.py N WORKERS` prints a JSON line with the sum and the
1-worker and WORKERS-worker times (see rounds/cores.py, py-freethreaded)
and whether the GIL was off. rounds/_cores_unmarked.py runs the same
measurement after importing an extension that does not declare
Py_mod_gil (py-freethreaded-unmarked).
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import threading
import time


def loop_range(lo: int, hi: int) -> int:
    """Sum of i*i % 7 for i in range(lo, hi): one worker's share."""
    total = 0
    for i in range(lo, hi):
        total += i * i % 7
    return total


def share(n: int, workers: int, w: int) -> tuple:
    """Worker w's range: equal contiguous ranges, the first n % workers one
    longer (as rb_cores_share in the core)."""
    base, rem = divmod(n, workers)
    lo = w * base + min(w, rem)
    return lo, lo + base + (1 if w < rem else 0)


def on_threads(n: int, workers: int, work=loop_range) -> int:
    """The sum on `workers` threads, each running work(lo, hi) on its share.
    `work` may be the core's roundbench.loop_range, which releases the GIL."""
    parts = [0] * workers

    def worker(w: int) -> None:
        parts[w] = work(*share(n, workers, w))

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(parts)


def on_processes(n: int, workers: int) -> int:
    """The sum on a pool of `workers` processes (started, used and closed
    inside the timed call: the start-up is part of what processes cost)."""
    with multiprocessing.Pool(workers) as pool:
        return sum(pool.starmap(loop_range, [share(n, workers, w) for w in range(workers)]))


def timed_pair(n: int, workers: int, run) -> dict:
    """Times run(n, 1) and then run(n, workers) (once when workers == 1), as
    every cores variant does; returns sum, t1_ns, tn_ns."""
    t0 = time.perf_counter_ns()
    total = run(n, 1)
    t1 = time.perf_counter_ns() - t0
    if workers == 1:
        return {"sum": total, "t1_ns": t1, "tn_ns": t1}
    t0 = time.perf_counter_ns()
    total_n = run(n, workers)
    tn = time.perf_counter_ns() - t0
    if total_n != total:
        raise ValueError(f"{workers} workers summed {total_n}, 1 worker {total}")
    return {"sum": total_n, "t1_ns": t1, "tn_ns": tn}


def measure(n: int, workers: int) -> dict:
    """The free-threaded children's measurement: a warm-up, then
    timed_pair on threads, and whether the GIL is off now."""
    on_threads(min(n, 1000), workers)  # warm-up
    out = timed_pair(n, workers, on_threads)
    out["gil_disabled"] = not getattr(sys, "_is_gil_enabled", lambda: True)()
    return out


if __name__ == "__main__":
    # cores.py N WORKERS: the py-freethreaded child's JSON line.
    print(json.dumps({**measure(int(sys.argv[1]), int(sys.argv[2])), "warnings": []}))
