"""The user's own input: `roundbench run jsonl --param file=PATH` and
`roundbench run aspects --param events=PATH` (rounds.UserInput). Each runs
the real command on small files made here: one cell named by the file,
every variant that counts a user's file held to the C core's result (which
the result file keeps as a fact and the report shows), and a bad path a
usage error before any child runs."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, run_roundbench
from roundbench.results import benchfmt
from roundbench import rounds
from roundbench.run.plans import make_plans
from roundbench.errors import UsageError
from roundbench.pure import jsonl as pure_jsonl
from roundbench.rounds import aspects, jsonl
from roundbench.run import launch, userfile

# A JSON Lines log of every kind of line the round's rules count: valid
# lines, a blank line, lines that are not JSON, not an object, without an
# integer status, with invalid UTF-8.
LOG_LINES = [
    b'{"status": 200, "path": "/"}',
    b'{"status": 404}',
    b"",
    b"not json",
    b'[{"status": 200}]',
    b'{"status": "200"}',
    b'{"status": 500, "note": "caf\xc3\xa9"}',
    b'{"status": 200, "bad": "\xff"}',
    b'{"path": "/x"}',
    b'{"status": 200}',
]
EVENTS = ROOT / "testdata" / "aspects" / "events.tsv"
# A path a benchmark name cannot hold as it is: a space, `=` and folders.
AWKWARD = "my logs/day=1 (copy)"


def _run(*args, out: Path):
    return run_roundbench("run", *args, "--runs", "1", "--out", str(out), timeout=300)


def _one_line_usage(out, *says: str) -> None:
    assert out.returncode == 2, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for s in says:
        assert s in lines[0], lines[0]


def _results(out_dir: Path) -> benchfmt.ResultSet:
    return benchfmt.read_dir(out_dir)


def _cell_names(rs: benchfmt.ResultSet) -> set:
    """The cells of a result set: its names without their impl=."""
    names = [r.name for r in rs.runs] + [f.name for f in rs.failures] + [s.name for s in rs.skips]
    return {re.sub(r"/impl=[^/]*", "", n) for n in names}


def _takers(rnd) -> list:
    """The variants of rnd that count a user's file."""
    return [v.name for v in rnd.variants if rnd.user_input.refuses(v) is None]


def _facts(rs: benchfmt.ResultSet) -> dict:
    """impl -> the `result` fact its runs kept."""
    return {benchfmt.split_name(f.name)[1]["impl"]: f.value for f in rs.facts if f.key == "result"}


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ---- the cell: one per file, named by a token a benchmark name can hold -------------


def test_a_token_keeps_the_name_safe_and_tells_files_apart():
    a = userfile.input_token(f"/data/{AWKWARD}.jsonl")
    assert re.fullmatch(r"day_1_copy_\.jsonl-[0-9a-f]{8}", a), a
    name = f"BenchmarkJsonl/impl=c/file={a}"
    assert benchfmt.split_name(name) == ("jsonl", {"impl": "c", "file": a})
    assert userfile.input_token(f"/other/{AWKWARD}.jsonl") != a
    assert userfile.input_token("/x/|||").startswith("input-")
    assert len(userfile.input_token("/x/" + "a" * 300)) == userfile.TOKEN_NAME_MAX + 9


@pytest.mark.parametrize("quick", [False, True])
def test_a_users_file_is_one_cell_whatever_the_sizes(tmp_path, quick):
    log = _write(tmp_path / AWKWARD / "access.jsonl", b'{"status": 200}\n')
    selected, rest = userfile.user_inputs([rounds.get("jsonl")], {"file": str(log), "seed": "3"})
    assert rest == {"seed": "3"}
    plans = make_plans(selected, None, quick, rest)
    assert len(plans) == 1
    # --sizes all adds no cell of the round's own beside the file's
    assert len(make_plans(selected, None, quick, rest, all_sizes=True)) == 1
    token = userfile.input_token(str(log))
    assert plans[0].params == {"file": token, "seed": "3"}
    # The C core first: the runner's cross-check takes a cell's first result
    # as the one every other variant must equal.
    assert plans[0].variants[0].name == "c"
    assert {v.name for v, _ in plans[0].skipped} >= {"py-published", "go-published"}
    env = launch.child_env(plans[0].variants[0], plans[0].params)
    assert env[jsonl.FILE_ENV] == str(log) and env[jsonl.EXPECT_ENV] == ""
    assert jsonl.genlog.expected(env[jsonl.WARMUP_ENV])  # the warm-up log stays generated and checked


def test_an_integer_event_count_is_still_generated_events():
    selected, rest = userfile.user_inputs([rounds.get("aspects")], {"events": "277"})
    assert rest == {"events": "277"} and selected[0].user_file is None
    env = launch.child_env(selected[0].variant("c"), {"events": 277})
    assert env[aspects.EXPECT_ENV] == env[aspects.EVENTS_ENV] + ".expect"


