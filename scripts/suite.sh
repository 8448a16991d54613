#!/usr/bin/env bash
# Runs every round at its default sizes, then writes the report.
#   scripts/suite.sh [OUT_DIR]      (default results/<date-time>)
# The runs keep to a time budget of BUDGET minutes (default 30; BUDGET=none
# for none): every cell gets its minimum runs whatever the time, and the
# time left goes to extra runs where the score's decisions are closest
# (roundbench run --time-budget). Extra roundbench options can be given in
# ROUNDBENCH_ARGS, which come last and so win (ROUNDBENCH_ARGS="--time-budget
# 45" is BUDGET=45). The suite runs under the project's venv ($VENV, .venv;
# `make setup` makes it), and its Python children under the same interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/$(date +%Y%m%d-%H%M%S)}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "suite: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
budget=${BUDGET:-30}
budget_args=()
if [ "$budget" != none ]; then
  budget_args=(--time-budget "$budget")
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
status=0
# shellcheck disable=SC2086
"$py" -m roundbench run --out "$out" "${budget_args[@]}" ${ROUNDBENCH_ARGS:-} || status=$?
echo "suite: results in $out/results.txt, report in $out/report.md ($(( $(date +%s) - start )) s)"
exit $status
