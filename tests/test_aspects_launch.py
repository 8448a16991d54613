"""Round aspects' launch modes: the launcher (build/rb-c-static, variants
c-binary, go-binary, go-run, go-run-cold, py-script, py-script-numba) starts the whole
program with its stdout on each sink, and every start's bytes reach it
unchanged: the result line carries the CRC-32 of the reference output
files of testdata/aspects/, which the launcher checked against the .expect
beside the events. A program that prints anything else, or fails, fails the
run (exit 3). No timing is asserted here."""

import os
import re
import subprocess
import zlib
from types import SimpleNamespace

import pytest

from roundbench import rounds
from roundbench.judge.cells import Cell
from roundbench.results import levels
from roundbench.rounds import aspects

from conftest import BUILD, ROOT, child_env

LAUNCHER = BUILD / "rb-c-static"
DATA = ROOT / "testdata" / "aspects"
EPHEMERIS = DATA / "ephemeris.tsv"
EVENTS = DATA / "events.tsv"
REFERENCE = {1: (DATA / "test1.out").read_bytes(), 2: (DATA / "test2.out").read_bytes()}
MATCHES = 3  # events.tsv's matches of the default combination (its .expect)
COMPILED = ("c-binary", "go-binary")


def _env(impl: str, tmp_path, **extra) -> dict:
    """The launcher's environment as the runner sets it for variant impl,
    pointed at the small reference data."""
    env = child_env()
    env.update(aspects.PROGRAM_ENV[impl]())
    env.update(
        {
            aspects.EPHEMERIS_ENV: str(EPHEMERIS),
            aspects.EVENTS_ENV: str(EVENTS),
            "TMPDIR": str(tmp_path),
        }
    )
    env.update(extra)
    return env


def _launch(impl: str, tmp_path, *params, env=None, timeout=300, params_default=True):
    """The launcher on the reference events, one start a run unless
    params_default is False (the mode's own count) or params say."""
    given = {p.split("=", 1)[0] for p in params}
    defaults = ("events=38", "starts=1") if params_default else ("events=38",)
    params = [p for p in defaults if p.split("=", 1)[0] not in given] + list(params)
    return subprocess.run(
        [str(LAUNCHER), "aspects", impl, *params],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env or _env(impl, tmp_path),
    )


def _result(out) -> str:
    assert out.returncode == 0, out.stderr
    return re.search(r"^result: (.*)$", out.stdout, re.M).group(1)


def _want(test: int) -> str:
    ref = REFERENCE[test]
    return f"matches={MATCHES} crc={zlib.crc32(ref):08x} len={len(ref)}"


def _line(out):
    return next(line for line in out.stdout.splitlines() if line.startswith("BenchmarkAspects/"))


@pytest.fixture(autouse=True)
def _launcher_built():
    assert LAUNCHER.exists(), "build/rb-c-static is missing: run `make build` first"


@pytest.mark.parametrize("impl", COMPILED)
@pytest.mark.parametrize("sink", ["pipe", "file", "pty"])
@pytest.mark.parametrize("test", [1, 2])
def test_compiled_programs_through_every_sink_print_the_reference(impl, sink, test, tmp_path):
    out = _launch(impl, tmp_path, f"sink={sink}", f"test={test}")
    assert _result(out) == _want(test)
    line = _line(out)
    assert line.startswith(f"BenchmarkAspects/impl={impl}/events=38/starts=1/sink={sink}/test={test} 1 ")
    for unit in ("ns/event", "ms", "spread-ms", "start-peak-B", "cpu-ms"):
        assert f" {unit}" in line, (unit, line)
    # At test 2 the same run started test 1 at the same sink: the cost of printing.
    assert (" t1-ms" in line and " print-ms" in line) == (test == 2), line


def test_pty_sink_keeps_the_bytes_and_is_a_terminal(tmp_path):
    """A terminal turns "\\n" into "\\r\\n" unless it is in raw mode: the
    launcher sets raw mode, so the bytes are the reference's (without it,
    this run fails with a wrong CRC-32). The Python script writes a line at
    a time to a terminal: every line comes through."""
    for impl in ("c-binary", "py-script"):
        out = _launch(impl, tmp_path, "sink=pty", "test=2")
        assert _result(out) == _want(2), impl


def test_file_sink_reads_back_and_leaves_no_file(tmp_path):
    out = _launch("c-binary", tmp_path, "sink=file", "test=2", "starts=3")
    assert _result(out) == _want(2)
    assert not any(p.name.startswith("rb-launch-out") for p in tmp_path.iterdir())


def test_devnull_is_not_read_back_and_says_so(tmp_path):
    out = _launch("go-binary", tmp_path, "sink=devnull", "test=2")
    assert _result(out) == "not read back (devnull)"
    # Only the exit status can be checked there.
    env = _env("go-binary", tmp_path, RB_ASPECTS_GO="/bin/false")
    out = _launch("go-binary", tmp_path, "sink=devnull", env=env)
    assert out.returncode == 3 and "go-binary (test 1) exited with status 1; want 0" in out.stderr


