"""The Go build twins (docs/go-builds.md): a round's Go runner built apart by
the standard toolchain with PGO or GOAMD64=v3 (the build table's
GO_BUILD_RUNNERS). Each twin runs and checks its result, lists only itself,
is absent from the round's own runner, is a skip row with its reason where
its program is not built or is not the build its name says, and the
provenance records each build from the binary's own build information."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from roundbench import rounds
from roundbench.results import benchfmt
from roundbench.judge import fairness
from roundbench.run import launch, provenance
from roundbench.runtimes import buildtable, programs

from conftest import BUILD, ROOT, child_env, run_roundbench

# The rounds whose go variant has build twins, and the twins' names.
TWIN_ROUNDS = ("loop", "temps", "jsonl", "aspects")
TWINS = ("go-pgo", "go-v3", "go-pgo-v3")


def twins() -> list:
    """(round, variant) of every declared twin: a variant whose program is
    a build twin."""
    return [(r, v) for r in rounds.all_rounds() for v in r.variants if v.program in programs.GO_BUILD_RUNNERS]


def _run(cmd: list, env=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=env or child_env(), timeout=timeout)


def _lines(out: str, prefix: str) -> list:
    return [line for line in out.splitlines() if line.startswith(prefix)]


def test_the_declared_twins_are_the_tables():
    """Every round named has the three twins, at level alone, each run by
    the program the table builds for it; nothing else names a twin build."""
    got = {(r.name, v.name): v for r, v in twins()}
    assert set(got) == {(r, t) for r in TWIN_ROUNDS for t in TWINS}
    for (rname, vname), v in got.items():
        assert v.level == "alone", (rname, vname)
        assert v.program == f"rb-go-{rname}-{vname[len('go-'):]}"
        build = programs.GO_BUILD_RUNNERS[v.program]
        assert build.package == f"go/cmd/rb-go/{rname}"
        assert (build.pgo is not None) == ("pgo" in vname)
        assert build.goamd64 == ("v3" if vname.endswith("-v3") else "v1")
        assert "build information" in v.explain


def test_profiles_are_in_the_repository_and_out_of_the_package_directories():
    """go build's default -pgo=auto takes a main package's default.pgo: the
    round's own runner must not find one."""
    for build in programs.GO_BUILD_RUNNERS.values():
        if build.pgo is not None:
            assert (ROOT / build.pgo).is_file(), build.pgo
            assert not build.pgo.startswith(build.package + "/"), build.pgo
    assert not list((ROOT / "go").rglob("default.pgo"))


def test_a_twin_is_built_as_the_rounds_runner_with_its_options():
    table = buildtable.read()
    recipe = programs.go_recipe("rb-go-loop-pgo-v3", blas_rpath=False)
    assert recipe.package == "go/cmd/rb-go/loop"
    assert recipe.flags == ["-tags", table["GO_TWIN_TAG"], "-pgo=go/pgo/loop.pgo"]
    assert recipe.env == {"GOAMD64": "v3"}
    recipe = programs.go_recipe("rb-go-loop-pgo", blas_rpath=False)
    assert recipe.env == {"GOAMD64": "v1"}  # whatever TUNE says


@pytest.mark.parametrize("round_name", TWIN_ROUNDS)
def test_each_twin_runs_and_prints_the_plain_variants_result(round_name, built):
    """At the round's quick size, each twin prints its own benchmark line
    and the same result as the round's plain go variant (the child checks
    it against the expected result too, exiting 3 when wrong)."""
    rnd = rounds.get(round_name)
    params = {k: str(val) for k, val in rnd.quick[0].items()}
    args = [f"{k}={val}" for k, val in params.items()]
    plain = rnd.variant("go")
    out = _run([str(BUILD / programs.go_runner(round_name)), round_name, "go", *args], launch.child_env(plain, params))
    assert out.returncode == 0, out.stderr
    want = _lines(out.stdout, "result: ")
    assert len(want) == 1, out.stdout
    for name in TWINS:
        v = rnd.variant(name)
        assert v.requires() is None
        out = _run([str(BUILD / v.program), round_name, name, *args], launch.child_env(v, params))
        assert out.returncode == 0, f"{v.program} {name}: {out.stderr}"
        assert _lines(out.stdout, "result: ") == want, name
        (line,) = _lines(out.stdout, "Benchmark")
        assert line.startswith(f"{rnd.bench_prefix}/impl={name}/"), line


