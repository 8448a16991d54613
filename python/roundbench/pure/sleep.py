"""Round sleep in pure Python: N tasks, all live at once, each waiting until a
common deadline one wait after a common start; as asyncio coroutines (on
asyncio's own event loop or on another, uvloop's) and as threads. Each
returns the same statistics as the core's roundbench.sleep: n, setup_ns,
run_ns, overhead_ns, peak_live, completed, early.

The protocol is the core's: create every task; each counts itself live and
waits for the start; once all are live the start is taken and the deadline
set to start + wait; each task sleeps until the deadline, checks it did not
wake early and ends; the run ends when the last task has.
"""

from __future__ import annotations

import asyncio
import threading
import time

now_ns = time.monotonic_ns


def _stats(n: int, t0: int, start: int, end: int, wait_ns: int, peak: int, completed: int, early: int) -> dict:
    run = end - start if n else 0
    return {
        "n": n,
        "setup_ns": (start if n else end) - t0,
        "run_ns": run,
        "overhead_ns": run - wait_ns if n else 0,
        "peak_live": peak,
        "completed": completed,
        "early": early,
    }


def sleep_asyncio(n: int, wait_ns: int, loop_factory=None) -> dict:
    """n coroutines on one asyncio event loop (a fresh loop, closed
    afterwards, as asyncio.run makes), gathered. loop_factory makes another
    loop than asyncio's own (uvloop.new_event_loop); the code is the same."""
    if loop_factory is None:
        return asyncio.run(_asyncio_main(n, wait_ns))
    return _run_on(loop_factory(), _asyncio_main(n, wait_ns))


def _run_on(loop, main) -> dict:
    """asyncio.run on a loop of the caller's: Python 3.11's
    asyncio.Runner(loop_factory=...) for the 3.9 this package supports
    (run main to its end; then cancel what is left, finish the async
    generators and the default executor, close the loop)."""
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            left = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in left:
                t.cancel()
            if left:
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


async def _asyncio_main(n: int, wait_ns: int) -> dict:
    loop = asyncio.get_running_loop()
    started = loop.create_future()  # resolves to the deadline, in now_ns()
    live = peak = completed = early = 0

    async def task() -> None:
        nonlocal live, peak, completed, early
        live += 1
        if live > peak:
            peak = live
        deadline = await started
        # A loop's timers keep its own clock. asyncio's is time.monotonic,
        # read fresh. uvloop's is libuv's uv_now, read once per turn of the
        # loop (libuv's "Timers" documentation), so a timer set late in a
        # long turn (the one that wakes all N tasks) fires early by the
        # monotonic clock. A task that wakes before the deadline sleeps the
        # rest: no task ends before start + wait, on either loop.
        while (left := deadline - now_ns()) > 0:
            await asyncio.sleep(left / 1e9)
        early += now_ns() < deadline
        live -= 1
        completed += 1

    t0 = now_ns()
    tasks = [asyncio.ensure_future(task()) for _ in range(n)]
    while live < n:  # one pass of the loop runs every task to `await started`
        await asyncio.sleep(0)  # scan: allow yield: the event loop's own turn, how asyncio starts its tasks
    start = now_ns()
    started.set_result(start + wait_ns)
    await asyncio.gather(*tasks)
    end = now_ns()
    return _stats(n, t0, start, end, wait_ns, peak, completed, early)


class ThreadLimit(Exception):
    """Creating a thread failed part-way; every thread made was joined."""

    def __init__(self, created: int, why: str):
        super().__init__(f"cannot start thread {created + 1}: {why}")
        self.created = created


def sleep_threads(n: int, wait_ns: int, stack_size: int = 64 * 1024) -> dict:
    """n threading.Thread objects with `stack_size` stacks (threading's
    default would reserve 8 MiB of address space each). Raises ThreadLimit
    when the system refuses a thread, after releasing and joining the ones
    already made."""
    lock = threading.Lock()
    all_live = threading.Event()
    go = threading.Event()
    all_done = threading.Event()
    state = {"live": 0, "peak": 0, "completed": 0, "early": 0, "deadline": 0, "abort": False}

    def task() -> None:
        with lock:
            state["live"] += 1
            if state["live"] > state["peak"]:
                state["peak"] = state["live"]
            if state["live"] == n:
                all_live.set()
        go.wait()
        if not state["abort"]:
            deadline = state["deadline"]
            left = deadline - now_ns()
            if left > 0:
                time.sleep(left / 1e9)
            woke_early = now_ns() < deadline
        else:
            woke_early = False
        with lock:
            state["live"] -= 1
            state["completed"] += 1
            state["early"] += woke_early
            if state["completed"] == n:
                all_done.set()

    old = threading.stack_size(stack_size)
    threads = []
    try:
        t0 = now_ns()
        for _ in range(n):
            t = threading.Thread(target=task, daemon=True)
            try:
                t.start()
            except RuntimeError as e:  # "can't start new thread"
                state["abort"] = True
                go.set()
                for u in threads:
                    u.join()
                raise ThreadLimit(len(threads), str(e)) from None
            threads.append(t)
        if n:
            all_live.wait()
        start = now_ns()
        state["deadline"] = start + wait_ns
        go.set()
        if n:
            all_done.wait()
        end = now_ns()
    finally:
        threading.stack_size(old)
    for t in threads:
        t.join()
    return _stats(n, t0, start, end, wait_ns, state["peak"], state["completed"], state["early"])
