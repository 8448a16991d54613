#!/usr/bin/env bash
# Runs the rounds where the runtime's version matters across runtimes of
# two ages, then writes the report (docs/runtimes.md):
#   scripts/matrix.sh [OUT_DIR]      (default results/matrix-<date-time>)
# Go: the release nearest in date to the project's CPython (its age-matched
# partner, from python/roundbench/data/releases.tsv) and the installed,
# newest Go; Python: the project's CPython and PyPy (pypy3, which
# scripts/setup.sh installs). MATRIX_ROUNDS, MATRIX_GO and MATRIX_PYTHON
# change them; MATRIX_BUDGET (minutes, default 30; none for none) bounds
# the runs beyond the minimum; ROUNDBENCH_ARGS come last and win.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/matrix-$(date +%Y%m%d-%H%M%S)}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "matrix: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
rounds=${MATRIX_ROUNDS:-loop ffi chain sleep jsonl aspects}
if [ -z "${MATRIX_GO:-}" ]; then
  matched=$("$py" -c 'import platform; from roundbench import runtimes; print(runtimes.nearest_go(platform.python_version())[0])')
  newest=$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')
  MATRIX_GO="$matched $newest"
fi
if [ -z "${MATRIX_PYTHON:-}" ]; then
  MATRIX_PYTHON=$py
  if command -v pypy3 >/dev/null 2>&1; then
    MATRIX_PYTHON="$py pypy3"
  else
    echo "matrix: pypy3 is not installed (make setup installs it): CPython only" >&2
  fi
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
exit $status
