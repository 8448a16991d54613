#!/usr/bin/env bash
# Runs every round at its default sizes, then writes the report.
#   scripts/suite.sh [OUT_DIR]      (default results/<date-time>)
# Extra roundbench options can be given in ROUNDBENCH_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/$(date +%Y%m%d-%H%M%S)}
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
status=0
# shellcheck disable=SC2086
python3 -m roundbench run --out "$out" ${ROUNDBENCH_ARGS:-} || status=$?
echo "suite: results in $out/results.txt, report in $out/report.md ($(( $(date +%s) - start )) s)"
exit $status
