"""A short robustness check of a server (every one of round http:
rounds/http/__init__.py's STRESSED), run on a
fresh instance after the measured one: what a server under real traffic
meets (malformed, oversized, pipelined and slow requests, and clients that
drop mid-request) must neither stall it nor leak its descriptors. Every
check runs, and each one that fails is reported by its name (CHECKS)."""

from __future__ import annotations

import os
import re
import socket
import time

from .client import HELLO, exchange, get_once
from .servers import process_tree

STRESS_DROPS = 1000  # connections opened and dropped mid-request
STRESS_HEADER_TIMEOUT_MS = 500  # the stressed instance's header timeout


def count_sockets(pid: int) -> int:
    """The sockets open in pid and its descendants: a server with worker
    processes (uvicorn --workers N, granian) holds its connections there.
    Other descriptors are left out: a runtime may open its own at any time
    (Go's poller, lazily), and a leaked connection is a socket."""
    total = 0
    for p in process_tree(pid):
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:  # it has exited meanwhile
            continue
        for fd in fds:
            try:
                total += os.readlink(f"/proc/{p}/fd/{fd}").startswith("socket:")
            except OSError:  # closed meanwhile
                pass
    return total


# The checks, by the name a failure is reported under (and a variant's
# known failures are declared under: rounds/http/__init__.py KNOWN_FAILURES).
CHECKS = {
    "busy-while-slow": "GET / answered while another client sends its head slowly",
    "slow-client-408": "a client whose head is not complete within the header timeout gets 408",
    "slow-client-close": "the server closes that client's connection",
    "malformed-400": "a request line that is not HTTP gets 400",
    "malformed-close": "the server closes the connection after the 400",
    "oversized-431": "a 10 kB request head gets 431",
    "pipelined": "three pipelined requests are answered in order (200, 404, 200)",
    "dropped-fds": f"{STRESS_DROPS} connections dropped mid-request leave no socket open",
}


def stress(server_pid: int, port: int) -> dict:
    """400 and close, 431, pipelining in order, a slow client answered 408
    and closed after the header timeout (STRESS_HEADER_TIMEOUT_MS) while the
    server keeps answering others, and STRESS_DROPS connections dropped
    mid-request leave no socket open. Every check runs; returns the
    failed ones, {CHECKS key: what was seen}, empty when all passed."""
    failed: dict = {}

    def check(key: str, got: object, want: object) -> None:
        if got != want:
            failed[key] = f"got {got!r}, want {want!r}"

    with socket.create_connection(("127.0.0.1", port), timeout=3) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nX-Slow:")
        t0 = time.monotonic()
        status, body = get_once(port)
        check("busy-while-slow", (status, body), (200, HELLO))
        # A server that keeps to the header timeout has answered and closed
        # well within four of them.
        data, closed = b"", False
        end = t0 + 4 * STRESS_HEADER_TIMEOUT_MS / 1000
        while not closed and (left := end - time.monotonic()) > 0:
            slow.settimeout(left)
            try:
                chunk = slow.recv(4096)
            except socket.timeout:
                break
            closed = not chunk
            data += chunk
        check("slow-client-408", data[:12], b"HTTP/1.1 408")
        check("slow-client-close", closed, True)
    # No half-close in these exchanges: the server must close by itself
    # (after 400, or the last pipelined request's Connection: close), and
    # some servers (uvicorn, hyper's in granian) end a half-closed
    # connection before they answer.
    data, closed = exchange(port, b"GARBAGE / NOT-HTTP\r\n\r\n", half_close=False)
    check("malformed-400", data[:12], b"HTTP/1.1 400")
    check("malformed-close", closed, True)
    data, closed = exchange(port, b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 10000 + b"\r\n\r\n", half_close=False)
    check("oversized-431", data[:12], b"HTTP/1.1 431")
    pipelined = (
        b"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /missing HTTP/1.1\r\nHost: h\r\n\r\n"
        b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
    )
    data, _ = exchange(port, pipelined, half_close=False)
    check("pipelined", re.findall(rb"HTTP/1\.1 (\d{3})", data), [b"200", b"404", b"200"])
    # The baseline once the connections above are gone: the server closes
    # its end a moment after the client sees the close.
    before = count_sockets(server_pid)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = count_sockets(server_pid)
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
    after = count_sockets(server_pid)
    while after > before and time.monotonic() < deadline:
        time.sleep(0.05)
        after = count_sockets(server_pid)
    if after > before:
        failed["dropped-fds"] = f"{after} sockets open afterwards, want <= {before}"
    return failed
