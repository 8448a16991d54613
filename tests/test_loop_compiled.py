"""Round loop's compiled Python variants (py-numba, py-cython, py-mypyc,
py-pythran): each built module on the shared vectors, each child against
expected() and refusing a bad n as py does; the build that
runtimes/aotbuild.py does before the runs (cached, rebuilt when stale, a
failure said); and the skip row each variant is when its tool is
missing."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from roundbench.rounds.loop import ROUND, expected
from roundbench.run import launch
from roundbench.run.plans import make_plans
from roundbench.runtimes import aotbuild, extbuild, interp

from conftest import child_env, load_vectors

COMPILED = ("py-numba", "py-cython", "py-mypyc", "py-pythran")
# The Python module whose absence makes each variant a skip row, and the
# tool its reason must name.
TOOLS = {"py-numba": "numba", "py-cython": "Cython", "py-mypyc": "mypyc", "py-pythran": "pythran"}
BUILT = {"py-cython": "loop_cython", "py-mypyc": "loop_mypyc", "py-pythran": "loop_pythran"}
# The tool each built module's record and `tool` fact name.
TOOL_FACTS = {"py-cython": "Cython", "py-mypyc": "mypyc", "py-pythran": "Pythran"}
LOOP = load_vectors("loop")
LOOP_ERRORS = load_vectors("loop-error")
assert len(LOOP) >= 10 and len(LOOP_ERRORS) >= 4, "too few loop or loop-error vectors"


def left_out(impl: str) -> bool:
    """requirements-dev.txt leaves pythran out below Python 3.12 (its
    comment says why): there its absence is no setup failure."""
    return impl == "py-pythran" and sys.version_info < (3, 12) and importlib.util.find_spec("pythran") is None


def skip_if_left_out(impl: str) -> None:
    if left_out(impl):
        pytest.skip("pythran is not installed: requirements-dev.txt installs it from Python 3.12 on")


@pytest.fixture(autouse=True)
def fresh_answers():
    """ensure() answers once per process and interpreter: each test asks anew."""
    aotbuild._ensure.cache_clear()
    yield
    aotbuild._ensure.cache_clear()


@pytest.fixture(scope="module")
def built_modules():
    """Cython's, mypyc's and Pythran's modules built for this interpreter
    (`make build` builds them; built here where they are missing or
    stale), but for a tool requirements-dev.txt leaves out here."""
    for impl, name in BUILT.items():
        if not left_out(impl):
            why = aotbuild.ensure(name, sys.executable)
            assert why is None, why


def child(impl: str, *params: str, env=None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "roundbench.run.child", "loop", impl, *params]
    return subprocess.run(cmd, capture_output=True, text=True, env=env or child_env(), timeout=120)


def facts(stdout: str) -> dict:
    return dict(ln[len("fact: ") :].split(" ", 1) for ln in stdout.splitlines() if ln.startswith("fact: "))


@pytest.mark.parametrize("impl", BUILT)
@pytest.mark.parametrize("v", LOOP, ids=lambda v: f"n={v['n']}")
def test_built_module_on_the_shared_vectors(built_modules, impl, v):
    skip_if_left_out(impl)
    module, _ = aotbuild.load(BUILT[impl])
    assert module.loop(int(v["n"])) == int(v["sum"])


@pytest.mark.parametrize("impl", COMPILED)
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 12_345])
def test_child_agrees_with_expected(built_modules, impl, n):
    skip_if_left_out(impl)
    out = child(impl, f"n={n}")
    assert out.returncode == 0, out.stderr
    assert f"result: sum={expected(n)}\n" in out.stdout
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark"))
    assert line.startswith(f"BenchmarkLoop/impl={impl}/n={n} 1 ")
    got = facts(out.stdout)
    if impl == "py-numba":
        # The first call's compile and numba's import, timed apart from the run.
        fields = line.split()
        units = {fields[i + 1]: float(fields[i]) for i in range(2, len(fields) - 1, 2)}
        assert units["compile-ns"] > 0 and units["import-ns"] > 0, line
        assert got["tool"].startswith("numba "), got
    else:
        assert got["tool"].startswith(TOOL_FACTS[impl] + " "), got
        assert int(got["build-ns"]) > 0, got


@pytest.mark.parametrize("impl", COMPILED)
@pytest.mark.parametrize(
    "arg, msg",
    [("n=abc", "not an integer"), *((f"n={v['n']}", f"n={v['n']} is out of range") for v in LOOP_ERRORS)],
)
def test_child_refuses_bad_n_as_py_does(built_modules, impl, arg, msg):
    skip_if_left_out(impl)
    out, py = child(impl, arg), child("py", arg)
    assert out.returncode == py.returncode == 2, out.stderr
    assert msg in out.stderr
    assert out.stderr == py.stderr


def test_mypyc_leaves_the_pure_module_interpreted(built_modules):
    """mypyc compiles a copy under another name: `py` still imports the
    interpreted pure/loop.py."""
    compiled, record = aotbuild.load("loop_mypyc")
    from roundbench.pure import loop as pure

    assert pure.__file__.endswith(os.path.join("pure", "loop.py"))
    assert compiled.__file__.endswith(".so") and compiled.__name__ == "loop_mypyc"
    assert compiled.loop(1001) == pure.loop(1001) == expected(1001)
    assert record["tool"] == "mypyc" and record["source"] == "roundbench/pure/loop.py"


def test_pythran_compiles_the_pure_module_with_its_exports(built_modules):
    """Pythran compiles pure/loop.py unchanged, its exports read from
    loop.pythran beside it (copied under the module's name)."""
    skip_if_left_out("py-pythran")
    compiled, record = aotbuild.load("loop_pythran")
    from roundbench.pure import loop as pure

    assert pure.__file__.endswith(os.path.join("pure", "loop.py"))
    assert compiled.__name__ == "loop_pythran" and hasattr(compiled, "__pythran__")
    assert "loop(int64)" in compiled.loop.__doc__  # the export, as pythran lists it
    assert compiled.loop(1001) == pure.loop(1001) == expected(1001)
    assert record["tool"] == "Pythran" and record["source"] == "roundbench/pure/loop.py"
    work = aotbuild.folder("loop_pythran", interp.key(sys.executable)) / "work"
    assert (work / "loop_pythran.pythran").read_text() == (aotbuild._PURE / "loop.pythran").read_text()


def test_child_says_a_module_not_built(tmp_path):
    env = {**child_env(), "ROUNDBENCH_BUILD": str(tmp_path)}
    out = child("py-cython", "n=10", env=env)
    assert out.returncode == 4, out.stderr
    assert "cannot run here: loop_cython is not built for" in out.stderr


# ---- the build before the runs ----------------------------------------------------


def _write(path, text, mtime_ns):
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_build_is_cached_and_redone_when_its_source_is_newer(tmp_path, monkeypatch):
    source = tmp_path / "src" / "tiny.pyx"
    source.parent.mkdir()
    _write(source, "def loop(long long n):\n    return n\n", 1_000_000_000_000_000_000)
    monkeypatch.setitem(aotbuild.MODULES, "tiny", aotbuild.Module("tiny", aotbuild.CYTHON, source, "Cython"))
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path / "build"))
    assert aotbuild.ensure("tiny", sys.executable) is None
    where = aotbuild.folder("tiny", interp.key(sys.executable))
    target = where / f"tiny{interp.info(sys.executable).ext_suffix}"
    record = json.loads((where / "tiny.build.json").read_text())
    assert record["tool"] == "Cython" and record["build_ns"] > 0
    built = target.stat().st_mtime_ns

    aotbuild._ensure.cache_clear()
    assert aotbuild.ensure("tiny", sys.executable) is None
    assert target.stat().st_mtime_ns == built, "rebuilt though nothing changed"

    _write(source, "def loop(long long n):\n    return n + 1\n", built + 1_000_000_000)
    aotbuild._ensure.cache_clear()
    assert aotbuild.ensure("tiny", sys.executable) is None
    assert target.stat().st_mtime_ns > built, "not rebuilt after its source changed"


