"""How one child runs: its process, started through rb-spawn where it is
built (csrc/tools/spawn.c) so that the peak RSS and CPU time wait4 reports
are the child's own; its own process group, so that a timeout or Ctrl-C
kills it and anything it started; its placement on CPUs; its output read to
EOF within its timeout; and its exit read as the child protocol defines it
(measure/harness.py's EXIT_* codes). launch.py says what command a variant
runs; this module runs it once and says how it went (an Outcome).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .. import rounds
from ..measure import harness
from ..measure.machine import format_cpulist
from ..results import benchfmt
from ..runtimes import programs

STDERR_TAIL = 12  # lines of a failed child's stderr kept in the result file
EXIT_MEANINGS = {
    harness.EXIT_USAGE: "bad arguments",
    harness.EXIT_WRONG: "wrong result",
    harness.EXIT_CANNOT: "cannot run here",
    harness.EXIT_FAILED: "the work failed",
}


@dataclass
class Outcome:
    name: str
    ok: bool
    line: Optional[str] = None  # the full result line, when ok
    result: Optional[str] = None  # the child's `result:` value
    reason: str = ""
    stderr_tail: list = field(default_factory=list)
    wall_s: float = 0.0
    facts: list = field(default_factory=list)  # `fact:` lines of a facts round's child
    # With several values a process: each value's line as the child printed
    # it, and when each was read, in seconds from the child's start.
    values: list = field(default_factory=list)
    stamps: list = field(default_factory=list)
    skipped: bool = False  # the child refused: this machine cannot run it (exit 4)
    timed_out: bool = False  # killed at the timeout it was given
    killed: bool = False  # killed at its cell's bound (run/policy.py, BOUND_FACTOR): not a failure


def _exited_ok(status: int) -> bool:
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _drain(proc: subprocess.Popen, deadline: float, stamps: Optional[list] = None) -> tuple:
    """Reads the child's stdout and stderr to EOF or until the deadline;
    `stamps` gets the monotonic time at which each result line of stdout
    was read whole (a child flushes each as it is done: the gaps between
    them are what one more value costs)."""
    out, err = [], []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out = False
    partial = b""
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if chunk:
                key.data.append(chunk)
                if key.data is out and stamps is not None:
                    now = time.monotonic()
                    *done, partial = (partial + chunk).split(b"\n")
                    stamps.extend(now for line in done if line.startswith(b"Benchmark"))
            else:
                sel.unregister(key.fileobj)
    sel.close()
    return b"".join(out).decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace"), timed_out


class Usage:
    """What wait4 said about one child."""

    def __init__(self, status: int, maxrss_kb: int, utime_ns: int, stime_ns: int):
        self.status, self.maxrss_kb, self.utime_ns, self.stime_ns = status, maxrss_kb, utime_ns, stime_ns


def spawner() -> Optional[Path]:
    """rb-spawn, the launcher that makes peak RSS the child's own (see
    csrc/tools/spawn.c), or None when it is not built."""
    return None if programs.missing("rb-spawn") else programs.path("rb-spawn")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _set_placement(cpus: Optional[frozenset], fixed_layout: bool):
    """A preexec function doing what rb-spawn's --cpus and --fixed-layout do,
    for when rb-spawn is not built."""
    if cpus is None and not fixed_layout:
        return None

    def setup() -> None:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
        if fixed_layout:
            # libc's personality(), only for --placement pinned-fixed
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.personality(libc.personality(0xFFFFFFFF) | ADDR_NO_RANDOMIZE)

    return setup


ADDR_NO_RANDOMIZE = 0x0040000  # <sys/personality.h>


def run_child(
    cmd: list,
    name: str,
    timeout: float,
    env: Optional[dict] = None,
    cpus: Optional[frozenset] = None,
    fixed_layout: bool = False,
    values: int = 1,
    pick: Optional[Callable[[list], int]] = None,
) -> Outcome:
    """Runs one child to completion and returns its outcome with the child's
    own rusage: wait4 on that one child (RUSAGE_CHILDREN would sum every
    child so far and keep the largest peak), through rb-spawn where it is
    built. The child runs in its own process group, so a timeout or Ctrl-C
    kills it and anything it started; `cpus` pins it, `fixed_layout` turns
    its address-space randomisation off (roundbench.measure.placement).

    values: how many result lines the child was asked for ($ROUNDBENCH_VALUES,
    which the caller sets). With more than one, every line must name the
    child and every `result:` agree; the process's line is the one `pick`
    chooses (an index into the parsed lines; the first without it), with
    the units rounds.PER_PROCESS_UNITS taken from the first (what the later
    values do not pay again) and CPU time per op over every value's
    iterations."""
    t0 = time.monotonic()
    launcher = spawner()
    rfd = wfd = None
    preexec = None
    if launcher:
        rfd, wfd = os.pipe()
        opts = (["--cpus", format_cpulist(cpus)] if cpus else []) + (["--fixed-layout"] if fixed_layout else [])
        argv = [str(launcher), *opts, str(wfd), *cmd]
    else:
        argv = cmd
        preexec = _set_placement(cpus, fixed_layout)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            pass_fds=(wfd,) if launcher else (),
            preexec_fn=preexec,
        )
    except OSError as e:
        for fd in (rfd, wfd):
            if fd is not None:
                os.close(fd)
        return Outcome(name, False, reason=f"could not start {argv[0]}: {e.strerror}")
    if wfd is not None:
        os.close(wfd)
    try:
        stamps: list = []
        out, err, timed_out = _drain(proc, t0 + timeout, stamps)
        if timed_out:
            _kill_group(proc)
        _, status, ru = os.wait4(proc.pid, 0)
        usage = Usage(status, ru.ru_maxrss, int(ru.ru_utime * 1e9), int(ru.ru_stime * 1e9))
        if launcher:
            report = os.read(rfd, 4096).decode()
            fields = dict(kv.split("=", 1) for kv in report.split())
            if _exited_ok(status) and "status" in fields:
                usage = Usage(*(int(fields[k]) for k in ("status", "maxrss_kb", "utime_ns", "stime_ns")))
    except BaseException:
        # Ctrl-C or another failure in the parent: never leave a child behind.
        _kill_group(proc)
        try:
            os.wait4(proc.pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        proc.returncode = 0  # reaped above; keep Popen from waiting again
        proc.stdout.close()
        proc.stderr.close()
        if rfd is not None:
            os.close(rfd)
    status = usage.status
    wall = time.monotonic() - t0
    tail = err.strip().splitlines()[-STDERR_TAIL:]
    if timed_out:
        return Outcome(
            name,
            False,
            reason=f"timed out after {timeout:.3g} s and was killed",
            stderr_tail=tail,
            wall_s=wall,
            timed_out=True,
        )
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signame = signal.Signals(sig).name
        except ValueError:
            signame = f"signal {sig}"
        return Outcome(name, False, reason=f"killed by {signame}", stderr_tail=tail, wall_s=wall)
    code = os.WEXITSTATUS(status)
    if code == harness.EXIT_CANNOT:
        # A refusal by this machine (a limit named on stderr), not a failure.
        why = tail[-1] if tail else "the child said it cannot run here"
        return Outcome(
            name, False, reason=why.removeprefix("cannot run here: "), stderr_tail=tail, wall_s=wall, skipped=True
        )
    if code != 0:
        meaning = EXIT_MEANINGS.get(code, "")
        if tail and meaning and tail[-1].startswith(meaning):
            meaning = ""  # the child's own line already says it
        reason = f"exit status {code}" + (f" ({meaning})" if meaning else "")
        if tail:
            reason += f": {tail[-1]}"
        return Outcome(name, False, reason=reason, stderr_tail=tail, wall_s=wall)
    bench = [ln for ln in out.splitlines() if ln.startswith("Benchmark")]
    results = [ln[len("result:") :].strip() for ln in out.splitlines() if ln.startswith("result:")]
    if len(bench) != values:
        want = f"want {values}" + (" (one per value asked for)" if values > 1 else "")
        return Outcome(name, False, reason=f"printed {len(bench)} result lines, {want}", stderr_tail=tail, wall_s=wall)
    try:
        parsed = [benchfmt.parse_bench_line(b) for b in bench]
    except ValueError as e:
        return Outcome(name, False, reason=str(e), stderr_tail=tail, wall_s=wall)
    for p in parsed:
        if p.name != name:
            return Outcome(name, False, reason=f"printed {p.name}, want {name}", stderr_tail=tail, wall_s=wall)
    if len(set(results)) > 1:
        return Outcome(
            name,
            False,
            reason=f"its values disagree: result {results[0]}, then {next(r for r in results if r != results[0])}",
            stderr_tail=tail,
            wall_s=wall,
        )
    chosen = pick(parsed) if pick is not None and values > 1 else 0
    line = bench[chosen].rstrip()
    if chosen:
        # The first value's per-process units (its import and compile).
        first = parsed[0].metrics
        for unit in rounds.PER_PROCESS_UNITS:
            if unit in first and unit in parsed[chosen].metrics:
                line = _with_metric(line, unit, first[unit])
    iters = max(sum(max(p.iters, 1) for p in parsed), 1)
    extra = {
        "peak-B": usage.maxrss_kb * 1024,  # Linux reports KiB
        "user-ns/op": usage.utime_ns / iters,
        "sys-ns/op": usage.stime_ns / iters,
    }
    line += "".join(f" {harness._fmt(v)} {u}" for u, v in extra.items())
    # Each value prints the same facts: each once, in order.
    facts = list(dict.fromkeys(ln[len("fact:") :].strip() for ln in out.splitlines() if ln.startswith("fact:")))
    return Outcome(
        name,
        True,
        line=line,
        result=results[-1] if results else None,
        wall_s=wall,
        facts=facts,
        values=bench if values > 1 else [],
        stamps=[t - t0 for t in stamps] if values > 1 else [],
    )


def _with_metric(line: str, unit: str, value: float) -> str:
    """A result line with one unit's value replaced."""
    fields = line.split()
    for i in range(3, len(fields), 2):
        if fields[i] == unit:
            fields[i - 1] = harness._fmt(value)
    return " ".join(fields)
