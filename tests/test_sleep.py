"""Round sleep: every variant at small N against the shared vectors, bad
input, the thread-limit handling (a clear refusal, never a hang), and no
threads or file descriptors left behind."""

import subprocess
import sys
import threading

import pytest

import roundbench
from roundbench.results import benchfmt
from roundbench.pure import sleep as pure
from roundbench.rounds import sleep as rnd

from conftest import BUILD, child_env, load_vectors, run_roundbench
from conftest import open_fds as _fds, os_threads as _threads

WAIT_NS = 5_000_000  # the tests check what happened, not how fast
SLEEP = load_vectors("sleep")


def _uvloop(n: int, wait_ns: int) -> dict:
    uvloop = pytest.importorskip("uvloop", reason="uvloop is not installed (requirements-dev.txt)")
    return pure.sleep_asyncio(n, wait_ns, uvloop.new_event_loop)


VARIANTS = {
    "core": roundbench.sleep,
    "asyncio": pure.sleep_asyncio,
    "uvloop": _uvloop,
    "threads": pure.sleep_threads,
}


@pytest.mark.parametrize("v", SLEEP, ids=lambda v: f"n={v['n']}")
@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_agree_and_leave_nothing_behind(name, v):
    n = int(v["n"])
    if name == "uvloop":
        # libuv opens its process-wide signal pipe with the first loop and
        # keeps it: a warm-up loop first, so that the counts below see the rest.
        _uvloop(0, 0)
    threads, fds = _threads(), _fds()
    s = VARIANTS[name](n, WAIT_NS)
    assert (s["n"], s["peak_live"], s["completed"], s["early"]) == (n, n, n, 0)
    if n:
        assert s["run_ns"] >= WAIT_NS and s["overhead_ns"] == s["run_ns"] - WAIT_NS
    assert s["setup_ns"] >= 0
    assert _threads(threads) <= threads, "threads left running"
    assert _fds() == fds, "file descriptors left open"


@pytest.mark.parametrize("v", load_vectors("sleep-error"), ids=lambda v: f"n={v['n']}")
def test_core_bad_n(v):
    exc = OverflowError if v["error"] == "overflow" else ValueError
    with pytest.raises(exc, match="'n'"):
        roundbench.sleep(int(v["n"]), WAIT_NS)


def test_core_bad_arguments():
    with pytest.raises(ValueError, match="'wait_ns'"):
        roundbench.sleep(3, -1)
    with pytest.raises(TypeError, match="'n'"):
        roundbench.sleep("3", WAIT_NS)
    with pytest.raises(TypeError, match="2 arguments"):
        roundbench.sleep(3)
    with pytest.raises(ValueError, match="'touched_bytes'"):
        roundbench.thread_limit(-1, 0)


def test_thread_limit_reads_the_machine():
    name, value, allows = roundbench.thread_limit(rnd.PY_THREAD_TOUCHED, rnd.PY_THREAD_MAPS)
    assert name in (
        "kernel.pid_max",
        "kernel.threads-max",
        "ulimit -u (RLIMIT_NPROC)",
        "vm.max_map_count",
        "MemAvailable",
    )
    assert value > 0 and allows >= 0
    assert roundbench.thread_limit(rnd.PY_THREAD_TOUCHED, 0)[2] >= allows


def test_sleep_releases_the_gil():
    ticks = 0
    stop = threading.Event()

    def ticker():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            stop.wait(0.005)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        roundbench.sleep(10, 200_000_000)
    finally:
        stop.set()
        t.join()
    assert ticks > 5


def test_threads_refused_part_way_join_every_thread(monkeypatch):
    """When the system refuses a thread, the variant releases and joins the
    ones it made and says so; it does not hang or leave threads behind."""
    real_start = threading.Thread.start
    started = 0

    def start(self):
        nonlocal started
        if started == 7:
            raise RuntimeError("can't start new thread")
        started += 1
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    threads = _threads()
    with pytest.raises(pure.ThreadLimit, match="cannot start thread 8: can't start new thread"):
        pure.sleep_threads(20, 10_000_000_000)
    assert _threads(threads) <= threads


def _child(impl, *params):
    if impl.startswith("c"):
        cmd = [str(BUILD / "rb-c"), "sleep", impl]
    elif impl.startswith("go"):
        cmd = [str(BUILD / "rb-go-sleep"), "sleep", impl]
    else:
        cmd = [sys.executable, "-m", "roundbench.run.child", "sleep", impl]
    return subprocess.run(cmd + list(params), capture_output=True, text=True, env=child_env(), timeout=60)


FAIR = [v.name for v in rnd.ROUND.variants if not v.name.endswith("-published")]
PUBLISHED = [v.name for v in rnd.ROUND.variants if v.name.endswith("-published")]