def test_script_and_go_run_print_the_reference(tmp_path):
    assert _result(_launch("py-script", tmp_path, "sink=pipe", "test=2")) == _want(2)
    assert _result(_launch("go-run", tmp_path, "sink=pipe")) == _want(1)


@pytest.mark.parametrize("test", [1, 2])
def test_numba_script_prints_the_reference(tmp_path, test):
    """`python with_numba.py`, its import of numpy and numba and its compile
    in every start: one start a run by default, and its bytes checked."""
    out = _launch("py-script-numba", tmp_path, "sink=pipe", f"test={test}", params_default=False)
    assert _result(out) == _want(test)
    line = _line(out)
    assert line.startswith(f"BenchmarkAspects/impl=py-script-numba/events=38/sink=pipe/test={test} 1 "), line
    out = _launch("py-script-numba", tmp_path, "sink=pipe", "combo=Mercury-90-Pluto,MC-90-Asc")
    ref = (DATA / "test1-second-combo.out").read_bytes()
    assert _result(out) == f"matches=8 crc={zlib.crc32(ref):08x} len={len(ref)}"


def test_go_run_cold_builds_in_a_cache_of_its_own(tmp_path):
    """Every start of go-run-cold compiles everything into a new GOCACHE
    under TMPDIR, removed after it; GOPROXY=off keeps it off the network."""
    out = _launch("go-run-cold", tmp_path, "sink=pipe", timeout=600)
    assert _result(out) == _want(1)
    assert list(tmp_path.iterdir()) == []
    # Its CPU time is the build's: the compiler's processes included.
    cpu = float(re.search(r" ([0-9.e+]+) cpu-ms", _line(out)).group(1))
    assert cpu > 0


def test_a_wrong_output_fails_the_run(tmp_path):
    # echo prints its arguments: not the program's output.
    env = _env("c-binary", tmp_path, RB_ASPECTS_C="/bin/echo")
    for sink in ("pipe", "file", "pty"):
        out = _launch("c-binary", tmp_path, f"sink={sink}", env=env)
        assert out.returncode == 3, (sink, out.stderr)
        assert "wrong result: c-binary (test 1) printed" in out.stderr and f"to a {sink}" in out.stderr
    # At test 2, the starts of test 1 are checked too: a program that
    # always prints test 2's output passes those of test 2 only.
    fake = tmp_path / "fake"
    fake.write_text(f"#!/bin/sh\nexec cat {DATA / 'test2.out'}\n")
    fake.chmod(0o755)
    env = _env("c-binary", tmp_path, RB_ASPECTS_C=str(fake))
    out = _launch("c-binary", tmp_path, "sink=pipe", "test=2", env=env)
    assert out.returncode == 3 and "wrong result: c-binary (test 1) printed 21632 bytes" in out.stderr


def test_launch_arguments(tmp_path):
    out = _launch("c-binary", tmp_path)
    assert out.returncode == 4 and "c-binary is a launch mode" in out.stderr and "sink=pipe" in out.stderr
    out = _launch("c-binary", tmp_path, "sink=printer")
    assert out.returncode == 2 and "sink=printer is not a sink" in out.stderr
    out = _launch("c-binary", tmp_path, "sink=pipe", "events=39")
    assert out.returncode == 2 and "events=39, but" in out.stderr
    env = _env("c-binary", tmp_path)
    del env["RB_ASPECTS_C"]
    out = _launch("c-binary", tmp_path, "sink=pipe", env=env)
    assert out.returncode == 4 and "RB_ASPECTS_C is not set" in out.stderr
    out = _launch("c-binary", tmp_path, "sink=pipe", "combo=Sun-0-Moon")
    assert out.returncode == 2 and "no expected result for test=1 combo=Sun-0-Moon" in out.stderr


def test_a_second_combination(tmp_path):
    out = _launch("go-binary", tmp_path, "sink=pipe", "combo=Mercury-90-Pluto,MC-90-Asc")
    ref = (DATA / "test1-second-combo.out").read_bytes()
    assert _result(out) == f"matches=8 crc={zlib.crc32(ref):08x} len={len(ref)}"


def _runs_by_default(rnd, size: dict) -> set:
    return {
        v.name
        for v in rnd.variants
        if (v.runs_if is None or v.runs_if(size)) and (v.default_if is None or v.default_if(size))
    }


