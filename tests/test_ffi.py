"""Round ffi: every entry point reaches the same callee and gets it right."""

import ctypes
import subprocess
import sys
from types import SimpleNamespace

import pytest

import roundbench
from roundbench import _core
from roundbench.rounds import ffi as ffi_round
from roundbench.measure import harness
from roundbench.run import launch
from roundbench.run.plans import make_plans
from roundbench.runtimes import aotbuild, interp, programs
from roundbench.pure.ffi import noop

from conftest import child_env, load_at_least, load_vectors

FFI = load_vectors("ffi")
CALLS = [roundbench.ffi_o, roundbench.ffi_fastcall, roundbench.ffi_varargs, noop]


@pytest.mark.parametrize("v", FFI, ids=lambda v: v["x"])
@pytest.mark.parametrize("f", CALLS, ids=lambda f: f.__name__)
def test_noop_vectors(f, v):
    x, want = int(v["x"]), int(v["noop"])
    got = f(x)
    if f is noop:  # Python ints do not wrap at 64 bits
        got = (got + 2**63) % 2**64 - 2**63
    assert got == want


def test_noargs():
    assert roundbench.ffi_noargs() == 1


@pytest.mark.parametrize("v", FFI, ids=lambda v: v["x"])
def test_ctypes_and_cffi_reach_the_same_callee(v):
    x, want = int(v["x"]), int(v["noop"])
    lib = ctypes.CDLL(_core.__file__)
    f = lib.rb_ffi_noop
    f.argtypes, f.restype = [ctypes.c_int64], ctypes.c_int64
    assert f(x) == want
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    ffi.cdef("int64_t rb_ffi_noop(int64_t x);")
    assert ffi.dlopen(_core.__file__).rb_ffi_noop(x) == want
    from roundbench._cffi_api import lib as api

    assert api.rb_ffi_noop(x) == want


@pytest.mark.parametrize("v", load_vectors("ffi-buffer"), ids=lambda v: v["hex"] or "empty")
def test_buffer_vectors(v):
    data = bytes.fromhex(v["hex"])
    want = int(v["result"])
    for obj in (data, bytearray(data), memoryview(data)):
        assert roundbench.ffi_buffer(obj) == want


def test_buffer_rejects_non_buffers():
    for bad in ("text", 12, None, [1, 2]):
        with pytest.raises(TypeError, match="'buf'"):
            roundbench.ffi_buffer(bad)


def test_buffer_large_zero_copy():
    buf = bytearray(1 << 20)
    buf[0], buf[-1] = 3, 4
    assert roundbench.ffi_buffer(buf) == 7
    assert roundbench.ffi_buffer(memoryview(buf)[1:]) == 4  # a slice shares the buffer


def test_bad_calls():
    with pytest.raises(OverflowError):
        roundbench.ffi_o(2**64)
    with pytest.raises(TypeError):
        roundbench.ffi_fastcall()
    with pytest.raises(TypeError):
        roundbench.ffi_fastcall(1, 2)
    with pytest.raises(TypeError):
        roundbench.ffi_varargs("x")


def test_callback_loop():
    assert roundbench.ffi_callback_loop(noop, 4) == 1 + 2 + 3 + 4
    assert roundbench.ffi_callback_loop(None, 4) == 1 + 2 + 3 + 4
    assert roundbench.ffi_callback_loop(noop, 0) == 0
    seen = []
    roundbench.ffi_callback_loop(lambda x: seen.append(x) or 0, 3)
    assert seen == [0, 1, 2]


def test_callback_exception_propagates_and_stops():
    calls = []

    def boom(x):
        calls.append(x)
        if x == 2:
            raise KeyError("stop here")
        return 0

    with pytest.raises(KeyError, match="stop here"):
        roundbench.ffi_callback_loop(boom, 100)
    assert calls == [0, 1, 2]


def test_callback_bad_input():
    with pytest.raises(TypeError, match="'func'"):
        roundbench.ffi_callback_loop(3, 1)
    with pytest.raises(ValueError, match="'count'"):
        roundbench.ffi_callback_loop(noop, -1)
    with pytest.raises(TypeError):
        roundbench.ffi_callback_loop(lambda x: "not an int", 1)


# ---- four mixed arguments and a string back --------------------------------------------


ARGS4 = load_at_least("ffi-args4", 12)
STRS = load_at_least("ffi-str", 8)


def _args4(v) -> tuple:
    return int(v["a"]), float(v["b"]), int(v["c"]), bytes.fromhex(v["hex"]).decode()


