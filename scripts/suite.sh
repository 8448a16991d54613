#!/usr/bin/env bash
# Runs every round at its default sizes, then writes the report.
#   scripts/suite.sh [OUT_DIR]      (default results/<date-time>)
# Extra roundbench options can be given in ROUNDBENCH_ARGS. The suite runs
# under the project's venv ($VENV, .venv; `make setup` makes it), and its
# Python children under the same interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/$(date +%Y%m%d-%H%M%S)}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "suite: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
status=0
# shellcheck disable=SC2086
"$py" -m roundbench run --out "$out" ${ROUNDBENCH_ARGS:-} || status=$?
echo "suite: results in $out/results.txt, report in $out/report.md ($(( $(date +%s) - start )) s)"
exit $status
