"""The extension module roundbench._core as a whole: its one error mapper,
its generated type stubs, the package's re-export of it, and no leaks in
any function that creates or passes Python objects, error paths included.

The leak checks count, they do not time: a function is called many times
and neither the interpreter's allocated blocks nor the reference counts of
the objects it was handed may grow with the count. A leak of one object per
call grows the blocks by at least the number of calls; the bound allows a
tenth of that for the interpreter's own caches, and the smallest of three
rounds is taken, so a stray allocation elsewhere cannot fail it.
"""

import ast
import gc
import os
import socket
import sys
from array import array
from pathlib import Path

import pytest

import roundbench
from roundbench import _core
from roundbench.pure.ffi import noop


def _public(obj) -> set:
    return {name for name in dir(obj) if not name.startswith("_")}


# ---- the error mapper --------------------------------------------------------

MAPPED = {1: ValueError, 2: OverflowError, 3: MemoryError, 4: OSError, 5: TypeError}


@pytest.mark.parametrize("code", [1, 2, 3, 4, 5, 6, 7, 99, -1])
def test_every_status_maps_and_unknown_ones_are_core_errors(code):
    """RB_ERR_INTERRUPTED (6) with no Python exception behind it and any
    status the module does not know are CoreError: never a builtin that
    would claim to know what happened."""
    want = MAPPED.get(code, roundbench.CoreError)
    with pytest.raises(Exception) as e:
        _core._raise_status(code, "x", "went wrong")
    assert type(e.value) is want
    assert "_raise_status()" in str(e.value) and "went wrong" in str(e.value)
    if code in (1, 2, 5):
        assert str(e.value) == "_raise_status() argument 'x' went wrong"


def test_an_empty_message_still_says_what_happened():
    with pytest.raises(roundbench.CoreError, match=r"^_raise_status\(\): unknown status \(status 99\)$"):
        _core._raise_status(99, None, "")


def test_a_failed_system_call_carries_its_errno(tmp_path):
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(FileNotFoundError) as e:
        roundbench.jsonl_count_file(missing)
    assert e.value.errno == 2 and str(missing) in str(e.value)


# ---- stubs and re-exports ----------------------------------------------------


def _stub_path() -> Path:
    return Path(_core.__file__).with_name("_core.pyi")


