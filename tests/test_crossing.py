"""roundbench crossing: the declaration parser, and the whole command on a
small library the test builds (integer, double, buffer and void functions):
every mechanism (the binding tools' among them) runs and agrees with the
direct call, a mechanism that disagrees fails by name, the cache builds
nothing the second time, the Go benchmark left in the output folder runs,
and every refused type, a missing symbol and a missing library are one
line and exit status 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import shared_library

from roundbench import cli
from roundbench.runtimes import gotoolchains
from roundbench.crossing import build, decl, gen
from roundbench.crossing.measure import measure, parse
from roundbench.errors import UsageError

LIBRARY_C = r"""
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Unsigned arithmetic: wraps instead of being undefined. */
int32_t add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
double scale(double x, int k) { return x * k; }
uint64_t sum_bytes(const uint8_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    return s;
}
void nop(void) {}
/* A different value in every process: no two mechanisms can agree. */
int32_t whoami(void) { return (int32_t)getpid(); }
"""

ALL = {"c-dlsym", "c-linked", "py-ctypes", "py-cffi-abi", "py-cffi-api", "py-ext", "py-pybind11", "py-nanobind",
       "py-cython-extern", "py-pyo3", "go-cgo", "go-cgo-noescape", "go-cgo-nocallback", "go-purego"}  # fmt: skip


# The mechanisms the shorter tests run besides c-dlsym: one per language's way in.
SOME = ["py-ctypes", "py-ext", "go-cgo"]


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> str:
    return shared_library(tmp_path_factory.mktemp("lib"), "crosstest", LIBRARY_C)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    # One cache for the module: Go compiles its runtime into it once.
    return str(tmp_path_factory.mktemp("cache"))


def _run(library, cache, out, declaration, args=(), **kw):
    return measure(library, declaration, args, runs=1, out=str(out), cache=cache, progress=None, **kw)


# ---- the parser --------------------------------------------------------------------------


def test_parse_scalars_and_names():
    d = decl.parse("double scale(double x, int k);")
    assert d.name == "scale"
    assert d.ret == decl.Scalar("double", "float", 64)
    assert [(p.name, p.type.stdint) for p in d.params] == [("x", "double"), ("k", "int32_t")]
    assert d.c_prototype() == "double scale(double x, int32_t k)"
    d = decl.parse("unsigned long long f(unsigned char, long int, short)")
    assert [p.type.stdint for p in d.params] == ["uint8_t", "int64_t", "int16_t"]
    assert d.ret.stdint == "uint64_t"
    assert decl.parse("void nop(void)").params == ()
    assert decl.parse("void nop()").ret is None


def test_parse_buffer_is_one_argument():
    d = decl.parse("uint64_t sum_bytes(const uint8_t *p, size_t n)")
    assert d.arity == 1 and d.scalars == []
    assert d.buffer.type == decl.Buffer("const uint8_t *", "uint8_t", "p", "n")
    assert d.c_params() == [("const uint8_t *", "p"), ("size_t", "n")]
    d = decl.parse("int f(int k, const void *buf, size_t len, double x)")
    assert d.arity == 3 and [p.name for p in d.scalars] == ["k", "x"]
    assert decl.parse("size_t g(const char *s, size_t n)").buffer.type.element == "char"


@pytest.mark.parametrize(
    "text, named",
    [
        ("int f(struct point p)", "struct point"),
        ("struct point f(int x)", "struct point"),
        ("int f(int *p)", "int * points to writable memory"),
        ("int f(const int *p, size_t n)", "const int *"),
        ("int f(const uint8_t *p)", "not followed by its length"),
        ("int f(const uint8_t **p, size_t n)", "pointer to a pointer"),
        ("int f(int n, ...)", "variadic"),
        ("int f(int (*cb)(int))", "function pointer"),
        ("int f(int a[4])", "array"),
        ("long double f(double x)", "long double"),
        ("int f(_Bool b)", "_Bool"),
        ("char *f(void)", "pointer"),
        ("int f(__int128 x)", "__int128"),
        ("int f(union u x)", "union u"),
    ],
)
def test_parse_refuses_naming_the_type(text, named):
    with pytest.raises(decl.Unsupported) as e:
        decl.parse(text)
    assert named in str(e.value)


def test_values_are_checked_and_converted():
    d = decl.parse("int8_t f(int8_t a, uint16_t b, float c)")
    assert decl.values(d, ["-128", "0xffff", "0.1"]) == [-128, 65535, decl._float32(0.1)]
    with pytest.raises(ValueError, match="out of range for int8_t"):
        decl.values(d, ["128", "0", "0"])
    with pytest.raises(ValueError, match="takes 3 arguments"):
        decl.values(d, ["1"])
    with pytest.raises(ValueError, match="not an integer"):
        decl.values(d, ["x", "0", "0"])
    # The float is rounded once, as C's (float)x, and passed on exactly.
    assert float(decl.env_text(d, decl.values(d, ["1", "2", "0.1"])).split()[2]) == decl._float32(0.1)


def test_no_args_means_zero_for_each():
    """Without --args every scalar argument is 0 (a CRC's start value, say);
    some values but not all is still an error."""
    _, vals, _ = parse("int8_t f(int8_t a, uint16_t b, float c, const uint8_t *p, size_t n)", [])
    assert vals == [0, 0, 0.0]
    with pytest.raises(UsageError, match="takes 3 arguments"):
        parse("int8_t f(int8_t a, uint16_t b, float c)", ["1"])


def test_result_text_is_bit_exact():
    f64, f32 = decl.parse("double f(void)").ret, decl.parse("float f(void)").ret
    assert decl.result_text(f64, 0.5) == "f64:3fe0000000000000"
    assert decl.result_text(f64, -0.0) != decl.result_text(f64, 0.0)
    assert decl.result_text(f32, 0.5) == "f32:3f000000"
    assert decl.readable("f64:3fe0000000000000") == "0.5 (f64:3fe0000000000000)"
    assert decl.result_text(None, None) == "void"


def test_a_length_is_any_type_the_abi_passes_as_size_t():
    """unsigned long and uint64_t are size_t's width and sign here (LP64);
    int and unsigned int are not, and the message says what each is."""
    for length in ("size_t", "unsigned long", "uint64_t", "const size_t"):
        d = decl.parse(f"uint32_t f(const uint8_t *p, {length} n)")
        assert d.c_params() == [("const uint8_t *", "p"), ("size_t", "n")], length
    for length, said in (("int", "a 32-bit signed integer"), ("unsigned int", "a 32-bit unsigned integer"),
                         ("double", "a 64-bit float")):  # fmt: skip
        with pytest.raises(decl.Unsupported) as e:
            decl.parse(f"uint32_t f(const uint8_t *p, {length} n)")
        message = str(e.value)
        assert f"parameter 2: {length} cannot be the length of the buffer before it: a length is a size_t" in message
        assert said in message


def test_a_prototype_as_a_preprocessed_header_writes_it():
    """GCC's attributes and alternate keywords, as glibc's headers carry
    them after the preprocessor."""
    d = decl.parse("extern double cos (double __x) __attribute__ ((__nothrow__ , __leaf__));")
    assert d.c_prototype() == "double cos(double __x)"
    d = decl.parse("extern __signed__ int f (__const char *__s, size_t __n) __attribute__ ((__pure__));")
    assert d.c_prototype() == "int32_t f(const char *__s, size_t __n)"


# ---- the command on the test library ---------------------------------------------------


def _agreed(res, want: str) -> None:
    ran = {f.mechanism for f in res.figures if f.summary is not None}
    assert not res.failed, res.failed
    assert not res.skipped, res.skipped
    assert ran == ALL
    assert res.result == want


def test_every_mechanism_agrees_on_int_and_double_and_the_go_benchmark_runs(library, cache, tmp_path):
    res = _run(library, cache, tmp_path, "double scale(double x, int k)", ["1.5", "-3"])
    _agreed(res, decl.result_text(decl.parse("double f(void)").ret, -4.5))
    text = (tmp_path / "results.txt").read_text()
    for m in ALL:
        assert f"BenchmarkCrossing/impl={m}/sym=scale " in text
    assert "crossing-declaration: double scale(double x, int k)" in text
    report = (tmp_path / "report.md").read_text()
    assert "-4.5 (f64:c012000000000000)" in report
    assert (tmp_path / "report-crossing-ladder.png").exists()
    # The cache: the same declaration and library build nothing again.
    again = build.build(res.declaration, res.library, [sys.executable], cache, progress=None)
    assert again.built == []
    assert all(m.why is None for m in again.mechanisms)
    _go_child_is_built_like_the_suites(again)
    _go_benchmark_runs(tmp_path / "go", cache, "scale")


def _go_child_is_built_like_the_suites(built) -> None:
    """The Go child carries no path or revision of this machine (its layout
    would move with them, and a cgo call's time with it), and its go.mod's go
    line is the installed Go's: no old GODEBUG defaults switched on."""
    (child,) = {m.argv[0] for m in built.mechanisms if m.name.startswith("go-cgo")}
    info = subprocess.run(["go", "version", "-m", child], capture_output=True, text=True, timeout=60).stdout
    assert "-trimpath=true" in info, info
    assert "vcs." not in info, info
    assert "DefaultGODEBUG" not in info, info
    major, minor = build.go_version()
    assert (built.entry / "go" / "go.mod").read_text().splitlines()[2] == f"go {major}.{minor}"


def _go_benchmark_runs(go, cache: str, sym: str) -> None:
    """The Go package left in the output folder: its BenchmarkCrossing
    builds, checks its result and times every cgo mechanism."""
    assert (go / "crossing_test.go").exists()
    env = {**os.environ, "GOCACHE": os.path.join(cache, "go-build"), "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    p = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", "Crossing", "-benchtime", "100x"],
        cwd=go,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    for m in ("go-cgo", "go-cgo-noescape", "go-cgo-nocallback"):
        assert f"BenchmarkCrossing/impl={m}/sym={sym}" in p.stdout


def test_buffer_and_void(library, cache, tmp_path):
    size = 1000
    res = _run(library, cache, tmp_path / "buf", "uint64_t sum_bytes(const uint8_t *p, size_t n)", buffer_size=size)
    _agreed(res, str(sum((i * 7 + 3) & 0xFF for i in range(size))))
    assert gen.convention(res.declaration) == "METH_O"
    # A subset (and the baseline): the void return in C, Python and Go.
    res = _run(library, cache, tmp_path / "nop", "void nop(void)", only=SOME)
    assert not res.failed and not res.skipped and res.result == "void"
    assert {f.mechanism for f in res.figures} == {"c-dlsym", *SOME}


PY_MECHANISMS = ["py-ctypes", "py-cffi-abi", "py-cffi-api", "py-ext"]


def test_every_python_mechanism_under_pypy_too(library, cache, tmp_path):
    """--python twice: each Python mechanism runs under both interpreters
    (PyPy's extension through cpyext, its cffi compiled against its own
    headers) and every one returns what the direct call returned."""
    pypy = shutil.which("pypy3")
    if pypy is None:
        pytest.skip("no pypy3 (make setup installs it)")
    res = _run(library, cache, tmp_path, "int32_t add_i32(int32_t a, int32_t b)", ["2147483647", "1"],
               pythons=[sys.executable, pypy], only=PY_MECHANISMS)  # fmt: skip
    assert not res.failed and not res.skipped, (res.failed, res.skipped)
    assert res.result == "-2147483648"
    ran = {(f.mechanism, f.python.split("-")[0]) for f in res.figures if f.python and f.summary is not None}
    assert ran == {(m, impl) for m in PY_MECHANISMS for impl in ("cpython", "pypy")}


def test_a_mechanism_that_disagrees_fails_by_name(library, cache, tmp_path):
    res = _run(library, cache, tmp_path, "int32_t whoami(void)", only=SOME)
    # c-dlsym runs first and sets the result; every other process has
    # another pid, so every other mechanism fails, each by its name.
    assert set(res.failed) == set(SOME)
    assert all("disagrees" in why and "c-dlsym gave" in why for why in res.failed.values())


def test_go_releases_are_an_axis_and_each_builds_its_own_child(library, cache, tmp_path):
    """--go OLDEST --go INSTALLED: each Go mechanism once per release, named
    by a go= key, each child built by its own release (its build info says
    so); the annotated call is a skip row under a Go older than 1.24, saying
    why; every row that ran returns the direct call's result."""
    oldest = gotoolchains.resolve(".".join(map(str, gotoolchains.MINIMUM)))
    installed = gotoolchains.installed()
    res = _run(library, cache, tmp_path, "int32_t add_i32(int32_t a, int32_t b)", ["-7", "3"],
               gos=[oldest, installed, installed], only=["go-cgo", "go-cgo-noescape"])  # fmt: skip
    assert not res.failed, res.failed
    assert res.result == "-4"
    ran = {(f.mechanism, f.go) for f in res.figures if f.mechanism != "c-dlsym" and f.summary is not None}
    assert ran == {("go-cgo", oldest), ("go-cgo", installed), ("go-cgo-noescape", installed)}
    assert res.skipped == {
        f"go-cgo-noescape (go{oldest})": f"#cgo noescape and nocallback need Go 1.24 or later "
        f"(this is go{'.'.join(oldest.split('.')[:2])})"
    }
    text = (tmp_path / "results.txt").read_text()
    assert f"BenchmarkCrossing/impl=go-cgo/go={oldest}/sym=add_i32 " in text
    again = build.build(res.declaration, res.library, [sys.executable], cache, None, {"go-cgo"}, [oldest])
    assert again.built == []
    (child,) = [m.argv[0] for m in again.mechanisms if m.name == "go-cgo"]
    info = subprocess.run(["go", "version", "-m", child], capture_output=True, text=True, timeout=60).stdout
    assert info.startswith(f"{child}: go{oldest}\n"), info


def test_a_go_release_not_served_is_a_skip_row_saying_why(library, cache, tmp_path):
    missing = ".".join(map(str, gotoolchains.MINIMUM)) + ".99"
    res = _run(library, cache, tmp_path, "int32_t add_i32(int32_t a, int32_t b)", ["1", "2"], gos=[missing],
               only=["go-cgo"])  # fmt: skip
    assert not res.failed, res.failed
    assert list(res.skipped) == [f"go-cgo (go{missing})"]
    assert f"cannot fetch go{missing}" in res.skipped[f"go-cgo (go{missing})"]
    assert [f.mechanism for f in res.figures if f.summary is not None] == ["c-dlsym"]


def test_go_release_usage_errors(library, capsys):
    for spec, said in (
        ("banana", "want a Go version such as 1.22"),
        ("1.18", "the Go programs build with Go 1.19 or newer"),
    ):
        assert cli.main(["crossing", library, "int32_t add_i32(int32_t a, int32_t b)", "--args", "1", "2",
                         "--go", spec]) == 2  # fmt: skip
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--go {spec}: {said}" in err, err


# ---- usage errors: one line, exit status 2 ----------------------------------------------


@pytest.mark.parametrize(
    "declaration, named",
    [
        ("int32_t add_i32(struct pair p)", "struct pair"),
        ("int32_t add_i32(int32_t *a, int32_t b)", "writable memory"),
        ("int32_t add_i32(int32_t a, ...)", "variadic"),
        ("int32_t add_i32(int32_t (*f)(int32_t))", "function pointer"),
        ("int32_t add_i32(int32_t a[2])", "array"),
        ("long double add_i32(double a)", "long double"),
        ("uint64_t sum_bytes(const uint8_t *p)", "not followed by its length"),
    ],
)
def test_unsupported_type_is_a_usage_error(library, capsys, declaration, named):
    assert cli.main(["crossing", library, declaration, "--args", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err, err


def test_missing_symbol_and_library(library, capsys, tmp_path):
    assert cli.main(["crossing", library, "int32_t no_such(int32_t x)", "--args", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no symbol no_such" in err, err
    missing = str(tmp_path / "libnothere.so")
    assert cli.main(["crossing", missing, "double cos(double)", "--args", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"library {missing}: no such file" in err, err
    assert cli.main(["crossing", "libnothere.so.9", "double cos(double)", "--args", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "libnothere.so.9 cannot be loaded" in err, err


def test_wrong_argument_count_is_a_usage_error(library, capsys):
    assert cli.main(["crossing", library, "double scale(double x, int k)", "--args", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "takes 2 arguments" in err, err
