"""Round http: a hello-world HTTP/1.1 server under load.

Every server answers GET / with 200 and "Hello, World!", keep-alive, no
access log, on 127.0.0.1 only:

  go          net/http (ServeMux), GOMAXPROCS = the server's cores
  py-flask    Flask under gunicorn, 2 x cores + 1 sync workers
  py-fastapi  FastAPI under uvicorn (uvloop and httptools when installed),
              one worker per server core
  c           the core's server (csrc/http.c): epoll, one worker thread per
              server core, the core's own C handler
  py-c        the same server answering through a Python callable per
              request (the GIL taken per request)
  go-c        the same server answering through a Go function (//export)

One run is one child (`python -m roundbench.child http IMPL ...`, this
module's `run`) that picks a free port, starts the server pinned to its
cores through build/rb-spawn (so the server's peak RSS and CPU time are its
own, from wait4), waits until it answers GET / correctly, runs the load
generator as a separate process pinned to the other cores (a warm-up run,
then the measured run), stops the server with SIGTERM (it must exit 0), for
the core's servers runs a short robustness stress on a fresh instance
(stopped with SIGINT), and prints one result line. Load: wrk (rate=0: as fast as 'conns' connections go) or, for rate>0,
build/rb-load (csrc/tools/loadgen.c), the project's fixed-rate generator,
which measures latency from each request's intended send time, so a server
that stalls cannot hide its tail (wrk2 is not packaged by Debian).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

from .. import harness, programs
from . import Round, Variant, needs_command, needs_module

HELLO = b"Hello, World!"
READY_TIMEOUT_S = 30.0  # a server that does not answer by then fails the run
STOP_TIMEOUT_S = 15.0  # a server that does not exit by then is killed: a failed run
WRK_TIMEOUT_S = 2  # wrk counts a response slower than this as a timeout error
STRESS_DROPS = 1000  # connections opened and dropped mid-request in the stress
STRESS_HEADER_TIMEOUT_MS = 500  # the stress instance's header timeout
CORE_VARIANTS = ("c", "py-c", "go-c")
# The latency histogram's upper bounds (ns): the share of requests at or below each.
HIST_NS = (100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)


def _hist_unit(ns: int) -> str:
    return f"le-{ns // 1000}us-%"


def split_cpus() -> tuple:
    """(server cpus, load cpus, how): half the usable CPUs each (the server
    gets the first half, at least one); with one CPU they share it."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return cpus, cpus, f"not pinned: 1 usable CPU, server and load generator share CPU {cpus[0]}"
    half = len(cpus) // 2
    server, load = cpus[:half], cpus[half:]
    how = (
        f"server pinned to CPU {','.join(map(str, server))}, load generator to CPU "
        f"{','.join(map(str, load))} ({len(cpus)} usable CPUs); the driver is not pinned and sleeps"
    )
    return server, load, how


def _versions(*names: str) -> str:
    out = []
    for n in names:
        try:
            out.append(f"{n} {importlib.metadata.version(n)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{n} not installed")
    return ", ".join(out)


