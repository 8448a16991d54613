"""Every entry point of roundbench._core called from several threads at
once, on shared inputs and on separate ones, each result checked against
what one thread computes alone (and, where there is one, against the
round's own check). tests/test_freethreading.py runs this file as a script
under a free-threaded CPython, where nothing serialises the calls; it runs
under any CPython, where the GIL serialises all but the parts each call
runs with the GIL released.

Prints one JSON line: the checks made, the failures (empty when all
passed), and whether the GIL was on at the end. Exits 1 on a failure.
"""

from __future__ import annotations

import array
import http.client
import json
import os
import sys
import threading
import traceback
from pathlib import Path

from roundbench import _core

THREADS = int(os.environ.get("FT_THREADS", "8"))
ROUNDS = int(os.environ.get("FT_ROUNDS", "3"))
ROOT = Path(__file__).resolve().parents[1]
ASPECTS = ROOT / "testdata" / "aspects"

failures: list = []
checks = 0
lock = threading.Lock()


def check(ok: bool, what: str) -> None:
    global checks
    with lock:
        checks += 1
        if not ok:
            failures.append(what)


def loop_expected(n: int) -> int:
    prefix = (0, 0, 1, 5, 7, 9, 13)
    return n // 7 * 14 + prefix[n % 7]


def on_threads(name: str, fn, count: int = THREADS) -> None:
    """fn(index) on `count` threads released together by a barrier; an
    exception in one is a failure named after the case."""
    barrier = threading.Barrier(count)

    def run(i: int) -> None:
        try:
            barrier.wait()
            for r in range(ROUNDS):
                fn(i, r)
        except Exception:
            check(False, f"{name}, thread {i}: {traceback.format_exc(limit=3)}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def doubles(n: int) -> array.array:
    return array.array("d", bytes(8 * n * n))


def main() -> int:
    # ---- loop: separate inputs, and the core's own threads inside each call
    def loop_case(i: int, r: int) -> None:
        n = 100_000 + 7919 * i + r
        check(_core.loop(n) == loop_expected(n), f"loop({n})")
        check(_core.loop_range(n, 2 * n) == loop_expected(2 * n) - loop_expected(n), f"loop_range({n}, {2 * n})")
        check(_core.loop_parallel(n, 3) == loop_expected(n), f"loop_parallel({n}, 3)")

    on_threads("loop", loop_case)

    # ---- ffi: the crossing itself, and a callback into Python from C
    shared_buf = bytes(range(1, 200)) * 10

    def ffi_case(i: int, r: int) -> None:
        check(_core.ffi_o(i) == _core.ffi_fastcall(i) == _core.ffi_varargs(i), f"ffi_o/fastcall/varargs({i})")
        _core.ffi_noargs()
        check(_core.ffi_buffer(shared_buf) == shared_buf[0] + shared_buf[-1], "ffi_buffer(shared)")
        own = bytes([i + 1, r, i + 3])
        check(_core.ffi_buffer(own) == own[0] + own[-1], "ffi_buffer(own)")
        count = 1000 + i
        check(_core.ffi_callback_loop(lambda x: x + i, count) == sum(range(count)) + i * count, "ffi_callback_loop")

    on_threads("ffi", ffi_case)

    # ---- matmul: shared a and b, an output each; the BLAS where there is one
    n = 33
    a, b = doubles(n), doubles(n)
    _core.matmul_fill(a, b, 11)
    c_ref = doubles(n)
    _core.matmul_naive(a, b, c_ref)
    checksum = _core.matmul_verify(a, b, c_ref)
    try:
        _core.blas_get_info()
        blas = True
    except OSError:
        blas = False  # no BLAS file for this interpreter: the naive product only

    def matmul_case(i: int, r: int) -> None:
        c = doubles(n)
        _core.matmul_naive(a, b, c)
        check(c == c_ref, "matmul_naive on shared a, b")
        check(_core.matmul_verify(a, b, c) == checksum, "matmul_verify")
        fa, fb = doubles(n), doubles(n)
        _core.matmul_fill(fa, fb, 11)
        check(fa == a and fb == b, "matmul_fill")
        if blas:
            cb = doubles(n)
            _core.matmul_blas(a, b, cb)
            _core.matmul_verify(a, b, cb)  # raises when the product is wrong
            info = _core.blas_get_info()
            check(bool(info["library"]), "blas_get_info")

    on_threads("matmul", matmul_case)

    # ---- temps: one shared int64 array
    values = array.array("q", [(k * 7919) % 100_003 - 50_000 for k in range(50_000)])
    temps_ref = sum(v * v % 7 for v in values)

    on_threads("temps", lambda i, r: check(_core.temps(values) == temps_ref, "temps(shared)"))

    # ---- chain: a chain each, and one chain that every thread tries to pass
    want = _core.chain_expected(300, 2)

    def chain_case(i: int, r: int) -> None:
        c = _core.chain_new(300, 2, 2, bool(i % 2))
        check(_core.chain_pass(c) == [want, want], "chain_pass(own)")
        _core.chain_free(c)
        _core.chain_free(c)  # idempotent

    on_threads("chain", chain_case)

    for r in range(ROUNDS):
        shared = _core.chain_new(20_000, 2, 1, False)
        passed, refused = [], []

        def race(i: int, r: int, shared=shared, passed=passed, refused=refused) -> None:
            if r:
                return
            try:
                passed.append(_core.chain_pass(shared))
            except ValueError as err:
                # another thread holds it, or it has passed already
                refused.append(str(err))

        on_threads("chain shared", race)
        check(
            len(passed) == 1 and passed[0] == [_core.chain_expected(20_000, 2)], f"one pass of a shared chain: {passed}"
        )
        check(
            len(refused) == THREADS - 1
            and all("in use by another thread" in e or "already passed" in e for e in refused),
            f"what the other threads were told: {refused[:2]}",
        )
        _core.chain_free(shared)

    # ---- jsonl: a shared buffer, a shared file, the kernel choice read and set
    data = b'{"status": 200}\n{"status": 404}\n\nnot json\n[1]\n{"status": 200, "a": {"b": [1, null]}}\n{"x": 1}\n' * 50
    jref = _core.jsonl_count_buffer(data)
    kernel = _core.jsonl_kernel()
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"rb-ft-{os.getpid()}.jsonl"
    path.write_bytes(data)
    try:

        def jsonl_case(i: int, r: int) -> None:
            check(_core.jsonl_count_buffer(data) == jref, "jsonl_count_buffer(shared)")
            check(_core.jsonl_count_file(str(path)) == jref, "jsonl_count_file(shared)")
            if i == 0:
                _core.jsonl_kernel(kernel)
            check(_core.jsonl_kernel() == kernel, "jsonl_kernel()")

        on_threads("jsonl", jsonl_case)
    finally:
        path.unlink()

    # ---- sleep and thread_limit: the core's own threads inside each call
    def sleep_case(i: int, r: int) -> None:
        s = _core.sleep(50, 1_000_000)
        check(s["completed"] == 50 and s["n"] == 50 and s["early"] == 0, f"sleep: {s}")
        name, _, allowed = _core.thread_limit(1 << 16, 2)
        check(bool(name) and allowed >= 0, "thread_limit")

    on_threads("sleep", sleep_case, count=min(THREADS, 4))

    # ---- aspects: one data set searched by every thread, and loads of its own
    eph, events = ASPECTS / "ephemeris.tsv", ASPECTS / "events-300.tsv"
    shared_data = _core.aspects_load(eph, events)
    total = _core.aspects_events(shared_data)
    out_ref = _core.aspects_search(shared_data, _core.ASPECTS_DEFAULT_COMBO, 2)

    def aspects_case(i: int, r: int) -> None:
        check(_core.aspects_search(shared_data, _core.ASPECTS_DEFAULT_COMBO, 2) == out_ref, "aspects_search(shared)")
        part = _core.aspects_search(shared_data, _core.ASPECTS_DEFAULT_COMBO, 1, i, 10)
        check(part[1] <= 10, "aspects_search(shared, a range)")
        if r == 0:
            own = _core.aspects_load(eph, events)
            check(_core.aspects_events(own) == total, "aspects_load(own)")

    on_threads("aspects", aspects_case)

    # ---- http: one server with a Python handler, clients on every thread,
    # stats() beside them, then wait() on one thread while others close()
    served = [0]

    def handler(method: str, path: str):
        with lock:
            served[0] += 1
        return 200, path.encode()

    server = _core.HTTPServer(handler, threads=2)
    server.start()
    port = server.port
    per_thread = 5

    def http_case(i: int, r: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for k in range(per_thread):
            conn.request("GET", f"/t{i}/r{r}/k{k}")
            resp = conn.getresponse()
            body = resp.read()
            check(resp.status == 200 and body == f"/t{i}/r{r}/k{k}".encode(), f"http {resp.status} {body[:40]!r}")
        conn.close()
        st = server.stats()
        check(st["requests"] >= 0 and st["accepted"] >= 1, f"stats {st}")

    on_threads("http", http_case)
    want_requests = THREADS * ROUNDS * per_thread
    check(served[0] == want_requests, f"the handler ran {served[0]} times; want {want_requests}")
    check(server.stats()["requests"] == want_requests, f"stats {server.stats()}")

    waited = []

    def waiter() -> None:
        try:
            waited.append(server.wait(30))
        except ValueError as e:  # closed before this thread started waiting
            waited.append(str(e))

    w = threading.Thread(target=waiter)
    w.start()

    def closer(i: int, r: int) -> None:
        server.stop()
        server.close()

    on_threads("http close", closer)
    w.join(60)
    check(not w.is_alive(), "wait() returned after close()")
    check(waited in ([True], ["HTTPServer.wait(): HTTPServer is closed"]), f"wait() gave {waited}")
    try:
        check(False, f"port of a closed server: {server.port}")
    except ValueError:
        check(True, "")

    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(json.dumps({"checks": checks, "failures": failures[:20], "threads": THREADS, "gil_enabled": gil}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
