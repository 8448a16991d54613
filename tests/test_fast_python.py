"""Python at its fastest in rounds temps and cores: numpy over cache-sized
blocks, numexpr and numba (a fused loop, prange, nogil under threads), each
against the shared vectors and the closed form, in process and as the
runner's child, bad input refused, numba's import and compile reported, and a skip
row saying why where the library is missing."""

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import roundbench
from roundbench import rounds
from roundbench.pure import cores as pure
from roundbench.results import benchfmt
from roundbench.rounds import cores, temps
from roundbench.rounds.loop import expected
from roundbench.run import launch
from roundbench.runtimes import interp, provision

from conftest import child_env, load_at_least, run_roundbench

numba = pytest.importorskip("numba")
ne = pytest.importorskip("numexpr")

# (round, variant, the module its `requires` names)
NEW = [
    (temps.ROUND, "py-numpy-blocked", "numpy"),
    (temps.ROUND, "py-numexpr", "numexpr"),
    (temps.ROUND, "py-numba", "numba"),
    (cores.ROUND, "py-numba-prange", "numba"),
    (cores.ROUND, "py-numba-nogil", "numba"),
]
TEMPS_NEW = [name for rnd, name, _ in NEW if rnd is temps.ROUND]
CORES_NEW = [name for rnd, name, _ in NEW if rnd is cores.ROUND]

B = temps.BLOCK
# The block's edges for the blocked variant; 0, 1, 7 and an odd size for all.
SIZES = [0, 1, 7, 1001, B - 1, B, B + 1, 2 * B + 3]


# ---- temps, in process ------------------------------------------------------------


@pytest.fixture(scope="module")
def temps_fns():
    fused = temps.numba_fused()
    buf = np.zeros(B, dtype=np.int64)
    return {
        "py-numpy-blocked": lambda a: temps.blocked(a, buf),
        "py-numexpr": temps.numexpr_sum,
        "py-numba": lambda a: int(fused(a)),
    }


@pytest.mark.parametrize("n", SIZES)
def test_temps_variants_agree_with_the_core_and_the_closed_form(temps_fns, n):
    a = np.arange(n, dtype=np.int64)
    want = expected(n)
    assert roundbench.temps(a) == want
    for name, fn in temps_fns.items():
        assert fn(a) == want, name


def test_temps_variants_on_the_shared_vectors(temps_fns):
    for v in load_at_least("temps", 7):
        a = np.arange(int(v["n"]), dtype=np.int64)
        for name, fn in temps_fns.items():
            assert fn(a) == int(v["sum"]), (name, v)
    for v in load_at_least("temps-array", 3):
        a = np.array([] if v["a"] == "-" else [int(x) for x in v["a"].split(",")], dtype=np.int64)
        for name, fn in temps_fns.items():
            assert fn(a) == int(v["sum"]), (name, v)


def test_the_blocked_variant_reuses_one_small_buffer():
    buf = np.zeros(16, dtype=np.int64)
    before = buf.ctypes.data
    assert temps.blocked(np.arange(1000, dtype=np.int64), buf) == expected(1000)
    assert buf.ctypes.data == before and buf.nbytes == 128


def test_numexpr_fuses_the_expression_into_one_reduction():
    """numexpr compiles the expression into one program ending in the sum
    (no full-size temporary comes back to Python)."""
    prog = ne.disassemble(ne.NumExpr(temps.NUMEXPR_EXPRESSION, [("a", np.int64)]))
    assert [op[0] for op in prog] == [b"mul_lll", b"mod_lll", b"sum_lln"]


# ---- temps, the runner's children -------------------------------------------------


def _temps_child(impl, *params, env=None):
    cmd = [sys.executable, "-m", "roundbench.run.child", "temps", impl, *params]
    return subprocess.run(cmd, capture_output=True, text=True, env=env or child_env(), timeout=120)