def test_a_newer_exports_file_is_stale(tmp_path, monkeypatch):
    """Pythran's build is stale when loop.pythran changes, not only loop.py."""
    source, spec = tmp_path / "tiny.py", tmp_path / "tiny.pythran"
    _write(source, "def loop(n):\n    return n\n", 1_000_000_000_000_000_000)
    _write(spec, "export loop(int64)\n", 1_000_000_000_000_000_000)
    m = aotbuild.Module("tiny", aotbuild.PYTHRAN, source, "pythran", (spec,))
    target = tmp_path / "tiny.so"
    _write(target, "", 1_000_000_001_000_000_000)
    (tmp_path / "tiny.build.json").write_text(json.dumps({"version": "0.19.0"}))
    assert not aotbuild._stale(m, target, "0.19.0")
    _write(spec, "export loop(int)\n", 1_000_000_002_000_000_000)
    assert aotbuild._stale(m, target, "0.19.0")


def test_another_version_of_the_tool_is_stale(tmp_path):
    m = aotbuild.MODULES["loop_cython"]
    target = tmp_path / "loop_cython.so"
    target.write_bytes(b"")
    (tmp_path / "loop_cython.build.json").write_text(json.dumps({"version": "3.3.1"}))
    assert not aotbuild._stale(m, target, "3.3.1")
    assert aotbuild._stale(m, target, "3.4.0")


