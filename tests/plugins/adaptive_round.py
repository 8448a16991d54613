"""A round for the runner's run-count and placement tests, loaded through
ROUNDBENCH_PLUGINS: one variant whose figure never moves, one whose figure
jumps from process to process, one this machine refuses, and two that
report where they ran (CPUs and address-space randomisation)."""

import ctypes
import os

from roundbench.measure import harness
from roundbench.rounds import Param, Round, Variant

ADDR_NO_RANDOMIZE = 0x0040000

ROUND = Round(
    name="adaptive",
    title="adaptive: steady, noisy and refused variants",
    explain="Test round.",
    variants=[
        Variant("py-steady", "python", "always 100"),
        Variant("py-noisy", "python", "50 and 150 by turns (a counter in $ADAPTIVE_COUNTER)"),
        Variant("py-refuse", "python", "cannot run here"),
        Variant("py-where", "python", "reports its CPUs and layout"),
        Variant("py-where-many", "python", "the same, declared multi-threaded", threads="many"),
    ],
    params=[Param("n", "the size", 0, 10)],
    sizes=[{"n": 1}],
    quick=[{"n": 1}],
    metric="ns/iter",
    units={"ns/iter": "lower", "cpus": "lower", "first-cpu": "lower", "layout-fixed": "higher"},
    cross_check=False,
    # No score: its variants are one side's, and the run-count tests want
    # every one of them measured, none stopped out of contention.
    scored=False,
)


@harness.implements("adaptive", "py-steady", units=["ns/iter"])
def steady(args):
    harness.emit(args, 1, 1000.0, {"ns/iter": 100.0})


@harness.implements("adaptive", "py-noisy", units=["ns/iter"])
def noisy(args):
    # Each run is a fresh process: a file counts them, so the figure
    # alternates whatever order the runs come in.
    path = os.environ["ADAPTIVE_COUNTER"]
    k = int(open(path).read() or 0) if os.path.exists(path) else 0
    with open(path, "w") as f:
        f.write(str(k + 1))
    harness.emit(args, 1, 1000.0, {"ns/iter": 50.0 if k % 2 else 150.0})


@harness.implements("adaptive", "py-refuse", units=["ns/iter"])
def refuse(args):
    raise harness.CannotRun("needs more threads than kernel.threads-max allows (threads-max 7)")


@harness.implements("adaptive", "py-where", "py-where-many", units=["ns/iter", "cpus", "first-cpu", "layout-fixed"])
def where(args):
    cpus = sorted(os.sched_getaffinity(0))
    persona = ctypes.CDLL(None).personality(0xFFFFFFFF)
    fixed = 1.0 if persona & ADDR_NO_RANDOMIZE else 0.0
    harness.emit(
        args, 1, 1000.0, {"ns/iter": 1.0, "cpus": float(len(cpus)), "first-cpu": float(cpus[0]), "layout-fixed": fixed}
    )
