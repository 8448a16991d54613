"""roundbench crossing's binding tools: pybind11, nanobind, Cython, PyO3
and purego callers built for a declaration agree with the direct call
(narrow integers, a float and a char buffer) and fail by name when they
do not; a tool that is missing or cannot build is a row that says why.
(tests/test_crossing.py runs every mechanism, these included, on an int
and double function and a buffer one.)"""

from __future__ import annotations

import shutil

import pytest
from conftest import shared_library

from roundbench.crossing import build, decl, gen
from roundbench.crossing.measure import measure
from roundbench.runtimes import interp

NEW = ["py-pybind11", "py-nanobind", "py-cython-extern", "py-pyo3", "go-purego"]

LIBRARY_C = r"""
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Every argument's width and sign matters: a binding that passes one
 * wrongly changes the result. */
float mix(int8_t a, uint16_t b, float c, int64_t d) { return (float)a * 0.5f + (float)b + c + (float)(d % 1000); }
/* Reads every byte as a signed char: a wrong length or sign changes the sum. */
int64_t sum_signed(int32_t k, const char *p, size_t n)
{
    int64_t s = k;
    for (size_t i = 0; i < n; i++)
        s += (signed char)p[i];
    return s;
}
/* A different value in every process: no two mechanisms can agree. */
int32_t whoami(void) { return (int32_t)getpid(); }
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> str:
    return shared_library(tmp_path_factory.mktemp("lib"), "bindtest", LIBRARY_C)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    # One cache for the module: PyO3's crates and nanobind's library compile once.
    return str(tmp_path_factory.mktemp("cache"))


def _run(library, cache, out, declaration, args=(), **kw):
    return measure(library, declaration, args, runs=1, out=str(out), cache=cache, progress=None, **kw)


# ---- the new mechanisms: they build, agree, and fail by name --------------------------


def test_narrow_integers_and_a_float_agree(library, cache, tmp_path):
    res = _run(library, cache, tmp_path, "float mix(int8_t a, uint16_t b, float c, int64_t d)",
               ["-128", "65535", "0.1", "-9223372036854775807"], only=NEW)  # fmt: skip
    assert not res.failed and not res.skipped, (res.failed, res.skipped)
    assert {f.mechanism for f in res.figures if f.summary is not None} == {"c-dlsym", *NEW}
    # C's float sums, left to right, each rounded to float; d % 1000 is -807
    # (C's remainder takes the dividend's sign).
    want = decl._float32(decl._float32(-64.0 + 65535.0) + decl._float32(0.1))
    want = decl._float32(want - 807.0)
    assert res.result == decl.result_text(decl.Scalar("float", "float", 32), want)


def test_a_char_buffer_and_an_int_agree(library, cache, tmp_path):
    size = 777
    res = _run(library, cache, tmp_path, "int64_t sum_signed(int32_t k, const char *p, size_t n)", ["-5"],
               buffer_size=size, only=NEW)  # fmt: skip
    assert not res.failed and not res.skipped, (res.failed, res.skipped)
    want = -5 + sum(((i * 7 + 3) & 0xFF) - (256 if ((i * 7 + 3) & 0xFF) > 127 else 0) for i in range(size))
    assert res.result == str(want)
    # Each says how it takes the buffer, without a copy.
    explain = {f.mechanism: f.explain for f in res.figures}
    assert all("no copy" in explain[m] for m in NEW), explain


def test_each_new_mechanism_that_disagrees_fails_by_name(library, cache, tmp_path):
    res = _run(library, cache, tmp_path, "int32_t whoami(void)", only=NEW)
    assert set(res.failed) == set(NEW)
    assert all("disagrees" in why and "c-dlsym gave" in why for why in res.failed.values())


# ---- a tool that is missing or cannot build: a row that says why ----------------------


@pytest.mark.parametrize("impl", [n for n in NEW if n != "go-purego"])
def test_missing_tool_is_a_row_naming_it(impl, library, cache, tmp_path, monkeypatch):
    tool, _ = build.binding_tool(impl)
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda name, exe, own: name != tool and real(name, exe, own))
    res = _run(library, cache, tmp_path, "int64_t sum_signed(int32_t k, const char *p, size_t n)", ["1"],
               buffer_size=3, only=[impl])  # fmt: skip
    assert not res.failed, res.failed
    assert list(res.skipped) == [impl]
    assert f"Python module {tool} is not installed" in res.skipped[impl], res.skipped


@pytest.mark.parametrize("impl", ["py-pybind11", "py-nanobind", "py-cython-extern"])
def test_failed_build_is_a_row_that_says_why(impl, library, tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-x")
    monkeypatch.setenv("CC", "no-such-compiler-x")
    # CC also builds the C callers: the baseline, c-dlsym, is then a row too.
    res = _run(library, str(tmp_path / "cache"), tmp_path, "int32_t whoami(void)", only=[impl])
    module = build.BINDINGS[impl].module
    why = res.skipped[impl]
    assert why.startswith(f"building {module} with "), why
    assert "no-such-compiler-x is not on PATH" in why, why


def test_pyo3_without_cargo_is_a_row_that_says_why(library, tmp_path, monkeypatch):
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "cargo" else real(name, *a, **k))
    res = _run(library, str(tmp_path / "cache"), tmp_path, "int32_t whoami(void)", only=["py-pyo3"])
    why = res.skipped["py-pyo3"]
    assert why.startswith(f"building {gen.PYO3_MODULE} with maturin "), why
    assert why.endswith("failed: cargo is not on PATH (Rust's toolchain: rustup, or Debian's cargo)"), why


def test_purego_not_in_the_module_cache_is_a_row_that_says_why(library, tmp_path, monkeypatch):
    empty = tmp_path / "modcache"
    empty.mkdir()
    monkeypatch.setenv("GOMODCACHE", str(empty))
    res = _run(library, str(tmp_path / "cache"), tmp_path, "int32_t whoami(void)", only=["go-purego"])
    version, _ = build.purego_pin()
    assert res.skipped == {
        "go-purego": f"purego {version} is not in the Go module cache ({empty}); the crossing's Go builds do not "
        "use the network: `go mod download` in a roundbench checkout (make setup) fetches it"
    }


def test_purego_under_a_go_older_than_its_go_line_is_a_row_that_says_why(library, tmp_path):
    res = _run(library, str(tmp_path / "cache"), tmp_path, "int32_t whoami(void)", only=["go-purego"],
               gos=["1.24"])  # fmt: skip
    (label,) = res.skipped
    assert label.startswith("go-purego (go1.24."), res.skipped
    why = res.skipped[label]
    version, _ = build.purego_pin()
    assert why == f"purego {version} needs Go 1.25 or later (its go.mod declares go 1.25; this is go1.24)", why
