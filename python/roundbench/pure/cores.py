"""Round cores in pure Python: the loop round's sum split into equal
contiguous ranges, one per worker, on threads or on processes.

This file imports only the standard library, so that a free-threaded
interpreter without the roundbench extension can run it as a script:
`python3.13t cores.py N WORKERS` prints a JSON line with the sum and the
1-worker and WORKERS-worker times (see rounds/cores.py, py-freethreaded),
whether the GIL was off, and the warnings an import raised.
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


def import_unmarked(folder: str) -> list:
    """Imports the module `unmarked` (data/unmarked.c, which does not
    declare Py_mod_gil) from `folder`; the warnings that raised."""
    import warnings

    sys.path.insert(0, folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import unmarked  # noqa: F401
    return [f"{w.category.__name__}: {w.message}" for w in caught]


if __name__ == "__main__":
    # cores.py N WORKERS [UNMARKED_FOLDER]: with a folder, the module that
    # does not declare Py_mod_gil is imported first (py-freethreaded-unmarked).
    n_arg, workers_arg = int(sys.argv[1]), int(sys.argv[2])
    warned = import_unmarked(sys.argv[3]) if len(sys.argv) > 3 else []
    on_threads(min(n_arg, 1000), workers_arg)  # warm-up
    out = timed_pair(n_arg, workers_arg, on_threads)
    out["gil_disabled"] = not getattr(sys, "_is_gil_enabled", lambda: True)()
    out["warnings"] = warned
    print(json.dumps(out))
