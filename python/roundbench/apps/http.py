"""Round http's servers that stand on more than the standard library:
`flask_app` (served by gunicorn, variant py-flask) and `fastapi_app`
(served by uvicorn, variant py-fastapi), the hello-world app as their
users write it, and `python -m roundbench.apps.http PORT THREADS
[HEADER_TIMEOUT_MS]`, the py-c server: the C core's server (the `_core`
extension) answering through pure/http.py's `hello`. Every one answers
GET / with 200 and the body "Hello, World!", as pure/http.py's apps do.

A server process imports this module alone (gunicorn and uvicorn import
"roundbench.apps.http:flask_app"), not the round's declaration; Flask and
FastAPI are imported only when their app is asked for."""

from __future__ import annotations

from ..pure.http import HELLO, hello


def __getattr__(name: str):
    # gunicorn and uvicorn import "roundbench.apps.http:flask_app" and
    # ":fastapi_app"; built when asked for, each server process imports
    # only the framework it serves.
    if name == "flask_app":
        # the framework only in the server process that serves it
        from flask import Flask

        app = Flask(__name__)

        @app.get("/")
        def index():
            return HELLO, 200, {"Content-Type": "text/plain; charset=utf-8"}

        globals()["flask_app"] = app
        return app
    if name == "fastapi_app":
        # the framework only in the server process that serves it
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
    """`python -m roundbench.apps.http PORT THREADS [HEADER_TIMEOUT_MS]`.
    The py-c server: the core's server answering through `hello`; stops
    cleanly on SIGTERM or SIGINT (see python/roundbench/rounds/http/)."""
    # the py-c server's own: the extension and its signals only in that process
    import signal

    # the py-c server's own: the extension and its signals only in that process
    from .._core import HTTPServer

    with HTTPServer(hello, port=port, threads=threads, header_timeout_ms=header_timeout_ms) as srv:
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