def test_the_rows_time_the_first_vectors():
    """The args4 and str rows time the first vector of each kind, as the Go
    rows do."""
    assert _args4(ARGS4[0]) == ffi_round.ARGS4 and int(ARGS4[0]["result"]) == ffi_round.ARGS4_WANT
    assert int(STRS[0]["x"]) == ffi_round.STR_X and bytes.fromhex(STRS[0]["hex"]).decode() == ffi_round.STR_WANT


def _by_hand():
    """The crossings written without a binding tool, each with args4 and
    string: the extension's functions, ctypes', cffi's API mode."""
    return {
        "py-c": SimpleNamespace(args4=_core.ffi_args4, string=_core.ffi_str),
        "py-ctypes": ffi_round.ctypes_core(),
        "py-cffi-api": ffi_round.cffi_core(),
    }


@pytest.mark.parametrize("v", ARGS4, ids=lambda v: f"{v['a']},{v['b']},{v['c']},{v['hex']}")
@pytest.mark.parametrize("how", ["py-c", "py-ctypes", "py-cffi-api"])
def test_args4_vectors(how, v):
    assert _by_hand()[how].args4(*_args4(v)) == int(v["result"])


@pytest.mark.parametrize("v", STRS, ids=lambda v: v["x"])
@pytest.mark.parametrize("how", ["py-c", "py-ctypes", "py-cffi-api"])
def test_str_vectors(how, v):
    got = _by_hand()[how].string(int(v["x"]))
    assert type(got) is str and got == bytes.fromhex(v["hex"]).decode()


def test_args4_bad_input():
    with pytest.raises(TypeError, match="takes exactly 4 arguments"):
        roundbench.ffi_args4(1, 2.0, 3)
    with pytest.raises(TypeError, match="argument 'a' must be int, not str"):
        roundbench.ffi_args4("1", 2.0, 3, "s")
    with pytest.raises(TypeError, match="argument 'b' must be a real number, not str"):
        roundbench.ffi_args4(1, "2.0", 3, "s")
    with pytest.raises(OverflowError, match="argument 'c' does not fit in 32 bits"):
        roundbench.ffi_args4(1, 2.0, 2**31, "s")
    with pytest.raises(OverflowError, match="argument 'a' does not fit in 64 bits"):
        roundbench.ffi_args4(2**63, 2.0, 3, "s")
    with pytest.raises(TypeError, match="argument 's' must be str, not bytes"):
        roundbench.ffi_args4(1, 2.0, 3, b"s")
    with pytest.raises(ValueError, match="argument 's' must not contain a NUL character"):
        roundbench.ffi_args4(1, 2.0, 3, "a\0b")
    assert roundbench.ffi_args4(1, 2, -(2**31), "") == 3 - 2**31  # an int is a real number
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8
        roundbench.ffi_args4(1, 2.0, 3, "\udc80")


def test_str_bad_input():
    with pytest.raises(TypeError, match="takes exactly 1 arguments"):
        roundbench.ffi_str()
    with pytest.raises(TypeError, match="argument 'x' must be int, not float"):
        roundbench.ffi_str(1.0)
    with pytest.raises(OverflowError, match="argument 'x' does not fit in 64 bits"):
        roundbench.ffi_str(2**63)


def test_ctypes_args4_takes_only_a_str():
    with pytest.raises(ctypes.ArgumentError, match="a str is required, not bytes"):
        ffi_round.ctypes_core().args4(1, 2.0, 3, b"s")


# The callback loops by hand: (the loop, the callee it calls back). The
# extension's calls any Python callable; ctypes' and cffi's call a C
# function pointer, their callee one with the core's signature.
def _callback_loops():
    ct, cf = ffi_round.ctypes_core(), ffi_round.cffi_core()
    return {
        "c-py-callback": (_core.ffi_callback_loop, noop),
        "py-ctypes-callback": (ct.callback_loop, ct.callee),
        "py-cffi-callback": (cf.callback_loop, cf.callee),
    }


@pytest.mark.parametrize("impl", ["c-py-callback", "py-ctypes-callback", "py-cffi-callback"])
def test_callback_loops_by_hand(impl):
    loop, callee = _callback_loops()[impl]
    for count in (0, 1, 4, 1000):
        assert loop(callee, count) == count * (count + 1) // 2
        assert loop(None, count) == count * (count + 1) // 2


