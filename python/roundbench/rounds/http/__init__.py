"""Round http: a hello-world HTTP/1.1 server under load.

Every server answers GET / with 200 and "Hello, World!", keep-alive, no
access log, on 127.0.0.1 only:

  go          net/http (ServeMux), GOMAXPROCS = the server's cores
  py-flask    Flask under gunicorn, 2 x cores + 1 sync workers
  py-fastapi  FastAPI under uvicorn (uvloop and httptools when installed),
              one worker per server core
  py-asgi     a bare ASGI callable (no framework) under uvicorn with uvloop
              and httptools, one worker per server core
  py-granian  the same callable under granian (Rust, hyper): one worker per
              server core, each one single-threaded runtime, on uvloop
  py-granian-rsgi  the same app under granian through RSGI, its own
              interface (py-granian's settings)
  py-stdlib   the standard library alone: http.server's ThreadingHTTPServer,
              one OS thread per connection, one process (one GIL)
  go-fasthttp github.com/valyala/fasthttp, GOMAXPROCS = the server's cores
  c           the core's server (csrc/http.c): epoll, one worker thread per
              server core, the core's own C handler
  py-c        the same server answering through a Python callable per
              request (the GIL taken per request)
  go-c        the same server answering through a Go function (//export)

One run is one Python child (`python -m roundbench.run.child http IMPL ...`)
for every variant, whatever language its server is in: the driver
(rounds/http/driver.py) starts the server pinned to its cores through
build/rb-spawn (so the server's peak RSS and CPU time are its own, from
wait4), loads it from a separate process on the other cores, stops it, and
for every server runs a
short robustness stress on a fresh instance after each cell's first run
(a server that fails a check is a failed run naming each check, unless
the check is one of the variant's known_failures, reported as FAILED
beside its measured figures);
this module declares the round and turns the driver's record into one
result line. Load: wrk (rate=0: as fast as 'conns' connections go) or, for
rate>0, build/rb-load, the project's fixed-rate generator, which measures
latency from each request's intended send time.

What scores a cell (Round.score_unit): at rate=0 and in the published load,
requests per second; at a fixed rate every server is held to the same
requests per second, so that figure only says whether it kept up, and the
cell is scored by p99 latency (p99-ns, lower is better), its median over
runs with its interval.

The published load, `hey -c 250 -n 5000` (load=hey, requests=5000: one run
of a fixed number of requests, no warm-up), is a cell of its own beside
wrk's, against go, py-flask (3 sync workers, as published:
flask-workers=3) and py-fastapi, the servers the published comparison
loaded; where hey is not installed its rows say so.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess

from ...results import benchfmt
from ...measure import harness
from ...runtimes import programs
from .load import WRK_TIMEOUT_S
from . import servers
from .servers import GO_SERVERS, split_cpus
from .stress import CHECKS
from .. import (
    FASTER,
    Headline,
    needs_all,
    needs_command,
    needs_module,
    needs_program,
    one_of,
    Param,
    Round,
    first_run,
    Variant,
)

# The core's servers.
CORE_VARIANTS = ("c", "py-c", "go-c")
# The latency histogram's upper bounds (ns): the share of requests at or below each.
HIST_NS = (100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)


def _hist_unit(ns: int) -> str:
    return f"le-{ns // 1000}us-%"


# What the driver's result line carries, every variant alike.
UNITS = [
    "req/s",
    "p50-ns",
    "p90-ns",
    "p99-ns",
    "p999-ns",
    "max-ns",
    "errors",
    "socket-errors",
    "non200",
    "server-peak-B",
    "server-cpu-ns/req",
    "server-cores",
    "load-cores",
    "load-cpu-%",
    *(_hist_unit(ns) for ns in HIST_NS),
]
# At or above this share of its CPUs busy, the load generator, not the
# server, may be what sets the requests per second: the report says so and
# lets server CPU per request compare those servers.
LOAD_BOUND_PCT = 90.0


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


def _go_module(module: str) -> str:

    mods = programs.go_module_versions(programs.path(GO_SERVERS))
    return f"{module} {mods[module]}" if module in mods else f"{GO_SERVERS} not built"


def _uvicorn_impl() -> str:
    loop = "uvloop" if needs_module("uvloop", "")() is None else "asyncio"
    http = "httptools" if needs_module("httptools", "")() is None else "h11"
    return f"--loop auto ({loop}), --http auto ({http})"


def _hey_version() -> str:
    if not shutil.which("hey"):
        return "not installed"
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "hey"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() or "unknown (not from a Debian package)"


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
        "http-load-published": (
            f"hey {_hey_version()} (Debian package) in the load=hey cells: `hey -c CONNS -n REQUESTS`, one run, "
            "no warm-up, as published; requests/s, percentiles (to 0.1 ms) and slowest from hey's summary"
        ),
        "http-load-fixed-rate": (
            "build/rb-load (csrc/tools/loadgen.c, the project's own): a constant request rate, "
            "latency from each request's intended send time; wrk2 is not packaged by Debian"
        ),
        "http-python-servers": _versions("flask", "gunicorn", "fastapi", "uvicorn", "uvloop", "httptools")
        + f"; uvicorn {_uvicorn_impl()} for {_started_by(servers.uvicorn_fastapi)}, --loop uvloop --http httptools "
        f"for {_started_by(servers.uvicorn_asgi)}; "
        + _versions("granian")
        + f" for {_started_by(servers.granian)}: --workers = server cores, --runtime-mode st --runtime-threads 1 "
        "--runtime-blocking-threads 1 --blocking-threads 1 --loop uvloop, every thread pinned to the server's CPUs; "
        f"{_started_by(servers.stdlib)}: http.server's ThreadingHTTPServer in the children's Python, "
        "request_queue_size 2048, wbufsize -1 with TCP_NODELAY, the header timeout as its socket timeout",
        "http-go-fasthttp": _go_module("github.com/valyala/fasthttp"),
        "http-stressed": ", ".join(v.name for v in ROUND.variants)
        + ": the first run of each cell also stresses a fresh instance (400, 431, pipelining, 408 for a slow "
        "client, "
        "dropped connections); a failed check fails the run and names the check, except a library server's "
        "known failures ("
        + "; ".join(
            f"{v.name}: {', '.join(sorted(check for check, _ in v.known_failures))}"
            for v in ROUND.variants
            if v.known_failures
        )
        + "), shown FAILED in the report's robustness table and counted apart from failed runs",
        "http-peak-rss": "server-peak-B is the server process's own (gunicorn: the largest of master and workers), "
        "from wait4 in rb-spawn; server CPU includes reaped worker processes",
    }
    warnings = []
    if len(server) == len(load) and set(server) == set(load):
        warnings.append("http: server and load generator share one CPU")
    return items, warnings


_WRK = needs_command("wrk")
_BASE = needs_all(_WRK, needs_program("rb-spawn"), needs_program("rb-load"))
V = Variant
# What uvicorn fails of the stress, the same whichever app it serves
# (py-fastapi, py-asgi).
_UVICORN_FAILURES = (
    ("slow-client-408", "uvicorn sets no deadline for a request's head: a slow client holds its connection"),
    ("slow-client-close", "uvicorn keeps the slow client's connection open past the header timeout"),
    ("oversized-431", "uvicorn with httptools limits no request head's size: a 10 kB head is answered 200"),
)
PUBLISHED_LOAD = "hey"


def _score_unit(params: dict):
    """Round.score_unit: p99 latency at a fixed rate (rate>0), where every
    server serves the same requests per second; None (req/s) otherwise.
    params' values are numbers in a plan and strings read back from a
    result file's names."""
    return "p99-ns" if int(params.get("rate") or 0) > 0 else None