def _line(out):
    return benchfmt.parse_bench_line([ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")][0])


@pytest.mark.parametrize("impl", TEMPS_NEW)
@pytest.mark.parametrize("n", [0, 1, 7, 1001, B, B + 1])
def test_temps_child_checks_itself(built, impl, n):
    out = _temps_child(impl, f"n={n}")
    assert out.returncode == 0, out.stderr
    assert f"result: sum={expected(n)}" in out.stdout
    r = _line(out)
    assert r.name == f"BenchmarkTemps/impl={impl}/n={n}"
    assert r.metrics["traffic-B"] == 8 * n  # one read of a from memory, for all three
    assert ("compile-ns" in r.metrics) == ("import-ns" in r.metrics) == (impl == "py-numba")
    if impl == "py-numba":
        assert r.metrics["compile-ns"] > 0 and r.metrics["import-ns"] > 0
        assert f"fact: tool numba {numba.__version__}, llvmlite " in out.stdout


@pytest.mark.parametrize("impl", TEMPS_NEW)
@pytest.mark.parametrize(
    "arg, msg", [("n=-1", "n=-1 is out of range"), ("n=abc", "not an integer"), ("n=3037000501", "out of range")]
)
def test_temps_child_rejects_bad_n(built, impl, arg, msg):
    out = _temps_child(impl, arg)
    assert out.returncode == 2 and msg in out.stderr and "Benchmark" not in out.stdout, out.stderr


# ---- cores, in process ------------------------------------------------------------


@pytest.fixture(scope="module")
def cores_runs():
    prange_sum = cores.numba_prange()
    range_sum = cores.numba_nogil()
    pool = numba.config.NUMBA_NUM_THREADS

    def on_prange(n, w):
        # This process's pool is numba's default (the machine's CPUs): the
        # child's is T (NUMBA_NUM_THREADS, the variant's env), checked below.
        numba.set_num_threads(min(w, pool))
        return int(prange_sum(n))

    return {"py-numba-prange": on_prange, "py-numba-nogil": lambda n, w: pure.on_threads(n, w, range_sum)}


@pytest.mark.parametrize("name", CORES_NEW)
def test_cores_variants_on_the_shared_vectors(cores_runs, name):
    for v in load_at_least("cores", 8):
        assert cores_runs[name](int(v["n"]), int(v["workers"])) == int(v["sum"]), v
    for n in (0, 1, 7, 1001):
        assert cores_runs[name](n, 2) == expected(n)


def test_timed_pair_holds_the_numba_variants_to_one_worker(cores_runs):
    for name, run in cores_runs.items():
        out = pure.timed_pair(1001, 2, run)
        assert out["sum"] == expected(1001) and out["t1_ns"] > 0 and out["tn_ns"] > 0, name


def test_prange_runs_on_a_pool_of_t_threads():
    v = cores.ROUND.variant("py-numba-prange")
    assert v.env({"workers": 5}) == {"NUMBA_NUM_THREADS": "5"}
    assert rounds.threads_of(cores.ROUND, v, {"workers": 5}) == "many"
    assert cores.ROUND.models["py-numba-prange"] == cores.ROUND.models["py-numba-nogil"] == "os-thread"


# ---- cores, the runner's children -------------------------------------------------


def _cores_child(impl, n, workers, env_hook=True):
    env = child_env()
    v = cores.ROUND.variant(impl)
    if env_hook and v.env is not None:
        env.update(v.env({"n": n, "workers": workers}))
    cmd = [sys.executable, "-m", "roundbench.run.child", "cores", impl, f"n={n}", f"workers={workers}"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("impl", CORES_NEW)
@pytest.mark.parametrize("n, workers", [(0, 1), (1, 2), (7, 3), (1001, 2), (100001, 16)])
def test_cores_child_checks_itself(built, impl, n, workers):
    out = _cores_child(impl, n, workers)
    assert out.returncode == 0, out.stderr
    assert f"result: sum={expected(n)}" in out.stdout
    r = _line(out)
    assert r.name == f"BenchmarkCores/impl={impl}/n={n}/workers={workers}"
    assert r.metrics["compile-ns"] > 0 and r.metrics["import-ns"] > 0 and r.metrics["speedup"] > 0
    assert f"fact: tool numba {numba.__version__}, llvmlite " in out.stdout
    assert r.metrics["efficiency"] == pytest.approx(r.metrics["speedup"] / workers, rel=1e-3)
    if impl == "py-numba-prange":
        layer = [ln.split()[2] for ln in out.stdout.splitlines() if ln.startswith("fact: numba-threading-layer ")]
        assert layer and layer[0] in ("tbb", "omp", "workqueue"), out.stdout


def test_prange_child_without_its_pool_says_so(built):
    out = _cores_child("py-numba-prange", 1001, 64, env_hook=False)
    assert out.returncode == 4, out.stderr
    assert "fewer than workers=64: run with NUMBA_NUM_THREADS=64" in out.stderr


@pytest.mark.parametrize("impl", CORES_NEW)
@pytest.mark.parametrize(
    "arg, msg",
    [("workers=0", "workers=0 is out of range"), ("workers=4097", "workers=4097 is out of range"),
     ("n=-1", "n=-1 is out of range")],
)  # fmt: skip
def test_cores_child_rejects_bad_arguments(built, impl, arg, msg):
    cmd = [sys.executable, "-m", "roundbench.run.child", "cores", impl, arg]
    out = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=120)
    assert out.returncode == 2 and msg in out.stderr, out.stderr


# ---- levels, declarations ---------------------------------------------------------


@pytest.mark.parametrize("rnd, name, module", NEW, ids=[n for _, n, _ in NEW])
def test_each_is_an_ecosystem_variant_that_requires_its_module(rnd, name, module):
    v = rnd.variant(name)
    assert v.level == "ecosystem" and v.program == "python"
    assert v.requires is not None and v.requires() is None  # installed here (importorskip above)


# ---- without its library: a skip row that says why ---------------------------------


@pytest.mark.parametrize("rnd, name, module", NEW, ids=[n for _, n, _ in NEW])
def test_a_missing_module_is_a_skip_row_saying_so(monkeypatch, rnd, name, module):
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda m, exe, own: m != module and real(m, exe, own))
    why = launch.unavailable(rnd, rnd.variant(name))
    assert why == f"Python module {module} is not installed (pip install {module})"


def test_no_numba_wheel_for_a_free_threaded_python_says_so(monkeypatch, tmp_path):
    """Under a free-threaded interpreter that `roundbench pythons` made, whose
    venv got no numba because PyPI has no wheel of it for that build, the
    numba variants' skip rows say so."""
    exe = str(tmp_path / "venvs" / "cpython-3.13.5t" / "bin" / "python")
    got = provision.Interpreter(
        name="cpython-3.13.5t", version="3.13.5", python=exe, base=exe, source="test", build="test",
        seconds=0.0, bytes=0, made="", free_threaded=True, missing_wheels=["numba==0.68.1"],
    )  # fmt: skip
    monkeypatch.setattr(provision, "read_manifest", lambda root=None: {got.name: got})
    monkeypatch.setattr(interp, "_has_module", lambda m, exe, own: m != "numba")
    monkeypatch.setattr(interp, "info", lambda exe=None: SimpleNamespace(describe=lambda: "CPython 3.13.5t"))
    for rnd, name, module in NEW:
        why = rounds.ask(rnd.variant(name).requires, exe)
        if module != "numba":
            assert why is None, name
            continue
        assert why == (
            "Python module numba is not installed for CPython 3.13.5t: PyPI has no wheel of numba==0.68.1 for "
            "cpython-3.13.5t, and roundbench pythons installs wheels only (pip install numba builds it from source)"
        ), name


@pytest.fixture
def shadowed(tmp_path):
    """A PYTHONPATH on which numba and numexpr are found but fail to import,
    as they do where they are not installed: what the child sees when a
    runtime lacks them after the runner's check."""
    for module in ("numba", "numexpr"):
        (tmp_path / module).mkdir()
        message = f"No module named {module!r}"
        (tmp_path / module / "__init__.py").write_text(f"raise ModuleNotFoundError({message!r}, name={module!r})\n")
    env = child_env()
    env["PYTHONPATH"] = str(tmp_path) + ":" + env["PYTHONPATH"]
    return env


@pytest.mark.parametrize("impl", ["py-numexpr", "py-numba"])
def test_the_child_without_its_module_cannot_run_and_says_which(built, shadowed, impl):
    out = _temps_child(impl, "n=10", env=shadowed)
    module = impl.split("-")[1]
    assert out.returncode == 4, out.stderr
    assert out.stderr.startswith("cannot run here: ") and f"Python module {module} is not installed" in out.stderr


def test_the_runner_keeps_a_skip_row_for_a_child_that_cannot_run(built, shadowed, tmp_path):
    out = run_roundbench(
        "run", "temps", "--impl", "py-numba", "--impl", "py-numpy-blocked", "--n", "1000", "--runs", "1",
        "--out", str(tmp_path / "out"), "--no-report", env=shadowed,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path / "out")
    assert not rs.failures
    assert [r.params["impl"] for r in rs.runs] == ["py-numpy-blocked"]
    assert rs.skips and all("impl=py-numba/" in s.name for s in rs.skips)
    assert all("Python module numba is not installed" in s.reason for s in rs.skips)