def test_a_failed_build_is_a_skip_row_that_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    monkeypatch.setattr(extbuild.Toolchain, "missing", lambda self, got: "no C compiler: cc is not on PATH")
    why = launch.unavailable(ROUND, ROUND.variant("py-cython"))
    assert why is not None and why.startswith("building loop_cython with Cython "), why
    assert why.endswith("failed: no C compiler: cc is not on PATH"), why


def test_a_pythran_build_without_a_cxx_compiler_is_a_skip_row(tmp_path, monkeypatch):
    """Pythran writes C++: the reason names the C++ compiler (CXX) it lacks."""
    skip_if_left_out("py-pythran")
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler-x")
    why = launch.unavailable(ROUND, ROUND.variant("py-pythran"))
    assert why is not None and why.startswith("building loop_pythran with Pythran "), why
    assert why.endswith("failed: no C++ compiler: no-such-compiler-x is not on PATH (Debian: g++)"), why


def test_a_tool_missing_for_the_build_says_what_to_install(monkeypatch):
    monkeypatch.setattr(aotbuild, "tool_version", lambda dist, exe: None)
    why = aotbuild.ensure("loop_pythran", sys.executable)
    assert why == f"Pythran is not installed for {interp.info(sys.executable).describe()} (pip install pythran)"


# ---- a missing tool is a skip row ---------------------------------------------------


@pytest.mark.parametrize("impl", COMPILED)
def test_missing_tool_is_a_skip_row_naming_it(impl, monkeypatch):
    """The runner's plan for the variant, with its tool's module made to look
    absent (the lookup `requires` asks): a skip row, never a dropped one."""
    real = interp._has_module
    tool = TOOLS[impl]
    monkeypatch.setattr(interp, "_has_module", lambda name, exe, own: name != tool and real(name, exe, own))
    (plan,) = make_plans([ROUND], {impl}, quick=True, overrides={})
    assert plan.variants == []
    ((v, why),) = plan.skipped
    assert v.name == impl
    assert f"Python module {tool} is not installed" in why, why


def test_compiled_variants_are_ecosystem_level():
    for impl in COMPILED:
        assert ROUND.variant(impl).level == "ecosystem"


