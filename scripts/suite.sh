#!/usr/bin/env bash
# Runs every round at its default sizes, then writes the report.
#   scripts/suite.sh [OUT_DIR]      (default results/<date-time>)
# The runs keep to a time budget of BUDGET minutes (default 30; BUDGET=none
# for none): every cell gets its minimum runs whatever the time, and the
# time left goes to extra runs where the score's decisions are closest
# (roundbench run --time-budget). Extra roundbench options can be given in
# ROUNDBENCH_ARGS, which come last and so win (ROUNDBENCH_ARGS="--time-budget
# 45" is BUDGET=45). The suite runs under the project's venv ($VENV, .venv;
# `make setup` makes it). Its verdict is the newest pair: the Python children
# run under the newest CPython `make pythons` provisioned (the venv's own
# interpreter when none is), the Go variants under the newest Go release the
# module proxy serves (the installed Go when it cannot be asked), the whole
# build made with it (GOTOOLCHAIN); the first lines say which and why. SUITE_PYTHON=PATH|VERSION and SUITE_GO=X.Y[.Z]
# choose others; SUITE_PYTHON=venv and SUITE_GO=installed the machine's own.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/$(date +%Y%m%d-%H%M%S)}
py="${VENV:-.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "suite: no virtual environment at ${VENV:-.venv} (run make setup)" >&2
  exit 2
fi
budget=${BUDGET:-30}
# SIZES=all adds the cells beside the verdict (roundbench run --sizes all:
# aspects' other output sinks, jsonl's log without bad lines, chain's ten
# chains at once), which the 30-minute default cannot also pay for.
sizes=${SIZES:-default}
case "$sizes" in
  default | all) ;;
  *)
    echo "suite: SIZES=$sizes: want default or all" >&2
    exit 2 ;;
esac
budget_args=()
if [ "$budget" != none ]; then
  budget_args=(--time-budget "$budget")
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
runtime_args=()
venv_version=$("$py" -c 'import platform; print(platform.python_version())')
case "${SUITE_PYTHON:-}" in
  venv)
    echo "suite: Python children under the venv's CPython $venv_version (SUITE_PYTHON=venv)" >&2 ;;
  "")
    # The newest CPython the verdict can have: Debian unstable's, in a root
    # (about 3 minutes once, then reused; make pythons adds the 3.13.5
    # builds). A machine that cannot says so in one line and goes on.
    "$py" -m roundbench pythons --only sid </dev/null >&2 \
      || echo "suite: roundbench pythons failed (above): the suite runs with the interpreters it has" >&2
    newest=$("$py" -m roundbench pythons --newest)
    if [ -n "$newest" ]; then
      runtime_args+=(--python "$newest")
      echo "suite: Python children under CPython $("$newest" -c 'import platform; print(platform.python_version())'), the newest that make pythons provisioned ($newest)" >&2
    else
      echo "suite: Python children under the venv's CPython $venv_version: make pythons has provisioned none (it provisions CPython 3.13, 3.14 and 3.15 on Debian, as root)" >&2
    fi ;;
  *)
    runtime_args+=(--python "$SUITE_PYTHON")
    echo "suite: Python children under $SUITE_PYTHON (SUITE_PYTHON)" >&2 ;;
esac
# The Go side: the whole build (runners, http servers, startup's and aspects'
# programs) under one Go release, GOTOOLCHAIN=goX.Y.Z for all of it, so that
# no Go program of the verdict is another release's (or a skip row).
installed_go=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed 's/^go//')
case "${SUITE_GO:-}" in
  installed)
    echo "suite: Go variants under the installed Go $installed_go (SUITE_GO=installed)" >&2 ;;
  "")
    if newest_go=$("$py" -c 'from roundbench.runtimes import gotoolchains as g; print(g.newest_served())' 2>/tmp/suite-go.$$); then
      if [ "$newest_go" = "$installed_go" ]; then
        echo "suite: Go variants under Go $newest_go, the installed Go and the newest release the module proxy serves" >&2
      else
        export GOTOOLCHAIN="go$newest_go"
        echo "suite: Go variants under Go $newest_go, the newest release the module proxy serves (installed: $installed_go; GOTOOLCHAIN=$GOTOOLCHAIN for the build and the run)" >&2
      fi
    else
      echo "suite: Go variants under the installed Go $installed_go: $(tail -1 /tmp/suite-go.$$)" >&2
    fi
    rm -f /tmp/suite-go.$$ ;;
  *)
    if ! v=$("$py" -c 'import sys; from roundbench.runtimes import gotoolchains as g; print(g.resolve(sys.argv[1]))' "$SUITE_GO"); then
      echo "suite: SUITE_GO=$SUITE_GO: no such Go release to be had (see above)" >&2
      exit 2
    fi
    export GOTOOLCHAIN="go$v"
    echo "suite: Go variants under Go ${GOTOOLCHAIN#go} (SUITE_GO=$SUITE_GO; GOTOOLCHAIN for the build and the run)" >&2 ;;
esac
"${MAKE:-make}" build
start=$(date +%s)
status=0
# What the interpreter's build costs: the pure py loop and aspects cells under
# every CPython on the machine (the venv's, the system's, each provisioned
# one), in a companion run whose results the report's fairness section reads
# against the verdict's interpreter. Its time comes out of the budget.
mapfile -t builds < <("$py" -m roundbench pythons --cpythons)
if [ "${#builds[@]}" -ge 2 ] && [ "${SUITE_BUILDS:-yes}" != no ]; then
  build_args=()
  for p in "${builds[@]}"; do build_args+=(--python "$p"); done
  echo "suite: the build-cost cells first: the pure py loop and aspects (277 events) under ${#builds[@]} CPythons (${builds[*]}; SUITE_BUILDS=no leaves them out)" >&2
  # aspects at its 277 events only: its 100,000 took two thirds of this
  # run's time and measures the same interpreter work.
  "$py" -m roundbench run loop aspects --impl py --param events=277 --runs "${SUITE_BUILD_RUNS:-6}" "${build_args[@]}" \
    --no-report --out "$out/python-builds" || status=$?
  rm -f "$out/latest"
  if [ "$budget" != none ]; then
    left=$(( budget - ($(date +%s) - start) / 60 ))
    [ "$left" -ge 1 ] || left=1
    budget_args=(--time-budget "$left")
  fi
else
  echo "suite: no build-cost cells: ${#builds[@]} CPython on this machine (make pythons provisions more)" >&2
fi
# shellcheck disable=SC2086
"$py" -m roundbench run --out "$out" --sizes "$sizes" "${runtime_args[@]}" "${budget_args[@]}" ${ROUNDBENCH_ARGS:-} || status=$?
echo "suite: results in $out/results.txt, report in $out/report.md ($(( $(date +%s) - start )) s)"
# The run joins the store (roundbench store --help: ROUNDBENCH_STORE, else
# ~/.local/share/roundbench/store.sqlite); SUITE_STORE=no leaves it out. A refused
# import fails the command; the results stay in $out either way.
if [ "${SUITE_STORE:-yes}" != no ] && [ -e "$out/results.txt" ]; then
  if ! "$py" -m roundbench store import "$out"; then
    echo "suite: the store did not take the run (above); its results are in $out" >&2
    [ "$status" -ne 0 ] || status=1
  fi
fi
exit $status
