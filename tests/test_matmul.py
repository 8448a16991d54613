"""Round matmul: every variant against the shared vectors, buffer edge
cases, bad input, and the BLAS provenance."""

import math
from array import array

import numpy as np
import pytest

import roundbench
from roundbench.runtimes import programs
from roundbench.pure.matmul import matmul as pure_matmul
from roundbench.rounds import matmul as rnd

from conftest import load_vectors

SEEDED = load_vectors("matmul")
EXPLICIT = load_vectors("matmul-explicit")


def filled(n, seed):
    a, b = np.empty((n, n)), np.empty((n, n))
    roundbench.matmul_fill(a, b, seed)
    return a, b


def products(a, b):
    """name -> c, by every Python-side way to compute the product."""
    n = a.shape[0]
    out = {}
    for name, fn in (("blas", roundbench.matmul_blas), ("naive", roundbench.matmul_naive)):
        c = np.full((n, n), np.nan)
        fn(a, b, c)
        out[name] = c
    out["numpy"] = a @ b
    if n <= 64:  # pure Python is O(n^3) at ~30 MFLOP/s
        out["pure"] = np.array(pure_matmul(a.tolist(), b.tolist()), dtype=float).reshape(n, n)
    return out


@pytest.mark.parametrize("v", SEEDED, ids=lambda v: f"n={v['n']}")
def test_every_variant_gives_the_vector_checksum(v):
    n, want = int(v["n"]), int(v["checksum"])
    a, b = filled(n, int(v["seed"]))
    for name, c in products(a, b).items():
        assert roundbench.matmul_verify(a, b, c) == want, name


def test_fill_matches_an_independent_generator():
    # splitmix64, written again here: the vectors do not rest on the C alone.
    mask = (1 << 64) - 1
    state, vals = 7, []
    for _ in range(2 * 9):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        vals.append((z ^ (z >> 31)) % 9 - 4)
    a, b = filled(3, 7)
    assert a.ravel().tolist() == vals[:9] and b.ravel().tolist() == vals[9:]


def test_the_explicit_vectors_are_all_read():
    # The last one holds the checksum's ties: a dropped vector must show.
    assert len(EXPLICIT) >= 5


@pytest.mark.parametrize("v", EXPLICIT, ids=lambda v: v["a"])
def test_explicit_products(v):
    a, b, want = (np.array([float(x) for x in v[k].split(",")]) for k in ("a", "b", "c"))
    n = math.isqrt(len(a))
    a, b, want = a.reshape(n, n), b.reshape(n, n), want.reshape(n, n)
    for name, c in products(a, b).items():
        assert c.tolist() == want.tolist(), name
    # The checksum rounds each entry to nearest, ties to even.
    assert roundbench.matmul_verify(a, b, want) == int(v["checksum"])


def test_pure_python_on_lists():
    assert pure_matmul([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]) == [[19.0, 22.0], [43.0, 50.0]]
    assert pure_matmul([], []) == []


def test_any_contiguous_float64_buffer_and_1d():
    a = array("d", [1, 2, 3, 4])
    b = array("d", [5, 6, 7, 8])
    c = array("d", bytes(32))
    roundbench.matmul_blas(a, b, c)
    assert list(c) == [19, 22, 43, 50]
    m = memoryview(bytearray(32)).cast("d")
    roundbench.matmul_naive(a, b, m)
    assert m.tolist() == [19, 22, 43, 50]


def test_empty():
    e = np.empty((0, 0))
    roundbench.matmul_blas(e, e, np.empty((0, 0)))
    roundbench.matmul_naive(e, e, np.empty((0, 0)))
    assert roundbench.matmul_verify(e, e, e) == 0


def test_a_and_b_may_alias():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    c = np.empty((2, 2))
    roundbench.matmul_blas(a, a, c)
    assert c.tolist() == [[7, 10], [15, 22]]


def test_in_place_zero_copy():
    a, b = filled(8, 1)
    c = np.zeros((8, 8))
    before = c.ctypes.data
    roundbench.matmul_blas(a, b, c)
    assert c.ctypes.data == before and (c == a @ b).all()


