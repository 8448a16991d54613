"""The two tables of exit statuses, the command's (errors.py) and a
child's (measure/harness.py, the child protocol), each held to
docs/usage.md's table and each status reached for real: the command run
into 0, 1 and 2, a Python child into 0, 2, 3, 4 and 5."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from roundbench import errors
from roundbench.measure import harness

from conftest import ROOT, child_env, run_roundbench

COMMAND = {"EXIT_OK": 0, "EXIT_FAILED": 1, "EXIT_USAGE": 2}
CHILD = {"EXIT_OK": 0, "EXIT_USAGE": 2, "EXIT_WRONG": 3, "EXIT_CANNOT": 4, "EXIT_FAILED": 5}


def _doc_table() -> dict:
    """status -> (the command's cell, the child's cell) of docs/usage.md's
    "Exit statuses" table."""
    text = (ROOT / "docs" / "usage.md").read_text()
    section = text.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| (\d+|128 \+ N) \| (.*?) \| (.*?) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def _constants(module) -> dict:
    return {k: v for k, v in vars(module).items() if re.fullmatch(r"EXIT_[A-Z]+", k)}


def test_each_table_is_defined_once_with_these_statuses():
    assert _constants(errors) == COMMAND
    assert _constants(harness) == CHILD
    # The Python child's table is the protocol's, which the C and Go tests
    # hold their own harnesses to.
    protocol = (ROOT / "testdata" / "vectors" / "protocol.txt").read_text()
    got = {f"EXIT_{n.upper()}": int(c) for n, c in re.findall(r"^protocol-exit name=(\w+) code=(\d+)$", protocol, re.M)}
    assert got == CHILD


def test_the_documented_table_matches_both():
    rows = _doc_table()
    assert set(rows) == {"0", "1", "2", "3", "4", "5", "128 + N"}
    for table, column in ((COMMAND, 0), (CHILD, 1)):
        used = {str(code) for code in table.values()}
        for status, cells in rows.items():
            if status == "128 + N":
                continue
            assert (cells[column] != "—") == (status in used), (status, column, cells)
    assert rows["128 + N"][1] == "—" and "130" in rows["128 + N"][0]


def test_one_usage_error_class():
    assert harness.UsageError is errors.UsageError
    found = subprocess.run(
        ["git", "grep", "-n", "class UsageError", "--", "python"], cwd=ROOT, capture_output=True, text=True
    ).stdout.splitlines()
    assert len(found) == 1 and found[0].startswith("python/roundbench/errors.py:"), found


def _plugin_env() -> dict:
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.exits_round"
    return env


@pytest.mark.parametrize(
    "impl, status, says",
    [
        ("py-ok", harness.EXIT_OK, ""),
        ("py-usage", harness.EXIT_USAGE, "n=3 is out of range [5, 10]"),
        ("py-wrong", harness.EXIT_WRONG, "wrong result: sum = 1; want 2"),
        ("py-cannot", harness.EXIT_CANNOT, "cannot run here: this machine has no such thing"),
        ("py-failed", harness.EXIT_FAILED, "the input stopped at line 1"),
    ],
)
def test_a_child_exits_with_each_status(impl, status, says):
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "exits", impl, "n=3"],
        capture_output=True,
        text=True,
        env=_plugin_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == status, out.stderr
    assert says in out.stderr
    assert ("BenchmarkExits/impl=py-ok/n=3" in out.stdout) == (status == harness.EXIT_OK)


def test_a_child_given_no_variant_is_a_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "exits"], capture_output=True, text=True, env=_plugin_env()
    )
    assert out.returncode == harness.EXIT_USAGE and "usage:" in out.stderr


def test_the_command_exits_with_each_status(tmp_path):
    env = _plugin_env()
    ok = run_roundbench(
        "run", "exits", "--impl", "py-ok", "--impl", "py-cannot", "--runs", "1", "--out", str(tmp_path / "ok"), env=env
    )
    assert ok.returncode == errors.EXIT_OK, ok.stderr  # a skip is no failure
    failed = run_roundbench(
        "run",
        "exits",
        "--impl",
        "py-ok",
        "--impl",
        "py-wrong",
        "--runs",
        "1",
        "--out",
        str(tmp_path / "failed"),
        env=env,
    )
    assert failed.returncode == errors.EXIT_FAILED, failed.stderr
    usage = run_roundbench("run", "exits", "--runs", "0", "--out", str(tmp_path / "usage"), env=env)
    assert usage.returncode == errors.EXIT_USAGE
    assert usage.stderr.strip().splitlines() == ["roundbench run: --runs 0: want 'auto' or a count of at least 1"]
    assert not (tmp_path / "usage").exists()