def test_ctypes_callback_loop_calls_any_cfunctype():
    core = ffi_round.ctypes_core()
    seen = []

    def twice(ctx, x, result):
        seen.append(x)
        result[0] = 2 * x
        return 0

    assert core.callback_loop(core.callback(twice), 4) == 2 * (0 + 1 + 2 + 3)
    assert seen == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match=r"count=-1\): argument out of range \(status 1\)"):
        core.callback_loop(core.callee, -1)


def test_cffi_callback_loop_says_the_cores_error():
    core = ffi_round.cffi_core()
    with pytest.raises(ValueError, match="callback_loop\\(\\) argument 'count' must be >= 0, not -1"):
        core.callback_loop(core.callee, -1)
    # A callback that fails stops the loop: the core's RB_ERR_INTERRUPTED,
    # which names the argument cb too, is no ValueError.
    from roundbench._cffi_api import ffi

    @ffi.callback("int(void *, int64_t, int64_t *)")
    def stop_at_two(ctx, x, result):
        result[0] = 1
        return int(x == 2)

    with pytest.raises(RuntimeError, match=r"^callback_loop\(\): the callback failed on call 2$"):
        core.callback_loop(stop_at_two, 10)


# ---- the binding tools: each module, each child, each skip row ----------------------

BINDINGS = sorted(ffi_round.BINDINGS)
# The bindings with -args4, -str and callback rows (all but the limited API's).
CROSSING_BINDINGS = sorted(set(ffi_round.ROW_BINDING.values()))
CALLBACK_ROWS = {b: row for row, b in ffi_round.ROW_BINDING.items() if row.endswith("-callback")}
PUREGO = ["go-purego", "go-purego-buffer", "go-purego-args4", "go-purego-str", "go-purego-callback"]
BY_HAND = [
    "py-c-args4",
    "py-c-str",
    "py-ctypes-args4",
    "py-ctypes-str",
    "py-ctypes-callback",
    "py-cffi-api-args4",
    "py-cffi-api-str",
    "py-cffi-callback",
    "go-c-args4",
    "go-c-str",
]
NEW = [*BINDINGS, *(f"{b}-buffer" for b in BINDINGS), *ffi_round.ROW_BINDING, *PUREGO, *BY_HAND]


def rows_of(impl: str) -> set:
    """Every row of binding `impl`: its call, its buffer row and the rows
    beyond them (ffi_round.ROW_BINDING)."""
    return {impl, f"{impl}-buffer", *(row for row, b in ffi_round.ROW_BINDING.items() if b == impl)}


@pytest.fixture(scope="module")
def bound():
    """Each binding's module built for this interpreter (`make build` builds
    them; built here where they are missing or stale), by variant."""
    aotbuild._ensure.cache_clear()
    out = {}
    for impl in BINDINGS:
        name = ffi_round.BINDINGS[impl][0]
        why = aotbuild.ensure(name, sys.executable)
        assert why is None, why
        out[impl] = aotbuild.load(name)[0]
    yield out
    aotbuild._ensure.cache_clear()


@pytest.mark.parametrize("v", FFI, ids=lambda v: v["x"])
@pytest.mark.parametrize("impl", BINDINGS)
def test_binding_noop_vectors(bound, impl, v):
    assert bound[impl].noop(int(v["x"])) == int(v["noop"])


@pytest.mark.parametrize("v", load_vectors("ffi-buffer"), ids=lambda v: v["hex"] or "empty")
@pytest.mark.parametrize("impl", BINDINGS)
def test_binding_buffer_vectors(bound, impl, v):
    data = bytes.fromhex(v["hex"])
    for obj in (data, bytearray(data), memoryview(data)):
        assert bound[impl].buffer(obj) == int(v["result"])


@pytest.mark.parametrize("v", ARGS4, ids=lambda v: f"{v['a']},{v['b']},{v['c']},{v['hex']}")
@pytest.mark.parametrize("impl", CROSSING_BINDINGS)
def test_binding_args4_vectors(bound, impl, v):
    assert bound[impl].args4(*_args4(v)) == int(v["result"])


@pytest.mark.parametrize("v", STRS, ids=lambda v: v["x"])
@pytest.mark.parametrize("impl", CROSSING_BINDINGS)
def test_binding_str_vectors(bound, impl, v):
    got = bound[impl].string(int(v["x"]))
    assert type(got) is str and got == bytes.fromhex(v["hex"]).decode()