def test_a_users_file_for_a_round_that_takes_none_is_a_usage_error(tmp_path):
    log = _write(tmp_path / "a.jsonl", b"")
    with pytest.raises(UsageError, match=r"only round jsonl takes \(not loop\)"):
        userfile.user_inputs([rounds.get("loop")], {"file": str(log)})
    out = run_roundbench("run", "jsonl", "loop", "--param", f"file={log}", "--out", str(tmp_path / "r"))
    _one_line_usage(out, "--param file=", "only round jsonl takes (not loop)")
    assert not (tmp_path / "r").exists()


def test_the_report_shows_the_reference_result_else_the_first():
    def cells(**results):
        return {impl: SimpleNamespace(facts={"result": text} if text else {}) for impl, text in results.items()}

    rnd = rounds.get("jsonl")
    assert rounds.user_result(rnd, cells(go="a", c="a", py="b")) == (("c", "a"), ["b"])
    assert rounds.user_result(rnd, cells(c=None, go="a", py="a")) == (("go", "a"), [])
    assert rounds.user_result(rnd, cells(c=None)) == (None, [])
    text = jsonl.report_section({"file": "x-12345678"}, cells(c=None, go="lines=1 statuses=200:1", py="z"), {})
    assert "go (c did not count it)" in text and "| 200 | 1 |" in text and "kept different results: z" in text
    assert jsonl.report_section({"lines": 20000}, cells(c="a"), {}) == ""


def _one_cell(rnd: str, key: str, path: Path, tmp_path: Path) -> tuple:
    """Runs one round on a user's file: the run passes, with one cell named
    by the file's token and no failed run. Returns the results and the
    variants that ran."""
    out = _run(rnd, "--param", f"{key}={path}", out=tmp_path / "r")
    assert out.returncode == 0, out.stderr[-3000:]
    rs = _results(tmp_path / "r")
    token = userfile.input_token(str(path))
    assert _cell_names(rs) == {f"Benchmark{rnd.capitalize()}/{key}={token}"}
    assert not rs.failures
    return rs, {r.params["impl"] for r in rs.runs}


# ---- jsonl --------------------------------------------------------------------------


def test_jsonl_counts_a_users_log_with_every_variant(tmp_path):
    """Bad lines counted by the round's rules, every variant agreeing with
    the C core, whose result the report shows; the whole path, spaces and
    all, in the provenance."""
    log = _write(tmp_path / AWKWARD / "access log.jsonl", b"\n".join(LOG_LINES) + b"\n")
    rs, ran = _one_cell("jsonl", "file", log, tmp_path)
    assert {"c", "py", "go", "py-c", "go-c"} <= ran
    skipped = {benchfmt.split_name(s.name)[1]["impl"]: s.reason for s in rs.skips}
    assert "counts the generated clean log only" in skipped["py-published"]
    assert ran | set(skipped) == {v.name for v in jsonl.ROUND.variants}
    want = jsonl.result_text(pure_jsonl.count_file(str(log)))
    assert "lines=10 blank=1 valid=4 invalid=5 statuses=200:2,404:1,500:1 " in want
    assert _facts(rs) == {impl: want for impl in ran}
    config = rs.configs[0]
    assert config["jsonl-user-file"].startswith(f"file={userfile.input_token(str(log))} is ")
    assert str(log).replace(" ", "%20") in config["jsonl-user-file"]
    report = (tmp_path / "r" / "report.md").read_text()
    assert "The C core (variant c) counted it" in report
    assert "- lines: 10 (blank 1, valid 4, invalid 5)" in report
    assert "| 200 | 2 |\n| 404 | 1 |\n| 500 | 1 |" in report


def test_jsonl_counts_an_empty_log_as_nothing(tmp_path):
    log = _write(tmp_path / "empty.jsonl", b"")
    out = _run("jsonl", "--param", f"file={log}", "--no-report", out=tmp_path / "r")
    assert out.returncode == 0, out.stderr[-3000:]
    rs = _results(tmp_path / "r")
    assert not rs.failures and rs.runs
    facts = _facts(rs)
    assert set(facts) == {r.params["impl"] for r in rs.runs}
    assert set(facts.values()) == {"lines=0 blank=0 valid=0 invalid=0 statuses= reported=0:cbf29ce484222325"}
    assert all(r.metrics["MB/s"] == 0 for r in rs.runs)


