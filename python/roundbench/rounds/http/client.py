"""A raw HTTP/1.1 client over sockets, for checking a server's answers
byte for byte (the load generators measure; this checks)."""

from __future__ import annotations

import re
import socket
import time

HELLO = b"Hello, World!"


def exchange(port: int, raw: bytes, timeout: float = 3.0, half_close: bool = True) -> tuple:
    """Sends raw on a new connection, half-closes it (unless half_close is
    false: raw then ends with a request that asks the server to close) and
    reads until the server closes or the timeout passes. Returns (bytes
    received, whether the server closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        if half_close:
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
    # No half-close: the request asks the server to close, and hyper's
    # servers (granian) drop a half-closed connection unanswered.
    data, _ = exchange(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout, False)
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    if not m:
        return None, data
    lm = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if lm:
        body = body[: int(lm.group(1))]
    return int(m.group(1)), body
