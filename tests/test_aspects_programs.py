"""Round aspects' whole programs in C and Go (build/aspects-c from
csrc/tools/aspects.c, build/aspects-go and `go run` from go/cmd/aspects):
what the launch modes start. Each prints the reference outputs of
testdata/aspects/ byte for byte, as the Python script does, and fails as it
does: exit 2 for bad usage naming the bad term, exit 1 for a bad file
naming the file and the line."""

import os
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT, load_vectors

DATA = ROOT / "testdata" / "aspects"
EPHEMERIS = DATA / "ephemeris.tsv"
PROGRAMS = ["aspects-c", "aspects-go"]
GO = shutil.which("go")


def _run(prog: str, *args):
    path = BUILD / prog
    assert path.exists(), f"build/{prog} is missing: run `make build` first"
    return subprocess.run([str(path), *map(str, args)], capture_output=True, timeout=60)


@pytest.mark.parametrize("prog", PROGRAMS)
def test_program_prints_the_reference_outputs(prog):
    cases = [
        ((), "test1.out"),
        (("--print",), "test2.out"),
        (("--combo", "Mercury-90-Pluto,MC-90-Asc"), "test1-second-combo.out"),
        (("--combo=Mars-0-Jupiter,Mercury-0-Venus,Mars-90-Asc",), "test1-three-terms.out"),
    ]
    for args, want in cases:
        out = _run(prog, EPHEMERIS, DATA / "events.tsv", *args)
        assert out.returncode == 0, out.stderr
        assert out.stdout == (DATA / want).read_bytes(), f"{prog} {args}"
    for events in ("events-header-only.tsv", "events-no-bytes.tsv"):
        out = _run(prog, EPHEMERIS, DATA / events, "--print")
        assert out.returncode == 0 and out.stdout == (DATA / "empty.out").read_bytes()


@pytest.mark.parametrize("prog", PROGRAMS)
def test_program_errors(prog):
    out = _run(prog, EPHEMERIS, DATA / "events.tsv", "--combo", "Moon-120-Jupiter,Asc-45-Mars")
    assert out.returncode == 2 and b"'Asc-45-Mars'" in out.stderr and out.stdout == b""
    for args in ((EPHEMERIS,), (EPHEMERIS, DATA / "events.tsv", "extra"), (EPHEMERIS, "--verbose")):
        out = _run(prog, *args)
        assert out.returncode == 2 and b"usage:" in out.stderr, (args, out.stderr)
        assert len(out.stderr.splitlines()) == 1, out.stderr  # one line, naming the argument
        assert str(args[-1]).encode() in out.stderr or b"are required" in out.stderr
    out = _run(prog, EPHEMERIS, DATA / "no-such-file.tsv")
    assert out.returncode == 1 and b"no such file" in out.stderr.lower()
    # Every bad file of the shared vectors: its path and line, then the words.
    vectors = load_vectors("aspects-error")
    assert len(vectors) >= 20
    for v in vectors:
        eph, events = DATA / v["ephemeris"], DATA / v["events"]
        out = _run(prog, eph, events)
        where = f"{eph if v['file'] == 'ephemeris' else events}:{v['line']}: "
        stderr = out.stderr.decode()
        assert out.returncode == 1 and out.stdout == b"", (v, stderr)
        assert where in stderr and v["says"].replace("+", " ") in stderr, (v, stderr)


@pytest.mark.skipif(GO is None, reason="go is not on PATH")
def test_go_run_is_the_same_program():
    # What the launch mode `go run` starts: pure Go (CGO_ENABLED=0).
    env = dict(os.environ, CGO_ENABLED="0")
    out = subprocess.run(
        [GO, "run", "./go/cmd/aspects", str(EPHEMERIS), str(DATA / "events.tsv"), "--print"],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == (DATA / "test2.out").read_bytes()
