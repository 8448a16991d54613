"""The C runner describes itself: `--list` prints the variants its round
files register (csrc/runner/run_<round>.c, RBC_ROUND), the same from every
binary built from those sources, and usage errors list what exists."""

import os
import subprocess
import sys

import pytest

from conftest import BUILD, child_env

PROGRAMS = ["rb-c", "rb-c-so", "rb-c-static"]


def run(*args):
    return subprocess.run([str(BUILD / args[0]), *args[1:]], capture_output=True, text=True, timeout=60)


def listing(program):
    out = run(program, "--list")
    assert out.returncode == 0 and not out.stderr, out.stderr
    return [line.split() for line in out.stdout.splitlines()]


def test_list_is_sorted_and_well_formed(built):
    rows = listing("rb-c")
    assert len(rows) >= 20
    assert [r[:2] for r in rows] == sorted(r[:2] for r in rows), "sorted by round, then variant"
    assert len({tuple(r[:2]) for r in rows}) == len(rows), "one line per variant"
    for r in rows:
        assert len(r) >= 2, r
        units = r[2:]
        assert "ns/op" not in units and "peak-B" not in units, r
        if "-" in r[0]:  # a helper entry point of a round, not a variant
            assert units == [], r
    # Tools (matmul blas-info) run but are no variants.
    assert ["matmul", "blas-info"] not in [r[:2] for r in rows]
    assert ["loop", "c", "ns/iter"] in rows
    assert ["http-parse", "c"] in rows


@pytest.mark.parametrize("program", PROGRAMS[1:])
def test_every_binary_lists_the_same(built, program):
    assert listing(program) == listing("rb-c")


def test_usage_errors_list_what_exists(built):
    out = run("rb-c", "nosuchround", "c")
    assert out.returncode == 2
    rounds = sorted({r[0] for r in listing("rb-c")})
    assert out.stderr.strip() == f"unknown round 'nosuchround' (rounds: {' '.join(rounds)})"
    out = run("rb-c", "chain", "nope")
    assert out.returncode == 2
    assert out.stderr.strip() == "chain: the C runner has no variant 'nope' (it has: c c-ucontext)"


def test_a_listed_variant_runs_and_prints_only_its_units(built):
    units = {tuple(r[:2]): r[2:] for r in listing("rb-c")}
    out = run("rb-c", "loop", "c", "n=1000")
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("BenchmarkLoop/"))
    fields = line.split()
    printed = fields[3::2]  # name, iterations, then value-unit pairs
    assert printed[0] == "ns/op" and printed[1:] == units[("loop", "c")]


@pytest.mark.parametrize(
    "value, says",
    [
        ("-1", "jsonl: lines=-1 is out of range [0, 100000000]"),
        ("100000001", "jsonl: lines=100000001 is out of range [0, 100000000]"),
        ("1e6", "jsonl: lines=1e6 is not an integer"),
        ("", "jsonl: lines= is not an integer"),
    ],
)
def test_jsonl_checks_lines_as_every_child_does(built, value, says):
    """The C jsonl children (c, and c-simdjson where it is built) check
    their `lines` parameter as the Go and Python ones do, before looking
    for the log: exit 2 and the same message, naming the key."""
    env = child_env()
    env.pop("ROUNDBENCH_JSONL_FILE", None)
    children = [
        [str(BUILD / "rb-c"), "jsonl", "c"],
        [str(BUILD / "rb-go-jsonl"), "jsonl", "go"],
        [sys.executable, "-m", "roundbench.run.child", "jsonl", "py"],
    ]
    if os.path.exists(BUILD / "rb-c-simdjson"):
        children.append([str(BUILD / "rb-c-simdjson"), "jsonl", "c-simdjson"])
    for argv in children:
        out = subprocess.run([*argv, f"lines={value}"], capture_output=True, text=True, timeout=60, env=env)
        assert (out.returncode, out.stderr.strip(), out.stdout) == (2, says, ""), argv
