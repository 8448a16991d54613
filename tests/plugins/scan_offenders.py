"""Planted offenders for the static scan's tests (tests/test_fairness.py):
each entry point below hides one trick in its timed code, most of them one
call away, as a real variant would. Never run; only scanned."""

import asyncio
import gc
import locale
import logging
import os
import sys
import time
from time import sleep as nap

from roundbench.measure import harness


def _collect():
    gc.collect()


def _work(n):
    total = sum(range(n))
    _collect()
    return total


def forced_gc(args):
    harness.time_once(lambda: _work(10))  # one call away


def sleeps(args):
    harness.time_once(lambda: nap(0.001))


def _timing(work):
    t0 = harness.now_ns()
    work()
    return harness.now_ns() - t0


async def _hop():
    await asyncio.sleep(0)


def yields(args):
    _timing(_hop)  # the work handed to a timing helper as a value


def _yield_os():
    os.sched_yield()


def yields_os(args):
    harness.time_once(_yield_os)


def prints(args):
    now = harness.now_ns
    t0 = now()
    print("progress")
    return now() - t0


def logs(args):
    def step():
        logging.info("progress")

    harness.time_once(step)


def locale_call(args):
    harness.time_once(lambda: locale.format_string("%d", 1234, grouping=True))


def locale_spec(args):
    harness.time_once(lambda: f"{1234567:n}")


class _Worker:
    def step(self):
        time.sleep(1)


def _drive(make):
    t0 = harness.now_ns()
    make().step()
    return harness.now_ns() - t0


def through_a_class(args):
    _drive(_Worker)


def untimed_only(args):
    """Tricks outside the timed code, and on an error path inside it: none counts."""
    print("setting up", file=sys.stderr)
    gc.collect()
    t0 = harness.now_ns()
    try:
        total = sum(range(100))
    except ValueError:
        print("failed", file=sys.stderr)
        raise
    if total < 0:
        print("impossible")
        raise SystemExit(3)
    elapsed = harness.now_ns() - t0
    print(f"took {elapsed:n}")
    return total


def waived(args):
    harness.time_once(lambda: time.sleep(0))  # scan: allow yield: a planted waiver


def clean(args):
    def work():
        total = 0
        for i in range(100):
            total += i * i % 7
        return f"{total:,}"

    harness.time_once(work)
