"""Round chain in pure Python: N tasks in a line joined by channels; the
first receives 0, each adds 1 (after its hop work) and passes the value on,
the last yields N. The language's own ways, each a class whose constructor is the setup
(every task exists and waits when it returns), `run()` the pass (returns
what each of the `parallel` chains yields) and `close()` the teardown:

  AsyncioChain    coroutines (asyncio tasks) joined by futures
  GeneratorChain  generators, the language's own coroutines: a value passes
                  by sending it into the next task
  ThreadChain     OS threads joined by queue.SimpleQueue

The chains on libraries (greenlet, Stackless) are the round's own, beside
it: rounds/_chain_libraries.py.
"""

from __future__ import annotations

import asyncio
import os
import queue
import resource
import threading


class NotPossibleHere(Exception):
    """The machine's limits cannot hold this configuration; says which."""


def hop(x: int, hop_work: int) -> int:
    """One hop: x + 1 + the sum of ((x+i) % 7)^2 % 7 for i < hop_work (the
    same work as the core's rb_chain_hop)."""
    if not hop_work:
        return x + 1
    s = 0
    for i in range(hop_work):
        t = (x + i) % 7
        s += t * t % 7
    return x + 1 + s


def expected(n: int, hop_work: int) -> int:
    """What the last task yields, with the hop work in closed form per hop
    (t*t % 7 repeats every 7 steps: 0 1 4 2 2 4 1, sum 14). To verify
    results only."""
    sq = (0, 1, 4, 2, 2, 4, 1)
    add = [1 + hop_work // 7 * 14 + sum(sq[(r + j) % 7] for j in range(hop_work % 7)) for r in range(7)]
    x = 0
    for _ in range(n):
        x += add[x % 7]
    return x


# ---- asyncio ---------------------------------------------------------------


async def _async_task(inp: asyncio.Future, out: asyncio.Future, hop_work: int) -> None:
    out.set_result(hop(await inp, hop_work))


class AsyncioChain:
    """Tasks on one event loop; a future is the one-shot channel between two
    neighbours. The `parallel` chains pass at once, interleaved by the loop.
    loop_factory makes another loop than asyncio's own
    (uvloop.new_event_loop); the code is the same."""

    def __init__(self, n: int, hop_work: int, parallel: int, loop_factory=None):
        self.loop = (loop_factory or asyncio.new_event_loop)()
        try:
            self.loop.run_until_complete(self._setup(n, hop_work, parallel))
        except BaseException:
            self.close()
            raise

    async def _setup(self, n: int, hop_work: int, parallel: int) -> None:
        loop = asyncio.get_running_loop()
        self.futures = [[loop.create_future() for _ in range(n + 1)] for _ in range(parallel)]
        self.tasks = [loop.create_task(_async_task(f[i], f[i + 1], hop_work)) for f in self.futures for i in range(n)]
        # One turn of the loop runs every new task to its first await: all
        # of them exist and wait when setup ends.
        await asyncio.sleep(0)  # scan: allow yield: the event loop's own turn, how asyncio starts its tasks

    async def _pass(self) -> list:
        for f in self.futures:
            f[0].set_result(0)
        return list(await asyncio.gather(*(f[-1] for f in self.futures)))

    def run(self) -> list:
        return self.loop.run_until_complete(self._pass())

    def close(self) -> None:
        if self.loop.is_closed():
            return
        pending = [t for t in getattr(self, "tasks", ()) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.tasks = self.futures = []
        self.loop.close()


# ---- generators --------------------------------------------------------------


def _generator_body(hop_work: int):
    """One task: suspended at its first yield until its value is sent in,
    then yields the next value and is done."""
    x = yield
    yield hop(x, hop_work)


class GeneratorChain:
    """Generators: the coroutines the language itself has, with no library
    and no event loop. Like greenlets they have no scheduler and no
    channels, so the caller is the scheduler, sending each task's value
    into the next one (as the greenlet chain's caller switches it). A generator
    is stackless: a suspended task holds its frame, not a stack. Every task
    is started at setup and waits at its first yield; in the pass each runs
    once, and dropping it afterwards closes it. (Each task sending straight
    into its neighbour would nest one frame per hop on the C stack.) The
    `parallel` chains all exist at once and pass one after another."""

    def __init__(self, n: int, hop_work: int, parallel: int):
        self.chains = []
        for _ in range(parallel):
            tasks = [_generator_body(hop_work) for _ in range(n)]
            for g in tasks:
                next(g)  # runs to its first yield and waits
            self.chains.append(tasks)

    def run(self) -> list:
        chains, self.chains = self.chains, []
        out = []
        for tasks in chains:
            x = 0
            for g in tasks:
                x = g.send(x)
            tasks.clear()
            out.append(x)
        return out

    def close(self) -> None:
        # A chain that never passed: dropping its waiting generators closes
        # them (GeneratorExit at their yield).
        self.chains = []


# ---- threads ---------------------------------------------------------------


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    try:
        return int(text)
    except ValueError:
        return None  # e.g. "max"


def _cgroup_pids() -> tuple:
    """(pids.max, pids.current) of this process's cgroup (v2), or Nones."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                if line.startswith("0::"):
                    base = "/sys/fs/cgroup" + line[3:].strip()
                    return _read_int(base + "/pids.max"), _read_int(base + "/pids.current")
    except OSError:
        pass
    return None, None


def thread_room() -> tuple:
    """How many more threads this process can start here, by the tightest
    of the machine's limits, and that limit in words: (count, limit)."""
    with open("/proc/loadavg") as f:
        total = int(f.read().split()[3].split("/")[1])  # threads on the machine now
    room = []
    tmax = _read_int("/proc/sys/kernel/threads-max")
    if tmax:
        room.append((tmax - total, f"kernel.threads-max={tmax} ({total} threads exist)"))
    pid_max = _read_int("/proc/sys/kernel/pid_max")
    if pid_max:
        room.append((pid_max - total, f"kernel.pid_max={pid_max} ({total} threads exist)"))
    nproc, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if nproc != resource.RLIM_INFINITY and os.geteuid() != 0:
        room.append((nproc - total, f"ulimit -u (RLIMIT_NPROC)={nproc}"))
    maps = _read_int("/proc/sys/vm/max_map_count")
    if maps:
        with open("/proc/self/maps") as f:
            used = sum(1 for _ in f)
        # A thread's stack is two memory areas: the stack and its guard page.
        room.append(((maps - used) // 2, f"vm.max_map_count={maps} (2 areas per thread stack, {used} in use)"))
    pmax, pcur = _cgroup_pids()
    if pmax is not None and pcur is not None:
        room.append((pmax - pcur, f"cgroup pids.max={pmax} ({pcur} in use)"))
    return min(room) if room else (1 << 62, "none known")


def _thread_task(inp: queue.SimpleQueue, out: queue.SimpleQueue, hop_work: int) -> None:
    x = inp.get()
    # None flows down a chain whose setup failed, ending its threads.
    out.put(None if x is None else hop(x, hop_work))


class ThreadChain:
    """One OS thread per task, neighbours joined by a queue.SimpleQueue.
    Refuses (NotPossibleHere) a chain longer than the machine's thread
    limits allow, before starting any thread."""

    def __init__(self, n: int, hop_work: int, parallel: int):
        need = n * parallel
        room, limit = thread_room()
        if need > room:
            raise NotPossibleHere(
                f"threads: {need} threads (n={n} x parallel={parallel}) but {limit} leaves room for {max(room, 0)}"
            )
        self.queues = [[queue.SimpleQueue() for _ in range(n + 1)] for _ in range(parallel)]
        self.threads = []
        try:
            for qs in self.queues:
                for i in range(n):
                    t = threading.Thread(target=_thread_task, args=(qs[i], qs[i + 1], hop_work), daemon=True)
                    t.start()
                    self.threads.append(t)
        except BaseException:
            self.close()
            raise

    def run(self) -> list:
        for qs in self.queues:
            qs[0].put(0)
        return [qs[-1].get() for qs in self.queues]

    def close(self) -> None:
        # Threads still waiting (the pass did not run): send None through.
        if any(t.is_alive() for t in self.threads):
            for qs in self.queues:
                qs[0].put(None)
        for t in self.threads:
            t.join()
        self.threads = []
        self.queues = []
