"""Round http: the core's server from Python (c and py-c in-process, the
C and Go runners' servers as processes) against the shared vectors; the
Python handler's errors; a clean stop on SIGTERM and SIGINT; the fixed-rate
generator; and one quick run of the whole round through the runner."""

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

import roundbench
from roundbench.results import benchfmt
from roundbench.judge.cells import Cell
from roundbench.pure import http as pure_http
from roundbench.apps import http as apps_http
from roundbench.rounds.http.client import exchange
from roundbench.rounds.http import CORE_VARIANTS, ROUND as HTTP


from conftest import BUILD, ROOT, child_env, load_vectors, run_roundbench

VECTORS = load_vectors("http")

# Every server gets the stress; what a library's server is known to fail of
# it is declared on its variant (Variant.known_failures).
STRESSED = [v.name for v in HTTP.variants]
KNOWN_FAILURES = {v.name: dict(v.known_failures) for v in HTTP.variants if v.known_failures}


def ask(port: int, raw: bytes, half_close: bool = True) -> tuple:
    """(status, body, closed by the server) for one request on a new
    connection; without the half-close (which hyper's servers answer by
    closing), what came within half a second."""
    data, closed = exchange(port, raw, timeout=3.0 if half_close else 0.5, half_close=half_close)
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    assert m, data
    lm = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return int(m.group(1)), body[: int(lm.group(1))] if lm else body, closed


def check_vectors(port: int) -> None:
    for v in VECTORS:
        raw = bytes.fromhex(v["hex"])
        status, body, _ = ask(port, raw)
        assert status == int(v["status"]), raw
        if v["body"] == "hello":
            assert body == b"Hello, World!", raw


@pytest.mark.parametrize("handler", [None, pure_http.hello], ids=["c", "py-c"])
def test_core_server_in_process(handler):
    with roundbench.HTTPServer(handler, threads=2) as srv:
        srv.start()
        check_vectors(srv.port)
        status, body, closed = ask(srv.port, b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 9000 + b"\r\n\r\n")
        assert status == 431 and closed
        st = srv.stats()
        assert st["requests"] >= 7 and st["bad_requests"] >= 15
        srv.stop()
        assert srv.wait(5) is True
    with pytest.raises(ValueError, match="closed"):
        _ = srv.port


def test_pipelined_in_order_through_python():
    seen = []

    def handler(method, path):
        seen.append(path)
        return 200, path.encode()

    with roundbench.HTTPServer(handler) as srv:
        srv.start()
        raw = b"".join(b"GET /%d HTTP/1.1\r\nHost: h\r\n\r\n" % i for i in range(5)) + b"GET /last HTTP/1.0\r\n\r\n"
        data, closed = exchange(srv.port, raw)
    assert closed and seen == [f"/{i}" for i in range(5)] + ["/last"]
    bodies = re.findall(rb"\r\n\r\n(/(?:\d|last))", data)
    assert bodies == [b"/0", b"/1", b"/2", b"/3", b"/4", b"/last"]


@pytest.mark.parametrize(
    "connection",
    [
        b"Connection: close, keep-alive\r\n",
        b"Connection: close\r\nConnection: keep-alive\r\n",
        b"Connection: keep-alive, CLOSE\r\n",
    ],
)
@pytest.mark.parametrize("version", [b"1.0", b"1.1"])
@pytest.mark.parametrize("handler", [None, pure_http.hello], ids=["c", "py-c"])
def test_close_wins_over_keep_alive(handler, version, connection):
    """A "close" option closes after the answer whatever "keep-alive" comes
    with it (RFC 9112 9.6): the pipelined request after it goes unanswered.
    Found by tests/test_properties.py; the parser took the last option."""
    raw = b"GET / HTTP/" + version + b"\r\nHost: h\r\n" + connection + b"\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"
    with roundbench.HTTPServer(handler) as srv:
        srv.start()
        data, closed = exchange(srv.port, raw, half_close=False)
    assert closed and data.count(b"HTTP/1.1 200") == 1 and b"\r\nConnection: close\r\n" in data, data


