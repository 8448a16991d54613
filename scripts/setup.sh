#!/usr/bin/env bash
# Installs what roundbench's build, tests and suite need, from the ordinary
# package clients (Debian's apt, pip, the Go module proxy). Safe to run again:
# each step checks first and installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}

# Debian packages: the C toolchain and the libraries the rounds link.
APT_PACKAGES=(gcc make pkg-config)
# make lint: the C formatter
APT_PACKAGES+=(clang-format)
# round http: the load generator
APT_PACKAGES+=(wrk)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Python packages.
"$PYTHON" -m pip install -q --disable-pip-version-check -r requirements-dev.txt

# Go: the module's dependencies, and benchstat (the tests check that it
# reads our result files).
go mod download
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da
gobin="$(go env GOPATH)/bin"
if [ ! -x "$gobin/benchstat" ]; then
  echo "setup: installing benchstat"
  go install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION"
fi
echo "setup: ok"