FUNCS = [roundbench.matmul_blas, roundbench.matmul_naive]


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_bad_buffers(fn):
    name = fn.__name__
    a, b = filled(4, 1)
    c = np.empty((4, 4))
    with pytest.raises(TypeError, match=f"{name}\\(\\) argument 'a' must hold float64"):
        fn(a.astype(np.float32), b, c)
    with pytest.raises(TypeError, match="argument 'b' must hold float64"):
        fn(a, b.astype(np.int64), c)
    with pytest.raises(TypeError, match="argument 'a' must be a buffer"):
        fn([[1.0]], b, c)
    with pytest.raises(ValueError, match="argument 'c' must be C-contiguous"):
        fn(a, b, np.empty((4, 4), order="F"))
    with pytest.raises(ValueError, match="argument 'a' must be C-contiguous"):
        fn(np.asfortranarray(a), b, c)
    with pytest.raises(ValueError, match="argument 'b' must be C-contiguous"):
        fn(a, np.empty((4, 8))[:, ::2], c)
    with pytest.raises(ValueError, match="argument 'c' must be square"):
        fn(a, b, np.empty((4, 5)))
    with pytest.raises(ValueError, match="argument 'b' is 3 x 3 but a is 4 x 4"):
        fn(a, np.empty((3, 3)), c)
    with pytest.raises(ValueError, match="argument 'a' must be an n x n matrix"):
        fn(np.empty(5), b, c)
    ro = np.empty((4, 4))
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="argument 'c' must be writable"):
        fn(a, b, ro)
    with pytest.raises(ValueError, match="argument 'c'.*must not overlap"):
        fn(a, b, a)
    with pytest.raises(ValueError, match="argument 'c'.*must not overlap"):
        big = np.zeros(32)
        fn(big[:16], b, big[8:24])
    with pytest.raises(TypeError, match="takes exactly 3 arguments"):
        fn(a, b)


def test_verify_rejects_a_wrong_product():
    a, b = filled(17, 1)
    c = a @ b
    c[9, 4] += 1
    with pytest.raises(ValueError, match="matmul_verify\\(\\) argument 'c'"):
        roundbench.matmul_verify(a, b, c)


def test_blas_get_info_and_threads():
    info = roundbench.blas_get_info()
    assert "OpenBLAS" in info["config"] and info["corename"] and info["library"]
    roundbench.blas_set_threads(1)
    assert roundbench.blas_get_info()["threads"] == 1
    with pytest.raises(ValueError, match="'n'"):
        roundbench.blas_set_threads(0)


# The core dlopen()s the BLAS on first use: `import roundbench` must stay
# cheap (no OpenBLAS mapped, no thread started). Fresh interpreters, since
# this one has long loaded it; array('d') rather than numpy, which maps its
# own OpenBLAS.
LAZY_PROBE = """
import sys, roundbench
from array import array

def blas_mapped():
    return "openblas" in open("/proc/self/maps").read().lower()

def threads():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("Threads:"))

print("import", blas_mapped(), threads())
a, b, c = array("d", [1, 2, 3, 4]), array("d", [5, 6, 7, 8]), array("d", bytes(32))
roundbench.matmul_fill(a, b, 1)
roundbench.matmul_naive(a, b, c)
roundbench.matmul_blas(array("d"), array("d"), array("d"))
print("naive", blas_mapped())
try:
    roundbench.matmul_blas(a, b, c)
    print("blas", blas_mapped(), roundbench.matmul_verify(a, b, c) is not None)
except OSError as e:
    print("oserror", e)
"""