def _wrk_version() -> str:
    if not shutil.which("wrk"):
        return "not installed"
    try:
        out = subprocess.run(["wrk", "-v"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    m = re.search(r"wrk (\S+)", out.stdout + out.stderr)
    return m.group(1) if m else "unknown"


def _uvicorn_impl() -> str:
    loop = "uvloop" if needs_module("uvloop", "")() is None else "asyncio"
    http = "httptools" if needs_module("httptools", "")() is None else "h11"
    return f"--loop auto ({loop}), --http auto ({http})"


def provenance() -> tuple:
    server, load, how = split_cpus()
    items = {
        "http-pinning": how,
        "http-server-cores": str(len(server)),
        "http-load": (
            f"wrk {_wrk_version()} (Debian package), {len(load)} thread(s), --timeout {WRK_TIMEOUT_S}s, "
            "warm-up run then measured run; errors = socket errors (connect, read, write, timeout) + "
            "responses with status >= 400"
        ),
        "http-load-fixed-rate": (
            "build/rb-load (csrc/tools/loadgen.c, the project's own): a constant request rate, "
            "latency from each request's intended send time; wrk2 is not packaged by Debian"
        ),
        "http-python-servers": _versions("flask", "gunicorn", "fastapi", "uvicorn", "uvloop", "httptools")
        + f"; uvicorn {_uvicorn_impl()}",
        "http-peak-rss": "server-peak-B is the server process's own (gunicorn: the largest of master and workers), "
        "from wait4 in rb-spawn; server CPU includes reaped worker processes",
    }
    warnings = []
    if len(server) == len(load) and set(server) == set(load):
        warnings.append("http: server and load generator share one CPU")
    return items, warnings


def _needs_build(name: str):
    def check() -> Optional[str]:
        return programs.missing(name)

    return check


def _all(*checks):
    def check() -> Optional[str]:
        for c in checks:
            why = c()
            if why:
                return why
        return None

    return check


_WRK = needs_command("wrk")
_BASE = _all(_WRK, _needs_build("rb-spawn"), _needs_build("rb-load"))
V = Variant
ROUND = Round(
    name="http",
    title="http: a hello-world HTTP/1.1 server under load",
    explain=(
        "Each server answers GET / with 'Hello, World!' (keep-alive, no access log) on 127.0.0.1, with the same "
        "number of cores, loaded by a separate load generator on other cores: wrk at full speed (rate=0), or "
        "rb-load at a fixed rate with latency from the intended send time (rate>0)."
    ),
    variants=[
        V(
            "c",
            "py",
            "the core's server: epoll, one thread per core, C handler",
            requires=_all(_BASE, _needs_build("rb-c")),
        ),
        V("go", "py", "net/http ServeMux, GOMAXPROCS = server cores", requires=_all(_BASE, _needs_build("rb-go"))),
        V(
            "go-c",
            "py",
            "the core's server answering through a Go function (//export)",
            requires=_all(_BASE, _needs_build("rb-go")),
        ),
        V("py-c", "py", "the core's server answering through a Python callable (GIL per request)", requires=_BASE),
        V(
            "py-fastapi",
            "py",
            "FastAPI under uvicorn, one worker per core",
            requires=_all(
                _BASE,
                needs_module("fastapi", "pip install -r requirements-dev.txt"),
                needs_module("uvicorn", "pip install -r requirements-dev.txt"),
            ),
        ),
        V(
            "py-flask",
            "py",
            "Flask under gunicorn, 2 x cores + 1 sync workers",
            requires=_all(
                _BASE,
                needs_module("flask", "pip install -r requirements-dev.txt"),
                needs_module("gunicorn", "pip install -r requirements-dev.txt"),
            ),
        ),
    ],
    sizes=[{"conns": 250, "secs": 5, "warmup": 2, "rate": 0}, {"conns": 250, "secs": 5, "warmup": 1, "rate": 2000}],
    quick=[{"conns": 50, "secs": 1, "warmup": 0, "rate": 0}],
    metric="req/s",
    units={
        "req/s": "higher",
        "p50-ns": "lower",
        "p90-ns": "lower",
        "p99-ns": "lower",
        "p999-ns": "lower",
        "max-ns": "lower",
        "errors": "lower",
        "socket-errors": "lower",
        "non200": "lower",
        "server-peak-B": "lower",
        "server-cpu-ns/req": "lower",
        "server-cores": "higher",
        "load-cores": "higher",
        **{_hist_unit(ns): "higher" for ns in HIST_NS},
    },
    metric_explain="req/s: responses per second during the measured period (ns/op is its inverse)",
    reference="c",
    columns=[
        ("p50-ns", "p50 latency (ns)"),
        ("p99-ns", "p99 latency (ns)"),
        ("errors", "errors"),
        ("server-peak-B", "server peak RSS"),
        ("server-cpu-ns/req", "server CPU ns/req"),
    ],
)


# ---- starting and stopping a server ---------------------------------------


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(impl: str, port: int, cores: int, header_timeout_ms: int = 10000) -> tuple:
    """(argv, extra environment) that start variant impl's server; the
    header timeout applies to the core's servers (c, py-c, go-c)."""
    py = [sys.executable]
    hto = f"header_timeout_ms={header_timeout_ms}"
    if impl == "c":
        return [str(programs.path("rb-c")), "http-serve", "c", f"port={port}", f"threads={cores}", hto], {}
    if impl == "go":
        return [str(programs.path("rb-go")), "http-serve", "go", f"port={port}"], {"GOMAXPROCS": str(cores)}
    if impl == "go-c":
        return [str(programs.path("rb-go")), "http-serve", "go-c", f"port={port}", f"threads={cores}", hto], {
            "GOMAXPROCS": str(cores)
        }
    if impl == "py-c":
        return py + ["-m", "roundbench.pure.http", str(port), str(cores), str(header_timeout_ms)], {}
    if impl == "py-flask":
        return (
            py
            + [
                "-m",
                "gunicorn",
                "--workers",
                str(2 * cores + 1),
                "--worker-class",
                "sync",
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
                "--backlog",
                "2048",
                "roundbench.pure.http:flask_app",
            ],
            {},
        )
    if impl == "py-fastapi":
        return (
            py
            + [
                "-m",
                "uvicorn",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(cores),
                "--no-access-log",
                "--log-level",
                "warning",
                "--backlog",
                "2048",
                "roundbench.pure.http:fastapi_app",
            ],
            {},
        )
    raise harness.UsageError(f"http: no variant {impl!r}")


class Server:
    """A server started through rb-spawn, pinned to `cpus`."""

    def __init__(self, argv: list, env: dict, cpus: list):
        self.rfd, wfd = os.pipe()
        full_env = dict(os.environ)
        full_env.update(env)
        # The package must be importable by the Python servers' workers.
        pkg_root = str(Path(__file__).resolve().parents[2])
        full_env["PYTHONPATH"] = pkg_root + os.pathsep + full_env.get("PYTHONPATH", "")
        old = os.sched_getaffinity(0)
        os.sched_setaffinity(0, cpus)  # inherited by rb-spawn and the server
        try:
            self.spawn = subprocess.Popen(
                [str(programs.path("rb-spawn")), str(wfd), *argv],
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(wfd,),
            )
        finally:
            os.sched_setaffinity(0, old)
            os.close(wfd)
        self.pid = self._find_pid()

    def _find_pid(self) -> int:
        """The server's pid: rb-spawn's only child."""
        path = f"/proc/{self.spawn.pid}/task/{self.spawn.pid}/children"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with open(path) as f:
                    kids = f.read().split()
            except OSError:
                kids = []
            if kids:
                return int(kids[0])
            if self.spawn.poll() is not None:
                break
            time.sleep(0.005)
        raise harness.CannotRun(f"cannot find the server process under rb-spawn ({path})")

    def alive(self) -> bool:
        return self.spawn.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> dict:
        """Sends sig, then waits; returns rb-spawn's report (status, maxrss_kb,
        utime_ns, stime_ns) and the server's stdout and stderr."""
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass
        try:
            out, err = self.spawn.communicate(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            out, err = self.spawn.communicate()
            raise harness.WrongResult(
                "server stopped within",
                f"> {STOP_TIMEOUT_S} s after {signal.Signals(sig).name} (killed)",
                "a clean exit",
            ) from None
        report = os.read(self.rfd, 4096).decode()
        os.close(self.rfd)
        fields = dict(kv.split("=", 1) for kv in report.split())
        fields["stdout"] = out.decode("utf-8", "replace")
        fields["stderr"] = err.decode("utf-8", "replace")
        return fields

    def kill(self) -> None:
        for pid in (self.pid, self.spawn.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.spawn.communicate()


# ---- talking to it ---------------------------------------------------------


def exchange(port: int, raw: bytes, timeout: float = 3.0) -> tuple:
    """Sends raw on a new connection, half-closes it and reads until the
    server closes or the timeout passes. Returns (bytes received, whether the server closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        # Nothing more is coming: a keep-alive server then closes too.
        s.shutdown(socket.SHUT_WR)
        data = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return data, False
            except ConnectionResetError:
                return data, True
            if not chunk:
                return data, True
            data += chunk
        return data, False


def get_once(port: int, timeout: float = 3.0) -> tuple:
    """One GET / with Connection: close; (status, body)."""
    data, _ = exchange(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout)
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    if not m:
        return None, data
    lm = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if lm:
        body = body[: int(lm.group(1))]
    return int(m.group(1)), body


def wait_ready(srv: Server, port: int) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if not srv.alive():
            rep = srv.stop()
            raise harness.CannotRun(f"the server exited before answering: {rep.get('stderr', '').strip()[-300:]}")
        try:
            status, body = get_once(port, timeout=1.0)
        except OSError:
            status = None
        if status is None:
            # Not listening yet, or listening while its workers boot.
            time.sleep(0.05)
            continue
        harness.check("GET / status", status, 200)
        harness.check("GET / body", body, HELLO)
        return
    raise harness.CannotRun(f"the server did not answer within {READY_TIMEOUT_S:.0f} s")


def count_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def stress(srv: Server, port: int) -> None:
    """The core's server's robustness, briefly: 400 and close, 431,
    pipelining in order, a slow client answered 408 and closed after the
    header timeout (STRESS_HEADER_TIMEOUT_MS) while the server keeps
    answering others, and 1,000 connections dropped mid-request leave no
    descriptor open. A failure is a wrong result."""
    with socket.create_connection(("127.0.0.1", port), timeout=3) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nX-Slow:")
        t0 = time.monotonic()
        status, body = get_once(port)
        harness.check("GET / while a client is slow", (status, body), (200, HELLO))
        data, closed = b"", False
        while time.monotonic() - t0 < 5 and not closed:
            try:
                chunk = slow.recv(4096)
            except socket.timeout:
                break
            closed = not chunk
            data += chunk
        harness.check("slow client: status line", data[:12], b"HTTP/1.1 408")
        harness.check("slow client: connection closed", closed, True)
    data, closed = exchange(port, b"GARBAGE / NOT-HTTP\r\n\r\n")
    harness.check("malformed request: status line", data[:12], b"HTTP/1.1 400")
    harness.check("malformed request: connection closed", closed, True)
    data, closed = exchange(port, b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 10000 + b"\r\n\r\n")
    harness.check("oversized head: status line", data[:12], b"HTTP/1.1 431")
    pipelined = (
        b"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /missing HTTP/1.1\r\nHost: h\r\n\r\n"
        b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
    )
    data, _ = exchange(port, pipelined)
    harness.check("pipelined statuses", re.findall(rb"HTTP/1\.1 (\d{3})", data), [b"200", b"404", b"200"])
    # The baseline once the connections above are gone: the server closes
    # its end a moment after the client sees the close.
    before = count_fds(srv.pid)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = count_fds(srv.pid)
        if now == before:
            break
        before = now
    socks = []
    try:
        for _ in range(STRESS_DROPS):
            s = socket.create_connection(("127.0.0.1", port), timeout=3)
            s.sendall(b"GET / HTTP/1.1\r\nHost:")
            socks.append(s)
    finally:
        for s in socks:
            s.close()
    deadline = time.monotonic() + 5
    after = count_fds(srv.pid)
    while after > before and time.monotonic() < deadline:
        time.sleep(0.05)
        after = count_fds(srv.pid)
    if after > before:
        raise harness.WrongResult(f"server descriptors after {STRESS_DROPS} dropped connections", after, f"<= {before}")


# ---- load generators -------------------------------------------------------

_WRK_SCRIPT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("rb-wrk requests=%d duration_us=%d connect=%d read=%d write=%d timeout=%d status=%d\\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("rb-wrk-p %s %d\\n", tostring(p), latency:percentile(p)))
  end
  io.write(string.format("rb-wrk-max %d\\n", latency.max))
  -- The share of requests at or below each bound, by bisection over
  -- wrk's own percentile function (its histogram is not exposed otherwise).
  for _, us in ipairs({%BOUNDS%}) do
    local lo, hi = 0, 100
    if latency.max <= us then lo = 100
    elseif latency:percentile(0.0001) > us then lo = 0
    else
      for _ = 1, 30 do
        local mid = (lo + hi) / 2
        if latency:percentile(mid) <= us then lo = mid else hi = mid end
      end
    end
    io.write(string.format("rb-wrk-le %d %.4f\\n", us, lo))
  end
end
"""


def _pinned_run(argv: list, cpus: list, timeout: float) -> str:
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.sched_setaffinity(0, old)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise harness.CannotRun(f"{argv[0]} did not finish within {timeout:.0f} s") from None
    if proc.returncode != 0:
        raise harness.CannotRun(
            f"{' '.join(argv)} exited {proc.returncode}: {err.decode(errors='replace').strip()[-300:]}"
        )
    return out.decode("utf-8", "replace")


def run_wrk(port: int, conns: int, secs: int, cpus: list, script: Path) -> dict:
    threads = max(1, min(len(cpus), conns))
    out = _pinned_run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{conns}",
            f"-d{secs}s",
            "--timeout",
            f"{WRK_TIMEOUT_S}s",
            "-s",
            str(script),
            f"http://127.0.0.1:{port}/",
        ],
        cpus,
        secs + 30,
    )
    res = {"hist": {}}
    for line in out.splitlines():
        if line.startswith("rb-wrk "):
            res.update({k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])})
        elif line.startswith("rb-wrk-p "):
            _, p, us = line.split()
            res[f"p{p}"] = int(us) * 1000
        elif line.startswith("rb-wrk-max "):
            res["max"] = int(line.split()[1]) * 1000
        elif line.startswith("rb-wrk-le "):
            _, us, pct = line.split()
            res["hist"][int(us) * 1000] = float(pct)
    if "requests" not in res:
        raise harness.CannotRun(f"could not read wrk's output: {out[-300:]}")
    socket_errors = res["connect"] + res["read"] + res["write"] + res["timeout"]
    return {
        "requests": res["requests"],
        "duration_ns": res["duration_us"] * 1000,
        "p50": res["p50"],
        "p90": res["p90"],
        "p99": res["p99"],
        "p999": res["p99.9"],
        "max": res["max"],
        "socket_errors": socket_errors,
        "non200": res["status"],
        "hist": res["hist"],
    }