def test_cells_and_variants():
    rnd = rounds.get("aspects")
    launch = {v.name for v in aspects.LAUNCH_VARIANTS}
    assert launch == {"c-binary", "go-binary", "go-run", "go-run-cold", "py-script", "py-script-numba"}
    # Whole programs, start to exit (numba's import and compile in its time);
    # the C program is the ceiling.
    for v in aspects.LAUNCH_VARIANTS:
        assert v.level == levels.level(v.name) == ("c" if v.name == "c-binary" else "program"), v.name
    cells = [s for s in rnd.sizes if "sink" in s]
    assert {(s["test"], s["sink"]) for s in cells} == {(1, "pipe"), (2, "pipe")}
    # Test 2 at the other sinks: cells of --sizes all
    more = [s for s in rnd.more_sizes if "sink" in s]
    assert {(s["test"], s["sink"]) for s in more} == {(2, k) for k in aspects.SINKS if k != "pipe"}
    for size in rnd.sizes + rnd.more_sizes:
        ran = _runs_by_default(rnd, size)
        if "sink" not in size:
            assert not ran & launch, size
            continue
        assert ran <= launch, size
        assert ("go-run-cold" in ran) == (size["test"] == 1), size
        assert ("go-run" in ran) == (size["sink"] == "pipe"), size
        assert ("py-script-numba" in ran) == (size["sink"] == "pipe"), size
        assert {"c-binary", "go-binary", "py-script"} <= ran, size
        assert rnd.budget_s(size) == 0
    assert rnd.budget_s({"events": 100_000}) > 0
    quick = [s for s in rnd.quick if "sink" in s]
    assert quick and all(s.get("starts") == 1 and s["sink"] == "pipe" for s in quick)
    for size in quick:  # the cold `go run` is left out of --quick: each start compiles the runtime
        ran = _runs_by_default(rnd, size)
        assert "go-run-cold" not in ran and {"c-binary", "go-binary", "go-run", "py-script", "py-script-numba"} <= ran
    v = rnd.variant("go-run")
    env = {**v.env({"events": 277}), **v.make_inputs({"events": 277})}
    assert env["RB_ASPECTS_GO_MODULE"] == str(ROOT) and os.path.isabs(env[aspects.EVENTS_ENV])
    env = rnd.variant("py-script-numba").env({"events": 277})
    assert env["RB_ASPECTS_SCRIPT"] == str(ROOT / "python" / "roundbench" / "rounds" / "aspects" / "with_numba.py")


def test_a_size_given_keeps_launch_and_in_process_variants_apart():
    """--param events=N runs every variant limited to some sizes
    (default_if), but an in-process variant never in a launch cell, nor a
    launch mode outside one (Variant.runs_if)."""
    from roundbench.run.plans import make_plans

    rnd = rounds.get("aspects")
    launch = {v.name for v in aspects.LAUNCH_VARIANTS}
    plans = make_plans([rnd], None, False, {}, {"aspects": {"events": 500}})
    assert [p.params.get("sink") for p in plans] == [None, "pipe", "pipe"]
    for p in plans:
        names = {v.name for v in p.variants} | {v.name for v, _ in p.skipped}
        assert (names <= launch) if "sink" in p.params else not (names & launch), p.params
    assert {v.name for v in plans[0].variants} >= {"py", "py-pandas", "go", "c"}  # py-pandas: sized, so it runs
    assert "go-run-cold" in {v.name for v in plans[2].variants}  # sized: default_if no longer limits it


def _cell(impl, **metrics):
    c = Cell(impl)
    c.runs = [SimpleNamespace(metrics=metrics, iters=1)]
    return c


def test_report_section_for_the_launch_cells():
    test1 = {
        "c-binary": _cell("c-binary", ms=20.0),
        "go-binary": _cell("go-binary", ms=50.0),
        "go-run": _cell("go-run", ms=150.0),
        "go-run-cold": _cell("go-run-cold", **{"ms": 10_000.0, "cpu-ms": 12_000.0}),
        "py-script": _cell("py-script", ms=400.0),
        "py-script-numba": _cell("py-script-numba", ms=1_600.0),
    }
    text = aspects.report_section({"events": 277, "test": 1, "sink": "pipe"}, test1, {})
    assert "`go run` against the compiled program (50 ms)" in text
    assert "with a warm build cache 150 ms, 100 ms more than the binary (3x)" in text
    assert "with an empty build cache 10,000 ms (200x the binary; 12,000 ms of CPU" in text
    assert "after the third start" in text
    assert "`python aspects.py` against the Go binary 8x, against the C binary 20x" in text
    assert (
        "The numba program, `python with_numba.py` (1,600 ms): against `python aspects.py` 4x, against the Go "
        "binary 32x. Every start imports numpy and numba and compiles its kernel" in text
    )

    test2 = {
        impl: _cell(impl, **{"ms": t2, "t1-ms": t1, "print-ms": t2 - t1})
        for impl, t1, t2 in (("c-binary", 20.0, 22.0), ("go-binary", 50.0, 80.0), ("py-script", 400.0, 430.0))
    }
    text = aspects.report_section({"events": 277, "test": 2, "sink": "pty"}, test2, {})
    assert "| go-binary | 50 ms | 80 ms | +30 ms |" in text
    assert "a pseudo-terminal in raw mode" in text and "IDE's console" in text
    text = aspects.report_section({"events": 277, "test": 2, "sink": "devnull"}, test2, {})
    assert "nothing can be read back" in text
    # Without the launch rows, the section says nothing it cannot back.
    assert "go run" not in aspects.report_section({"events": 277, "test": 1, "sink": "pipe"}, {}, {})
