"""Python compiled by Nuitka (runtimes/nuitkabuild.py): round startup's
py-nuitka and py-nuitka-onefile through the launcher, round delivery's
py-nuitka facts, and the skip row each is where Nuitka is missing or its
build fails.

A clean build takes a minute or more per mode, so `make build` does not
make one: the first test (or run) that needs one builds it into build/,
and the others reuse it. Where Nuitka or patchelf is missing the tests
that need a build are skipped, saying so; the skip rows are checked
everywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from roundbench import rounds
from roundbench.report import document
from roundbench.results import benchfmt
from roundbench.run import launch
from roundbench.runtimes import interp, nuitkabuild, pybuild

from conftest import BUILD, child_env, run_roundbench

LAUNCHER = BUILD / "rb-c-static"
STARTUP = {"py-nuitka": nuitkabuild.STANDALONE, "py-nuitka-onefile": nuitkabuild.ONEFILE}


@pytest.fixture(autouse=True)
def fresh_answers():
    """ensure() answers once per process and interpreter: each test asks anew."""
    nuitkabuild._ensure.cache_clear()
    yield
    nuitkabuild._ensure.cache_clear()


def _needs_nuitka() -> None:
    if not interp.has_module("nuitka", sys.executable):
        pytest.skip("Nuitka is not installed for this interpreter (requirements-dev.txt pins it: make setup)")
    if sys.platform.startswith("linux") and shutil.which("patchelf") is None:
        pytest.skip(nuitkabuild.PATCHELF)


@pytest.fixture(scope="module")
def nuitka_built():
    """Both of Nuitka's builds for this interpreter, made where missing."""
    _needs_nuitka()
    for mode in nuitkabuild.MODES:
        why = nuitkabuild.ensure(mode, sys.executable)
        assert why is None, why
    nuitkabuild._ensure.cache_clear()


