#!/usr/bin/env bash
# The libFuzzer targets of csrc/fuzz/ (Makefile, "Fuzzing"), built into
# build/fuzz/<target>.
#
#   scripts/fuzz.sh run [TARGET...]     `make fuzz`: each target for
#       FUZZ_SECONDS (default 180) from the committed corpus
#       (testdata/fuzz/<target>/) and the seeds made from the test data
#       (scripts/fuzz_seeds.py), growing build/fuzz/corpus/<target>/; then
#       one line a target: executions, coverage, corpus, findings. A
#       finding is saved in build/fuzz/findings/<target>/ and its report
#       shown; the run goes on to the next target and exits 1 at the end.
#   scripts/fuzz.sh replay [TARGET...]  `make test-fuzz` (part of `make
#       test`): each target over its committed corpus, then FUZZ_RUNS
#       (default 20000) new executions from seed 1, so every past finding
#       kept there is run again; exits 1 on the first failure.
#   scripts/fuzz.sh minimize TARGET     merges the target's corpus, seeds
#       and committed corpus into a minimal set with the same coverage and
#       writes it over testdata/fuzz/<target>/ (review, then commit); the
#       inputs of past findings there (regress-*) are kept as they are.
#
# Limits are the same everywhere and never loosened to make a finding go
# away: 25 s for one input, 2 GiB of memory, the table's NAME.max_len bytes an input.
set -uo pipefail
cd "$(dirname "$0")/.."

# The targets and their input limits are the build table's (FUZZ_TARGETS,
# NAME.max_len), which the Makefile builds them from: one list.
TABLE=python/roundbench/build.mk
table() { sed -n "s/^$1 := //p" "$TABLE"; }
read -ra ALL <<< "$(table FUZZ_TARGETS)"
declare -A MAX_LEN=()
for t in "${ALL[@]}"; do MAX_LEN[$t]=$(table "$t.max_len"); done
BUILD=${BUILD:-build}
SECONDS_EACH=${FUZZ_SECONDS:-180}
RUNS=${FUZZ_RUNS:-20000}
VPY=${VPY:-.venv/bin/python}