def _not_published_load(params: dict) -> bool:
    """default_if of the servers the published comparison did not load:
    every cell but the published load's."""
    return params.get("load") != PUBLISHED_LOAD


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(8, {"rate": "0"}, "ecosystem", "serving hello-world under full load", verb=FASTER),
    Headline(12, {"rate": "0"}, "alone", "serving hello-world under full load on the standard library"),
    Headline(14, {"rate": "max"}, "ecosystem", "at a fixed request rate", verb="has {x} lower p99 latency than"),
]

# What py-granian and py-granian-rsgi need, and the stress checks granian
# (hyper) is known to fail whichever interface serves the app.
_GRANIAN = needs_all(
    _BASE,
    needs_module("granian", "pip install -r requirements-dev.txt"),
    needs_module("uvloop", "pip install -r requirements-dev.txt"),
)
_GRANIAN_FAILURES = (
    ("slow-client-408", "granian (hyper) closes a slow client's connection at the timeout without a 408"),
    ("oversized-431", "granian (hyper) answers a 10 kB head 200: its limit is larger"),
)

ROUND = Round(
    name="http",
    threads="many",  # the driver splits the CPUs between the server and the load generator
    title="http: a hello-world HTTP/1.1 server under load",
    explain=(
        "Each server answers GET / with 'Hello, World!' (keep-alive, no access log) on 127.0.0.1, with the same "
        "number of cores, loaded by a separate load generator on other cores: wrk at full speed (rate=0), or "
        "rb-load at a fixed rate with latency from the intended send time (rate>0). The full-speed and published "
        "cells are scored by requests per second; the fixed-rate cell holds every server to the same rate, so it is "
        "scored by p99 latency (lower is better), its median over runs with its interval."
    ),
    # Each server's known_failures: what it fails of the robustness stress on
    # every machine (found with the versions in requirements-dev.txt and
    # go.mod, net/http with the Go toolchain and http.server with the Python
    # that run the suite), by check (stress.CHECKS) and why. Such a run keeps
    # its figures, says FAILED for each check in the report and the progress
    # line (a `known-failure/CHECK` fact), and the run's summary counts it
    # apart from failed runs; any other failed check fails the run.
    # tests/test_http.py holds these to what each server does. Every
    # variant's Python entry drives the load; the timed code is the server:
    # the C and Go servers are scanned as the round's helpers (http-serve),
    # the Python ones through each declaration's `scan`.
    variants=[
        V(
            "c",
            "python",
            "the core's server: epoll, one thread per core, C handler",
            requires=needs_all(_BASE, needs_program("rb-c")),
            default_if=_not_published_load,
            model="event-loop",
            scan=(),
            start=servers.core_c,
        ),
        V(
            "go",
            "python",
            "net/http ServeMux, GOMAXPROCS = server cores",
            requires=needs_all(_BASE, needs_program(GO_SERVERS)),
            model="stackful",
            scan=(),
            start=servers.go_server,
            known_failures=(
                ("slow-client-408", "net/http closes a connection at its ReadHeaderTimeout without a 408"),
                ("oversized-431", "net/http answers a 10 kB head 200: its limit (DefaultMaxHeaderBytes) is 1 MB"),
            ),
        ),
        V(
            "go-c",
            "python",
            "the core's server answering through a Go function (//export)",
            requires=needs_all(_BASE, needs_program(GO_SERVERS)),
            default_if=_not_published_load,
            model="event-loop",
            scan=(),
            start=servers.go_core,
        ),
        V(
            "py-c",
            "python",
            "the core's server answering through a Python callable (GIL per request)",
            requires=_BASE,
            default_if=_not_published_load,
            model="event-loop",
            scan=("roundbench.pure.http.hello",),
            start=servers.core_py,
        ),
        V(
            "py-fastapi",
            "python",
            "FastAPI under uvicorn, one worker per core",
            requires=needs_all(
                _BASE,
                needs_module("fastapi", "pip install -r requirements-dev.txt"),
                needs_module("uvicorn", "pip install -r requirements-dev.txt"),
            ),
            model="event-loop",
            scan=("roundbench.apps.http.__getattr__",),
            start=servers.uvicorn_fastapi,
            known_failures=_UVICORN_FAILURES,
        ),
        V(
            "go-fasthttp",
            "python",
            "github.com/valyala/fasthttp, GOMAXPROCS = server cores",
            requires=needs_all(_BASE, needs_program(GO_SERVERS)),
            default_if=_not_published_load,
            model="stackful",
            scan=(),
            start=servers.go_server,
        ),
        V(
            "py-granian",
            "python",
            "the bare ASGI callable under granian (Rust): one worker per core, each a single-threaded runtime "
            "(one runtime thread, one blocking I/O thread, one Python thread) on uvloop, pinned to the server's CPUs",
            requires=_GRANIAN,
            default_if=_not_published_load,
            model="event-loop",
            scan=("roundbench.pure.http.asgi_app",),
            start=servers.granian,
            known_failures=_GRANIAN_FAILURES,
        ),
        V(
            "py-granian-rsgi",
            "python",
            "the same app under granian through its own interface, RSGI (one call hands granian the whole "
            "response; no ASGI messages), with py-granian's workers, runtime and pinning",
            requires=_GRANIAN,
            default_if=_not_published_load,
            model="event-loop",
            scan=("roundbench.pure.http.rsgi_app",),
            start=servers.granian,
            known_failures=_GRANIAN_FAILURES,
        ),
        V(
            "py-asgi",
            "python",
            "a bare ASGI callable (no framework) under uvicorn with uvloop and httptools, one worker per core",
            requires=needs_all(
                _BASE,
                needs_module("uvicorn", "pip install -r requirements-dev.txt"),
                needs_module("uvloop", "pip install -r requirements-dev.txt"),
                needs_module("httptools", "pip install -r requirements-dev.txt"),
            ),
            default_if=_not_published_load,
            model="event-loop",
            scan=("roundbench.pure.http.asgi_app",),
            start=servers.uvicorn_asgi,
            known_failures=_UVICORN_FAILURES,
        ),
        V(
            "py-stdlib",
            "python",
            "the standard library alone: http.server's ThreadingHTTPServer (one OS thread per connection, one "
            "process), HTTP/1.1 keep-alive, listen backlog 2048, one buffered write per answer with Nagle off",
            requires=_BASE,
            default_if=_not_published_load,
            model="os-thread",
            scan=("roundbench.pure.http.serve_stdlib", "roundbench.pure.http.stdlib_handler"),
            start=servers.stdlib,
            known_failures=(
                ("slow-client-408", "http.server's socket timeout closes a slow client's connection without a 408"),
                (
                    "malformed-400",
                    "http.server answers a request line without an HTTP version as HTTP/0.9: a 400 page with "
                    "no status line",
                ),
                ("oversized-431", "http.server answers a 10 kB head 200: it limits each header line to 64 kB"),
            ),
        ),
        V(
            "py-flask",
            "python",
            "Flask under gunicorn, 2 x cores + 1 sync workers (flask-workers=W: W of them)",
            requires=needs_all(
                _BASE,
                needs_module("flask", "pip install -r requirements-dev.txt"),
                needs_module("gunicorn", "pip install -r requirements-dev.txt"),
            ),
            model="process",
            scan=("roundbench.apps.http.__getattr__",),
            start=servers.gunicorn_flask,
            known_failures=(
                (
                    "slow-client-408",
                    "gunicorn's sync worker sets no deadline for a request's head (its --timeout kills a busy "
                    "worker, it answers nothing)",
                ),
                (
                    "slow-client-close",
                    "gunicorn's sync worker keeps reading a slow client's head past the header timeout",
                ),
                (
                    "pipelined",
                    "gunicorn's sync worker answers one request a connection and closes it: pipelined requests "
                    "after the first go unanswered",
                ),
            ),
        ),
    ],
    params=[
        Param("conns", "connections the load holds open", 1, 20_000),
        Param("secs", "measured seconds", 1, 3600),
        Param("warmup", "seconds of load before them", 0, 600),
        Param("rate", "requests a second (0: as fast as the server answers)", 0, 10_000_000),
        Param(
            "load",
            f"the load generator: wrk, or {PUBLISHED_LOAD} (the published load)",
            parse=one_of("wrk", PUBLISHED_LOAD),
        ),
        Param("requests", f"requests {PUBLISHED_LOAD} sends", 1, 100_000_000),
        Param("flask-workers", "flask's gunicorn workers (0: its default)", 0, 1024),
    ],
    sizes=[
        # Measured seconds after a 1-second warm-up: wrk makes some 100,000
        # to 350,000 requests in its 2 s, rb-load 6,000 in its 3 (p99 from 60,
        # p99.9 from 6 of them) in each run. What moves a server's figure
        # from run to run is where its process lands on this shared machine,
        # not wrk's sampling within a run, so the suite's half hour buys a
        # narrower median with more runs of 2 s than with fewer of 4; the
        # fixed rate keeps 3 s, for the samples its p99 (the cell's score)
        # is read from.
        {"conns": 250, "secs": 2, "warmup": 1, "rate": 0},
        {"conns": 250, "secs": 3, "warmup": 1, "rate": 2000},
        # The published load: hey -c 250 -n 5000, flask with 3 sync workers.
        {"load": PUBLISHED_LOAD, "conns": 250, "requests": 5000, "flask-workers": 3},
    ],
    quick=[
        {"conns": 50, "secs": 1, "warmup": 0, "rate": 0},
        {"load": PUBLISHED_LOAD, "conns": 50, "requests": 1000, "flask-workers": 3},
    ],
    metric="req/s",
    headlines=HEADLINES,
    order=12,
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
        "load-cpu-%": "lower",
        **{_hist_unit(ns): "higher" for ns in HIST_NS},
    },
    metric_explain="req/s: responses per second during the measured period (ns/op is its inverse)",
    score_unit=_score_unit,
    reference="c",
    run_index_env=True,
    columns=[
        ("p50-ns", "p50 latency (ns)"),
        ("p99-ns", "p99 latency (ns)"),
        ("errors", "errors"),
        ("server-peak-B", "server peak RSS"),
        ("server-cpu-ns/req", "server CPU ns/req"),
        ("load-cpu-%", "load generator CPU %"),
    ],
)


