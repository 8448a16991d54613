"""Round chain: every variant against the shared vectors, bad input, the
memory guard and the thread limit, and no leaked threads or descriptors."""

import os
import threading

import pytest

import roundbench
from roundbench.results import benchfmt
from roundbench.pure import chain as pure
from roundbench.rounds import _chain_libraries as libraries
from roundbench.rounds.chain import ROUND, _CoreChain
from roundbench.run import launch

from conftest import child_env, load_vectors, run_roundbench

CHAIN = load_vectors("chain")


def _core_uc(n, k, p):
    return _CoreChain(n, k, p, ucontext=True)


def _uvloop(n, k, p):
    import uvloop

    return pure.AsyncioChain(n, k, p, uvloop.new_event_loop)


BUILDERS = {
    "py-c": _CoreChain,
    "py-c-ucontext": _core_uc,
    "py-asyncio": pure.AsyncioChain,
    "py-uvloop": _uvloop,
    "py-greenlet": libraries.GreenletChain,
    "py-generators": pure.GeneratorChain,
    "py-stackless": libraries.StacklessChain,
    "py-threads": pure.ThreadChain,
}

# The builders' modules that this interpreter may lack (PyPy alone has
# stackless: py-stackless's own tests run it there, below).
LIBRARIES = {"py-greenlet": "greenlet", "py-uvloop": "uvloop", "py-stackless": "stackless"}


def _needs(name: str) -> None:
    if name in LIBRARIES:
        pytest.importorskip(LIBRARIES[name], reason=f"{LIBRARIES[name]} is not importable by this interpreter")


@pytest.mark.parametrize("name", BUILDERS)
@pytest.mark.parametrize("v", CHAIN, ids=lambda v: f"n={v['n']}-k={v['hop-work']}")
def test_variants_agree_with_the_vectors(v, name):
    n, k, want = int(v["n"]), int(v["hop-work"]), int(v["value"])
    _needs(name)
    assert pure.expected(n, k) == want
    assert roundbench.chain_expected(n, k) == want
    for p in (1, 2):
        ch = BUILDERS[name](n, k, p)
        try:
            assert ch.run() == [want] * p
        finally:
            ch.close()


def test_hop_work_is_in_the_result():
    # Each hop adds 1 + its loop's sum: with hop work the value is not n.
    assert pure.hop(6, 1) == 8 == 6 + 1 + (6 * 6 % 7)
    ch = _CoreChain(5, 7, 1)
    assert ch.run() == [75]
    ch.close()


@pytest.mark.parametrize(
    "v", load_vectors("chain-error"), ids=lambda v: f"n={v['n']}-k={v['hop-work']}-p={v['parallel']}"
)
def test_bad_arguments_from_vectors(v):
    exc = OverflowError if v["error"] == "overflow" else ValueError
    with pytest.raises(exc, match="chain_new\\(\\) argument"):
        roundbench.chain_new(int(v["n"]), int(v["hop-work"]), int(v["parallel"]), False)


def test_bad_types_and_misuse():
    with pytest.raises(TypeError, match="argument 'n'"):
        roundbench.chain_new("10", 0, 1, False)
    with pytest.raises(OverflowError, match="argument 'hop_work'"):
        roundbench.chain_new(1, 2**64, 1, False)
    with pytest.raises(TypeError, match="argument 'chain'"):
        roundbench.chain_pass(object())
    ch = roundbench.chain_new(3, 0, 1, False)
    assert roundbench.chain_pass(ch) == [3]
    with pytest.raises(ValueError, match="already passed"):
        roundbench.chain_pass(ch)
    roundbench.chain_free(ch)
    roundbench.chain_free(ch)  # idempotent
    with pytest.raises(ValueError, match="freed"):
        roundbench.chain_pass(ch)


def test_thread_limit_is_a_clear_error_before_any_thread_starts():
    before = threading.active_count()
    # No machine allows ten million threads (pid_max is at most 2^22).
    with pytest.raises(pure.NotPossibleHere, match="threads: 10000000 threads .* leaves room for"):
        pure.ThreadChain(10_000_000, 0, 1)
    assert threading.active_count() == before


def _counts():
    """(descriptors, OS threads, Python threads), once the OS threads have
    settled: a joined thread (Python's or the core's) can stay listed in
    /proc/self/task for a moment while the kernel finishes it. A thread that
    really leaked keeps the count up and fails the comparison."""
    import time

    deadline = time.monotonic() + 5
    while True:
        fds, tasks, pythreads = (
            len(os.listdir("/proc/self/fd")),
            len(os.listdir("/proc/self/task")),
            threading.active_count(),
        )
        if tasks <= pythreads or time.monotonic() > deadline:
            return fds, tasks, pythreads
        time.sleep(0.01)