@pytest.mark.parametrize("impl", CROSSING_BINDINGS)
def test_binding_callback_loop(bound, impl):
    """The core calls the Python callable back through the binding, and its
    C callback when given None; the sums agree."""
    loop = bound[impl].callback_loop
    for count in (0, 1, 4, 1000):
        assert loop(noop, count) == count * (count + 1) // 2
        assert loop(None, count) == count * (count + 1) // 2
    seen = []
    assert loop(lambda x: seen.append(x) or 0, 3) == 0
    assert seen == [0, 1, 2]


@pytest.mark.parametrize("impl", CROSSING_BINDINGS)
def test_binding_callback_exception_propagates_and_stops(bound, impl):
    calls = []

    def boom(x):
        calls.append(x)
        if x == 2:
            raise KeyError("stop here")
        return 0

    with pytest.raises(KeyError, match="stop here"):
        bound[impl].callback_loop(boom, 100)
    assert calls == [0, 1, 2]
    # A result that is no int64: Cython and PyO3 raise TypeError, pybind11
    # and nanobind RuntimeError (their C++ cast fails).
    want = RuntimeError if impl in ("py-pybind11", "py-nanobind") else TypeError
    with pytest.raises(want):
        bound[impl].callback_loop(lambda x: "not an int", 1)


@pytest.mark.parametrize("impl", CROSSING_BINDINGS)
def test_binding_callback_bad_count(bound, impl):
    with pytest.raises(ValueError, match="callback_loop\\(\\) argument 'count' must be >= 0, not -1"):
        bound[impl].callback_loop(noop, -1)


@pytest.mark.parametrize("impl", BINDINGS)
def test_binding_buffer_is_zero_copy(bound, impl):
    buf = bytearray(1 << 20)
    buf[0], buf[-1] = 3, 4
    assert bound[impl].buffer(buf) == 7
    assert bound[impl].buffer(memoryview(buf)[1:]) == 4  # a slice shares the buffer


def _child(impl: str, env=None) -> subprocess.CompletedProcess:
    v = ffi_round.ROUND.variant(impl)
    if v.program == "python":
        cmd = [sys.executable, "-m", "roundbench.run.child", "ffi", impl]
    else:
        cmd = [str(programs.build_dir() / programs.go_runner("ffi")), "ffi", impl]
    return subprocess.run(cmd, capture_output=True, text=True, env=env or child_env(), timeout=120)


# c-py-callback is older, and a C variant by its name; it counts left-B now.
@pytest.mark.parametrize("impl", [*NEW, "c-py-callback"])
def test_new_variant_runs_and_checks_its_result(bound, impl):
    """Each child checks its callee's result before it times it (a wrong
    one exits 3), then says so and reports ns per call."""
    if impl.startswith("go-"):
        requires = ffi_round.ROUND.variant(impl).requires
        why = requires() if requires else None
        if why or not (programs.build_dir() / programs.go_runner("ffi")).exists():
            pytest.skip(f"{impl}: {why or 'the Go runner is not built (make go)'}")
    out = _child(impl)
    assert out.returncode == 0, out.stderr
    assert f"result: {impl}-ok\n" in out.stdout
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark"))
    assert line.startswith(f"BenchmarkFfi/impl={impl} ") and " ns/call " in line, line
    # Go rows count their allocations per call, Python rows what a million
    # calls leave on the heap.
    assert line.endswith(" allocs/call" if impl.startswith("go-") else " left-B"), line


@pytest.mark.parametrize("impl", NEW)
def test_new_variants_score_as_crossings_into_c(impl):
    assert ffi_round.ROUND.variant(impl).level == "core"


def test_pairs_set_the_bindings_against_go():
    pairs = {p.label: p for p in ffi_round.PAIRS}
    callback = pairs["C calling back"]
    assert set(callback.py) == {"c-py-callback", "py-ctypes-callback", "py-cffi-callback", *CALLBACK_ROWS.values()}
    assert set(callback.go) == {"c-go-callback", "go-purego-callback"}
    for label, suffix in (("4 mixed arguments into C", "args4"), ("a string back from C", "str")):
        want = {f"{b}-{suffix}" for b in ("py-c", "py-ctypes", "py-cffi-api", *CROSSING_BINDINGS)}
        assert set(pairs[label].py) == want, label
        assert set(pairs[label].go) == {f"go-c-{suffix}", f"go-purego-{suffix}"}, label
    call = pairs["a call into C through a binding tool"]
    assert set(call.py) == set(BINDINGS) and set(call.go) == {"go-c", "go-purego"}
    buffer = pairs["1 MiB to C through a binding tool"]
    assert set(buffer.py) == {f"{b}-buffer" for b in BINDINGS}
    assert set(buffer.go) == {"go-c-slice", "go-purego-buffer"}