def _started_by(start) -> str:
    """The variants whose server `start` (a servers.py function) starts."""
    return ", ".join(v.name for v in ROUND.variants if v.start is start)


# The driver, in this package's child, runs every variant's server.
@harness.implements("http", *ROUND.python_entries, units=UNITS)
def run(args: harness.Args) -> None:
    from .driver import measure

    conns = args.int("conns", 250, 1, 20000)
    secs = args.int("secs", 5, 1, 3600)
    warmup = args.int("warmup", 2, 0, 600)
    rate = args.int("rate", 0, 0, 10_000_000)
    flask_workers = args.int("flask-workers", 0, 0, 1024)
    load = args.get("load", "wrk")
    if load not in ("wrk", PUBLISHED_LOAD):
        raise harness.UsageError(f"http: load={load} is none of wrk (with rate=0: wrk, rate>0: rb-load), hey")
    hey = args.int("requests", 5000, 1, 100_000_000) if load == PUBLISHED_LOAD else 0
    if hey and rate:
        # A --param rate=R reaches this cell too: a fixed rate is rb-load's, not hey's.
        raise harness.CannotRun(
            f"load=hey sends its {hey} requests as fast as its connections go: rate={rate} is a setting of the "
            "fixed-rate generator (rb-load), which this cell does not use"
        )
    why = ROUND.variant(args.impl).requires()
    if not why and hey:
        why = needs_command("hey")()
        why = why and f"{why} (the published load; Debian package hey, which scripts/setup.sh installs)"
    if why:
        raise harness.CannotRun(why)
    res = measure(
        ROUND,
        args.impl,
        conns,
        secs,
        warmup,
        rate,
        HIST_NS,
        # The stress on each cell's first run (or a run by hand): its verdict
        # does not change from run to run, and each costs seconds.
        robustness=first_run(),
        hey=hey,
        flask_workers=flask_workers,
    )
    failed = res["robustness_failed"]
    known = dict(ROUND.variant(args.impl).known_failures)
    unknown = {k: v for k, v in failed.items() if k not in known}
    if unknown:
        raise harness.WrongResult(
            f"robustness: {len(unknown)} check(s) failed",
            "; ".join(f"{k} ({CHECKS[k]}): {v}" for k, v in unknown.items()),
            "every check passed",
        )
    for k, seen in failed.items():
        harness.fact(f"{benchfmt.KNOWN_FAILURE}{k}", f"{seen} ({known[k]})")
    n = res["requests"]
    if n <= 0:
        raise harness.CannotRun("the load generator completed no request")
    dur = res["duration_ns"]
    rep = res["server"]
    cpu = int(rep["utime_ns"]) + int(rep["stime_ns"])
    metrics = {
        "req/s": n / (dur / 1e9),
        "p50-ns": res["p50"],
        "p90-ns": res["p90"],
        "p99-ns": res["p99"],
        "p999-ns": res["p999"],  # None: the load generator does not say (hey)
        "max-ns": res["max"],
        "errors": res["socket_errors"] + res["non200"],
        "socket-errors": res["socket_errors"],
        "non200": res["non200"],
        "server-peak-B": int(rep["maxrss_kb"]) * 1024,
        "server-cpu-ns/req": cpu / n,
        "server-cores": res["server_cores"],
        "load-cores": res["load_cores"],
        "load-cpu-%": res.get("load_cpu_pct"),
    }
    for ns in HIST_NS:
        metrics[_hist_unit(ns)] = res["hist"].get(ns)
    harness.result("GET / -> 200 'Hello, World!'")
    harness.emit(args, n, dur / n, {u: v for u, v in metrics.items() if v is not None})