def run_rate(port: int, conns: int, secs: int, warmup: int, rate: int, cpus: list) -> dict:
    argv = [
        str(programs.path("rb-load")),
        f"port={port}",
        f"conns={conns}",
        f"rate={rate}",
        f"secs={secs}",
        f"warmup={warmup}",
    ] + [f"le={ns}" for ns in HIST_NS]
    out = _pinned_run(argv, cpus, secs + warmup + 30)
    res, hist = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "rb-load":
            res.update({k: int(v) for k, v in (kv.split("=") for kv in parts[1:])})
        elif parts and parts[0] == "rb-load-le":
            hist[int(parts[1])] = float(parts[2])
    if "requests" not in res:
        raise harness.CannotRun(f"could not read rb-load's output: {out[-300:]}")
    return {
        "requests": res["requests"],
        "duration_ns": res["duration_ns"],
        "p50": res["p50_ns"],
        "p90": res["p90_ns"],
        "p99": res["p99_ns"],
        "p999": res["p999_ns"],
        "max": res["max_ns"],
        "socket_errors": res["socket_errors"] + res["late"],
        "non200": res["non200"],
        "hist": hist,
    }


# ---- the run ---------------------------------------------------------------


def check_clean_exit(rep: dict, impl: str) -> None:
    status = int(rep.get("status", -1))
    clean = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    # uvicorn shuts down gracefully on SIGTERM, then restores the default
    # handler and raises the signal again, so that its parent sees why it
    # ended (uvicorn's Server.capture_signals): that is its clean exit.
    if impl == "py-fastapi" and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM:
        clean = True
    if not clean:
        tail = rep.get("stderr", "").strip()[-300:]
        raise harness.WrongResult("server exit status after the stop signal", f"{status} ({tail})", 0)