@pytest.mark.parametrize("impl", [b for b in BINDINGS if ffi_round.BINDINGS[b][1]])
def test_missing_tool_is_a_skip_row_naming_it(impl, monkeypatch):
    tool = ffi_round.BINDINGS[impl][1]
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda name, exe, own: name != tool and real(name, exe, own))
    (plan,) = make_plans([ffi_round.ROUND], rows_of(impl), quick=True, overrides={})
    assert plan.variants == []
    assert {v.name for v, _ in plan.skipped} == rows_of(impl)
    for _, why in plan.skipped:
        assert f"Python module {tool} is not installed" in why, why


@pytest.mark.parametrize("impl", [b for b in BINDINGS if b != "py-pyo3"])
def test_failed_build_is_a_skip_row_that_says_why(impl, tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler-x")
    monkeypatch.setenv("CC", "no-such-compiler-x")
    aotbuild._ensure.cache_clear()
    why = launch.unavailable(ffi_round.ROUND, ffi_round.ROUND.variant(impl))
    name = ffi_round.BINDINGS[impl][0]
    assert why is not None and why.startswith(f"building {name} with "), why
    assert "no-such-compiler-x is not on PATH" in why, why


def test_pyo3_without_cargo_is_a_skip_row_that_says_why(tmp_path, monkeypatch):
    """PyO3's module is maturin's build of a crate: without cargo there is
    none, and the row says so."""
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    real = aotbuild.shutil.which
    monkeypatch.setattr(
        aotbuild.shutil, "which", lambda name, *a, **k: None if name == "cargo" else real(name, *a, **k)
    )
    aotbuild._ensure.cache_clear()
    why = launch.unavailable(ffi_round.ROUND, ffi_round.ROUND.variant("py-pyo3"))
    assert why is not None and why.startswith("building ffi_pyo3 with maturin "), why
    assert why.endswith("failed: cargo is not on PATH (Rust's toolchain: rustup, or Debian's cargo)"), why


@pytest.mark.parametrize("row", [*BINDINGS, *ffi_round.ROW_BINDING])
def test_child_says_a_binding_not_built(row, tmp_path):
    out = _child(row, env={**child_env(), "ROUNDBENCH_BUILD": str(tmp_path)})
    assert out.returncode == 4, out.stderr
    module = ffi_round.BINDINGS[ffi_round.ROW_BINDING.get(row, row)][0]
    assert f"cannot run here: {module} is not built for" in out.stderr


def test_ctypes_rows_without_ctypes_are_skip_rows(monkeypatch):
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda name, exe, own: name != "ctypes" and real(name, exe, own))
    rows = {"py-ctypes", "py-ctypes-args4", "py-ctypes-str", "py-ctypes-callback"}
    (plan,) = make_plans([ffi_round.ROUND], rows, quick=True, overrides={})
    assert plan.variants == [] and {v.name for v, _ in plan.skipped} == rows
    for _, why in plan.skipped:
        assert "Python module ctypes is not installed" in why, why


def test_cffi_api_rows_without_the_module_are_skip_rows(monkeypatch):
    why = "the cffi API module roundbench._cffi_api is not built (rebuild with cffi installed: make build)"
    monkeypatch.setattr(interp, "cffi_api_missing", lambda exe=None: why)
    rows = {"py-cffi-api", "py-cffi-api-args4", "py-cffi-api-str", "py-cffi-callback"}
    (plan,) = make_plans([ffi_round.ROUND], rows, quick=True, overrides={})
    assert plan.variants == [] and {v.name for v, _ in plan.skipped} == rows
    assert {w for _, w in plan.skipped} == {why}


def test_cffi_module_without_these_rows_cannot_run(monkeypatch):
    """A _cffi_api built before these rows' declarations lacks their
    functions: the rows cannot run (the child exits 4 and says why) rather
    than fail."""
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    ffi.cdef("int64_t rb_ffi_noop(int64_t x);")
    old = SimpleNamespace(ffi=ffi, lib=ffi.dlopen(_core.__file__))
    monkeypatch.setitem(sys.modules, "roundbench._cffi_api", old)
    ffi_round.cffi_core.cache_clear()
    try:
        with pytest.raises(harness.CannotRun, match=r"built before these rows \(make py\): .*rb_ffi_args4"):
            ffi_round.cffi_core()
    finally:
        ffi_round.cffi_core.cache_clear()