@pytest.mark.parametrize("impl", FAIR)
@pytest.mark.parametrize("n", [1, 2, 300])
def test_every_variant_child(built, impl, n):
    if impl == "py-uvloop":
        pytest.importorskip("uvloop", reason="uvloop is not installed (requirements-dev.txt)")
    out = _child(impl, f"n={n}", "wait_ms=5")
    assert out.returncode == 0, out.stderr
    assert f"result: tasks={n} peak={n} completed={n}" in out.stdout
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")][0]
    r = benchfmt.parse_bench_line(line)
    assert r.name == f"BenchmarkSleep/impl={impl}/n={n}/wait_ms=5"
    assert r.metrics["live-tasks"] == n
    for unit in ("overhead-ns", "setup-ns", "B/task", "base-B"):
        assert unit in r.metrics


@pytest.mark.parametrize("impl", ["c-threads", "py-threads"])
def test_thread_variants_refuse_what_cannot_fit(built, impl):
    """Far more threads than any limit here allows: a quick, clear exit 4
    naming the limit, before a single thread is made."""
    out = _child(impl, "n=90000000", "wait_ms=5")
    assert out.returncode == 4, out.stderr
    assert "not possible here:" in out.stderr and "allows about" in out.stderr
    assert "fit=1" in out.stderr


def test_child_rejects_bad_n(built):
    for impl in ("c", "go", "py-c", *PUBLISHED):
        out = _child(impl, "n=0")
        assert out.returncode == 2 and "n=0 is out of range" in out.stderr


def test_quick_round_through_the_runner(tmp_path, built):
    out = run_roundbench("run", "sleep", "--quick", "--runs", "1", "--param", "wait_ms=20", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures and not rs.skips
    assert {r.params["impl"] for r in rs.runs} == {v.name for v in rnd.ROUND.variants}
    assert all(r.name.endswith("/n=1000/wait_ms=20") for r in rs.runs), "--param reaches the children"
    report = (tmp_path / "report.md").read_text()
    assert "## sleep" in report and "bytes/task" in report


# ---- the published programs, as published ------------------------------------------


def test_published_variants_declared_with_models():
    assert PUBLISHED == ["py-asyncio-published", "go-published"]
    assert rnd.ROUND.models["py-asyncio-published"] == "event-loop"
    assert rnd.ROUND.models["go-published"] == "stackful"


@pytest.mark.parametrize("n", [1, 2, 300])
def test_published_asyncio_gathers_every_task(n):
    total, done = rnd.sleep_asyncio_published(n, WAIT_NS)
    assert done == [None] * n
    assert total >= WAIT_NS


@pytest.mark.parametrize("impl", PUBLISHED)
@pytest.mark.parametrize("n", [1, 2, 300])
def test_published_child(built, impl, n):
    """Each published program checks itself (all n gathered or waited for,
    at least the wait taken) and prints no result for the runner to compare:
    it has no common start, so it cannot say all n were live at once."""
    out = _child(impl, f"n={n}", "wait_ms=5")
    assert out.returncode == 0, out.stderr
    assert "result:" not in out.stdout
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("Benchmark")][0]
    r = benchfmt.parse_bench_line(line)
    assert r.name == f"BenchmarkSleep/impl={impl}/n={n}/wait_ms=5"
    assert r.metrics["overhead-ns"] >= 0 and r.metrics["ns/op"] >= WAIT_NS
    assert {"B/task", "base-B"} <= set(r.metrics)
    if impl == "go-published":
        assert 1 <= r.metrics["live-tasks"] <= n and r.metrics["setup-ns"] >= 0


def test_published_never_scores():
    """A published program faster than the fair variant is shown beside it
    but takes no point: the point is the fair variants'. Three runs a
    variant: the decision rule calls fewer inconclusive."""
    from roundbench.report import document

    text = "\n".join(
        [
            "goos: linux",
            *["BenchmarkSleep/impl=go/n=1000 1 3000 ns/op 3000 overhead-ns 4000000 peak-B"] * 3,
            *["BenchmarkSleep/impl=go-published/n=1000 1 1000 ns/op 1000 overhead-ns 4000000 peak-B"] * 3,
            *["BenchmarkSleep/impl=py-asyncio/n=1000 1 2000 ns/op 2000 overhead-ns 9000000 peak-B"] * 3,
        ]
    )
    out = document.render(benchfmt.parse_lines(text.splitlines()), "x")
    assert "| go-published | [stackful] published program, as published" in out
    # the score's point is the fair variants': go against py-asyncio, Python's by 1.5x
    assert "| sleep: n=1000 | Python 1.50× [1.50×, 1.50×] (go vs py-asyncio) |" in out
    assert "go-published vs" not in out
