#!/usr/bin/env bash
# Installs what roundbench's build, tests and suite need, from the ordinary
# package clients (Debian's apt, pip, the Go module proxy). Safe to run again:
# each step checks first and installs only what is missing.
#
# The Python packages go into a virtual environment of the checkout, $VENV
# (.venv), made from $PYTHON (python3): a distribution's own interpreter is
# "externally managed" (PEP 668; Debian 12's refuses `pip install`), and the
# project's pinned versions stay out of the system's. Every make target uses
# $VENV/bin/python. A venv made from another interpreter than $PYTHON is
# made again, so PYTHON=... always chooses the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "setup: PYTHON=$PYTHON is not a command on PATH; name a Python 3.9 or newer" >&2
  exit 2
fi
# The interpreter itself, through links and version managers' shims: what
# $VENV/bin/python resolves to when the venv was made from it.
base=$("$PYTHON" -c 'import os, sys; print(os.path.realpath(sys.executable))')
pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# Debian packages: the C toolchain and the libraries the rounds link.
APT_PACKAGES=(gcc make pkg-config)
# rb-c-static and hello-c-static (round startup): the C library's static archive
APT_PACKAGES+=(libc6-dev)
# make lint: the C formatter
APT_PACKAGES+=(clang-format)
# round http: the load generator, and hey, the published comparison's (its own cells)
APT_PACKAGES+=(wrk hey)
# round jsonl: c-simdjson, the C++ parser the core is held against (its own
# program, build/rb-c-simdjson, compiled with g++)
APT_PACKAGES+=(g++ libsimdjson-dev)
# roundbench crossing --header: zlib's headers (zlib.h, zconf.h), which the
# crc32_z example in docs/crossing.md and tests/test_crossing_header.py
# read through the C preprocessor
APT_PACKAGES+=(zlib1g-dev)
# round matmul: go-gonum-netlib, gonum's netlib binding against the system's
# OpenBLAS (its CBLAS with C ints, which the core's scipy-openblas64 lacks),
# pthreads flavour as scipy-openblas64's; its own program,
# build/rb-go-matmul-netlib
APT_PACKAGES+=(libopenblas-pthread-dev)
# the report's browser test (tests/test_report_browser.py): Debian's
# chromium, its headless shell (no desktop libraries), and a font for it
APT_PACKAGES+=(chromium-headless-shell fonts-dejavu-core)
# make fuzz and make test's replay of the fuzz corpora (csrc/fuzz/): clang,
# and its runtime libraries (libFuzzer, ASan, UBSan)
APT_PACKAGES+=(clang libclang-rt-dev)
# PyPy, the second Python interpreter (`roundbench run --python pypy3`): its
# stackless module runs the chain round's py-stackless, and its C headers
# build the extension for it through cpyext (roundbench.runtimes.extbuild)
APT_PACKAGES+=(pypy3 pypy3-dev)
# rounds startup and delivery: py-nuitka, Nuitka's standalone and onefile
# builds of a Python hello-world, which set the run path of the libraries
# they copy with patchelf
APT_PACKAGES+=(patchelf)
# roundbench store's tests on a real PostgreSQL server as well as SQLite
# (scripts/pg.sh starts a throwaway one; .ci/run starts it for make test)
APT_PACKAGES+=(postgresql)
# Debian's own interpreter makes venvs and builds extensions only with its
# venv and dev packages (an interpreter installed otherwise carries both).
if command -v dpkg >/dev/null 2>&1 && dpkg -S "$base" >/dev/null 2>&1; then
  APT_PACKAGES+=("python$pyver-venv" "python$pyver-dev")
fi
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" </dev/null
fi

# Python packages, in the project's venv.
ready="$VENV/.roundbench-ready"
if [ -e "$VENV" ] && [ "$(readlink -f "$VENV/bin/python" 2>/dev/null)" != "$base" ]; then
  echo "setup: $VENV was made from $(readlink -f "$VENV/bin/python" 2>/dev/null || echo 'an interpreter that is gone'), not $base: making it again"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: making the virtual environment $VENV from $base"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  # An extension built in place by another interpreter of the same version
  # would load, but its recorded build flags would be that interpreter's.
  rm -f python/roundbench/_core.*.so python/roundbench/_cffi_api.*.so
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt
# Round loop's py-pythran: pythran 0.19.0 asks for setuptools<60 under
# Python 3.11 and older, which the build's setuptools rules out, so
# requirements-dev.txt installs it from 3.12 on; below that it is installed
# here without that one stale requirement (it builds fine under setuptools
# 84), its own dependencies pinned, so the row runs on every interpreter.
if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    pythran==0.19.0 gast==0.7.0 beniget==0.5.0 ply==3.11
fi
# make's sign that the venv is complete (Makefile, VENV_READY).
touch "$ready"

# Go: the module's dependencies, and benchstat (the tests check that it
# reads our result files).
go mod download
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da
gobin="$(go env GOPATH)/bin"
if [ ! -x "$gobin/benchstat" ]; then
  echo "setup: installing benchstat"
  go install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION"
fi
# Rust: the crates of round ffi's py-pyo3 module, as its Cargo.lock pins
# them (maturin builds it at make py). Without cargo, or without the
# crates, its rows are skips that say why, and nothing here fails.
if command -v cargo >/dev/null 2>&1; then
  cargo fetch --locked -q --manifest-path python/roundbench/bindings/ffi_pyo3/Cargo.toml ||
    echo "setup: cargo could not fetch py-pyo3's crates: its rows will be skips that say why"
else
  echo "setup: no cargo on PATH: round ffi's py-pyo3 rows will be skips (Rust's toolchain: rustup, or Debian's cargo)"
fi
echo "setup: ok"