def test_purego_without_the_shared_library_is_a_skip_row(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    for impl in PUREGO:
        why = ffi_round.ROUND.variant(impl).requires()
        assert (
            why == f"go-purego loads the core's shared library, and {tmp_path / 'libroundbench.so'} is not built "
            "(make c builds it)"
        )


def test_purego_child_says_a_missing_library(tmp_path):
    runner_path = programs.build_dir() / programs.go_runner("ffi")
    if not runner_path.exists():
        pytest.skip("the Go runner is not built (make go)")
    missing = tmp_path / "libroundbench.so"
    out = _child("go-purego", env={**child_env(), "ROUNDBENCH_CORE_SO": str(missing)})
    assert out.returncode == 4, out.stderr
    assert str(missing) in out.stderr and "make c" in out.stderr


def test_abi3_under_another_implementation_is_a_skip_row(monkeypatch):
    """The limited API is CPython's stable ABI: under PyPy (cpyext), an
    older CPython or a free-threaded one the row says why, before any build
    is tried."""
    from types import SimpleNamespace

    def fake(implementation, version, free_threaded=False):
        return SimpleNamespace(
            implementation=implementation,
            version=version,
            feature=tuple(int(p) for p in version.split(".")[:2]),
            free_threaded=free_threaded,
            describe=lambda: "that-python",
        )

    monkeypatch.setattr(interp, "info", lambda exe: fake("PyPy", "3.11.13"))
    assert ffi_round._limited_api("x") == "the limited API (abi3) is CPython's, and that-python is not one"
    monkeypatch.setattr(interp, "info", lambda exe: fake("CPython", "3.10.14"))
    assert ffi_round._limited_api("x") == "Py_LIMITED_API 3.11 needs CPython 3.11 or newer, not that-python"
    monkeypatch.setattr(interp, "info", lambda exe: fake("CPython", "3.13.5", free_threaded=True))
    why = ffi_round._limited_api("x")
    assert why and why.startswith("that-python is free-threaded") and "abi3" in why, why
    monkeypatch.setattr(interp, "info", lambda exe: fake("CPython", "3.11.7"))
    assert ffi_round._limited_api("x") is None


def test_left_behind_counts_what_calls_keep_and_not_what_they_free():
    kept = []

    def leaks(x):
        kept.append(bytearray(100))
        return x + 1

    def frees(x):
        bytearray(100)
        return x + 1

    grew = ffi_round.left_behind(leaks, 41, calls=1000)
    assert grew >= 1000 * 100  # every call keeps its 100 bytes and more
    assert abs(ffi_round.left_behind(frees, 41, calls=1000)) < 1000  # nothing a call keeps
    assert abs(ffi_round.left_behind(roundbench.ffi_fastcall, 41, calls=10000)) < 1000


@pytest.mark.skipif(not (programs.build_dir() / programs.go_runner("ffi")).exists(), reason="make go builds rb-go-ffi")
def test_go_rows_count_the_allocation_that_both_annotations_save():
    """A pointer to a local escapes to the heap in a plain cgo call, and in
    one annotated noescape alone; with noescape and nocallback together it
    stays on the stack (cmd/cgo keeps such arguments alive without making
    them escape only then)."""
    allocs = {}
    for impl in ("go-c", "go-c-ptr", "go-c-ptr-noescape", "go-c-ptr-both"):
        out = subprocess.run(
            [str(programs.build_dir() / programs.go_runner("ffi")), "ffi", impl],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        fields = next(ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")).split()
        allocs[impl] = float(fields[fields.index("allocs/call") - 1])
    assert allocs == {"go-c": 0.0, "go-c-ptr": 1.0, "go-c-ptr-noescape": 1.0, "go-c-ptr-both": 0.0}


def test_binding_rows_name_every_row_a_binding_tool_runs():
    """ffi.BINDING_ROWS is what may be a skip row where a tool is missing
    (PyPy's tests lean on it): every binding's call, buffer, args4, str and
    callback row, and no row the project wrote by hand."""
    want = set(ffi_round.BINDINGS) | {f"{b}-buffer" for b in ffi_round.BINDINGS} | set(ffi_round.ROW_BINDING)
    assert ffi_round.BINDING_ROWS == want
    assert not ffi_round.BINDING_ROWS & set(BY_HAND)
    assert {"py-pyo3-callback", "py-cython-callback", "py-nanobind-str", "py-pybind11-args4"} <= ffi_round.BINDING_ROWS