mode=${1:-}
shift || true
targets=("$@")
((${#targets[@]})) || targets=("${ALL[@]}")
for t in "${targets[@]}"; do
  if [ -z "${MAX_LEN[$t]:-}" ]; then
    echo "fuzz: no target '$t' (targets: ${ALL[*]})" >&2
    exit 2
  fi
  if [ ! -x "$BUILD/fuzz/$t" ]; then
    echo "fuzz: $BUILD/fuzz/$t is not built (make fuzz-build builds the targets)" >&2
    exit 2
  fi
done

common=(-timeout=25 -rss_limit_mb=2048 -print_final_stats=1)
# A target's dictionary, csrc/fuzz/<target>.dict or <family>.dict (jsonl_*).
dict_of() { # TARGET
  local d
  for d in "csrc/fuzz/$1.dict" "csrc/fuzz/${1%%_*}.dict"; do
    [ -f "$d" ] && { echo "-dict=$d"; return; }
  done
}

# The seeds, made again each time from the test data, into a folder of
# this run's own (two runs may go at once, one target each).
SEEDS="$BUILD/fuzz/seeds.$$"
seeds() {
  trap 'rm -rf "$SEEDS"' EXIT
  mkdir -p "$SEEDS"
  "$VPY" scripts/fuzz_seeds.py "$SEEDS" >/dev/null || exit 1
}

# What a log says: executions, coverage (edges, features), corpus.
summary() { # LOG
  local execs cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
  cov=$(grep -oE '(INITED|DONE|pulse|NEW|REDUCE) +cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$1" | tail -1)
  cov=$(sed -E 's/^[A-Z]+ +//' <<<"$cov")
  printf '%s executions, %s' "${execs:-?}" "${cov:-no coverage line}"
}

case "$mode" in
run)
  seeds
  failed=0
  results=()
  for t in "${targets[@]}"; do
    corpus="$BUILD/fuzz/corpus/$t" findings="$BUILD/fuzz/findings/$t" log="$BUILD/fuzz/logs/$t.log"
    mkdir -p "$corpus" "$findings" "$(dirname "$log")"
    before=$(find "$findings" -type f | wc -l)
    echo "fuzz: $t for ${SECONDS_EACH} s (log: $log)"
    "$BUILD/fuzz/$t" "${common[@]}" $(dict_of "$t") -max_len="${MAX_LEN[$t]}" -max_total_time="$SECONDS_EACH" \
      -artifact_prefix="$findings/" "$corpus" "testdata/fuzz/$t" "$SEEDS/$t" >"$log" 2>&1
    rc=$?
    found=$(($(find "$findings" -type f | wc -l) - before))
    line="$t: $(summary "$log"), findings: $found"
    if ((rc != 0 || found > 0)); then
      failed=1
      echo "fuzz: $t FOUND something (exit $rc):"
      grep -E 'invariant broken|ERROR: (AddressSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/  /'
      grep -E 'Test unit written to' "$log" | sed 's/^/  /'
    fi
    results+=("$line")
  done
  echo "fuzz: summary (${SECONDS_EACH} s each)"
  printf '  %s\n' "${results[@]}"
  exit $failed
  ;;
replay)
  for t in "${targets[@]}"; do
    scratch="$BUILD/fuzz/replay/$t" log="$BUILD/fuzz/logs/replay-$t.log"
    rm -rf "$scratch"
    mkdir -p "$scratch" "$(dirname "$log")"
    n=$(find "testdata/fuzz/$t" -type f | wc -l)
    if ! "$BUILD/fuzz/$t" "${common[@]}" $(dict_of "$t") -max_len="${MAX_LEN[$t]}" -runs="$RUNS" -seed=1 \
      -artifact_prefix="$scratch/" "$scratch" "testdata/fuzz/$t" >"$log" 2>&1; then
      echo "fuzz replay: $t FAILED (log: $log):"
      grep -E 'invariant broken|ERROR: (AddressSanitizer|libFuzzer)|runtime error|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/  /'
      exit 1
    fi
    echo "fuzz replay: $t: $n committed inputs, then $RUNS runs from seed 1: ok ($(summary "$log"))"
  done
  ;;
minimize)
  [ ${#targets[@]} -eq 1 ] || { echo "fuzz: minimize takes one target" >&2; exit 2; }
  t=${targets[0]}
  seeds
  out="$BUILD/fuzz/minimized/$t"
  rm -rf "$out"
  mkdir -p "$out" "$BUILD/fuzz/corpus/$t"
  "$BUILD/fuzz/$t" "${common[@]}" -max_len="${MAX_LEN[$t]}" -merge=1 "$out" \
    "testdata/fuzz/$t" "$BUILD/fuzz/corpus/$t" "$SEEDS/$t" >"$BUILD/fuzz/logs/minimize-$t.log" 2>&1 || {
    echo "fuzz: minimizing $t failed (log: $BUILD/fuzz/logs/minimize-$t.log)" >&2
    exit 1
  }
  # A past finding (regress-*) stays whatever its coverage.
  keep="$BUILD/fuzz/minimized/$t.regress"
  rm -rf "$keep"
  mkdir -p "$keep"
  find "testdata/fuzz/$t" -name 'regress-*' -exec cp {} "$keep"/ \; 2>/dev/null
  rm -rf "testdata/fuzz/$t"
  mkdir -p "testdata/fuzz/$t"
  cp "$out"/* "$keep"/* "testdata/fuzz/$t"/ 2>/dev/null
  echo "fuzz: testdata/fuzz/$t: $(find "testdata/fuzz/$t" -type f | wc -l) inputs, $(du -sh "testdata/fuzz/$t" | cut -f1)"
  ;;
*)
  echo "usage: scripts/fuzz.sh run|replay|minimize [TARGET...] (targets: ${ALL[*]})" >&2
  exit 2
  ;;
esac
