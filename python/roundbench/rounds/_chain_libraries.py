"""Round chain's variants on libraries rather than the language alone:
greenlet's greenlets (py-greenlet) and a `stackless` module's tasklets
(py-stackless). pure/chain.py holds the language's own chains and the
rule every chain follows (hop, expected); these follow it too."""

from __future__ import annotations

from ..pure.chain import hop

# ---- greenlet --------------------------------------------------------------


def _greenlet_body(main, hop_work: int) -> int:
    # Wait for the value, then return the next one to the caller (the
    # parent), which passes it into the next task.
    return hop(main.switch(), hop_work)


class GreenletChain:
    """Greenlets, the living relative of Stackless tasklets. Greenlets have
    no scheduler and no channels: a switch is the handoff, and the caller
    is the scheduler, passing each task's value into the next one (as the C
    core's scheduler does between its coroutines). Every task is started at
    setup and waits; in the pass each runs once and ends. (Handing the value
    straight from task to task, through greenlet parents, looked closer to
    a channel but made greenlet 3 walk ever longer chains of saved stacks:
    quadratic time, and a crash past about 50,000 tasks.) One thread runs
    everything: the `parallel` chains all exist at once and pass one after
    another."""

    def __init__(self, n: int, hop_work: int, parallel: int):
        # Imported here, not with the module: greenlet's extension does not
        # declare itself free-threading safe, and importing it turns the GIL
        # back on for every variant of a free-threaded interpreter's child
        # (the py-greenlet variant says when it is missing: Variant.requires).
        import greenlet

        main = greenlet.getcurrent()
        self.chains = []
        for _ in range(parallel):
            tasks = [greenlet.greenlet(_greenlet_body) for _ in range(n)]
            for g in tasks:
                g.switch(main, hop_work)  # runs to main.switch() and waits
            self.chains.append(tasks)

    def run(self) -> list:
        # The shape of pure/chain.py's GeneratorChain.run, written out again
        # on purpose: this is the timed pass, and a shared helper would add a
        # call per hop to both.
        chains, self.chains = self.chains, []
        out = []
        for tasks in chains:
            x = 0
            for g in tasks:
                x = g.switch(x)
            tasks.clear()
            out.append(x)
        return out

    def close(self) -> None:
        # A chain that never passed: dropping its waiting greenlets kills
        # them (GreenletExit), as the garbage collector would.
        self.chains = []


# ---- Stackless ---------------------------------------------------------------


def _tasklet_body(inp, out, hop_work: int) -> None:
    out.send(hop(inp.receive(), hop_work))


def _tasklet_driver(first, last, values: list, i: int) -> None:
    first.send(0)
    values[i] = last.receive()


class StacklessChain:
    """The published Stackless chain's structure: one tasklet per task,
    neighbours joined by a stackless.channel, and the scheduler run by
    stackless.run(). Each task receives from the channel on its left and
    sends the next value on the one to its right; a driver tasklet per chain
    sends 0 into the first channel and receives from the last. Setup makes
    every tasklet and runs the scheduler until each is blocked on its
    receive; the pass starts the drivers and runs the scheduler again until
    every chain has yielded (the `parallel` chains interleave, one thread).

    The API is Stackless Python's; the implementation here is whatever
    `stackless` module the interpreter has: PyPy's lib_pypy/stackless.py,
    tasklets on continulets (its stackful switch), not Stackless Python's
    C implementation. Imported here, not at the top: importing it makes the
    running code the scheduler's main tasklet, which other variants need
    not pay for."""

    def __init__(self, n: int, hop_work: int, parallel: int):
        # importing it makes the caller the scheduler's main tasklet: only in py-stackless's child
        import stackless

        self.stackless = stackless
        self.ends = []
        self.tasklets = []
        for _ in range(parallel):
            channels = [stackless.channel() for _ in range(n + 1)]
            for i in range(n):
                self.tasklets.append(stackless.tasklet(_tasklet_body)(channels[i], channels[i + 1], hop_work))
            self.ends.append((channels[0], channels[-1]))
        stackless.run()  # every task runs to its receive and blocks there

    def run(self) -> list:
        ends, self.ends = self.ends, []
        values = [None] * len(ends)
        for i, (first, last) in enumerate(ends):
            self.stackless.tasklet(_tasklet_driver)(first, last, values, i)
        self.stackless.run()
        self.tasklets = []  # every tasklet has ended
        return values

    def close(self) -> None:
        # A chain that never passed: its tasklets wait on their channels;
        # kill() ends each with TaskletExit, as Stackless would at exit.
        for t in self.tasklets:
            if t.alive:
                t.kill()
        self.tasklets = []
        self.ends = []
