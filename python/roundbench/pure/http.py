"""Round http, the Python servers' application code.

`flask_app` (served by gunicorn, variant py-flask) and `fastapi_app` (served
by uvicorn, variant py-fastapi) are the hello-world apps as their users
write them; `asgi_app` is the same app as a bare ASGI callable, no framework
(served by uvicorn, py-asgi, and by granian, py-granian); `hello` is the
handler the core's server calls for every request in variant py-c
(roundbench.HttpServer). Every one answers GET / with 200 and the body
"Hello, World!".

Flask and FastAPI are imported only when their app is asked for, so
importing this module (for `hello`) needs neither.
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


def __getattr__(name: str):
    # gunicorn and uvicorn import "roundbench.pure.http:flask_app" and
    # ":fastapi_app"; building them lazily keeps `hello` free of both.
    if name == "flask_app":
        from flask import Flask

        app = Flask(__name__)

        @app.get("/")
        def index():
            return HELLO, 200, {"Content-Type": "text/plain; charset=utf-8"}

        globals()["flask_app"] = app
        return app
    if name == "fastapi_app":
        from fastapi import FastAPI
        from fastapi.responses import PlainTextResponse

        app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

        @app.get("/", response_class=PlainTextResponse)
        async def index():
            return PlainTextResponse(HELLO)

        globals()["fastapi_app"] = app
        return app
    raise AttributeError(name)


def serve_py_c(port: int, threads: int, header_timeout_ms: int = 0) -> None:
    """`python -m roundbench.pure.http PORT THREADS [HEADER_TIMEOUT_MS]`.
    The py-c server: the core's server answering through `hello`; stops
    cleanly on SIGTERM or SIGINT (see python/roundbench/rounds/http/)."""
    import signal

    from .._core import HttpServer

    with HttpServer(hello, port=port, threads=threads, header_timeout_ms=header_timeout_ms) as srv:
        stop = lambda signum, frame: srv.stop()  # noqa: E731
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        srv.start()
        print(f"listening port={srv.port}", flush=True)
        srv.serve_forever()
        st = srv.stats()
    print(
        f"stopped requests={st['requests']} bad={st['bad_requests']} timeouts={st['timeouts']} open={st['open']}",
        flush=True,
    )


if __name__ == "__main__":
    import sys

    serve_py_c(*(int(a) for a in sys.argv[1:4]))