# The handler's exceptions are reported as unraisable (no caller to raise to
# on a worker thread); that report is expected here.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_handler_errors_answer_500_and_close():
    def bad(method, path):
        if path == "/raise":
            raise RuntimeError("handler failed")
        if path == "/big":
            return 200, b"x" * (1 << 20)
        return "not a tuple"

    with roundbench.HTTPServer(bad) as srv:
        srv.start()
        for path in (b"/raise", b"/type", b"/big"):
            status, _, closed = ask(srv.port, b"GET " + path + b" HTTP/1.1\r\nHost: h\r\n\r\n")
            assert status == 500 and closed, path


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="'host'"):
        roundbench.HTTPServer(host="10.1.2.3")
    with pytest.raises(ValueError, match="'host'"):
        roundbench.HTTPServer(host="not an address")
    with pytest.raises(TypeError, match="'handler'"):
        roundbench.HTTPServer(42)
    with pytest.raises(ValueError, match="'threads'"):
        roundbench.HTTPServer(threads=-1)
    with pytest.raises(ValueError, match="'port'"):
        roundbench.HTTPServer(port=70000)
    with pytest.raises(TypeError):
        roundbench.HTTPServer(port="80")
    srv = roundbench.HTTPServer()
    with pytest.raises(ValueError, match="not started"):
        srv.wait(0.1)
    srv.close()
    srv.close()


def test_slow_client_times_out_without_holding_the_worker():
    with roundbench.HTTPServer(None, threads=1, header_timeout_ms=300) as srv:
        srv.start()
        with socket.create_connection(("127.0.0.1", srv.port)) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\nHo")
            for _ in range(3):  # the only worker still serves others
                assert ask(srv.port, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")[0] == 200
            slow.settimeout(3)
            data = slow.recv(4096)
            assert data.startswith(b"HTTP/1.1 408")
            assert slow.recv(4096) == b""
        assert srv.stats()["timeouts"] >= 1


def serve_process(argv: list, env=None):
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or child_env(), cwd=ROOT
    )
    line = proc.stdout.readline()
    m = re.match(r"listening port=(\d+)", line)
    assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, int(m.group(1))