def test_jsonl_a_missing_or_unusable_file_is_a_usage_error(tmp_path):
    missing = tmp_path / "no such.jsonl"
    out = run_roundbench("run", "jsonl", "--param", f"file={missing}", "--out", str(tmp_path / "r"))
    _one_line_usage(out, f"--param file={missing}: no such file")
    out = run_roundbench("run", "jsonl", "--param", f"file={tmp_path}", "--out", str(tmp_path / "r"))
    _one_line_usage(out, f"--param file={tmp_path}: is a directory")
    out = run_roundbench("run", "jsonl", "--param", "file=", "--out", str(tmp_path / "r"))
    _one_line_usage(out, "--param file=: names no file")
    assert not (tmp_path / "r").exists()  # no child ran, no result file


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_jsonl_an_unreadable_file_is_a_usage_error(tmp_path):
    log = _write(tmp_path / "locked.jsonl", b'{"status": 200}\n')
    log.chmod(0)
    out = run_roundbench("run", "jsonl", "--param", f"file={log}", "--out", str(tmp_path / "r"))
    _one_line_usage(out, f"--param file={log}: cannot read it")


# ---- aspects ------------------------------------------------------------------------


def test_aspects_searches_a_users_events_with_every_variant(tmp_path):
    """The project's test events under an awkward name: every in-process
    variant agrees with the C core, which finds what the generator expects
    of these events; the launch modes skip a user's file."""
    events = tmp_path / AWKWARD / "events.tsv"
    events.parent.mkdir(parents=True)
    shutil.copy(EVENTS, events)
    rs, ran = _one_cell("aspects", "events", events, tmp_path)
    assert {"c", "py", "go", "py-c", "go-c"} <= ran <= set(_takers(aspects.ROUND))
    skipped = {benchfmt.split_name(s.name)[1]["impl"] for s in rs.skips}
    assert set(aspects.PROGRAM_ENV) <= skipped
    want = aspects.ephemeris.expected(EVENTS, 1, aspects.pa.DEFAULT_COMBO)
    text = f"matches={want['matches']} crc={want['crc']} len={want['len']}"
    assert _facts(rs) == {impl: text for impl in ran}
    assert rs.configs[0]["aspects-user-file"].startswith(f"events={userfile.input_token(str(events))} is ")
    report = (tmp_path / "r" / "report.md").read_text()
    assert f"Searched by the C core (variant c) for {aspects.pa.DEFAULT_COMBO} (test 1): {text}" in report


@pytest.mark.parametrize("data", [b"", b"time\tlat\tlon\tname\n"], ids=["no-bytes", "header-only"])
def test_aspects_an_empty_events_file_is_no_events(tmp_path, data):
    events = _write(tmp_path / "events.tsv", data)
    out = _run("aspects", "--param", f"events={events}", "--no-report", out=tmp_path / "r")
    assert out.returncode == 0, out.stderr[-3000:]
    rs = _results(tmp_path / "r")
    assert not rs.failures and rs.runs
    assert {v.split()[0] for v in _facts(rs).values()} == {"matches=0"}
    assert len(set(_facts(rs).values())) == 1
    assert all(r.metrics["ns/event"] == 0 for r in rs.runs)


@pytest.mark.parametrize(
    "row, says",
    [
        ("2000-03-10T06:00:00Z\tnorth\t34.0000\tok", ":3: latitude"),
        ("2300-01-01T06:00:00Z\t12.0000\t34.0000\tfuture", ":3: time 2300-01-01T06:00:00Z outside the ephemeris"),
    ],
    ids=["bad-line", "outside-the-ephemeris"],
)
def test_aspects_a_bad_event_fails_every_variant_naming_it(tmp_path, row, says):
    """The readers' contract: every variant stops on the bad event with
    the same message, naming the file, the line and what is wrong; none
    crashes, and the run ends with failed runs (exit 1), not a usage error."""
    head = EVENTS.read_text().splitlines()[:2]
    events = _write(tmp_path / "events.tsv", ("\n".join([*head, row]) + "\n").encode())
    out = _run("aspects", "--param", f"events={events}", "--no-report", out=tmp_path / "r")
    assert out.returncode == 1, out.stderr[-3000:]
    rs = _results(tmp_path / "r")
    assert not rs.runs
    failed = {benchfmt.split_name(f.name)[1]["impl"]: f.reason for f in rs.failures}
    assert {"c", "py", "go"} <= set(failed)
    for impl, reason in failed.items():
        assert reason.startswith("exit status 5 (the work failed)"), (impl, reason)
        assert f"{events}{says}" in reason, (impl, reason)


def test_aspects_a_missing_events_file_is_a_usage_error(tmp_path):
    missing = tmp_path / "events.tsv"
    out = run_roundbench("run", "aspects", "--param", f"events={missing}", "--out", str(tmp_path / "r"))
    _one_line_usage(out, f"--param events={missing}: no such file")
    assert not (tmp_path / "r").exists()
