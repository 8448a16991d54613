"""Round http, the Python servers' application code.

`asgi_app` is the hello-world app as a bare ASGI callable, no framework
(served by uvicorn, py-asgi, and by granian, py-granian), and `rsgi_app`
the same under granian's own interface, RSGI (py-granian-rsgi); `hello` is the
handler the core's server calls for every request in variant py-c
(roundbench.HTTPServer); `stdlib_handler()` is the same app on the standard
library alone (http.server, variant py-stdlib). Every one answers GET /
with 200 and the body "Hello, World!". The same app on Flask and FastAPI,
and the core's server answering through `hello`, are apps/http.py's.

py-stdlib is http.server as its documentation offers it for HTTP/1.1
keep-alive: a BaseHTTPRequestHandler with protocol_version "HTTP/1.1" and
Content-Length on every answer, under ThreadingHTTPServer (one OS thread
per connection, daemon threads, all of them taking turns on the GIL, in
one process whatever the server's cores). The choices, each a class
attribute or method that http.server and socketserver provide to be set
or overridden, none a patch:

- request_queue_size = 2048 (socketserver's default is 5): the listen
  backlog the other servers get (--backlog 2048); with 5, the kernel holds
  back most of the 250 connections wrk opens at once (measured on a cold
  server: a p99 of 750 ms against 70 to 90 ms).
- wbufsize = -1 with disable_nagle_algorithm = True, together, as
  socketserver's StreamRequestHandler advises: the head and the body leave
  in one write (handle_one_request flushes after each request). Unbuffered
  (the default) they leave in two, and with Nagle on the second waits for
  the client's delayed ACK: measured with wrk's 250 connections on one
  server core, the defaults gave a p50 of 44 ms in every run and some 5,400
  requests/s, Nagle off with one write a p50 near 10 ms and 10,000 to
  12,000 requests/s (on a shared 2-core machine, so a range).
- timeout = the header timeout (10 s in the measured runs): a socket
  timeout, so a client that stops sending frees its thread; http.server
  then closes the connection without a 408, and an idle keep-alive
  connection is closed after as long. Its cost was within the noise of the
  measurements above.
- log_message does nothing (no access log, as every server here), and
  handle_error keeps quiet about a client that went away (a reset or a
  broken pipe), which socketserver would print as a traceback.

Under wrk's 250 connections the thread that accepts and the 250 that
answer take turns on one GIL: the tail reaches seconds (a p99 near 1.4 s),
and on a busy machine some tens of requests a run passed wrk's 2 s
timeout, which the result counts as socket errors (nothing hides them);
at rb-load's fixed 2,000 requests/s it keeps up without errors.
"""

from __future__ import annotations

HELLO = b"Hello, World!"
_OK = (200, HELLO)
_NOT_FOUND = (404, b"")
_NOT_ALLOWED = (405, b"")


def hello(method: str, path: str) -> tuple:
    """The py-c handler: (status, body) for one request."""
    if method != "GET" and method != "HEAD":
        return _NOT_ALLOWED
    if path != "/":
        return _NOT_FOUND
    return _OK


_TEXT_HEADERS = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"%d" % len(HELLO))]
_EMPTY_HEADERS = [(b"content-length", b"0")]


async def asgi_app(scope: dict, receive, send) -> None:
    """The hello-world app as a bare ASGI 3 callable: GET or HEAD / answers
    200 "Hello, World!", another path 404, another method 405. It also
    takes the lifespan protocol's startup and shutdown, which a server
    sends first and last."""
    kind = scope["type"]
    if kind == "http":
        method = scope["method"]
        if method != "GET" and method != "HEAD":
            status, headers, body = 405, _EMPTY_HEADERS, b""
        elif scope["path"] != "/":
            status, headers, body = 404, _EMPTY_HEADERS, b""
        else:
            status, headers, body = 200, _TEXT_HEADERS, HELLO if method == "GET" else b""
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif kind == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


# The same answers for granian's own interface, RSGI, where headers are
# pairs of str. granian (hyper) sets content-length from the body, and
# sends no body to HEAD.
_RSGI_TEXT_HEADERS = [("content-type", "text/plain; charset=utf-8")]
_RSGI_EMPTY_HEADERS: list = []


async def rsgi_app(scope, proto) -> None:
    """The hello-world app as a bare RSGI callable, granian's own interface
    (granian --interface rsgi): the answers asgi_app gives, each one call
    that hands granian the whole response (no ASGI message dictionaries)."""
    if scope.proto != "http":
        return
    method = scope.method
    if method != "GET" and method != "HEAD":
        proto.response_bytes(405, _RSGI_EMPTY_HEADERS, b"")
    elif scope.path != "/":
        proto.response_bytes(404, _RSGI_EMPTY_HEADERS, b"")
    else:
        proto.response_bytes(200, _RSGI_TEXT_HEADERS, HELLO)


def stdlib_handler(header_timeout_ms: int = 10000) -> type:
    """The py-stdlib request handler class (http.server), with a socket
    timeout of header_timeout_ms: GET or HEAD / answers 200 "Hello,
    World!", another path 404; another method gets http.server's own 501."""
    # http.server only in the py-stdlib server's process
    from http import HTTPStatus
    from http.server import BaseHTTPRequestHandler

    class HelloHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive; every answer sets Content-Length
        wbufsize = -1  # one write per answer (flushed by handle_one_request) ...
        disable_nagle_algorithm = True  # ... sent at once
        timeout = header_timeout_ms / 1000

        def do_GET(self) -> None:
            if self.path == "/":
                self._answer(HTTPStatus.OK, HELLO)
            else:
                self._answer(HTTPStatus.NOT_FOUND, b"")

        def do_HEAD(self) -> None:
            self.do_GET()

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            if body:
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:
            pass  # no access log

    return HelloHandler


def serve_stdlib(port: int, header_timeout_ms: int = 10000) -> None:
    """`python -m roundbench.pure.http stdlib PORT [HEADER_TIMEOUT_MS]`: the
    py-stdlib server (see the module's doc) until SIGTERM or SIGINT."""
    # http.server only in the py-stdlib server's process
    import signal
    import sys
    import threading
    from http.server import ThreadingHTTPServer

    class Server(ThreadingHTTPServer):
        request_queue_size = 2048  # the listen backlog every server here gets

        def handle_error(self, request, client_address) -> None:
            if not isinstance(sys.exc_info()[1], ConnectionError):  # not a client that went away
                super().handle_error(request, client_address)

    # Only the main thread takes the stop signals (blocked here, and every
    # thread started from here on inherits the mask): it calls shutdown(),
    # which must not run in the thread that serves.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    with Server(("127.0.0.1", port), stdlib_handler(header_timeout_ms)) as srv:
        serving = threading.Thread(target=srv.serve_forever, name="serve_forever")
        serving.start()
        bound = srv.server_address[1]
        print(f"listening port={bound}", flush=True)  # scan: allow print: the start line, before any load
        signal.sigwait(stop)
        srv.shutdown()
        serving.join()
    print("stopped", flush=True)  # scan: allow print: the stop line, after the load


if __name__ == "__main__":
    import sys

    # python -m roundbench.pure.http stdlib PORT [HEADER_TIMEOUT_MS]
    if sys.argv[1:2] != ["stdlib"]:
        sys.exit("usage: python -m roundbench.pure.http stdlib PORT [HEADER_TIMEOUT_MS]")
    serve_stdlib(*(int(a) for a in sys.argv[2:4]))