def report_section(size: dict, cells: dict, config: dict) -> str:
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

        def num(u, c=c, suffix=""):
            v = c.median_of(u)
            return "" if v is None else f"{v:.4g}{suffix}"

        rows.append(
            f"| {impl} | {ms('p50-ns')} | {ms('p90-ns')} | {ms('p99-ns')} | {ms('p999-ns')} | {ms('max-ns')} | "
            + " | ".join(num(_hist_unit(ns), suffix="%") for ns in HIST_NS)
            + f" | {num('socket-errors')} | {num('non200')} |"
        )
    # As the run recorded it: the report's own process may be pinned
    # elsewhere (the runner keeps to one CPU), so it does not look again.
    how = config.get("http-pinning", "not recorded in this result file")
    published = ""
    if size.get("load") == PUBLISHED_LOAD:
        workers = size.get("flask-workers")
        flask = f"py-flask with {workers} sync workers, as published" if workers else "py-flask as in the other cells"
        published = (
            f"This cell is the published load: `hey -c {size.get('conns')} -n {size.get('requests')}`, one run of a "
            "fixed number of requests, no warm-up, against the servers the published comparison loaded "
            f"({flask}). Beside wrk's cells it shows what a short run on a cold server reports; hey's summary has "
            "no p99.9 and no share under a bound, so those cells are empty.\n\n"
        )
    scored = ""
    rate = int(size.get("rate") or 0)
    if rate:
        scored = (
            f"This cell holds every server to the same rate, {rate:,} requests per second, so requests per second "
            "only say whether a server kept up: the cell is scored by p99 latency (lower is better), its median over "
            "runs with its 95% interval, latency measured from each request's intended send time.\n\n"
        )
    return (
        published + scored + "Latency (median over runs) and the share of requests answered within each bound. "
        f"Pinning: {how}.\n\n" + "\n".join(rows) + "\n" + _load_bound(size, cells) + _robustness_table(cells)
    )


