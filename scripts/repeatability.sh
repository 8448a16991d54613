#!/usr/bin/env bash
# The suite's second-run test: runs the same rounds twice, back to back,
# then judges each cell by its round's metric with `roundbench compare
# --repeatability`: how many cells' medians are within 5% of each other,
# how many the Mann-Whitney U test finds no different, and how many cells
# each run flagged unstable.
#   scripts/repeatability.sh [OUT_DIR]        (default results/repeat-<date-time>)
# ROUNDS picks the rounds (default: loop ffi temps matmul jsonl chain, the
# ones issue 12's targets name); ROUNDBENCH_ARGS adds options to both runs
# (e.g. "--quick"). Writes OUT_DIR/first, OUT_DIR/second and
# OUT_DIR/repeatability.md. Run it on a quiet machine: it measures the
# suite, and anything else running is measured with it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/repeat-$(date +%Y%m%d-%H%M%S)}
rounds=${ROUNDS:-loop ffi temps matmul jsonl chain}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "repeatability: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
for pass in first second; do
  # shellcheck disable=SC2086
  "$py" -m roundbench run $rounds --out "$out/$pass" --no-report ${ROUNDBENCH_ARGS:-}
done
"$py" -m roundbench compare --repeatability --md "$out/repeatability.md" "$out/first" "$out/second"
echo "repeatability: $out/repeatability.md ($(( $(date +%s) - start )) s)"
