"""The http round's load generators, each a separate process pinned to the
load CPUs: wrk at full speed (its Lua `done` hook prints what the driver
reads), build/rb-load (csrc/tools/loadgen.c) at a fixed rate, which
measures latency from each request's intended send time, so a server that
stalls cannot hide its tail (wrk2 is not packaged by Debian), and hey
(Debian package), the published load: a fixed number of requests over a
number of connections, once.

All return the same record: requests, duration_ns, p50/p90/p99/p999/max
(ns), socket_errors, non200, and hist (bound ns -> % of requests at or
below it); hey's summary has no p99.9 and no share under a bound, so its
record has p999 None and an empty hist."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import time
from pathlib import Path
from typing import Optional

from ...measure import harness
from ...runtimes import programs

WRK_TIMEOUT_S = 2  # wrk counts a response slower than this as a timeout error

WRK_SCRIPT = """
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


def write_wrk_script(path: Path, bounds_ns: tuple) -> None:
    """The wrk script for the histogram bounds (wrk reports microseconds)."""
    path.write_text(WRK_SCRIPT.replace("%BOUNDS%", ", ".join(str(ns // 1000) for ns in bounds_ns)))


def _pinned_run(argv: list, cpus: list, timeout: float, usage: Optional[dict] = None) -> str:
    """Runs argv on cpus; returns its stdout. usage, when given, gets the
    load generator's own CPU use: `load_cpu_pct`, its CPU time over its
    wall time on its CPUs (100: every CPU it had was busy all along, so it,
    not the server, may set the pace). The driver reaps no other child
    while this one runs, so the children's rusage delta is this one's."""
    old = os.sched_getaffinity(0)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic_ns()
    os.sched_setaffinity(0, cpus)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.sched_setaffinity(0, old)
    try:
        out, err = proc.communicate(timeout=timeout)
        if usage is not None:
            wall_ns = time.monotonic_ns() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            usage["load_cpu_pct"] = 100 * cpu_s * 1e9 / (wall_ns * len(cpus))
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
    usage: dict = {}
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
        usage,
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
        **usage,
    }


def run_rate(port: int, conns: int, secs: int, warmup: int, rate: int, cpus: list, bounds_ns: tuple) -> dict:
    argv = [
        str(programs.path("rb-load")),
        f"port={port}",
        f"conns={conns}",
        f"rate={rate}",
        f"secs={secs}",
        f"warmup={warmup}",
    ] + [f"le={ns}" for ns in bounds_ns]
    usage: dict = {}
    out = _pinned_run(argv, cpus, secs + warmup + 30, usage)
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
        **usage,
    }


HEY_TIMEOUT_S = 600  # a hey run that has not finished by then fails the run


def run_hey(port: int, conns: int, requests: int, cpus: list) -> dict:
    """`hey -c CONNS -n REQUESTS`: hey's summary read into the record.
    requests is the responses hey counted (its errors are apart), duration
    its Total, the percentiles its own (to 0.1 ms), max its Slowest."""
    usage: dict = {}
    argv = ["hey", "-c", str(conns), "-n", str(requests), f"http://127.0.0.1:{port}/"]
    out = _pinned_run(argv, cpus, HEY_TIMEOUT_S, usage)
    return {**parse_hey(out), **usage}


_HEY_SECS = r"([0-9.]+) secs"


def parse_hey(out: str) -> dict:
    """hey's text summary -> the record; CannotRun when it is not there."""
    total = re.search(r"^\s*Total:\s+" + _HEY_SECS, out, re.M)
    slowest = re.search(r"^\s*Slowest:\s+" + _HEY_SECS, out, re.M)
    pct = {int(p): float(s) for p, s in re.findall(r"^\s*(\d+)% in " + _HEY_SECS, out, re.M)}
    codes = {int(c): int(n) for c, n in re.findall(r"^\s*\[(\d{3})\]\s+(\d+) responses", out, re.M)}
    errors = 0
    if "Error distribution:" in out:
        tail = out.split("Error distribution:", 1)[1]
        errors = sum(int(n) for n in re.findall(r"^\s*\[(\d+)\]\s", tail, re.M))
    if total is None or not codes or not {50, 90, 99} <= set(pct) or slowest is None:
        if errors and not codes:
            raise harness.CannotRun(f"hey got no response, only errors: {out.strip()[-300:]}")
        raise harness.CannotRun(f"could not read hey's summary: {out.strip()[-300:]}")
    return {
        "requests": sum(codes.values()),
        "duration_ns": round(float(total.group(1)) * 1e9),
        "p50": round(pct[50] * 1e9),
        "p90": round(pct[90] * 1e9),
        "p99": round(pct[99] * 1e9),
        "p999": None,
        "max": round(float(slowest.group(1)) * 1e9),
        "socket_errors": errors,
        "non200": sum(n for c, n in codes.items() if c != 200),
        "hist": {},
    }
