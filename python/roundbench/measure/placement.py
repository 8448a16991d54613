"""Where the runner and its children run: CPU placement and address layout.

With two or more usable CPUs (the default, `--placement pinned`):

- the runner pins itself to the first usable CPU: it sleeps while a child
  runs, and whatever it does between runs (parsing, writing the results,
  generating inputs) stays off the measured CPU;
- a single-threaded child runs pinned to the last usable CPU, the same one
  for every variant of every cell, so no variant is measured on a different
  CPU (or half on each) than another;
- a multi-threaded cell (the cores round, http's servers and load, matmul
  with more than one BLAS thread, sleep's and chain's OS-thread variants)
  gets every usable CPU, stated in the provenance as such.

`--placement pinned-fixed` also turns address-space randomisation off for
every child (rb-spawn --fixed-layout, as `setarch -R` does), so that every
run of a variant has the same virtual addresses; `--placement none` leaves
the kernel to place everything. docs/measurement.md's "Placement" section gives the
measurements behind the default (scripts/placement.py reproduces them):
pinning keeps the runner and other processes off the measured CPU, while
neither it nor a fixed layout removes the per-process speed modes seen
here, which follow the physical pages a process gets.
Go's runtime sizes GOMAXPROCS from the CPUs a process may use, so a pinned
Go child runs with GOMAXPROCS=1, like the single thread of every other
variant in its cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .machine import format_cpulist, usable_cpus

MODES = ("pinned", "pinned-fixed", "none")


@dataclass(frozen=True)
class Placement:
    mode: str
    runner: Optional[frozenset]  # the runner's own CPUs, or None: not pinned
    one: Optional[frozenset]  # a single-threaded child's CPUs
    many: Optional[frozenset]  # a multi-threaded cell's CPUs
    fixed_layout: bool

    def cpus(self, threads: str) -> Optional[frozenset]:
        """The CPUs of a child whose variant is `threads` ("one" or "many")."""
        return self.many if threads == "many" else self.one

    def describe(self) -> str:
        if self.runner is None and self.one is None:
            how = "not pinned (the kernel places every process)"
        else:
            how = (
                f"runner on CPU {format_cpulist(self.runner)}; single-threaded children on CPU "
                f"{format_cpulist(self.one)}; multi-threaded cells on CPUs {format_cpulist(self.many)}"
            )
        layout = "fixed (ASLR off per child)" if self.fixed_layout else "randomised (ASLR)"
        return f"{self.mode}: {how}; address layout {layout}"


def plan(mode: str = "pinned", usable=None) -> Placement:
    """The placement for this machine: `usable` CPUs (default: this
    process's affinity)."""
    if mode not in MODES:
        raise ValueError(f"placement {mode!r}: want one of {', '.join(MODES)}")
    cpus = sorted(usable if usable is not None else usable_cpus())
    fixed = mode == "pinned-fixed"
    if mode == "none":
        return Placement(mode, None, None, None, False)
    if len(cpus) < 2:
        return Placement(mode, None, None, None, fixed)
    return Placement(mode, frozenset(cpus[:1]), frozenset(cpus[-1:]), frozenset(cpus), fixed)
