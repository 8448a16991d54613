"""The http round's servers as processes: which command starts each
variant's server, starting it pinned to its cores under build/rb-spawn (so
its peak RSS and CPU time are its own, from wait4), waiting until it answers,
and stopping it with a signal it must exit cleanly on."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

from ...measure import harness
from ...runtimes import interp, programs
from .client import HELLO, get_once

# The Go servers are the http round's own Go runner (go/cmd/rb-go/http/).
GO_SERVERS = programs.go_runner("http")
READY_TIMEOUT_S = 30.0  # a server that does not answer by then fails the run
STOP_TIMEOUT_S = 15.0  # a server that does not exit by then is killed: a failed run


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


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(
    rnd, impl: str, port: int, cores: int, header_timeout_ms: int = 10000, flask_workers: int = 0
) -> tuple:
    """(argv, extra environment) that start variant impl's server: its
    declaration's `start` in round `rnd` (the http round, which names these
    functions; passed in, since this module is below it), one of the
    functions below. The header timeout
    applies to the servers that have one (http.server: as its socket
    timeout), and flask_workers > 0 to gunicorn's (otherwise 2 x cores + 1,
    gunicorn's advice)."""
    try:
        start = rnd.variant(impl).start
    except KeyError:
        start = None
    if start is None:
        raise harness.UsageError(f"http: no variant {impl!r}")
    return start(impl, port, cores, header_timeout_ms, flask_workers)


# Each server's command: (impl, port, cores, header_timeout_ms, flask_workers)
# -> (argv, extra environment).


def core_c(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """The core's server in C, one event loop per core."""
    hto = f"header_timeout_ms={header_timeout_ms}"
    return [str(programs.path("rb-c")), "http-serve", impl, f"port={port}", f"threads={cores}", hto], {}


def go_server(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """A pure Go server of the round's Go runner (net/http, fasthttp), on
    GOMAXPROCS = cores."""
    hto = f"header_timeout_ms={header_timeout_ms}"
    return [str(programs.path(GO_SERVERS)), "http-serve", impl, f"port={port}", hto], {"GOMAXPROCS": str(cores)}


def go_core(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """The core's server answering through a Go function, one loop per core."""
    hto = f"header_timeout_ms={header_timeout_ms}"
    argv = [str(programs.path(GO_SERVERS)), "http-serve", impl, f"port={port}", f"threads={cores}", hto]
    return argv, {"GOMAXPROCS": str(cores)}


def core_py(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """The core's server answering through pure/http.py's `hello` (apps/http.py)."""
    return [interp.executable(), "-m", "roundbench.apps.http", str(port), str(cores), str(header_timeout_ms)], {}


def stdlib(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """http.server's ThreadingHTTPServer: one process whatever the cores,
    its threads sharing one GIL, as the standard library offers them."""
    return [interp.executable(), "-m", "roundbench.pure.http", "stdlib", str(port), str(header_timeout_ms)], {}


def granian(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """The bare ASGI callable under granian. One worker process per core,
    each a single-threaded Rust runtime (--runtime-mode st, one runtime
    thread, one blocking I/O thread) and the one Python thread ASGI allows
    (--blocking-threads 1), on uvloop; rb-spawn's CPU affinity holds every
    thread of them to the server's CPUs. py-granian-rsgi serves the same
    app through granian's own interface, RSGI, with the same settings."""
    rsgi = impl == "py-granian-rsgi"
    flags = [
        "--interface",
        "rsgi" if rsgi else "asgi",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(cores),
        "--runtime-mode",
        "st",
        "--runtime-threads",
        "1",
        "--runtime-blocking-threads",
        "1",
        "--blocking-threads",
        "1",
        "--loop",
        "uvloop",
        "--http",
        "1",
        "--no-ws",
        "--no-access-log",
        "--log-level",
        "warning",
        "--backlog",
        "2048",
        "--http1-header-read-timeout",
        str(min(max(header_timeout_ms, 1), 60000)),
    ]
    app = "roundbench.pure.http:rsgi_app" if rsgi else "roundbench.pure.http:asgi_app"
    return [interp.executable(), "-m", "granian", *flags, app], {}


def gunicorn_flask(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """Flask under gunicorn's sync workers, 2 x cores + 1 of them unless
    flask_workers says."""
    flags = [
        "--workers",
        str(flask_workers or 2 * cores + 1),
        "--worker-class",
        "sync",
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
        "--backlog",
        "2048",
    ]
    return [interp.executable(), "-m", "gunicorn", *flags, "roundbench.apps.http:flask_app"], {}


def _uvicorn(app: str, flags: list, port: int, cores: int) -> tuple:
    """uvicorn serving `app` ("module:attribute") with the flags every uvicorn here gets."""
    rest = [
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
    ]
    return [interp.executable(), "-m", "uvicorn", *flags, *rest, app], {}


def uvicorn_fastapi(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """FastAPI under uvicorn with uvicorn's defaults (uvloop and httptools
    when installed, as its users' deployments do)."""
    return _uvicorn("roundbench.apps.http:fastapi_app", [], port, cores)


def uvicorn_asgi(impl: str, port: int, cores: int, header_timeout_ms: int, flask_workers: int) -> tuple:
    """The bare ASGI callable under uvicorn, uvloop and httptools named."""
    return _uvicorn("roundbench.pure.http:asgi_app", ["--loop", "uvloop", "--http", "httptools"], port, cores)


def process_tree(pid: int) -> list:
    """pid and its descendants (a server's worker processes), parents first."""
    tree, i = [pid], 0
    while i < len(tree):
        p = tree[i]
        i += 1
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    tree += [int(k) for k in f.read().split()]
        except OSError:  # it has exited meanwhile
            pass
    return tree


class Server:
    """A server started through rb-spawn, pinned to `cpus`."""

    def __init__(self, argv: list, env: dict, cpus: list):
        self.rfd, wfd = os.pipe()
        full_env = dict(os.environ)
        full_env.update(env)
        # The package must be importable by the Python servers' workers.
        pkg_root = interp.package_parent()
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
        # The workers too: one that outlived its master (granian's, uvicorn's)
        # would hold the output pipes open, and communicate() would wait forever.
        for pid in [*process_tree(self.pid), self.spawn.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.spawn.communicate()


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


def check_clean_exit(rep: dict, impl: str) -> None:
    status = int(rep.get("status", -1))
    clean = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    # uvicorn shuts down gracefully on SIGTERM, then restores the default
    # handler and raises the signal again, so that its parent sees why it
    # ended (uvicorn's Server.capture_signals): that is its clean exit.
    if impl in ("py-fastapi", "py-asgi") and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM:
        clean = True
    if not clean:
        tail = rep.get("stderr", "").strip()[-300:]
        raise harness.WrongResult("server exit status after the stop signal", f"{status} ({tail})", 0)
