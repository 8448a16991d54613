"""A short robustness check of a server (the core's c, py-c and go-c, and
the library servers added beside them: rounds/http.py's STRESSED), run on a
fresh instance after the measured one: what a server under real traffic
meets (malformed, oversized, pipelined and slow requests, and clients that
drop mid-request) must neither stall it nor leak its descriptors. Every
check runs, and the failure names each one that failed."""

from __future__ import annotations

import os
import re
import socket
import time

from .. import harness
from .client import HELLO, exchange, get_once
from .servers import process_tree

STRESS_DROPS = 1000  # connections opened and dropped mid-request
STRESS_HEADER_TIMEOUT_MS = 500  # the stressed instance's header timeout


def count_fds(pid: int) -> int:
    """The descriptors open in pid and its descendants: a server with worker
    processes (uvicorn --workers N, granian) holds its connections there."""
    total = 0
    for p in process_tree(pid):
        try:
            total += len(os.listdir(f"/proc/{p}/fd"))
        except OSError:  # it has exited meanwhile
            pass
    return total


def stress(server_pid: int, port: int) -> None:
    """400 and close, 431, pipelining in order, a slow client answered 408
    and closed after the header timeout (STRESS_HEADER_TIMEOUT_MS) while the
    server keeps answering others, and STRESS_DROPS connections dropped
    mid-request leave no descriptor open. Every check runs; any failure is
    a wrong result that names each check that failed."""
    failed = []

    def check(what: str, got: object, want: object) -> None:
        if got != want:
            failed.append(f"{what} = {got!r}, want {want!r}")

    with socket.create_connection(("127.0.0.1", port), timeout=3) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nX-Slow:")
        t0 = time.monotonic()
        status, body = get_once(port)
        check("GET / while a client is slow", (status, body), (200, HELLO))
        data, closed = b"", False
        while time.monotonic() - t0 < 5 and not closed:
            try:
                chunk = slow.recv(4096)
            except socket.timeout:
                break
            closed = not chunk
            data += chunk
        check("slow client: status line", data[:12], b"HTTP/1.1 408")
        check("slow client: connection closed", closed, True)
    # No half-close in these exchanges: the server must close by itself
    # (after 400, or the last pipelined request's Connection: close), and
    # some servers (uvicorn, hyper's in granian) end a half-closed
    # connection before they answer.
    data, closed = exchange(port, b"GARBAGE / NOT-HTTP\r\n\r\n", half_close=False)
    check("malformed request: status line", data[:12], b"HTTP/1.1 400")
    check("malformed request: connection closed", closed, True)
    data, closed = exchange(port, b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 10000 + b"\r\n\r\n", half_close=False)
    check("oversized head: status line", data[:12], b"HTTP/1.1 431")
    pipelined = (
        b"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /missing HTTP/1.1\r\nHost: h\r\n\r\n"
        b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
    )
    data, _ = exchange(port, pipelined, half_close=False)
    check("pipelined statuses", re.findall(rb"HTTP/1\.1 (\d{3})", data), [b"200", b"404", b"200"])
    # The baseline once the connections above are gone: the server closes
    # its end a moment after the client sees the close.
    before = count_fds(server_pid)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = count_fds(server_pid)
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
    after = count_fds(server_pid)
    while after > before and time.monotonic() < deadline:
        time.sleep(0.05)
        after = count_fds(server_pid)
    if after > before:
        failed.append(f"server descriptors after {STRESS_DROPS} dropped connections = {after}, want <= {before}")
    if failed:
        raise harness.WrongResult(f"robustness: {len(failed)} check(s) failed", "; ".join(failed), "every check passed")