def _load_bound(size: dict, cells: dict) -> str:
    """Whether the load generator was the limit of this cell: its CPUs'
    busy share (load-cpu-%, median over runs) at or above LOAD_BOUND_PCT.
    Then requests per second measure the generator as much as the server,
    and server CPU per request is what compares the servers it held back."""
    if int(size.get("rate") or 0) or size.get("load") == PUBLISHED_LOAD:
        # A fixed rate: the generator sends what it is told (and rb-load
        # spins between sends); hey: a fixed count of requests.
        return ""
    bound = []
    for impl, c in cells.items():
        pct = c.median_of("load-cpu-%")
        if pct is not None and pct >= LOAD_BOUND_PCT:
            bound.append((impl, pct))
    if not bound:
        return ""
    names = ", ".join(f"{impl} ({pct:.0f}%)" for impl, pct in bound)
    ranked = sorted(
        ((c.median_of("server-cpu-ns/req"), impl) for impl, c in cells.items() if impl in dict(bound)),
        key=lambda t: (t[0] is None, t[0]),
    )
    order = " < ".join(f"{impl} {ns:,.0f}" for ns, impl in ranked if ns is not None)
    return (
        f"\nThe load generator was the limit for {names}: its CPUs were busy at least {LOAD_BOUND_PCT:.0f}% of "
        "its run (median), so those servers could have answered more and their requests per second measure the "
        "generator as much as the server. Between them, server CPU per request decides (ns/req, lower is "
        f"better): {order}.\n"
    )