def _probe(env=None):
    import subprocess
    import sys

    from conftest import child_env

    full = child_env()
    full.pop("ROUNDBENCH_BLAS_LIB", None)
    full.update(env or {})
    p = subprocess.run([sys.executable, "-c", LAZY_PROBE], capture_output=True, text=True, env=full, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_import_does_not_load_the_blas():
    assert _probe() == ["import False 1", "naive False", "blas True True"]


def test_a_missing_blas_is_an_oserror_naming_the_file():
    lines = _probe({"ROUNDBENCH_BLAS_LIB": "/nonexistent/libnoblas.so"})
    assert lines[:2] == ["import False 1", "naive False"]
    assert lines[2].startswith("oserror matmul_blas(): cannot load the BLAS") and "libnoblas" in lines[2], lines


def test_blas_set_library():
    from roundbench import _core

    roundbench.blas_get_info()  # loaded
    with pytest.raises(TypeError, match="'path'"):
        _core.blas_set_library(3)
    with pytest.raises(ValueError, match="'path'"):
        _core.blas_set_library("")
    with pytest.raises(ValueError, match="'path'.*already loaded"):
        _core.blas_set_library("/nonexistent/libnoblas.so")


def test_mismatch_detection():
    same = {"version": "0.3.31", "corename": "Haswell", "threads": "1"}
    infos = {v: dict(same) for v in rnd.BLAS_VARIANTS}
    # A variant on a BLAS of its own by design: its version is no mismatch.
    infos["go-gonum-netlib"] = {"version": "0.3.21", "corename": "Prescott", "threads": "1"}
    assert rnd.mismatches({1: infos}) == []
    infos["c-blas"] = {"version": "0.3.21", "corename": "Prescott", "threads": "1"}
    infos["go-c"] = dict(same, threads="2")
    got = rnd.mismatches({1: infos})
    assert any("c-blas" in w and "Prescott" in w for w in got)
    assert any("go-c runs 2 BLAS thread" in w for w in got)
    assert not any("go-gonum-netlib" in w for w in got)
    # Its thread count is held to the cell's like the others'.
    infos["go-gonum-netlib"]["threads"] = "2"
    assert "BLAS mismatch: go-gonum-netlib runs 2 BLAS thread(s) where 1 were asked for" in rnd.mismatches({1: infos})


def test_provenance_probes_every_blas_variant(built):
    items, warnings = rnd.provenance()
    for v in rnd.BLAS_VARIANTS:
        line = items[f"blas-{v}"]
        assert "threads=1:" in line and "1 thread(s)" in line and "unavailable" not in line, line
    # Built as docs/rounds/matmul.md says, the core runs numpy's OpenBLAS version and kernel.
    assert warnings == []
    netlib = items["blas-go-gonum-netlib"]
    if programs.missing(rnd.NETLIB_PROGRAM):
        assert netlib.startswith("threads=1: unavailable (") and "not built" in netlib, netlib
        assert items["matmul-go-gonum-netlib"] == f"{rnd.NETLIB_PROGRAM} not built"
    else:
        assert "threads=1:" in netlib and "1 thread(s)" in netlib and "OpenBLAS 0." in netlib, netlib
        assert " build); kernel " in netlib, netlib  # its flavour: pthreads, openmp or serial
        modules = items["matmul-go-gonum-netlib"]
        assert "gonum.org/v1/netlib v0.0.0-" in modules and "-tags=netlib" in modules, modules


def _netlib_child(*args, env=None):
    """One run of go-gonum-netlib's program; skips where it is not built."""
    import subprocess

    from conftest import child_env

    why = programs.missing(rnd.NETLIB_PROGRAM)
    if why:
        pytest.skip(why)
    full = child_env()
    full.update(env or {})
    return subprocess.run(
        [str(programs.path(rnd.NETLIB_PROGRAM)), "matmul", *args], capture_output=True, text=True, env=full, timeout=120
    )


# The Go runners fill with seed 1: the vectors of that seed, edges and odd
# sizes among them.
SEED_1 = [v for v in SEEDED if v["seed"] == "1"]
assert {"0", "1", "3", "17"} <= {v["n"] for v in SEED_1}


@pytest.mark.parametrize("v", SEED_1, ids=lambda v: f"n={v['n']}")
def test_gonum_netlib_child_gives_the_vector_checksum(v):
    out = _netlib_child("go-gonum-netlib", f"n={v['n']}", env=rnd.thread_env({"threads": 1}))
    assert out.returncode == 0, out.stderr
    assert f"result: checksum={v['checksum']}\n" in out.stdout
    assert f"BenchmarkMatmul/impl=go-gonum-netlib/n={v['n']} " in out.stdout


def test_gonum_netlib_child_refuses_bad_input():
    for n in ("-1", "20001", "x"):
        out = _netlib_child("go-gonum-netlib", f"n={n}")
        assert out.returncode == 2 and "n=" in out.stderr and "Benchmark" not in out.stdout, (n, out.stderr)
    # Its program runs that variant alone.
    out = _netlib_child("go-gonum")
    assert out.returncode == 2, out.stderr
    assert 'no variant "go-gonum" (it has: blas-info, go-gonum-netlib)' in out.stderr, out.stderr


def test_gonum_netlib_blas_takes_the_cells_threads():
    """The count asked for wins over the environment's, as the core's
    openblas_set_num_threads does for c-blas and go-c."""
    for threads in (1, 2):
        out = _netlib_child("blas-info", f"threads={threads}", env={"OPENBLAS_NUM_THREADS": "1"})
        assert out.returncode == 0, out.stderr
        info = dict(line.split("=", 1) for line in out.stdout.splitlines())
        assert info["threads"] == str(threads), info
        assert info["config"].startswith("OpenBLAS ") and info["corename"], info
        assert info["flavour"] in ("pthreads", "openmp", "serial") and "openblas" in info["library"], info
    # What the library cannot run is a "cannot run here", not a wrong count.
    out = _netlib_child("blas-info", "threads=4096")
    assert out.returncode == 4 and "OpenBLAS runs" in out.stderr and "where 4096 were asked for" in out.stderr


def test_report_section_flags_a_mismatch_in_bold():
    cfg = {
        "blas-c-blas": "threads=1: x; OpenBLAS 0.3.21; kernel Prescott; 1 thread(s)",
        "fairness": "BLAS mismatch: c-blas runs OpenBLAS 0.3.21 kernel Prescott, "
        "py-numpy runs OpenBLAS 0.3.31 kernel Haswell",
    }
    text = rnd.report_section({"n": 300, "threads": 1}, {}, config=cfg)
    assert "**BLAS mismatch: c-blas" in text and "- c-blas: threads=1:" in text
    assert "go-gonum-netlib" not in text


def test_report_section_states_the_netlib_library():
    cfg = {
        "blas-c-blas": "threads=1: x; OpenBLAS 0.3.31; kernel Haswell; 1 thread(s)",
        "blas-go-gonum-netlib": "threads=1: y; OpenBLAS 0.3.21 (pthreads build); kernel Haswell; 1 thread(s) | "
        "threads=2: y; OpenBLAS 0.3.21 (pthreads build); kernel Haswell; 2 thread(s)",
    }

    class Cell:
        def __init__(self, m):
            self.m = m

        def median_of(self, unit):
            return self.m

    cells = {"c-blas": Cell(40.0), "go-c": Cell(39.0), "go-gonum-netlib": Cell(30.0)}
    text = rnd.report_section({"n": 300, "threads": 2}, cells, config=cfg)
    assert "- go-gonum-netlib: threads=2: y; OpenBLAS 0.3.21 (pthreads build); kernel Haswell; 2 thread(s)" in text
    assert "go-gonum-netlib runs the system's OpenBLAS, not numpy's" in text
    assert "go-c at 97.5% of c-blas" in text and "go-gonum-netlib at 75.0% of c-blas" in text
    assert "**" not in text


def test_quick_suite_matmul_and_temps(tmp_path, built):
    from roundbench.results import benchfmt
    from roundbench import rounds

    from conftest import run_roundbench

    out = run_roundbench("run", "matmul", "temps", "--quick", "--runs", "1", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    # go-gonum-netlib's program is left out of the build where the system
    # has no OpenBLAS: then, and only then, its row says why.
    skipped = {"go-gonum-netlib"} if programs.missing(rnd.NETLIB_PROGRAM) else set()
    # So are temps' library variants where their library is not installed.
    skipped |= {v.name for v in rounds.get("temps").variants if v.requires is not None and v.requires()}
    assert not rs.failures and {s.name.split("/impl=")[1].split("/")[0] for s in rs.skips} == skipped, rs.skips
    for name in ("matmul", "temps"):
        want = {v.name for v in rounds.get(name).variants} - skipped
        assert {r.params["impl"] for r in rs.runs if r.round == name} == want
    for r in rs.runs:
        if r.round == "matmul":
            assert r.params["threads"] == "1" and r.metrics["GFLOP/s"] > 0
        else:
            # numpy's full-size passes: 40 B an element; a fused pass or passes over cache-sized blocks: 8
            assert r.metrics["traffic-B"] == (40 if r.params["impl"] in ("py-numpy", "py-numpy-out") else 8) * 200_000
    report = (tmp_path / "report.md").read_text()
    assert "BLAS per variant" in report and "memory traffic" in report and "× c-blas" in report
    assert "BLAS mismatch" not in report


def test_threads_all_lands_in_the_name_and_keeps_py_at_300(tmp_path, built):
    from roundbench.results import benchfmt

    from conftest import run_roundbench

    out = run_roundbench(
        "run",
        "matmul",
        "--impl",
        "c-blas",
        "--impl",
        "py",
        "--threads",
        "all",
        "--runs",
        "1",
        "--param",
        "n=32",
        "--out",
        str(tmp_path),
        "--no-report",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    threads = str(rnd.all_threads())
    assert {r.params["threads"] for r in rs.runs} == {threads}
    from roundbench.run.plans import make_plans

    plans = make_plans([rnd.ROUND], None, False, {"threads": 2})
    assert [p.params["n"] for p in plans if any(v.name == "py" for v in p.variants)] == [300]
    assert all(p.params["threads"] == 2 for p in plans)
    bad = run_roundbench("run", "matmul", "--threads", "none")
    assert bad.returncode != 0 and "--threads" in bad.stderr


MATMUL_ERRORS = load_vectors("matmul-error")
assert len(MATMUL_ERRORS) >= 2, "too few matmul-error vectors"


def _views(n, count):
    """`count` 1-D float64 buffers that claim n*n items without owning
    them: ctypes arrays over one small block. The core checks n before it
    reads a byte, so an n too large to allocate still reaches it."""
    import ctypes

    block = (ctypes.c_double * 4)()
    view = ctypes.c_double * (n * n)
    return block, [view.from_address(ctypes.addressof(block)) for _ in range(count)]


@pytest.mark.parametrize("v", MATMUL_ERRORS, ids=lambda v: f"n={v['n']}")
def test_matmul_error_vectors(v):
    n = int(v["n"])
    exc = OverflowError if v["error"] == "overflow" else ValueError
    if n < 0:
        # No buffer has a negative side: Python meets such an n only as a
        # runner argument, which the child refuses before any work.
        import subprocess
        import sys

        from conftest import child_env

        out = subprocess.run(
            [sys.executable, "-m", "roundbench.run.child", "matmul", "py-c", f"n={n}"],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=60,
        )
        assert out.returncode == 2 and f"n={n}" in out.stderr, out.stderr
        return
    keep, (a, b, c) = _views(n, 3)
    for name, call in [
        ("matmul_naive", lambda: roundbench.matmul_naive(a, b, c)),
        ("matmul_blas", lambda: roundbench.matmul_blas(a, b, c)),
        ("matmul_verify", lambda: roundbench.matmul_verify(a, b, c)),
        ("matmul_fill", lambda: roundbench.matmul_fill(a, b, 1)),
    ]:
        with pytest.raises(exc, match=f"^{name}\\(\\) argument 'n' .*, not {n}$"):
            call()
    del keep