def _launch(impl: str, *args: str, env=None) -> subprocess.CompletedProcess:
    if env is None:
        env = child_env()
        env.update(rounds.get("startup").variant(impl).env({}))
    cmd = [str(LAUNCHER), "startup", impl, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


# ---- round startup ---------------------------------------------------------------


@pytest.mark.parametrize("impl", sorted(STARTUP))
def test_startup_variant_prints_hello_through_the_launcher(built, nuitka_built, impl):
    out = _launch(impl, "starts=2")
    assert out.returncode == 0, out.stderr
    assert f"result: {impl}-ok" in out.stdout
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark"))
    assert line.startswith(f"BenchmarkStartup/impl={impl}/starts=2 2 "), line
    for unit in ("ms", "start-peak-B", "cpu-ms", "launcher-anon-B"):
        assert f" {unit}" in line, (unit, line)


@pytest.mark.parametrize("impl", sorted(STARTUP))
def test_startup_variant_names_its_program_and_is_checked(built, impl, tmp_path):
    """The runner names the program in the variant's own variable; the
    launcher checks its output like every hello's, and says when the
    variable is missing."""
    variable = "RB_STARTUP_HELLO_" + impl.upper().replace("-", "_")
    env = rounds.get("startup").variant(impl).env({})
    assert env[variable] == str(nuitkabuild.program(STARTUP[impl], sys.executable))
    assert env[variable].endswith(nuitkabuild.OUTPUT[STARTUP[impl]])
    env = {**child_env(), **env, variable: shutil.which("true")}  # prints nothing
    out = _launch(impl, "starts=1", env=env)
    assert out.returncode == 3 and 'printed ""; want "hello, world' in out.stderr, out.stderr
    del env[variable]
    out = _launch(impl, "starts=1", env=env)
    assert out.returncode == 4 and f"cannot run here: {variable} is not set" in out.stderr, out.stderr


def test_startup_rows_and_report(built, nuitka_built, tmp_path):
    args = ["run", "startup", "--quick", "--runs", "1", "--out", str(tmp_path)]
    out = run_roundbench(*args, "--impl", "py-nuitka", "--impl", "py-nuitka-onefile", "--impl", "py", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures and not rs.skips, (rs.failures, rs.skips)
    ran = {r.params["impl"]: r for r in rs.runs}
    assert set(ran) == {"py", *STARTUP}
    for impl in STARTUP:
        assert ran[impl].iters == 3 and ran[impl].metrics["ms"] > 0
    report = (tmp_path / "report.md").read_text()
    assert "| py-nuitka |" in report and "| py-nuitka-onefile |" in report
    assert "Python compiled by Nuitka" in report


def test_levels_are_ecosystem_not_program():
    for rnd, impl in (("startup", "py-nuitka"), ("startup", "py-nuitka-onefile"), ("delivery", "py-nuitka")):
        assert rounds.get(rnd).variant(impl).level == "ecosystem", (rnd, impl)


# ---- round delivery --------------------------------------------------------------


def _facts(stdout: str) -> dict:
    pairs = (ln[len("fact: ") :].split(" ", 1) for ln in stdout.splitlines() if ln.startswith("fact: "))
    return {k: json.loads(v) for k, v in pairs}


def test_delivery_facts_are_there_and_plausible(nuitka_built):
    cmd = [sys.executable, "-m", "roundbench.run.child", "delivery", "py-nuitka"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    facts = _facts(out.stdout)
    version = nuitkabuild.aotbuild.tool_version(nuitkabuild.DIST, sys.executable)
    standalone, onefile = facts["nuitka:standalone"], facts["nuitka:onefile"]
    for v in (standalone, onefile):
        assert v["ok"] and v["version"] == version, v
        assert v["format"] == "ELF" and v["linkage"] in ("dynamic", "static", "static-pie"), v
        assert 0 < v["build_s"] < 3600 and v["cpus"] >= 1, v
        assert v["program_size"] > 100_000, v
    # The folder holds the program and the modules it needs: more than one
    # file, and more bytes than the program alone.
    assert standalone["files"] >= 2 and standalone["size"] > standalone["program_size"], standalone
    assert onefile["files"] == 1 and onefile["size"] == onefile["program_size"], onefile
    if onefile["compressed"]:
        assert onefile["size"] < standalone["size"], (onefile, standalone)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("BenchmarkDelivery/impl=py-nuitka "))
    fields = line.split()
    units = {fields[i + 1]: float(fields[i]) for i in range(2, len(fields) - 1, 2)}
    assert units["dist-B"] == standalone["size"] and units["dist-files"] == standalone["files"], line
    assert units["onefile-B"] == onefile["size"] and units["clean-s"] == standalone["build_s"], line


def test_delivery_report_shows_the_builds(nuitka_built, tmp_path):
    out = run_roundbench("run", "delivery", "--impl", "py-nuitka", "--out", str(tmp_path), timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures and not rs.skips, (rs.failures, rs.skips)
    report = (tmp_path / "report.md").read_text()
    assert "compiled by Nuitka" in report
    assert "| py-nuitka: `--standalone`, the folder |" in report
    assert "| py-nuitka-onefile: `--onefile` |" in report


def test_delivery_table_sets_go_beside_and_keeps_a_failed_onefile(tmp_path):
    """The report's rows from the facts alone (no build): a onefile build
    that failed is a row saying why, and Go's hello sits beside."""
    name = "BenchmarkDelivery/impl=py-nuitka"
    standalone = {
        "ok": True,
        "version": "4.3.3",
        "interpreter": "python (CPython 3.11.7, release build)",
        "cpus": 2,
        "build_s": 99.4,
        "size": 15_862_776,
        "files": 20,
        "program_size": 11_142_256,
        "format": "ELF",
        "arch": "x86-64",
        "linkage": "dynamic",
        "interp": "/lib64/ld-linux-x86-64.so.2",
        "needed": ["libm.so.6", "libc.so.6"],
    }
    onefile = {"ok": False, "error": "building hello.py with Nuitka 4.3.3 --onefile failed: a | b"}
    go = {"size": 2_400_000, "format": "ELF", "arch": "x86-64", "linkage": "static", "needed": []}
    lines = [
        benchfmt.fact_line(name, "nuitka:standalone " + json.dumps(standalone)),
        benchfmt.fact_line(name, "nuitka:onefile " + json.dumps(onefile)),
        benchfmt.fact_line("BenchmarkDelivery/impl=go", "program:hello-go " + json.dumps(go)),
        f"{name} 1 5000000 ns/op 99.4 clean-s 15862776 dist-B 20 dist-files\n",
    ]
    (tmp_path / "results.txt").write_text("".join(lines))
    text = document.render(benchfmt.read_dir(tmp_path), "test")
    assert "compiled by Nuitka 4.3.3 for python (CPython 3.11.7, release build)" in text
    assert "| py-nuitka: `--standalone`, the folder | 99.4 s | 15.13 MiB | 20 | ELF x86-64 | dynamic |" in text
    assert (
        "| py-nuitka-onefile: `--onefile` | fails: `building hello.py with Nuitka 4.3.3 --onefile failed: a / b`"
        in text
    )
    assert "| go: hello-go, `CGO_ENABLED=0` | — | 2.29 MiB | 1 | ELF x86-64 | static | — |" in text


# ---- skip rows -------------------------------------------------------------------

VARIANTS = [("startup", "py-nuitka"), ("startup", "py-nuitka-onefile"), ("delivery", "py-nuitka")]


@pytest.mark.parametrize("where", VARIANTS, ids="/".join)
def test_without_nuitka_a_skip_row_says_so(monkeypatch, where):
    rnd = rounds.get(where[0])
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda name, *a: name != "nuitka" and real(name, *a))
    why = launch.unavailable(rnd, rnd.variant(where[1]))
    assert why and "Python module nuitka is not installed" in why and "pip install nuitka" in why, why


@pytest.mark.parametrize("where", VARIANTS, ids="/".join)
def test_without_patchelf_a_skip_row_says_so(monkeypatch, where):
    if not sys.platform.startswith("linux"):
        pytest.skip("patchelf is Linux's")
    _needs_nuitka()
    rnd = rounds.get(where[0])
    real = shutil.which
    monkeypatch.setattr(nuitkabuild.shutil, "which", lambda name, *a, **k: None if name == "patchelf" else real(name))
    why = launch.unavailable(rnd, rnd.variant(where[1]))
    assert why == nuitkabuild.PATCHELF


def test_an_interpreter_on_another_c_library_is_a_reason_before_any_build(monkeypatch, tmp_path):
    """An interpreter started by a Debian root's loader (make pythons' sid
    ones): the reason comes before a minute of compiling, and names the
    root's loader; the machine's own interpreter has none. The loader is
    read from the program (pybuild.elf_interpreter: readelf)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("ELF is Linux's")
    real = pybuild.elf_interpreter
    assert real(os.path.realpath(sys.executable)) in pybuild.SYSTEM_LOADERS
    got = interp.info(sys.executable)
    assert nuitkabuild._foreign_c_library(sys.executable, got) is None
    root_loader = str(tmp_path / "root" / "lib64" / "ld-linux-x86-64.so.2")
    monkeypatch.setattr(
        pybuild,
        "elf_interpreter",
        lambda path: root_loader if path == os.path.realpath(sys.executable) else real(path),
    )
    why = nuitkabuild._foreign_c_library(sys.executable, got)
    assert why and why.startswith(got.describe()), why
    assert root_loader in why and "not the system's loader" in why and "--python PATH" in why, why
    monkeypatch.setattr(pybuild, "elf_interpreter", real)
    for name in interp.cpythons():  # a provisioned root interpreter, where make pythons made one
        own = real(os.path.realpath(name))
        if own and own not in pybuild.SYSTEM_LOADERS:
            why = nuitkabuild._foreign_c_library(name, interp.info(name))
            assert why and own in why, why


def test_a_failed_build_is_a_reason_and_a_finding(monkeypatch, tmp_path):
    """A source Nuitka cannot compile: ensure says why (a skip row), and
    the note it leaves is what the delivery child reports."""
    _needs_nuitka()
    source = tmp_path / "hello.py"
    source.write_text("print('hello, world'\n")  # a syntax error
    monkeypatch.setattr(nuitkabuild, "SOURCE", source)
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path / "build"))
    why = nuitkabuild.ensure(nuitkabuild.STANDALONE, sys.executable)
    assert why and why.startswith("building hello.py with Nuitka ") and "--standalone" in why and "failed" in why, why
    with pytest.raises(nuitkabuild.NotBuilt) as e:
        nuitkabuild.record(nuitkabuild.STANDALONE)
    assert str(e.value) == why


def test_a_build_is_redone_for_another_source_or_version(nuitka_built):
    """The build is current for its record's Nuitka and source hash, and
    stale for any other (checked without building again)."""
    mode = nuitkabuild.STANDALONE
    where = nuitkabuild.folder(mode, interp.running_key())
    rec = nuitkabuild.record(mode)
    assert not nuitkabuild._stale(mode, where, rec["version"], nuitkabuild.source_hash())
    assert nuitkabuild._stale(mode, where, rec["version"] + ".1", nuitkabuild.source_hash())
    assert nuitkabuild._stale(mode, where, rec["version"], "0" * 64)
    assert rec["source"] == "roundbench/pure/hello.py" and rec["tool"] == "Nuitka"
    # Asked again, a current build is not redone.
    before = (where / nuitkabuild.RECORD).stat().st_mtime_ns
    assert nuitkabuild.ensure(mode, sys.executable) is None
    assert (where / nuitkabuild.RECORD).stat().st_mtime_ns == before


def test_the_hello_source_prints_what_the_launcher_wants():
    out = subprocess.run([sys.executable, str(nuitkabuild.SOURCE)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "hello, world\n"
