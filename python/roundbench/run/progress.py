"""What a run says while it goes: a line per finished run on the progress
stream (`[done/planned elapsed, ~left] round size variant run k: status`),
and the notices (the estimate after the first wave, the budget, what was
spent), said even when the progress lines are not.
"""

from __future__ import annotations

from typing import Optional


def clock_text(s: float) -> str:
    """Seconds as h:mm:ss."""
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def status_text(o, known: list) -> str:
    """How one run went (o: spawn.Outcome), in a progress line; known: the
    checks its library is known to fail (its `known-failure/` facts)."""
    if o.ok:
        return f"{o.wall_s:.2f} s" + (f", known failures FAILED: {', '.join(known)}" if known else "")
    if o.skipped:
        return f"skipped: {o.reason[:100]}"
    if o.killed:
        return o.reason[:160]
    return f"FAILED: {o.reason[:100]}"


class Progress:
    """The two streams a run speaks on (None: silent)."""

    def __init__(self, progress=None, notices=None):
        self.progress = progress
        self.notices = notices

    def say(self, text: str) -> None:
        if self.progress:
            print(text, file=self.progress, flush=True)

    def notice(self, text: str) -> None:
        if self.notices:
            print(f"roundbench: {text}", file=self.notices, flush=True)

    def run_done(self, done: int, total: int, elapsed: float, left: Optional[float], where: str, status: str) -> None:
        """One run's line. left: the seconds the run still has (under a time
        budget, once the minimum runs are made), else None, and the time
        left is estimated from the runs so far."""
        eta = left if left is not None else elapsed / done * max(total - done, 0)
        self.say(f"[{done}/{total} {clock_text(elapsed)} elapsed, ~{clock_text(eta)} left] {where}: {status}")