def run(args: harness.Args) -> None:
    impl = args.impl
    conns = args.int("conns", 250, 1, 20000)
    secs = args.int("secs", 5, 1, 3600)
    warmup = args.int("warmup", 2, 0, 600)
    rate = args.int("rate", 0, 0, 10_000_000)
    why = ROUND.variant(impl).requires()
    if why:
        raise harness.CannotRun(why)
    # The driver holds both ends of the stress's connections and wrk's peers.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * conns + 2 * STRESS_DROPS + 256))
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    server_cpus, load_cpus, _ = split_cpus()
    cores = len(server_cpus)
    port = free_port()
    argv, env = server_command(impl, port, cores)
    srv = Server(argv, env, server_cpus)
    script = None
    try:
        wait_ready(srv, port)
        if rate == 0:
            script = Path(os.environ.get("TMPDIR", "/tmp")) / f"roundbench-wrk-{os.getpid()}.lua"
            bounds = ", ".join(str(ns // 1000) for ns in HIST_NS)
            script.write_text(_WRK_SCRIPT.replace("%BOUNDS%", bounds))
            if warmup:
                run_wrk(port, conns, warmup, load_cpus, script)
            res = run_wrk(port, conns, secs, load_cpus, script)
        else:
            res = run_rate(port, conns, secs, warmup, rate, load_cpus)
        # Still correct after the load.
        status, body = get_once(port)
        harness.check("GET / status after the load", status, 200)
        harness.check("GET / body after the load", body, HELLO)
    except BaseException:
        srv.kill()
        raise
    finally:
        if script is not None:
            script.unlink(missing_ok=True)
    rep = srv.stop()
    check_clean_exit(rep, impl)
    if impl in CORE_VARIANTS:
        # On a fresh instance, so that the measured server's peak RSS and
        # CPU time are the load's alone.
        stress_port = free_port()
        argv, env = server_command(impl, stress_port, cores, STRESS_HEADER_TIMEOUT_MS)
        srv = Server(argv, env, server_cpus)
        try:
            wait_ready(srv, stress_port)
            stress(srv, stress_port)
        except BaseException:
            srv.kill()
            raise
        # SIGINT this time: both signals are checked on every run.
        check_clean_exit(srv.stop(signal.SIGINT), impl)
    n = res["requests"]
    if n <= 0:
        raise harness.CannotRun("the load generator completed no request")
    dur = res["duration_ns"]
    cpu = int(rep["utime_ns"]) + int(rep["stime_ns"])
    metrics = {
        "req/s": n / (dur / 1e9),
        "p50-ns": res["p50"],
        "p90-ns": res["p90"],
        "p99-ns": res["p99"],
        "p999-ns": res["p999"],
        "max-ns": res["max"],
        "errors": res["socket_errors"] + res["non200"],
        "socket-errors": res["socket_errors"],
        "non200": res["non200"],
        "server-peak-B": int(rep["maxrss_kb"]) * 1024,
        "server-cpu-ns/req": cpu / n,
        "server-cores": cores,
        "load-cores": len(load_cpus),
    }
    for ns in HIST_NS:
        metrics[_hist_unit(ns)] = res["hist"].get(ns, 0.0)
    harness.result("GET / -> 200 'Hello, World!'")
    harness.emit(args, n, dur / n, metrics)


def report_section(size: dict, cells: dict) -> str:
    """The latency ladder and histogram of each variant (medians over runs)."""
    rows = [
        "| variant | p50 | p90 | p99 | p99.9 | max | "
        + " | ".join(f"≤ {ns / 1e6:g} ms" for ns in HIST_NS)
        + " | socket errors | non-2xx |",
        "|---|---|---|---|---|---|" + "---|" * len(HIST_NS) + "---|---|",
    ]
    for impl, c in cells.items():

        def ms(u, c=c):
            v = c.median_of(u)
            return "" if v is None else f"{v / 1e6:.3g} ms"

        def num(u, c=c):
            v = c.median_of(u)
            return "" if v is None else f"{v:.4g}"

        rows.append(
            f"| {impl} | {ms('p50-ns')} | {ms('p90-ns')} | {ms('p99-ns')} | {ms('p999-ns')} | {ms('max-ns')} | "
            + " | ".join(num(_hist_unit(ns)) + "%" for ns in HIST_NS)
            + f" | {num('socket-errors')} | {num('non200')} |"
        )
    _, _, how = split_cpus()
    return (
        "Latency (median over runs) and the share of requests answered within each bound. "
        f"Pinning: {how}.\n\n" + "\n".join(rows) + "\n"
    )


PY_VARIANTS = {v.name: run for v in ROUND.variants}
