"""Round loop: every variant against the shared vectors, and bad input."""

import subprocess
import sys
import threading
import time

import pytest

import roundbench
from roundbench.pure.loop import loop as pure_loop
from roundbench.rounds.loop import MODULE_LOOP, expected, module_loop

from conftest import BUILD, child_env, load_vectors

LOOP = load_vectors("loop")
SMALL = [v for v in LOOP if int(v["n"]) <= 100_000]


@pytest.mark.parametrize("v", LOOP, ids=lambda v: f"n={v['n']}")
def test_core_and_closed_form(v):
    n, want = int(v["n"]), int(v["sum"])
    assert roundbench.loop(n) == want
    assert expected(n) == want


@pytest.mark.parametrize("v", SMALL, ids=lambda v: f"n={v['n']}")
def test_pure_python(v):
    assert pure_loop(int(v["n"])) == int(v["sum"])


RANGES = load_vectors("loop-range")
RANGE_ERRORS = load_vectors("loop-range-error")
assert len(RANGES) >= 8 and len(RANGE_ERRORS) >= 6, "too few loop-range or loop-range-error vectors"


@pytest.mark.parametrize("v", RANGES, ids=lambda v: f"{v['lo']}-{v['hi']}")
def test_loop_range(v):
    assert roundbench.loop_range(int(v["lo"]), int(v["hi"])) == int(v["sum"])


@pytest.mark.parametrize("v", RANGE_ERRORS, ids=lambda v: f"{v['lo']}-{v['hi']}")
def test_loop_range_errors(v):
    """rb_loop_range's own bounds, which loop()'s vectors cannot reach (loop
    checks n before it calls the range form)."""
    lo, hi, arg = int(v["lo"]), int(v["hi"]), v["arg"]
    exc = OverflowError if v["error"] == "overflow" else ValueError
    value = lo if arg == "lo" else hi
    with pytest.raises(exc, match=f"^loop_range\\(\\) argument '{arg}' .*, not {value}$"):
        roundbench.loop_range(lo, hi)


def test_message_comes_from_the_core():
    with pytest.raises(ValueError) as e:
        roundbench.loop(-1)
    assert str(e.value) == "loop() argument 'n' must be >= 0, not -1"
    with pytest.raises(OverflowError) as e:
        roundbench.loop(roundbench.LOOP_MAX_N + 1)
    assert str(e.value) == "loop() argument 'n' must be <= 3037000500 (i*i must fit in int64), not 3037000501"


@pytest.mark.parametrize("v", load_vectors("loop-error"), ids=lambda v: f"n={v['n']}")
def test_bad_n_from_vectors(v):
    exc = OverflowError if v["error"] == "overflow" else ValueError
    with pytest.raises(exc, match="'n'"):
        roundbench.loop(int(v["n"]))


@pytest.mark.parametrize(
    "bad, exc",
    [
        (1.5, TypeError),
        ("10", TypeError),
        (None, TypeError),
        (-1, ValueError),
        (roundbench.LOOP_MAX_N + 1, OverflowError),
        (2**64, OverflowError),
        (-(2**70), OverflowError),
    ],
)
def test_bad_n_raises_naming_the_argument(bad, exc):
    with pytest.raises(exc, match="argument 'n'"):
        roundbench.loop(bad)


def test_index_types_accepted():
    class Idx:
        def __index__(self):
            return 8

    assert roundbench.loop(Idx()) == 14
    assert roundbench.loop(True) == 0


def test_loop_range_bad_input():
    with pytest.raises(ValueError, match="'hi'"):
        roundbench.loop_range(10, 5)
    with pytest.raises(ValueError, match="'lo'"):
        roundbench.loop_range(-1, 5)
    with pytest.raises(TypeError, match="exactly 2"):
        roundbench.loop_range(1)


def test_gil_released_during_long_call():
    """Another Python thread makes progress while the core loops."""
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        time.sleep(0.01)
        before = len(ticks)
        assert roundbench.loop(200_000_000) == expected(200_000_000)
        during = len(ticks) - before
    finally:
        stop.set()
        t.join()
    assert during > 5, f"the ticker thread ran {during} times during a ~0.3 s call"


@pytest.mark.parametrize("impl", ["c", "go", "go-c", "py", "py-c", "py-module-published"])
@pytest.mark.parametrize("n", [0, 1, 7, 1001])
def test_every_variant_child(built, impl, n):
    """Each child runner verifies itself and prints the same result."""
    if impl in ("c",):
        cmd = [str(BUILD / "rb-c"), "loop", impl, f"n={n}"]
    elif impl.startswith("go"):
        cmd = [str(BUILD / "rb-go-loop"), "loop", impl, f"n={n}"]
    else:
        cmd = [sys.executable, "-m", "roundbench.run.child", "loop", impl, f"n={n}"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert f"result: sum={expected(n)}" in out.stdout
    assert f"BenchmarkLoop/impl={impl}/n={n} 1 " in out.stdout


@pytest.mark.parametrize("prog", ["rb-c", "rb-go-loop", "py"])
@pytest.mark.parametrize(
    "arg, msg", [("n=-1", "n=-1 is out of range"), ("n=abc", "not an integer"), ("n=3037000501", "out of range")]
)
def test_child_rejects_bad_n(built, prog, arg, msg):
    impl = {"rb-c": "c", "rb-go-loop": "go", "py": "py"}[prog]
    cmd = ([sys.executable, "-m", "roundbench.run.child"] if prog == "py" else [str(BUILD / prog)]) + [
        "loop",
        impl,
        arg,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=60)
    assert out.returncode == 2
    assert msg in out.stderr


# ---- the published program: the loop at module level ----------------------------


@pytest.mark.parametrize("v", SMALL, ids=lambda v: f"n={v['n']}")
def test_published_module_loop_agrees_with_the_vectors(v):
    compute = module_loop(compile(MODULE_LOOP, "<published>", "exec"))
    assert compute(int(v["n"])) == int(v["sum"])


def test_published_loop_runs_on_module_globals():
    """What makes it the published program: its names are the module's
    globals (LOAD_NAME / STORE_NAME), not a function's locals."""
    import dis

    code = compile(MODULE_LOOP, "<published>", "exec")
    ops = {(i.opname, i.argval) for i in dis.get_instructions(code)}
    assert {("STORE_NAME", "total"), ("STORE_NAME", "i"), ("LOAD_NAME", "n")} <= ops, ops
    assert not any(op.startswith(("LOAD_FAST", "STORE_FAST")) for op, _ in ops)
    assert code.co_varnames == ()