def _robustness_table(cells: dict) -> str:
    """Each stressed server's verdict in this cell: passed, or FAILED with
    the checks it failed (its known failures: the runs' facts)."""
    rows = []
    for impl, c in cells.items():
        if not c.runs:
            continue
        failed = {
            k[len(benchfmt.KNOWN_FAILURE) :]: v for k, v in c.facts.items() if k.startswith(benchfmt.KNOWN_FAILURE)
        }
        if failed:
            verdict = "**FAILED** " + "; ".join(f"{k}: {CHECKS[k]}; {v}" for k, v in sorted(failed.items()))
        else:
            verdict = f"passed all {len(CHECKS)} checks"
        rows.append(f"| {impl} | {verdict} |")
    if not rows:
        return ""
    return (
        "\nRobustness: each stressed server's verdict on a fresh instance after the cell's first run (malformed, "
        "oversized, "
        "pipelined and slow requests, dropped connections). A library server's known failure keeps its measured "
        "figures above and is counted apart from failed runs; any other failure fails the run.\n\n"
        "| server | robustness |\n|---|---|\n" + "\n".join(rows) + "\n"
    )


def charts(sizes: dict, out_dir) -> list:
    """The round's own picture (report.draw calls it with the round's size
    -> variant -> Cell): latency percentiles per server."""
    # the pictures (matplotlib) load only when the report draws them
    from .chart import latency

    return latency(sizes, out_dir)
