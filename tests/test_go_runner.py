"""The Go programs: a Go child's memory is its own round's (one runner per
round, build/rb-go-<round>, so no child maps another round's code: net/http
is the http round's alone), each runner lists its own round's variants, and
the pure Go package cross-compiles without cgo. Deterministic: peak
resident memory, the symbols linked and build results, never a timing."""

import os
import shutil
import subprocess

import pytest

from roundbench.runtimes import programs
from roundbench.rounds.delivery import binfmt
from roundbench.rounds import delivery

from conftest import BUILD, ROOT

GO = shutil.which("go")

# A Go loop child's peak RSS (rb-go-loop loop go n=1000, through rb-spawn)
# stays under this. A Go binary in the page cache is mostly resident once
# started (the kernel maps the cached pages around each one touched), so the
# peak follows what the binary carries: any Go program built with cgo peaks
# at about 3.4 MiB here (the runtime, libc and the loader:
# build/hello-go-cgo), rb-go-loop at about 3.75 (the whole C core and the
# harness besides). The one runner for every round that rb-go-loop replaced
# peaked at about 4.5 MiB, and libm, linked for one call in the core, added
# 0.3 MiB more (test_go_runners_need_no_libm). rb-go-http, with net/http,
# peaks near 8 MiB, and the test checks that it is above the bound, which so
# tells a fat runner from a lean one.
GO_LOOP_PEAK_LIMIT = 4 * 1024 * 1024
RUNNERS = programs.go_runners()


def program(name):
    path = BUILD / name
    assert path.exists(), f"build/{name} is missing: run `make build` first"
    return path


def spawn_peak(argv):
    """The peak RSS in bytes of one run of argv, as rb-spawn reports it
    (csrc/tools/spawn.c: wait4 on the child itself)."""
    r, w = os.pipe()
    try:
        p = subprocess.run(
            [str(program("rb-spawn")), str(w), *map(str, argv)],
            pass_fds=(w,),
            capture_output=True,
            text=True,
            timeout=120,
        )
        os.close(w)
        w = None
        report = os.read(r, 4096).decode()
    finally:
        os.close(r)
        if w is not None:
            os.close(w)
    fields = dict(kv.split("=", 1) for kv in report.split())
    assert p.returncode == 0 and fields.get("status") == "0", (report, p.stderr)
    return int(fields["maxrss_kb"]) * 1024


def test_go_loop_child_peak_is_its_own():
    # The smallest of three runs: where the binary's pages fall against the
    # kernel's fault-around windows varies a little from run to run.
    peak = min(spawn_peak([program("rb-go-loop"), "loop", "go", "n=1000"]) for _ in range(3))
    assert peak < GO_LOOP_PEAK_LIMIT, f"rb-go-loop loop go peaks at {peak / 2**20:.2f} MiB"
    # The bound tells a Go program with net/http from one without.
    http_peak = min(spawn_peak([program("rb-go-http"), "--list"]) for _ in range(3))
    assert http_peak > GO_LOOP_PEAK_LIMIT, f"rb-go-http peaks at {http_peak / 2**20:.2f} MiB"


def test_only_rb_go_http_links_net_http():
    # Function names are in every Go binary (the runtime's tables), so a
    # linked net/http shows as its package path.
    assert "rb-go-http" in RUNNERS and len(RUNNERS) > 1
    linking = [name for name in RUNNERS if b"net/http." in program(name).read_bytes()]
    assert linking == ["rb-go-http"], f"Go runners that link net/http: {linking}"
    rb_go_http_links_it = b"net/http.(*Server).Serve" in program("rb-go-http").read_bytes()
    assert rb_go_http_links_it, "build/rb-go-http has no net/http server"


@pytest.mark.parametrize("name", RUNNERS)
def test_go_runners_need_no_libm(name):
    # libm, mapped, is 0.3 MiB of a Go child's peak RSS, and the core calls
    # no libm function (csrc/matmul.c, round_even; go/cgo.go links none).
    needed = binfmt.read(program(name)).needed
    assert "libc.so.6" in needed, f"build/{name} is not a cgo build: {needed}"
    assert not [lib for lib in needed if lib.startswith("libm.")], f"build/{name} needs {needed}"


def listing(name):
    p = subprocess.run([str(program(name)), "--list"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return [line.split() for line in p.stdout.splitlines()]


def test_the_go_programs_list_what_they_run():
    assert listing("rb-go-http") == [["http-serve", "go"], ["http-serve", "go-c"], ["http-serve", "go-fasthttp"]]
    rows = listing("rb-go-loop")
    assert rows == [["loop", "go", "ns/iter"], ["loop", "go-c", "ns/iter"]]
    p = subprocess.run([str(program("rb-go-loop")), "--list", "loop"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--list takes no other argument" in p.stderr


@pytest.mark.parametrize("name", RUNNERS)
def test_each_go_runner_runs_its_own_round_alone(name):
    # The round's entries and its helpers (`<round>-<role>`), nothing else.
    own = name.removeprefix(programs.GO_RUNNER_PREFIX)
    rows = listing(name)
    assert rows, f"build/{name} lists nothing"
    others = [r for r in rows if r[0] != own and not r[0].startswith(own + "-")]
    assert not others, f"build/{name} runs other rounds' variants: {others}"
    # Its messages name it as started, with the one round it has.
    p = subprocess.run([str(program(name)), "nosuchround", "go"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    assert f'{name}: unknown round "nosuchround" (rounds: ' in p.stderr, p.stderr


@pytest.mark.skipif(GO is None, reason="go is not on PATH")
@pytest.mark.parametrize("goos, goarch", delivery.CROSS_TARGETS)
def test_pure_package_cross_compiles(tmp_path, goos, goarch):
    # What the delivery round's table shows for the package with cgo off.
    cell = delivery.cross_cell(GO, "./go", goos, goarch, 0, ROOT, tmp_path)
    assert cell["ok"] is True, cell
    assert (cell["format"], cell["arch"]) == ("Go archive", delivery.CROSS_ARCH[goarch])


@pytest.mark.skipif(GO is None, reason="go is not on PATH")
def test_a_package_cross_cell_reads_the_archive(tmp_path):
    mod = tmp_path / "m"
    (mod / "lib").mkdir(parents=True)
    (mod / "go.mod").write_text("module m\n\ngo 1.24\n")
    (mod / "lib" / "lib.go").write_text("package lib\n\nfunc F() int { return 1 }\n")
    cell = delivery.cross_cell(GO, "./lib", "darwin", "arm64", 0, mod, tmp_path)
    assert cell["ok"] is True and (cell["format"], cell["arch"]) == ("Go archive", "arm64")
    assert delivery.go_archive_target(tmp_path / "lib-darwin-arm64-cgo0") == ("darwin", "arm64")
    (tmp_path / "not-an-archive").write_bytes(b"\x7fELF")
    assert delivery.go_archive_target(tmp_path / "not-an-archive") is None