@pytest.mark.parametrize("round_name", TWIN_ROUNDS)
def test_only_a_twin_build_lists_its_twin(round_name, built):
    plain = BUILD / programs.go_runner(round_name)
    listed = {tuple(line.split()[:2]) for line in _run([str(plain), "--list"]).stdout.splitlines()}
    assert (round_name, "go") in listed
    assert not {v for _, v in listed} & set(TWINS)
    # The round's own runner has no profile in its build information.
    assert "-pgo" not in programs.go_build_settings(plain)
    for name in TWINS:
        program = BUILD / f"{programs.go_runner(round_name)}-{name[len('go-'):]}"
        out = _run([str(program), "--list"])
        assert out.returncode == 0, out.stderr
        assert [line.split()[:2] for line in out.stdout.splitlines()] == [[round_name, name]]
    out = _run([str(plain), round_name, "go-pgo"])
    assert out.returncode == 4, out.stderr
    assert 'variant "go-pgo" is a build twin of go' in out.stderr


def test_a_twin_in_a_binary_of_another_build_cannot_run(tmp_path, built, monkeypatch):
    """The PGO build put where the v3 build belongs: its build information
    says PGO, so it lists go-pgo, and go-v3 is refused with the reason."""
    shutil.copy(BUILD / "rb-go-loop-pgo", tmp_path / "rb-go-loop-v3")
    monkeypatch.setenv(programs.ENV_BUILD, str(tmp_path))
    why = rounds.get("loop").variant("go-v3").requires()
    assert why is not None and "does not list loop go-v3 (it lists loop go-pgo)" in why, why
    out = _run([str(tmp_path / "rb-go-loop-v3"), "loop", "go-v3", "n=1000"])
    assert out.returncode == 4 and "is a build twin of go" in out.stderr, out.stderr


def test_a_twin_whose_program_is_not_built_is_a_skip_row(tmp_path):
    empty = tmp_path / "build"
    empty.mkdir()
    env = {**child_env(), programs.ENV_BUILD: str(empty)}
    out = run_roundbench(
        "run",
        "loop",
        "--impl",
        "go-pgo",
        "--impl",
        "go-v3",
        "--quick",
        "--runs",
        "1",
        "--out",
        str(tmp_path / "out"),
        "--no-report",
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path / "out")
    assert not rs.runs and not rs.failures
    reasons = {s.name.split("impl=")[1].split("/")[0]: s.reason for s in rs.skips}
    assert set(reasons) == {"go-pgo", "go-v3"}
    for name, why in reasons.items():
        program = f"rb-go-loop-{name[len('go-'):]}"
        assert f"{empty / program} is not built ({programs.ENV_BUILD}={empty}" in why, why


def test_the_provenance_records_each_twin_from_its_build_information(built):
    line = provenance.go_twins_line([rounds.get("loop"), rounds.get("ffi")])
    assert line == (
        "; build twins: rb-go-loop-pgo -pgo=go/pgo/loop.pgo GOAMD64=v1 CGO_ENABLED=1, "
        "rb-go-loop-v3 -pgo=off GOAMD64=v3 CGO_ENABLED=1, "
        "rb-go-loop-pgo-v3 -pgo=go/pgo/loop.pgo GOAMD64=v3 CGO_ENABLED=1"
    )
    assert provenance.go_twins_line([rounds.get("ffi")]) == ""
    items, _ = provenance.collect([rounds.get("jsonl")], 1, True)
    assert "; build twins: rb-go-jsonl-pgo -pgo=go/pgo/jsonl.pgo GOAMD64=v1" in items["go-build"]


def test_the_provenance_says_which_twin_is_not_built(tmp_path, monkeypatch):
    monkeypatch.setenv(programs.ENV_BUILD, str(tmp_path))
    assert provenance.go_twins_line([rounds.get("temps")]) == (
        "; build twins: rb-go-temps-pgo not built, rb-go-temps-v3 not built, rb-go-temps-pgo-v3 not built"
    )


def test_the_go_build_line_spells_out_the_cgo_cores_flags():
    go = {"-compiler": "gc", "CGO_ENABLED": "1", "CGO_CFLAGS": "", "GOAMD64": "v1"}
    assert provenance.go_build_line("rb-go-loop", go) == (
        "-compiler=gc CGO_ENABLED=1 CGO_CFLAGS=(unset: Go's default, -O2 -g) GOAMD64=v1 (from rb-go-loop)"
    )
    go["CGO_CFLAGS"] = "-g -O3 -march=native"
    assert "CGO_CFLAGS=-g -O3 -march=native GOAMD64=v1" in provenance.go_build_line("rb-go-loop", go)
    assert provenance.go_build_line("rb-go-loop", {}) == "rb-go-loop not built"