def _stub_names(tree) -> dict:
    """Top-level name -> node of a stub file."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def test_every_public_name_has_a_stub_and_every_stub_a_name():
    path = _stub_path()
    assert path.exists(), f"{path} is missing: the build writes it (make build)"
    stubs = _stub_names(ast.parse(path.read_text()))
    public_stubs = {name for name in stubs if not name.startswith("_")}
    assert public_stubs == _public(_core), (
        f"no stub: {sorted(_public(_core) - public_stubs)}; " f"no such name: {sorted(public_stubs - _public(_core))}"
    )
    # The members a class's stub names exist on the class.
    for name, node in stubs.items():
        if isinstance(node, ast.ClassDef) and hasattr(_core, name):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    assert hasattr(getattr(_core, name), member.name), f"{name}.{member.name}"


def test_the_stub_is_every_pyi_comment_of_the_source(tmp_path):
    """The built stub is what the `pyi` comments of _core.c say now, all of
    them, in order (so it cannot be stale or miss one)."""
    import runpy

    root = Path(__file__).resolve().parents[1]
    source = root / "python" / "roundbench" / "_core.c"
    gen = runpy.run_path(str(root / "scripts" / "gen_core_stub.py"))
    assert len(gen["BLOCK"].findall(source.read_text())) == source.read_text().count("/*pyi")
    out = tmp_path / "_core.pyi"
    gen["write_stub"](source, out)
    assert out.read_text() == _stub_path().read_text(), "the built _core.pyi is stale: run make build"


def test_the_package_reexports_the_extension():
    assert _public(_core) <= set(dir(roundbench))
    assert set(roundbench.__all__) == _public(_core)
    for name in _public(_core):
        assert getattr(roundbench, name) is getattr(_core, name), name


# ---- leaks -------------------------------------------------------------------


def _no_leak(call, n=1000, passed=(), per_call=1):
    """Calls call() n times, three rounds, after a warm-up; neither the
    allocated blocks (the smallest growth of the three) nor the reference
    counts of the `passed` objects may grow. per_call: how many crossings
    one call makes (a leak grows the blocks by at least n * per_call)."""
    for _ in range(20):
        call()
    gc.collect()
    refs = [sys.getrefcount(o) for o in passed]
    growth = []
    for _ in range(3):
        before = sys.getallocatedblocks()
        for _ in range(n):
            call()
        gc.collect()
        growth.append(sys.getallocatedblocks() - before)
    assert min(growth) < n * per_call // 10, f"{min(growth)} blocks more after {n} calls (rounds: {growth})"
    assert [sys.getrefcount(o) for o in passed] == refs, "a passed object's reference count grew"


def _raises(exc, f, *args, **kwargs):
    """A call that must raise exc (and drop it at once)."""

    def call():
        try:
            f(*args, **kwargs)
        except exc:
            return
        raise AssertionError(f"{f.__name__}{args} did not raise {exc.__name__}")

    return call


def _no_exports(*buffers):
    """Resizing fails while a buffer export is held: every export must have
    been released."""
    for b in buffers:
        b.append(b[0])
        b.pop()


BIG = 2**40  # not a cached small int: its reference count moves when it is passed


def test_no_leak_loop():
    _no_leak(lambda: roundbench.loop(1000 + 300))
    _no_leak(lambda: roundbench.loop_range(BIG - BIG + 300, 2000), passed=[BIG])
    _no_leak(lambda: roundbench.loop_parallel(1000, 2), n=200)
    _no_leak(_raises(ValueError, roundbench.loop, -BIG))
    _no_leak(_raises(OverflowError, roundbench.loop, BIG * BIG))
    _no_leak(_raises(OverflowError, roundbench.loop, 2**70))
    _no_leak(_raises(TypeError, roundbench.loop, "10"))
    _no_leak(_raises(ValueError, roundbench.loop_range, 10, 5))
    _no_leak(_raises(TypeError, roundbench.loop_range, 1))
    _no_leak(_raises(ValueError, roundbench.loop_parallel, 10, 0))


def test_no_leak_ffi_calls():
    x = BIG
    _no_leak(lambda: roundbench.ffi_noargs())
    for f in (roundbench.ffi_o, roundbench.ffi_fastcall, roundbench.ffi_varargs):
        _no_leak(lambda f=f: f(x), passed=[x])
        _no_leak(_raises(OverflowError, f, 2**64))
        _no_leak(_raises(TypeError, f, "x"))
    buf = bytearray(b"\x01" * 4096)
    _no_leak(lambda: roundbench.ffi_buffer(buf), passed=[buf])
    _no_leak(lambda: roundbench.ffi_buffer(memoryview(buf)[1:]), passed=[buf])
    _no_leak(_raises(TypeError, roundbench.ffi_buffer, "text"))
    _no_exports(buf)


def test_no_leak_callback_into_python():
    """The C-to-Python path: an int made for every call, the callable and
    its result passed back; a callback that raises or returns a non-int."""
    big = BIG
    _no_leak(lambda: roundbench.ffi_callback_loop(noop, 1000), n=100, passed=[noop], per_call=700)
    _no_leak(lambda: roundbench.ffi_callback_loop(lambda x: big, 1000), n=100, passed=[big], per_call=700)
    _no_leak(lambda: roundbench.ffi_callback_loop(None, 1000), n=100)

    def boom(x):
        if x == 500:
            raise KeyError(x)
        return x + BIG

    _no_leak(_raises(KeyError, roundbench.ffi_callback_loop, boom, 1000), n=100, passed=[boom], per_call=250)
    _no_leak(_raises(TypeError, roundbench.ffi_callback_loop, lambda x: "no", 10), n=300)
    _no_leak(_raises(TypeError, roundbench.ffi_callback_loop, 3, 10))
    _no_leak(_raises(ValueError, roundbench.ffi_callback_loop, noop, -1))


def test_no_leak_matmul_and_temps():
    n = 8
    a, b, c = array("d", bytes(8 * n * n)), array("d", bytes(8 * n * n)), array("d", bytes(8 * n * n))
    _no_leak(lambda: roundbench.matmul_fill(a, b, 1), n=300, passed=[a, b])
    for f in (roundbench.matmul_naive, roundbench.matmul_blas):
        _no_leak(lambda f=f: f(a, b, c), n=300, passed=[a, b, c])
    _no_leak(lambda: roundbench.matmul_verify(a, b, c), n=300, passed=[a, b, c])
    short = array("d", bytes(8 * 9))
    _no_leak(_raises(ValueError, roundbench.matmul_naive, a, short, c), passed=[a, short, c])
    _no_leak(_raises(ValueError, roundbench.matmul_blas, a, b, a), passed=[a, b])
    _no_leak(_raises(TypeError, roundbench.matmul_verify, a, array("q", bytes(8 * n * n)), c))
    c[0] += 1
    _no_leak(_raises(ValueError, roundbench.matmul_verify, a, array("d", [1.0] * n * n), c), n=300)
    _no_leak(lambda: roundbench.blas_get_info(), n=300)
    _no_leak(lambda: roundbench.blas_set_threads(1), n=300)
    _no_leak(_raises(ValueError, roundbench.blas_set_threads, 0))
    _no_leak(_raises(ValueError, _core.blas_set_library, ""))
    _no_leak(_raises(ValueError, _core.blas_set_library, os.fsencode("/nonexistent/libnoblas.so")))
    _no_leak(_raises(TypeError, _core.blas_set_library, 3))
    t = array("q", range(1000))
    _no_leak(lambda: roundbench.temps(t), passed=[t])
    bad = array("q", [1, 2, -3037000500])
    _no_leak(_raises(OverflowError, roundbench.temps, bad), passed=[bad])
    _no_leak(_raises(TypeError, roundbench.temps, a), passed=[a])
    _no_exports(a, b, c, short, t, bad)


def test_no_leak_chain():
    def cycle():
        ch = roundbench.chain_new(50, 1, 2, False)
        assert roundbench.chain_pass(ch) == [BIG - BIG + roundbench.chain_expected(50, 1)] * 2
        roundbench.chain_free(ch)

    _no_leak(cycle, n=200)
    _no_leak(lambda: roundbench.chain_new(20, 0, 1, True), n=200)  # freed by the capsule
    _no_leak(_raises(ValueError, roundbench.chain_new, 0, 0, 1, False))
    _no_leak(_raises(OverflowError, roundbench.chain_expected, 1000, 2 * 10**15))
    _no_leak(_raises(TypeError, roundbench.chain_pass, "no chain"))
    freed = roundbench.chain_new(3, 0, 1, False)
    roundbench.chain_free(freed)
    _no_leak(_raises(ValueError, roundbench.chain_pass, freed), passed=[freed])


def test_no_leak_jsonl(tmp_path):
    data = b'{"status":200}\n{"status":404}\nnot json\n' * 50
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    _no_leak(lambda: roundbench.jsonl_count_buffer(data), n=500, passed=[data])
    _no_leak(lambda: roundbench.jsonl_count_file(path), n=300, passed=[path])
    _no_leak(_raises(FileNotFoundError, roundbench.jsonl_count_file, tmp_path / "missing"), n=300)
    _no_leak(_raises(TypeError, roundbench.jsonl_count_buffer, "text"))
    _no_leak(lambda: roundbench.jsonl_kernel())
    _no_leak(_raises(ValueError, roundbench.jsonl_kernel, "bogus"))


def test_no_leak_sleep_and_limits():
    _no_leak(lambda: roundbench.sleep(2, 0), n=300)
    _no_leak(_raises(ValueError, roundbench.sleep, -1, 0))
    _no_leak(lambda: roundbench.thread_limit(8192, 0), n=100)
    _no_leak(_raises(ValueError, roundbench.thread_limit, -1, 0))
    _no_leak(lambda: roundbench.build_info())
    _no_leak(_raises(roundbench.CoreError, _core._raise_status, 99, "x", "y"))


def _get_many(port: int, count: int) -> None:
    """count keep-alive GETs of / on one connection, read back in turn."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        for _ in range(count):
            s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            got = b""
            while b"\r\n\r\n" not in got or not got.endswith(b"Hello, World!"):
                chunk = s.recv(4096)
                assert chunk, "the server closed the connection"
                got += chunk


def test_no_leak_http_server():
    reply = (200, b"Hello, World!")

    def handler(method, path):
        return reply

    def serve():
        with roundbench.HTTPServer(handler, threads=1) as srv:
            srv.start()
            _get_many(srv.port, 5)
            srv.stats()

    _no_leak(serve, n=30, passed=[handler, reply], per_call=5)
    _no_leak(_raises(ValueError, roundbench.HTTPServer, host="10.1.2.3"), n=300)
    _no_leak(_raises(TypeError, roundbench.HTTPServer, 42), n=300)
    # The handler's own path, on the worker thread: many requests, one server.
    with roundbench.HTTPServer(handler, threads=1) as srv:
        srv.start()
        _no_leak(lambda: _get_many(srv.port, 50), n=20, passed=[handler, reply], per_call=50)