def open_sockets(pid: int) -> int:
    """The sockets pid holds: its connections and listener. Other
    descriptors are left out: a runtime may open its own at any time (Go's
    poller, lazily, in the go-c server)."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:  # closed meanwhile
            pass
    return n


@pytest.mark.parametrize(
    "argv, sig",
    [
        (["rb-c", "http-serve", "c", "port=0", "threads=2"], signal.SIGTERM),
        (["rb-go-http", "http-serve", "go-c", "port=0", "threads=2"], signal.SIGTERM),
        ([sys.executable, "-m", "roundbench.apps.http", "0", "2"], signal.SIGINT),
    ],
    ids=["c", "go-c", "py-c"],
)
def test_server_processes_answer_and_stop_cleanly(built, argv, sig):
    if not argv[0].startswith("/"):
        argv = [str(BUILD / argv[0])] + argv[1:]
    proc, port = serve_process(argv)
    try:
        check_vectors(port)
        fds = open_sockets(proc.pid)
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(200)]
        for s in socks:
            s.sendall(b"GET / HTTP/1.1\r\nHo")
            s.close()
        deadline = time.monotonic() + 5
        while open_sockets(proc.pid) > fds and time.monotonic() < deadline:
            time.sleep(0.05)
        # No leak: back to at most the count before (a connection of the
        # vector checks may still have been closing when it was taken).
        assert open_sockets(proc.pid) <= fds
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert re.search(r"stopped requests=\d+ bad=\d+ timeouts=\d+ open=0", out), out


def test_stdlib_server_is_the_language_alone():
    """py-stdlib is scored with the standard libraries (go's net/http), not
    with the frameworks, and is labelled with OS threads."""
    from roundbench.results import levels
    from roundbench.rounds import http as rhttp

    assert levels.level("py-stdlib") == levels.level("go") == "alone"
    assert rhttp.ROUND.models["py-stdlib"] == "os-thread"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stdlib_server_keeps_alive_and_stops_cleanly(sig):
    """py-stdlib (http.server): the round's answers on one kept-alive
    connection, each with its Content-Length; a client that resets its
    connection costs no traceback; a clean exit on either stop signal."""
    proc, port = serve_process([sys.executable, "-m", "roundbench.pure.http", "stdlib", "0"])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            f = s.makefile("rb")
            for method, path, status, body in (
                (b"GET", b"/", 200, b"Hello, World!"),
                (b"HEAD", b"/", 200, b""),
                (b"GET", b"/missing", 404, b""),
                (b"GET", b"/", 200, b"Hello, World!"),
            ):
                s.sendall(method + b" " + path + b" HTTP/1.1\r\nHost: h\r\n\r\n")
                assert f.readline().startswith(b"HTTP/1.1 %d " % status)
                head = {}
                while (line := f.readline()) != b"\r\n":
                    k, _, v = line.decode().partition(":")
                    head[k.lower()] = v.strip()
                assert head.get("connection", "keep-alive") != "close"
                want = len(b"Hello, World!") if method == b"HEAD" else len(body)
                assert int(head["content-length"]) == want
                assert (f.read(len(body)) if body else b"") == body
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            time.sleep(0.05)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        assert ask(port, b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")[:2] == (200, b"Hello, World!")
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0 and out.endswith("stopped\n"), (out, err)
    assert err == "", err


def test_go_server_answers_the_valid_vectors(built):
    proc, port = serve_process([str(BUILD / "rb-go-http"), "http-serve", "go", "port=0"])
    try:
        for v in VECTORS:
            raw = bytes.fromhex(v["hex"])
            if v["status"] in ("200", "404") and raw.startswith(b"GET ") and b"\n\n" not in raw:
                status, body, _ = ask(port, raw)
                assert status == int(v["status"])
                if v["body"] == "hello":
                    assert body == b"Hello, World!"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 0 and "stopped" in out


# ---- the library servers under the robustness stress ----------------------------

# Every stressed server (the core's, the library servers and the standard
# libraries' own) fails exactly the checks KNOWN_FAILURES declares for it: a
# server that starts passing a check, or fails another, fails the test below,
# so the declaration stays what the libraries in requirements-dev.txt and
# go.mod, net/http and http.server do. Each library server, with the module
# it needs (None: nothing to install).
LIBRARY_SERVERS = {
    "go": None,
    "go-fasthttp": None,
    "py-asgi": "uvicorn",
    "py-granian": "granian",
    "py-granian-rsgi": "granian",
    "py-stdlib": None,
    "py-fastapi": "fastapi",
    "py-flask": "gunicorn",
}


def asgi_call(scope: dict) -> list:
    """The messages asgi_app sends for one scope."""
    import asyncio

    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(pure_http.asgi_app(scope, receive, send))
    return sent


def test_asgi_app_answers_as_the_others():
    def ask_app(method, path):
        start, body = asgi_call({"type": "http", "method": method, "path": path, "headers": []})
        return start["status"], body["body"], dict(start["headers"])

    status, body, headers = ask_app("GET", "/")
    assert (status, body) == (200, b"Hello, World!") and headers[b"content-length"] == b"13"
    assert ask_app("HEAD", "/")[:2] == (200, b"")
    assert ask_app("GET", "/missing")[:2] == (404, b"")
    assert ask_app("POST", "/")[:2] == (405, b"")
    for path in ("/", "/missing"):  # the same answers as the core's handler
        assert pure_http.hello("GET", path)[0] == ask_app("GET", path)[0]


def test_rsgi_app_answers_as_the_others():
    import asyncio
    from types import SimpleNamespace

    class Proto:
        def response_bytes(self, status, headers, body):
            self.answer = (status, dict(headers), body)

    def ask_app(method, path, proto="http"):
        p = Proto()
        asyncio.run(pure_http.rsgi_app(SimpleNamespace(proto=proto, method=method, path=path), p))
        return getattr(p, "answer", None)

    status, headers, body = ask_app("GET", "/")
    assert (status, body) == (200, b"Hello, World!") and headers["content-type"].startswith("text/plain")
    assert ask_app("GET", "/missing")[::2] == (404, b"")
    assert ask_app("POST", "/")[::2] == (405, b"")
    assert ask_app("GET", "/", proto="websocket") is None
    for path in ("/", "/missing"):  # the same answers as the core's handler
        assert pure_http.hello("GET", path)[0] == ask_app("GET", path)[0]


def test_asgi_app_lifespan():
    import asyncio

    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent = []

    async def receive():
        return incoming.pop(0)

    async def send(message):
        sent.append(message["type"])

    asyncio.run(pure_http.asgi_app({"type": "lifespan"}, receive, send))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


@pytest.mark.parametrize("impl", STRESSED)
def test_server_answers_stresses_and_stops(built, impl):
    """Each stressed server through the driver's own steps: it answers the
    valid vectors, fails exactly the stress checks KNOWN_FAILURES declares
    for it (none for the core's servers and go-fasthttp), and stops cleanly
    on SIGTERM."""
    assert set(STRESSED) == set(CORE_VARIANTS) | set(LIBRARY_SERVERS)
    from roundbench.rounds.http.servers import Server, check_clean_exit, free_port, server_command, wait_ready
    from roundbench.rounds.http.stress import CHECKS, STRESS_HEADER_TIMEOUT_MS, stress

    module = LIBRARY_SERVERS.get(impl)
    if module:
        pytest.importorskip(module, reason=f"{module} is not installed (requirements-dev.txt)")
    port = free_port()
    argv, env = server_command(HTTP, impl, port, 1, STRESS_HEADER_TIMEOUT_MS)
    srv = Server(argv, env, sorted(os.sched_getaffinity(0))[:1])
    try:
        wait_ready(srv, port)
        for v in VECTORS:
            raw = bytes.fromhex(v["hex"])
            if v["status"] in ("200", "404") and raw.startswith(b"GET ") and b"\n\n" not in raw:
                status, body, _ = ask(port, raw, half_close=False)
                assert status == int(v["status"]), raw
                if v["body"] == "hello":
                    assert body == b"Hello, World!"
        failed = stress(srv.pid, port)
    except BaseException:
        srv.kill()
        raise
    check_clean_exit(srv.stop(signal.SIGTERM), impl)
    assert set(failed) <= set(CHECKS)
    assert set(failed) == set(KNOWN_FAILURES.get(impl, {})), failed


def test_stress_failures_fail_the_run_unless_known(built, monkeypatch, capsys):
    """A failed check that the variant does not declare fails the run,
    naming it; a declared one keeps the run's figures and is a
    known-failure fact; the report's table says FAILED for it."""
    from roundbench.rounds.http import driver
    from roundbench.measure import harness
    from roundbench.rounds import http as rhttp

    record = {
        "requests": 1000, "duration_ns": 10**9, "p50": 1, "p90": 2, "p99": 3, "p999": 4, "max": 5,
        "socket_errors": 0, "non200": 0, "hist": {}, "server": {"maxrss_kb": 1, "utime_ns": 1, "stime_ns": 1},
        "server_cores": 1, "load_cores": 1,
    }  # fmt: skip
    why = rhttp.ROUND.variant("py-asgi").requires()
    if why:
        pytest.skip(why)
    args = harness.Args("http", "py-asgi", [("conns", "2"), ("secs", "1"), ("warmup", "0")])
    monkeypatch.setattr(driver, "measure", lambda *a, **k: {**record, "robustness_failed": {"pipelined": "got []"}})
    with pytest.raises(harness.WrongResult, match="robustness: 1 check") as err:
        rhttp.run(args)
    assert "pipelined" in str(err.value)
    assert "Benchmark" not in capsys.readouterr().out
    known = {k: "got b''" for k in KNOWN_FAILURES["py-asgi"]}
    monkeypatch.setattr(driver, "measure", lambda *a, **k: {**record, "robustness_failed": known})
    rhttp.run(args)
    out = capsys.readouterr().out
    facts = [ln for ln in out.splitlines() if ln.startswith("fact: ")]
    assert sorted(f.split()[1] for f in facts) == sorted(benchfmt.KNOWN_FAILURE + k for k in known)
    assert re.search(r"^BenchmarkHttp/impl=py-asgi\S* 1000 ", out, re.M), out
    # The report's robustness table: FAILED for py-asgi's checks, passed for c.
    rs = benchfmt.parse_lines(
        [benchfmt.fact_line("BenchmarkHttp/impl=py-asgi/conns=2", f[len("fact:") :]) for f in facts]
        + ["BenchmarkHttp/impl=py-asgi/conns=2 1000 1e6 ns/op 1000 req/s\n"]
        + ["BenchmarkHttp/impl=c/conns=2 1000 1e6 ns/op 1000 req/s\n"]
    )
    cells = {}
    for r in rs.runs:
        cells.setdefault(r.params["impl"], Cell(r.params["impl"])).runs.append(r)
    for f in rs.facts:
        cells["py-asgi"].facts[f.key] = f.value
    table = rhttp._robustness_table(cells)
    assert re.search(r"^\| py-asgi \| \*\*FAILED\*\* .*slow-client-408", table, re.M), table
    assert re.search(r"^\| c \| passed all \d+ checks \|$", table, re.M), table


def test_flask_app():
    pytest.importorskip("flask")
    client = apps_http.flask_app.test_client()
    r = client.get("/")
    assert r.status_code == 200 and r.data == b"Hello, World!"
    assert client.get("/nope").status_code == 404


def test_fixed_rate_generator(built):
    with roundbench.HTTPServer(None) as srv:
        srv.start()
        out = subprocess.run(
            [str(BUILD / "rb-load"), f"port={srv.port}", "conns=4", "rate=200", "secs=1", "warmup=0", "le=1000000000"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        served = srv.stats()["requests"]
    assert out.returncode == 0, out.stderr
    fields = dict(kv.split("=") for kv in out.stdout.split("\n")[0].split()[1:])
    # 200 intended in the measured second, none late, all answered 200.
    assert int(fields["requests"]) == 200 and fields["late"] == "0" and fields["non200"] == "0"
    assert int(fields["p50_ns"]) <= int(fields["p99_ns"]) <= int(fields["max_ns"])
    assert served >= 200
    assert re.search(r"^rb-load-le 1000000000 100\.0000$", out.stdout, re.M)
    bad = subprocess.run(
        [str(BUILD / "rb-load"), "port=1", "conns=0", "rate=1", "secs=1"], capture_output=True, text=True
    )
    assert bad.returncode == 2


def test_fixed_rate_counts_a_stalled_server(built):
    """A server that stops answering: every request scheduled behind the
    stall is late, and the tail shows it."""
    with socket.socket() as ls:
        ls.bind(("127.0.0.1", 0))
        ls.listen(64)  # accepts (in the kernel) but never answers
        port = ls.getsockname()[1]
        out = subprocess.run(
            [str(BUILD / "rb-load"), f"port={port}", "conns=2", "rate=20", "secs=1", "warmup=0"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    fields = dict(kv.split("=") for kv in out.stdout.split("\n")[0].split()[1:])
    assert fields["requests"] == "0" and int(fields["late"]) == 20
    assert int(fields["p50_ns"]) >= 1_000_000_000  # at least the 2 s grace, from intended times


def test_round_quick_run_every_variant(tmp_path, built):
    """One quick run of each variant, both load modes, through the runner."""
    args = [
        "run",
        "http",
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        "--timeout",
        "120",
        "--no-report",
        "--param",
        "conns=20",
        "--param",
        "secs=1",
        "--param",
        "warmup=0",
    ]
    out = run_roundbench(*args, "--param", "rate=0", timeout=600)
    rs = benchfmt.read_dir(tmp_path)
    # Known failures of the libraries do not fail a run; nothing else failed.
    assert out.returncode == 0 and not rs.failures, out.stdout + out.stderr
    got = {r.params["impl"]: r for r in rs.runs}
    # The servers known to fail a check say which, in the file and the summary.
    known = {f.name.split("/")[1][len("impl=") :] for f in rs.facts if f.key.startswith(benchfmt.KNOWN_FAILURE)}
    assert known == set(KNOWN_FAILURES) & set(got), (known, got.keys())
    for impl in known:
        assert f"http {impl}: " in out.stderr and "known failures of their libraries" in out.stderr, out.stderr
    skipped = {s.name for s in rs.skips} if hasattr(rs, "skips") else set()
    for impl in ("c", "go", "go-c", "go-fasthttp", "py-c", "py-fastapi", "py-flask", "py-stdlib"):
        if impl in got:
            r = got[impl]
            assert r.metrics["req/s"] > 0 and r.metrics["errors"] == 0 and r.metrics["server-peak-B"] > 0
            assert r.metrics["p50-ns"] <= r.metrics["p99-ns"] <= r.metrics["max-ns"]
            # wrk's own CPU use, a share of its CPUs (rusage can round a little over).
            assert 0 < r.metrics["load-cpu-%"] <= 105, r.metrics
    assert {"c", "go", "go-c", "go-fasthttp", "py-c", "py-stdlib"} <= set(got), (got.keys(), skipped)
    text = (tmp_path / "results.txt").read_text()
    assert "http-pinning: " in text


def test_report_names_a_load_bound_cell():
    """When wrk's CPUs were busy (load-cpu-% at or above LOAD_BOUND_PCT),
    the report says the generator was the limit for those servers and ranks
    them by server CPU per request; a fixed-rate cell never says it."""
    from roundbench.rounds import http as rhttp

    def cell(impl, pct, cpu):
        c = Cell(impl)
        c.runs.append(benchfmt.Run(f"BenchmarkHttp/impl={impl}", 1, {"load-cpu-%": pct, "server-cpu-ns/req": cpu}, {}))
        return c

    cells = {"c": cell("c", 99.0, 6000.0), "go-fasthttp": cell("go-fasthttp", 97.0, 8000.0), "go": cell("go", 60.0, 1)}
    # The size as the report has it: the values read back from the names.
    text = rhttp._load_bound({"conns": "250", "rate": "0"}, cells)
    assert "limit for c (99%), go-fasthttp (97%)" in text and "go (" not in text, text
    assert "c 6,000 < go-fasthttp 8,000" in text, text
    assert rhttp._load_bound({"conns": "250", "rate": "2000"}, cells) == ""
    assert rhttp._load_bound({"load": "hey", "conns": "250"}, cells) == ""
    assert rhttp._load_bound({"conns": "250", "rate": "0"}, {"go": cells["go"]}) == ""


def test_round_fixed_rate_mode(tmp_path, built):
    """Each server held to the rate answers it, without errors, and every
    run's line carries the p99 the cell is scored by."""
    from roundbench import rounds
    from roundbench.rounds import http as rhttp

    out = run_roundbench(
        "run",
        "http",
        "--impl",
        "c",
        "--impl",
        "py-stdlib",
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        "--no-report",
        "--param",
        "conns=10",
        "--param",
        "secs=1",
        "--param",
        "warmup=0",
        "--param",
        "rate=300",
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    runs = benchfmt.read_dir(tmp_path).runs
    assert sorted(r.params["impl"] for r in runs) == ["c", "py-stdlib"]
    for run in runs:
        assert run.params["rate"] == "300" and run.metrics["errors"] == 0
        assert 250 <= run.metrics["req/s"] <= 310
        assert rounds.score_unit(rhttp.ROUND, run.params) == "p99-ns"
        assert 0 < run.metrics["p50-ns"] <= run.metrics["p99-ns"] <= run.metrics["max-ns"]


def test_fixed_rate_cell_is_scored_by_p99():
    """At a fixed rate every server serves the same requests per second:
    p99 latency scores the cell, and the report says so; at full speed and
    in the published load, requests per second do."""
    from roundbench import rounds
    from roundbench.rounds import http as rhttp

    for size in rhttp.ROUND.sizes + rhttp.ROUND.quick:
        want = "p99-ns" if size.get("rate") else "req/s"
        assert rounds.score_unit(rhttp.ROUND, size) == want, size
        # As the report has the size: the values read back from the names.
        assert rounds.score_unit(rhttp.ROUND, {k: str(v) for k, v in size.items()}) == want, size
    assert rhttp.ROUND.units["p99-ns"] == "lower"
    c = Cell("c")
    c.runs.append(benchfmt.Run("BenchmarkHttp/impl=c", 1, {"p99-ns": 1.0}, {}))
    text = rhttp.report_section({"conns": "250", "rate": "2000"}, {"c": c}, {})
    assert "2,000 requests per second" in text and "scored by p99 latency" in text, text
    assert "scored by" not in rhttp.report_section({"conns": "250", "rate": "0"}, {"c": c}, {})


# ---- the published load: hey -c 250 -n 5000 --------------------------------------

HEY_SUMMARY = """
Summary:
  Total:\t2.5000 secs
  Slowest:\t0.9000 secs
  Fastest:\t0.0010 secs
  Average:\t0.1000 secs
  Requests/sec:\t1996.0000

Latency distribution:
  10% in 0.0100 secs
  25% in 0.0200 secs
  50% in 0.0500 secs
  75% in 0.1000 secs
  90% in 0.2000 secs
  95% in 0.3000 secs
  99% in 0.7000 secs

Status code distribution:
  [200]\t4980 responses
  [502]\t10 responses

Error distribution:
  [7]\tGet "http://127.0.0.1:9/": read: connection reset by peer
  [3]\tGet "http://127.0.0.1:9/": EOF
"""


def test_hey_summary_is_read_into_the_record():
    from roundbench.rounds.http.load import parse_hey

    r = parse_hey(HEY_SUMMARY)
    assert r == {
        "requests": 4990,
        "duration_ns": 2_500_000_000,
        "p50": 50_000_000,
        "p90": 200_000_000,
        "p99": 700_000_000,
        "p999": None,
        "max": 900_000_000,
        "socket_errors": 10,
        "non200": 10,
        "hist": {},
    }


def test_hey_without_a_response_says_so():
    from roundbench.measure import harness
    from roundbench.rounds.http.load import parse_hey

    only_errors = (
        "Summary:\n  Total:\t0.0100 secs\n\nStatus code distribution:\n\nError distribution:\n  [20]\tdial tcp\n"
    )
    with pytest.raises(harness.CannotRun, match="hey got no response, only errors"):
        parse_hey(only_errors)
    with pytest.raises(harness.CannotRun, match="could not read hey's summary"):
        parse_hey("flag provided but not defined: -x")


def test_flask_workers_as_published():
    from roundbench.rounds.http.servers import server_command

    argv, _ = server_command(HTTP, "py-flask", 8080, 4, flask_workers=3)
    assert argv[argv.index("--workers") + 1] == "3"
    argv, _ = server_command(HTTP, "py-flask", 8080, 4)
    assert argv[argv.index("--workers") + 1] == "9"


def test_published_load_cell_runs_the_published_servers():
    """The load=hey cell runs go, py-flask and py-fastapi by default (the
    servers the published comparison loaded), with flask at 3 workers."""
    from roundbench.run.plans import make_plans
    from roundbench.rounds import http

    for quick in (False, True):
        plans = make_plans([http.ROUND], None, quick=quick, overrides={})
        (hey,) = [p for p in plans if p.params.get("load") == "hey"]
        names = {v.name for v in hey.variants} | {v.name for v, _ in hey.skipped}
        assert names == {"go", "py-flask", "py-fastapi"}
        assert hey.params["flask-workers"] == 3
        others = [p for p in plans if p is not hey]
        assert all("c" in {v.name for v in p.variants} | {v.name for v, _ in p.skipped} for p in others)


def test_published_load_through_the_runner(tmp_path, built):
    """A small hey cell through the runner: hey's figures in the result line
    (no p99.9, no shares under a bound), or, without hey, a row that says so."""
    out = run_roundbench(
        "run",
        "http",
        "--impl",
        "go",
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        "--param",
        "load=hey",
        "--param",
        "conns=10",
        "--param",
        "requests=300",
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    rs = benchfmt.read_dir(tmp_path)
    assert not rs.failures, [f.reason for f in rs.failures]
    hey = [r for r in rs.runs if r.params.get("load") == "hey"]
    skips = [s for s in rs.skips if "load=hey" in s.name]
    if not hey:
        assert skips and all("command hey is not on PATH" in s.reason for s in skips), skips
        return
    for r in hey:
        assert r.params["requests"] == "300" and r.params["conns"] == "10"
        assert r.iters == 300 and r.metrics["errors"] == 0 and r.metrics["req/s"] > 0
        assert r.metrics["p50-ns"] <= r.metrics["p99-ns"] <= r.metrics["max-ns"]
        assert "p999-ns" not in r.metrics and not any(u.startswith("le-") for u in r.metrics)
    report = (tmp_path / "report.md").read_text()
    assert "This cell is the published load: `hey -c 10 -n 300`" in report
    assert "http-load-published: hey " in (tmp_path / "results.txt").read_text()


def test_published_load_refuses_a_fixed_rate(tmp_path, built):
    """--param rate=R reaches the hey cell too: a skip row there, not a run
    of hey that ignores the rate."""
    out = run_roundbench(
        "run",
        "http",
        "--impl",
        "go",
        "--runs",
        "1",
        "--out",
        str(tmp_path),
        "--no-report",
        "--param",
        "conns=10",
        "--param",
        "secs=1",
        "--param",
        "warmup=0",
        "--param",
        "rate=300",
        "--param",
        "requests=100",
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    rs = benchfmt.read_dir(tmp_path)
    assert [r.params.get("load") for r in rs.runs] == [None]
    (skip,) = rs.skips
    assert "load=hey" in skip.name and "rate=300 is a setting of the fixed-rate generator" in skip.reason


def test_report_states_the_pinning_the_run_recorded():
    """The section quotes the result file's http-pinning line: the report's
    own process (the runner keeps to one CPU) would see other CPUs."""
    from roundbench.rounds import http as rhttp

    c = Cell("c")
    c.runs.append(benchfmt.Run("BenchmarkHttp/impl=c", 1, {"p50-ns": 1.0}, {}))
    recorded = "server pinned to CPU 0, load generator to CPU 1 (2 usable CPUs)"
    text = rhttp.report_section({"rate": 0}, {"c": c}, {"http-pinning": recorded})
    assert f"Pinning: {recorded}." in text, text
    assert "Pinning: not recorded" in rhttp.report_section({"rate": 0}, {"c": c}, {})