def test_the_tuning_check_sees_the_cgo_cores_flags():
    """TUNE=1 before the cgo core took the tuned flags: Go at v3 over a core
    at -O2. The check names the side that was left portable."""
    c, ext = "-O3 -march=native -g", "-O3 -march=native"
    go = {"CGO_ENABLED": "1", "CGO_CFLAGS": "", "GOAMD64": "v3"}
    check = fairness.tuning_check(c, ext, go)
    assert check.status == "warn"
    assert check.value == (
        "build flags differ in tuning: C runner tuned, Python extension tuned, Go tuned, Go's cgo core portable"
    )
    go["CGO_CFLAGS"] = "-g -O3 -march=native"
    assert fairness.tuning_check(c, ext, go).status == "ok"
    portable = fairness.tuning_check("-O2 -g", "-O2", {"CGO_ENABLED": "1", "CGO_CFLAGS": "", "GOAMD64": "v1"})
    assert portable.status == "ok" and "Go's cgo core portable" in portable.value
    # A Go runner without cgo has no core of its own to judge.
    assert "cgo core" not in fairness.tuning_check(c, ext, {"CGO_ENABLED": "0", "GOAMD64": "v3"}).value


def test_tune_gives_the_cgo_core_the_tuned_flags():
    """make TUNE=1 exports CGO_CFLAGS with the build table's tuned flags, and
    go/cgo.go adds no -O that would come after them and win."""
    table = buildtable.read()
    out = subprocess.run(
        ["make", "-s", "-n", "-p", "TUNE=1", "help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert f"CGO_CFLAGS := -g {table['OPT_TUNED']}" in out.stdout.splitlines()
    text = (ROOT / "go" / "cgo.go").read_text()
    assert not [line for line in text.splitlines() if line.startswith("#cgo CFLAGS:") and " -O" in line]


def test_a_plain_runner_refuses_to_profile(tmp_path, built):
    """The CPU profile needs the profiling build (scripts/pgo-profiles.sh):
    a measured runner set to write one says so rather than ignore it."""
    env = {**child_env(), "ROUNDBENCH_GO_CPUPROFILE": str(tmp_path / "cpu.pprof")}
    out = _run([str(BUILD / "rb-go-loop"), "loop", "go", "n=1000"], env)
    assert out.returncode == 2, out.stderr
    assert "built without -tags rbprofile" in out.stderr
    assert not (tmp_path / "cpu.pprof").exists()


def test_the_profiling_build_writes_a_profile(tmp_path, built):
    exe = tmp_path / "rb-go-loop"
    go_env = dict(os.environ)
    tag = buildtable.read()["GO_PROFILE_TAG"]
    done = subprocess.run(
        ["go", "build", "-pgo=off", "-tags", tag, "-o", str(exe), "./go/cmd/rb-go/loop"],
        cwd=ROOT,
        env=go_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    env = {**child_env(), "ROUNDBENCH_GO_CPUPROFILE": str(tmp_path / "cpu.pprof")}
    out = _run([str(exe), "loop", "go", "n=1000000"], env)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "cpu.pprof").stat().st_size > 0


def test_the_static_scan_reads_a_twin_as_its_base():
    """A twin runs its base variant's code: scanned, and flagged, as it is."""
    from roundbench.judge import scan

    out = "scanned loop go\nscanned loop go-c\nhit loop go sleep go/loop.go:9 time.Sleep\n"
    hits, scanned = scan.parse_go_output(out, [rounds.get("loop")])
    assert scanned == sorted(("loop", v) for v in ("go", "go-c", *TWINS))
    assert sorted(h.variant for h in hits) == sorted(("go", *TWINS))


def test_the_harness_names_the_tables_tags():
    """go/internal/harness reads its build's tags by name: the table's."""
    import re

    table = buildtable.read()
    go = "".join(p.read_text() for p in (ROOT / "go" / "internal" / "harness").glob("*.go"))
    assert re.search(rf'TwinTag = "{table["GO_TWIN_TAG"]}"', go)
    assert re.search(rf'ProfileTag = "{table["GO_PROFILE_TAG"]}"', go)