def test_no_leaked_threads_or_descriptors():
    def once():
        for name, build in BUILDERS.items():
            _needs(name)
            ch = build(300, 1, 3)
            assert ch.run() == [pure.expected(300, 1)] * 3
            ch.close()
            build(100, 0, 2).close()  # torn down without passing

    once()  # warm-up: asyncio's first loop opens what it keeps
    before = _counts()
    once()
    once()
    assert _counts() == before


def _child(impl, *params, python=None):
    """One child of the round; a Python one under `python` when given."""
    import subprocess

    v = ROUND.variant(impl)
    cmd = launch.command(ROUND, v, dict(p.split("=", 1) for p in params))
    if python is not None:
        cmd[0] = python
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=child_env())


@pytest.mark.parametrize("impl", [v.name for v in ROUND.variants])
def test_memory_guard_refuses_an_impossible_configuration(impl, built, request):
    python = None
    if impl == "py-stackless":
        python = request.getfixturevalue("pypy")  # the interpreter that has a stackless module
    else:
        _needs(impl)
    out = _child(impl, "n=1000000000", "hop-work=0", "parallel=4096", python=python)
    assert out.returncode == 4, out.stderr
    assert "not possible here: memory: n=1000000000 x parallel=4096 needs about" in out.stderr
    assert "MemAvailable is" in out.stderr
    assert "Benchmark" not in out.stdout


