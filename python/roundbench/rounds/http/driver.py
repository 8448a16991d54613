"""The http round's driver: one measured run of one server.

The Python child runs it for every http variant (rounds/http/__init__.py declares
the round and turns the record below into its result line). measure() picks
a free port, starts the server pinned to its cores through build/rb-spawn
(servers.py), waits until it answers GET / correctly, runs the load
generator as a separate process pinned to the other cores (load.py: a
warm-up run, then the measured run), checks the server still answers,
stops it with SIGTERM (it must exit 0) and, where asked, runs the
robustness stress (stress.py) on a fresh instance stopped with SIGINT.
"""

from __future__ import annotations

import os
import resource
import signal
from pathlib import Path

from ...measure import harness
from .client import HELLO, get_once
from .load import run_hey, run_rate, run_wrk, write_wrk_script
from .servers import Server, check_clean_exit, free_port, server_command, split_cpus, wait_ready
from .stress import STRESS_DROPS, STRESS_HEADER_TIMEOUT_MS, stress


def _raise_nofile(conns: int) -> None:
    # The driver holds both ends of the stress's connections and wrk's peers.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * conns + 2 * STRESS_DROPS + 256))
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _load(port: int, conns: int, secs: int, warmup: int, rate: int, cpus: list, bounds_ns: tuple, hey: int) -> dict:
    if hey:
        return run_hey(port, conns, hey, cpus)
    if rate:
        return run_rate(port, conns, secs, warmup, rate, cpus, bounds_ns)
    script = Path(os.environ.get("TMPDIR", "/tmp")) / f"roundbench-wrk-{os.getpid()}.lua"
    try:
        write_wrk_script(script, bounds_ns)
        if warmup:
            run_wrk(port, conns, warmup, cpus, script)
        return run_wrk(port, conns, secs, cpus, script)
    finally:
        script.unlink(missing_ok=True)


def measure(
    rnd,
    impl: str,
    conns: int,
    secs: int,
    warmup: int,
    rate: int,
    bounds_ns: tuple,
    robustness: bool,
    hey: int = 0,
    flask_workers: int = 0,
) -> dict:
    """One run of impl's server under load. rate=0: wrk as fast as `conns`
    connections go; rate>0: rb-load at that many requests per second;
    hey>0: `hey -c conns -n hey`, the published load (secs, warmup and
    rate unused). flask_workers > 0 gives py-flask that many workers
    instead of 2 x cores + 1. Returns the load generator's record (load.py)
    plus `server` (rb-spawn's report on the measured instance: maxrss_kb,
    utime_ns, stime_ns), `server_cores` and `load_cores`."""
    _raise_nofile(conns)
    server_cpus, load_cpus, _ = split_cpus()
    cores = len(server_cpus)
    port = free_port()
    argv, env = server_command(rnd, impl, port, cores, flask_workers=flask_workers)
    srv = Server(argv, env, server_cpus)
    try:
        wait_ready(srv, port)
        res = _load(port, conns, secs, warmup, rate, load_cpus, bounds_ns, hey)
        # Still correct after the load.
        status, body = get_once(port)
        harness.check("GET / status after the load", status, 200)
        harness.check("GET / body after the load", body, HELLO)
    except BaseException:
        srv.kill()
        raise
    rep = srv.stop()
    check_clean_exit(rep, impl)
    failed: dict = {}
    if robustness:
        # On a fresh instance, so that the measured server's peak RSS and
        # CPU time are the load's alone.
        stress_port = free_port()
        argv, env = server_command(rnd, impl, stress_port, cores, STRESS_HEADER_TIMEOUT_MS)
        srv = Server(argv, env, server_cpus)
        try:
            wait_ready(srv, stress_port)
            failed = stress(srv.pid, stress_port)
        except BaseException:
            srv.kill()
            raise
        # SIGINT this time: both signals are checked on every run.
        check_clean_exit(srv.stop(signal.SIGINT), impl)
    return {**res, "server": rep, "server_cores": cores, "load_cores": len(load_cpus), "robustness_failed": failed}
