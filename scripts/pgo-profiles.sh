#!/usr/bin/env bash
# The PGO profiles of the Go build twins (docs/go-builds.md), run by
# `make pgo-profiles` from the checkout's root. For each profile the build
# table names (NAME.pgo of GO_BUILD_RUNNERS, go/pgo/<round>.pgo):
#
#   1. the round's runner is built as the round's own runner is, without
#      PGO (-pgo=off) and at Go's default GOAMD64, plus the tag that lets it
#      write a CPU profile (PROFILE_TAG: the runners the suite measures
#      leave runtime/pprof out) and -trimpath;
#   2. it runs the twins' base variant (its round's harness.Twin line) at a
#      size that makes each run last about a second, RUNS times, each run
#      writing a CPU profile (ROUNDBENCH_GO_CPUPROFILE); the round's inputs
#      are its declaration's own (Variant.make_inputs), generated and
#      cached in build/data as for a suite run;
#   3. `go tool pprof -proto` merges the runs' profiles into the round's
#      .pgo, which is committed.
#
# Environment: GO (go), BUILD (build), VPY (.venv/bin/python), PROFILE_TAG
# (rbprofile, the build table's GO_PROFILE_TAG), ROUNDS (the rounds to
# profile; default all of them).
set -euo pipefail

GO=${GO:-go}
BUILD=${BUILD:-build}
VPY=${VPY:-.venv/bin/python}
PROFILE_TAG=${PROFILE_TAG:-rbprofile}

# Each round's number of runs and its input: a few seconds of the base
# variant's work in all, on an input that is NOT the one the suite
# measures (another size, and another seed or mix where the round has
# one), as a user's profile comes from production and not from the
# benchmark: a profile of the measured input is the best case, which no
# user gets. The loop round's default n (20,000,000) lasts about 20 ms, too
# few samples at pprof's 100 Hz; temps allocates 8 bytes an element, so it
# repeats a smaller size instead of growing it.
size_of() {
    case "$1" in
    loop) echo "3 n=900000000" ;;
    temps) echo "33 n=15000000" ;;
    jsonl) echo "3 lines=700000 bad-rate=0.001" ;;
    aspects) echo "12 events=60000 seed=2" ;;
    *) echo "pgo-profiles.sh: no size for round $1: add one to size_of" >&2; return 1 ;;
    esac
}

py() { PYTHONPATH=python "$VPY" "$@"; }

# ROUND PROFILE lines, one per profile of the build table.
profiles=$(py -c '
from roundbench.runtimes import programs
seen = {}
for build in programs.GO_BUILD_RUNNERS.values():
    if build.pgo:
        seen[build.pgo] = build.package.rsplit("/", 1)[-1]
for pgo, rnd in seen.items():
    print(rnd, pgo)
')

work=$(mktemp -d "${TMPDIR:-/tmp}/rb-pgo.XXXXXX")
trap 'rm -rf "$work"' EXIT

while read -r round profile; do
    if [ -n "${ROUNDS:-}" ] && [[ " $ROUNDS " != *" $round "* ]]; then
        continue
    fi
    pkg=go/cmd/rb-go/$round
    base=$(sed -n 's/.*harness\.Twin("'"$round"'", "\([a-z0-9-]*\)").*/\1/p' "$pkg"/*.go | head -1)
    if [ -z "$base" ]; then
        echo "pgo-profiles.sh: $pkg declares no twin (harness.Twin(\"$round\", ...))" >&2
        exit 1
    fi
    read -r runs params < <(size_of "$round")
    read -r -a param <<<"$params"
    runner=$work/rb-go-$round
    echo "== $round: $base at ${param[*]}, $runs runs -> $profile"
    # -trimpath: the profile then names source files by module path
    # (roundbench/go/loop.go), not by where this checkout is.
    GOAMD64=v1 "$GO" build -trimpath -pgo=off -tags "$PROFILE_TAG" -o "$runner" "./$pkg"
    # The inputs as a suite run makes them: KEY=VALUE lines.
    mapfile -t inputs < <(py -c '
import sys
from roundbench import rounds
v = rounds.get(sys.argv[1]).variant(sys.argv[2])
params = dict(a.split("=", 1) for a in sys.argv[3:])
for k, val in (v.make_inputs(params) if v.make_inputs else {}).items():
    print(f"{k}={val}")
' "$round" "$base" "${param[@]}")
    parts=()
    for i in $(seq "$runs"); do
        part=$work/$round-$i.pprof
        env ${inputs[@]+"${inputs[@]}"} ROUNDBENCH_GO_CPUPROFILE="$part" "$runner" "$round" "$base" "${param[@]}" | grep '^Benchmark'
        parts+=("$part")
    done
    mkdir -p "$(dirname "$profile")"
    "$GO" tool pprof -proto "${parts[@]}" >"$work/merged.pgo"
    mv "$work/merged.pgo" "$profile"
    # What it was taken from, and the source it profiled: the fairness
    # check reads it (runtimes/programs.py, pgo_record).
    py -c '
import sys
from pathlib import Path
from roundbench.runtimes import programs
rnd, base, runs, go, profile = sys.argv[1:6]
lines = [
    f"# What {profile} was taken from (scripts/pgo-profiles.sh); the fairness check reads it.",
    f"round: {rnd}",
    f"variant: {base}",
    f"input: {chr(32).join(sys.argv[6:])}",
    f"runs: {runs}",
    f"go: {go}",
    f"source-sha256: {programs.go_source_hash(Path.cwd(), rnd)}",
]
Path(profile + programs.PGO_RECORD_SUFFIX).write_text(chr(10).join(lines) + chr(10), encoding="utf-8")
' "$round" "$base" "$runs" "$("$GO" env GOVERSION)" "$profile" "${param[@]}"
    echo "   $(wc -c <"$profile") bytes, taken from ${param[*]} ($profile.txt)"
done <<<"$profiles"