def test_the_child_looks_where_the_runner_builds():
    """A child finds its modules under running_key(), asked of itself; the
    runner builds them under key(), asked of the interpreter by a probe."""
    assert interp.running_key() == interp.key(sys.executable)


def test_the_child_looks_where_the_runner_builds_under_pypy(pypy):
    code = "from roundbench.runtimes import interp; print(interp.running_key())"
    out = subprocess.run([pypy, "-c", code], capture_output=True, text=True, env=child_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == interp.key(pypy)


def test_report_section_says_each_compile_and_build():
    from types import SimpleNamespace

    from roundbench.rounds.loop import report_section

    def cell(facts, compile_ns=None):
        return SimpleNamespace(facts=facts, median_of=lambda unit: compile_ns if unit == "compile-ns" else None)

    cells = {
        "py": cell({}),
        "py-numba": cell({"tool": "numba 0.68.1"}, 450e6),
        "py-cython": cell({"tool": "Cython 3.3.1", "build-ns": "1830000000"}),
        "py-mypyc": cell({"tool": "mypyc 2.4.1", "build-ns": "4020000000"}),
        "py-pythran": cell({"tool": "Pythran 0.19.0", "build-ns": "3660000000"}),
    }
    text = report_section({"n": 20_000_000}, cells, {})
    assert "py-numba compiles in every process, on its first call: 450 ms (numba 0.68.1)" in text
    assert "py-cython was built once for its interpreter, in 1.83 s (Cython 3.3.1)" in text
    assert "py-mypyc was built once for its interpreter, in 4.02 s (mypyc 2.4.1)" in text
    assert "py-pythran was built once for its interpreter, in 3.66 s (Pythran 0.19.0)" in text
    assert report_section({"n": 10}, {"py": cells["py"]}, {}) == ""


def test_the_break_even_table_reads_the_costs_against_the_loops():
    from roundbench.judge.cells import Cell
    from roundbench.results import benchfmt
    from roundbench.rounds import loop as loop_round

    def cell(impl, ns_iter, **extra):
        c = Cell(impl)
        metrics = {"ns/iter": ns_iter, **{k.replace("_", "-"): v for k, v in extra.items()}}
        c.runs.append(benchfmt.Run(f"BenchmarkLoop/impl={impl}/n=20000000", 1, {"ns/op": 1.0, **metrics}, {}))
        return c

    cells = {
        "py": cell("py", 40.0),
        "go": cell("go", 0.9),
        "go-v3": cell("go-v3", 0.7),
        "py-numba": cell("py-numba", 0.5, compile_ns=200e6, import_ns=300e6),
        "py-cython": cell("py-cython", 0.6),
        "py-pythran": cell("py-pythran", 0.8),
    }
    cells["py-cython"].facts["build-ns"] = str(int(2e9))
    cells["py-pythran"].facts["build-ns"] = str(int(4e9))
    text = loop_round.break_even(cells)
    # numba against py: 200 ms / (40 - 0.5) ns per iteration
    assert "| py-numba | compile 200 ms, every process | py | 5,063,291 |" in text
    # against Go's fastest build (go-v3), import and compile together: 500 ms / 0.2 ns
    assert (
        "| py-numba | import 300 ms + compile 200 ms, every process | go-v3, from start to exit | 2,500,000,000 |"
        in text
    )
    assert "| py-cython | build 2 s, once per interpreter | py | 50,761,421 |" in text
    # 4 s / (40 - 0.8) ns per iteration
    assert "| py-pythran | build 4 s, once per interpreter | py | 102,040,816 |" in text
    # A numba loop slower than Go's never catches it.
    cells["py-numba"] = cell("py-numba", 0.8, compile_ns=200e6, import_ns=300e6)
    assert "go-v3, from start to exit | never: 0.8 against 0.7 ns/iter |" in loop_round.break_even(cells)