@pytest.mark.parametrize("n, k, p", [(1, 0, 1), (2, 3, 2), (7, 0, 3)])
def test_all_variants_agree_through_the_runner(tmp_path, built, n, k, p):
    out = run_roundbench(
        "run",
        "chain",
        "--n",
        str(n),
        "--hop-work",
        str(k),
        "--parallel",
        str(p),
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        "--no-report",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures
    want = {v.name for v in ROUND.variants} - {s.name.split("impl=")[1].split("/")[0] for s in rs.skips}
    got = {r.params["impl"] for r in rs.runs}
    assert got == want
    if k:
        (skip,) = [s for s in rs.skips if "impl=go-published/" in s.name]
        assert "the published program has no hop work (hop-work=3)" in skip.reason
    for r in rs.runs:
        assert r.name.endswith(f"/n={n}/hop-work={k}/parallel={p}")
        if r.params["impl"] == "go-published":
            # one timing of setup and pass, twice: no setup, pass or teardown of its own
            assert {"ns/hop", "B/task", "first-ns", "second-ns", "peak-B"} <= set(r.metrics), r.name
            assert r.metrics["ns/op"] == r.metrics["first-ns"]
            continue
        for unit in ("setup-ns", "pass-ns", "teardown-ns", "ns/hop", "B/task", "sys-ns/hop", "cpu-ns/hop", "peak-B"):
            assert unit in r.metrics, (r.name, unit)


# ---- the published program, as published --------------------------------------------


@pytest.mark.parametrize("n, p", [(1, 1), (7, 1), (1000, 1), (300, 3)])
def test_published_chain_child(built, n, p):
    """go-published passes the value along its chain twice and checks both
    runs; its result is every variant's."""
    out = _child("go-published", f"n={n}", "hop-work=0", f"parallel={p}")
    assert out.returncode == 0, out.stderr
    assert f"result: value={n} chains={p}" in out.stdout
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")]
    r = benchfmt.parse_bench_line(line)
    assert r.name == f"BenchmarkChain/impl=go-published/n={n}/hop-work=0/parallel={p}"
    assert r.metrics["first-ns"] > 0 and r.metrics["second-ns"] > 0
    assert r.metrics["ns/hop"] == pytest.approx(r.metrics["first-ns"] / (n * p), rel=1e-3)


def test_published_chain_has_no_hop_work(built):
    out = _child("go-published", "n=10", "hop-work=3", "parallel=1")
    assert out.returncode == 4, out.stderr
    assert "the published program has no hop work (hop-work=3)" in out.stderr


def test_published_sizes_run_go_beside_go_published():
    """The million and ten-million cells (the second with --sizes all) run
    go and go-published; the smaller cells run every variant, go-published
    included."""
    from roundbench.run.plans import make_plans

    def names(plan):
        return {v.name for v in plan.variants} | {v.name for v, _ in plan.skipped}

    default = make_plans([ROUND], None, quick=False, overrides={})
    assert sorted(p.params["parallel"] for p in default if p.params["n"] == 1_000_000) == [1]
    plans = make_plans([ROUND], None, quick=False, overrides={}, all_sizes=True)
    big = [p for p in plans if p.params["n"] == 1_000_000]
    assert sorted(p.params["parallel"] for p in big) == [1, 10]
    assert all(names(p) == {"go", "go-published"} for p in big)
    assert all("go-published" in names(p) for p in plans)
    assert ROUND.models["go-published"] == "stackful"
    quick = make_plans([ROUND], None, quick=True, overrides={})
    assert all("go-published" in names(p) for p in quick)


def test_report_section_quotes_both_runs_and_the_refused_ten():
    from roundbench.report import document

    name = "BenchmarkChain/impl={}/n=1000000/hop-work=0/parallel={}"
    text = "\n".join(
        [
            "goos: linux",
            *[
                name.format("go-published", 1)
                + " 1 4670000000 ns/op 4670 ns/hop 2700 B/task 4670000000 first-ns 680000000 second-ns"
            ]
            * 2,
            *[name.format("go", 1) + " 1 900000000 ns/op 300 ns/hop 600000000 setup-ns 300000000 pass-ns"] * 2,
            "--- SKIP: " + name.format("go-published", 10) + ": not possible here: memory: n=1000000 x parallel=10",
        ]
    )
    out = document.render(benchfmt.parse_lines(text.splitlines()), "x")
    assert "go-published, the published program as published" in out
    assert "first run 4.67 s, second 0.68 s" in out
    assert "go, the fair protocol (a warm-up chain first, setup and pass timed apart" in out
    assert "setup 0.6 s, pass 0.3 s" in out
    assert "go-published, 10 chains at once (published: ten chains of a million took 13 minutes" in out
    assert "not run here: not possible here: memory: n=1000000 x parallel=10." in out


# ---- py-stackless: the Stackless API, under an interpreter that has it ----------------


def test_stackless_is_a_skip_without_the_module_never_a_failure(tmp_path):
    """Under an interpreter without a stackless module (CPython), py-stackless
    is a skip row that says what it needs, and its child exits 'cannot run
    here' (a skip), not as a failure."""
    import importlib.util

    if importlib.util.find_spec("stackless") is not None:
        pytest.skip("this interpreter has a stackless module")
    why = ROUND.variant("py-stackless").requires()
    assert why.startswith("needs an interpreter with the stackless module (PyPy's: run with --python pypy3)"), why
    out = _child("py-stackless", "n=10", "hop-work=0", "parallel=1")
    assert out.returncode == 4, out.stderr
    assert "cannot run here: no stackless module" in out.stderr
    out = run_roundbench(
        "run", "chain", "--impl", "py-stackless", "--n", "10", "--runs", "1", "--out", str(tmp_path), "--no-report"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.runs and not rs.failures
    assert rs.skips and all("impl=py-stackless/" in s.name for s in rs.skips)
    assert all("needs an interpreter with the stackless module" in s.reason for s in rs.skips)


def test_stackless_variant_is_declared_as_the_stackless_api_on_pypy():
    v = ROUND.variant("py-stackless")
    assert "Stackless API on PyPy's continulets, not Stackless Python" in v.explain
    assert ROUND.models["py-stackless"] == "stackful"


@pytest.mark.parametrize("n, k, p", [(1, 0, 1), (300, 1, 3), (2000, 0, 1)])
def test_stackless_child_under_pypy_agrees_with_the_vectors(pypy, n, k, p):
    """py-stackless under PyPy yields every other variant's value (the
    closed form the runner's cross-check also holds them to)."""
    out = _child("py-stackless", f"n={n}", f"hop-work={k}", f"parallel={p}", python=pypy)
    assert out.returncode == 0, out.stderr
    assert f"result: value={pure.expected(n, k)} chains={p}" in out.stdout
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")]
    r = benchfmt.parse_bench_line(line)
    for unit in ("setup-ns", "pass-ns", "teardown-ns", "ns/hop", "B/task"):
        assert r.metrics[unit] >= 0, unit


def test_stackless_agrees_with_the_others_through_the_runner_under_pypy(pypy, tmp_path, built):
    """With --python pypy3 the runner cross-checks py-stackless against the
    core and the other Python variants, all run under PyPy."""
    from roundbench.runtimes import interp

    assert interp.ensure_extension(pypy) is None  # py-c needs the extension built for PyPy
    out = run_roundbench(
        "run", "chain", "--python", pypy, "--n", "500", "--parallel", "2", "--runs", "1", "--out", str(tmp_path),
        "--no-report", "--impl", "c", "--impl", "py-stackless", "--impl", "py-asyncio", "--impl", "py-greenlet",
        "--impl", "py-c",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures, [f.reason for f in rs.failures]
    assert {r.params["impl"] for r in rs.runs} == {"c", "py-stackless", "py-asyncio", "py-greenlet", "py-c"}
