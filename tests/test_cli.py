"""The roundbench command's usage errors: each exits 2 (the status --help
promises for bad usage, apart from 1 for failed runs) with one line on
stderr that says what was wrong, and runs nothing."""

import pytest

from conftest import run_roundbench

USAGE_ERRORS = [
    (["run", "nosuchround"], "roundbench run: unknown round 'nosuchround' (rounds: loop, "),
    (["run", "loop", "--impl", "nope"], "roundbench run: unknown variant(s) nope for these rounds (have: c, go,"),
    (["run", "loop", "--runs", "0"], "roundbench run: --runs 0: want 'auto' or a count of at least 1"),
    (["run", "loop", "--timeout", "0"], "roundbench run: --timeout 0: want a number of seconds > 0"),
    (["run", "loop", "--budget", "-1"], "roundbench run: --budget -1: want a number of seconds >= 0"),
    (["run", "loop", "--time-budget", "0"], "roundbench run: --time-budget 0: want a number of minutes > 0"),
    (["run", "loop", "--placement", "sideways"], "roundbench run: --placement: invalid choice: 'sideways'"),
    (["run", "loop", "--n", "-1"], "roundbench run: --n -1: want an integer >= 0"),
    (["run", "loop", "--param", "n"], "roundbench run: --param 'n': want key=value"),
    (["run", "matmul", "--threads", "none"], "roundbench run: --threads 'none': want 'all' or a count >= 1"),
    (["run", "chain", "--hop-work", "-1"], "roundbench run: --hop-work '-1': want an integer >= 0"),
    (["run", "chain", "--parallel", "0"], "roundbench run: --parallel '0': want an integer >= 1"),
    (
        ["run", "loop", "--parallel", "2"],
        "roundbench run: --parallel is an option of round chain, which this run does not include",
    ),
    (["run", "loop", "--bogus"], "roundbench run: unrecognized arguments: --bogus (roundbench run --help)"),
    (["run", "loop", "--runs", "many"], "roundbench run: --runs many: want 'auto' or a count of at least 1"),
    ([], "roundbench: a command is required"),
    (["frobnicate"], "roundbench: COMMAND: invalid choice: 'frobnicate'"),
    (["list", "extra"], "roundbench list: unrecognized arguments: extra (roundbench list --help)"),
    (
        ["report", "/nonexistent/roundbench-results"],
        "roundbench report: DIR: '/nonexistent/roundbench-results': want a file or folder to read (there is none)",
    ),
    (["gen-log", "out.jsonl", "--kinds", "nope"], "roundbench gen-log: --kinds 'nope': want one or more of not-json, "),
    (["gen-log", "out.jsonl", "--lines", "-1"], "roundbench gen-log: --lines -1: want a count of lines >= 0"),
    (["gen-log", "out.jsonl", "--bad-rate", "2"], "roundbench gen-log: --bad-rate 2: want a fraction in [0, 1]"),
]


@pytest.mark.parametrize("argv, message", USAGE_ERRORS, ids=[" ".join(a) or "(none)" for a, _ in USAGE_ERRORS])
def test_usage_error_exits_2_and_says_what(tmp_path, argv, message):
    out = run_roundbench(*argv, cwd=tmp_path)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert message in out.stderr
    assert len(out.stderr.splitlines()) == 1, out.stderr  # one line, no usage dump
    assert "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []  # nothing run, nothing written


def test_round_options_apply_to_their_round_only():
    from roundbench import cli, rounds
    from roundbench.run.plans import make_plans
    from roundbench.cli import run as runcmd

    args = cli.parser().parse_args(["run", "loop", "chain", "matmul", "--hop-work", "5", "--threads", "2"])
    selected = [rounds.get(n) for n in args.rounds]
    options = runcmd._options(args, selected)
    assert options == {"chain": {"hop-work": 5}, "matmul": {"threads": 2}}
    plans = make_plans(selected, None, True, {}, options)
    params = {p.round.name: p.params for p in plans}
    assert params["loop"] == {"n": 200_000}
    assert params["chain"]["hop-work"] == 5 and "threads" not in params["chain"]
    assert params["matmul"]["threads"] == 2 and "hop-work" not in params["matmul"]
