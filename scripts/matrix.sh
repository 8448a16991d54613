#!/usr/bin/env bash
# Runs the rounds where the runtime's version matters across runtimes of
# two ages, then writes the report (docs/runtimes.md):
#   scripts/matrix.sh [OUT_DIR]      (default results/matrix-<date-time>)
# Go: the release nearest in date to each CPython (its age-matched partner,
# from python/roundbench/data/releases.tsv: 1.19 for 3.11), the published
# comparison's (1.22) and the newest the module proxy serves (else the
# installed one); Python: every CPython with the GIL on the machine (the
# venv's, the system's /usr/bin/python3, each one `make pythons`
# provisioned), then the free-threaded ones (cpython-3.13.5t: the threads
# of cores, sleep and chain without the GIL) and PyPy (pypy3, which
# scripts/setup.sh installs).
# MATRIX_ROUNDS, MATRIX_GO and MATRIX_PYTHON change them; MATRIX_BUDGET
# (minutes, default 30; none for none) bounds the runs beyond the minimum;
# ROUNDBENCH_ARGS come last and win.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/matrix-$(date +%Y%m%d-%H%M%S)}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "matrix: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
rounds=${MATRIX_ROUNDS:-loop ffi chain sleep jsonl aspects cores http}
if [ -z "${MATRIX_PYTHON:-}" ]; then
  MATRIX_PYTHON=$("$py" -m roundbench pythons --cpythons --free-threaded | tr '\n' ' ')
  if command -v pypy3 >/dev/null 2>&1; then
    MATRIX_PYTHON="${MATRIX_PYTHON}pypy3"
  else
    echo "matrix: pypy3 is not installed (make setup installs it): CPython only" >&2
  fi
fi
if [ -z "${MATRIX_GO:-}" ]; then
  versions=()
  for p in $MATRIX_PYTHON; do
    versions+=("$("$p" -c 'import platform; print(platform.python_version() if platform.python_implementation() == "CPython" else "")')")
  done
  newest=$("$py" -c 'from roundbench.runtimes import gotoolchains as g; print(g.newest_served())' 2>/dev/null \
    || go env GOVERSION | sed 's/^go//')
  MATRIX_GO=$("$py" -c 'import sys; from roundbench import runtimes
print(" ".join(runtimes.matrix_go([v for v in sys.argv[2:] if v], sys.argv[1])))' "$newest" "${versions[@]}")
fi
pythons=$MATRIX_PYTHON
args=()
for v in $MATRIX_GO; do args+=(--go "$v"); done
for p in $pythons; do args+=(--python "$p"); done
budget=${MATRIX_BUDGET:-30}
if [ "$budget" != none ]; then
  args+=(--time-budget "$budget")
fi
echo "matrix: rounds $rounds; Go $MATRIX_GO; Python $pythons -> $out" >&2
start=$(date +%s)
status=0
# shellcheck disable=SC2086
"$py" -m roundbench run $rounds --out "$out" "${args[@]}" ${ROUNDBENCH_ARGS:-} || status=$?
echo "matrix: results in $out/results.txt, report in $out/report.md ($(( $(date +%s) - start )) s)"
# The run joins the store (roundbench store --help: ROUNDBENCH_STORE, else
# ~/.local/share/roundbench/store.sqlite); MATRIX_STORE=no leaves it out. A refused
# import fails the command; the results stay in $out either way.
if [ "${MATRIX_STORE:-yes}" != no ] && [ -e "$out/results.txt" ]; then
  if ! "$py" -m roundbench store import "$out"; then
    echo "matrix: the store did not take the run (above); its results are in $out" >&2
    [ "$status" -ne 0 ] || status=1
  fi
fi
exit $status
