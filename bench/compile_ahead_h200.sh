#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Compile ahead per strategy on a GPU (issue 28): one tune of a declared,
# compile-heavy kernel per strategy, each from a fresh NVRTC cache with the
# pool on every core, and a Markdown table of what the summary's
# "compile:" line and the --json "compile" object say: evaluations/s, the
# kernels taken, how many the hints had compiled or started in time,
# hinted but not started, never hinted, compiles at once (mean, peak) and
# the GPU's idle fraction on compiles. The CPU stand-in is
# bench/bench_compile_ahead (docs/results/2026-12-02-compile-ahead-strategies-cpu.md).
#
# usage: bench/compile_ahead_h200.sh [DECLARATION] [options]
#   DECLARATION      default examples/hub/convolution.ini (KTUNE_HUB_DIR set)
#   --build DIR      the build tree (default build)
#   --strategies L   comma-separated (default one_at_a_time,auto,annealing,genetic)
#   --evals N        each tune's budget of evaluations (default 60)
#   --work DIR       raw outputs (default a temporary folder, removed)
set -u
DECL=examples/hub/convolution.ini
BUILD=build
STRATEGIES=one_at_a_time,auto,annealing,genetic
EVALS=60
WORK=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --strategies) STRATEGIES=$2; shift 2 ;;
    --evals) EVALS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -*) echo "compile_ahead_h200.sh: unknown option $1" >&2; exit 2 ;;
    *) DECL=$1; shift ;;
    esac
done
K=$BUILD/ktune
[ -x "$K" ] || { echo "compile_ahead_h200.sh: no $K; build ktune" >&2; exit 2; }
[ -f "$DECL" ] || { echo "compile_ahead_h200.sh: no declaration $DECL" >&2; exit 2; }
"$K" info >/dev/null 2>&1 || { echo "compile_ahead_h200.sh: no GPU (ktune info failed)" >&2; exit 2; }
KEEP=1
if [ -z "$WORK" ]; then
    WORK=$(mktemp -d)
    KEEP=0
fi
mkdir -p "$WORK"
echo "| strategy | evaluations | wall s | evals/s | taken | hinted in time | hinted, not started | never hinted | compiles at once | peak | GPU idle on compiles |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for s in ${STRATEGIES//,/ }; do
    rm -rf "$WORK/cache-$s"
    if ! KTUNE_CACHE_DIR="$WORK/cache-$s" "$K" tune "$DECL" --json "$WORK/$s.json" \
        --set "strategy.name=$s" --set "strategy.max_evals=$EVALS" \
        >"$WORK/$s.txt" 2>&1; then
        echo "| $s | tune failed: $(tail -1 "$WORK/$s.txt") |"
        status=1
        continue
    fi
    grep '^compile' "$WORK/$s.txt" >&2
    python3 - "$WORK/$s.json" "$s" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c, o = j.get("compile", {}), j.get("overhead", {})
wall = o.get("wall_s", 0) or 0
print("| %s | %d | %.1f | %.2f | %d | %d | %d | %d | %.1f | %d | %.1f%% |" % (
    sys.argv[2], j.get("evaluations", 0), wall,
    j.get("evaluations", 0) / wall if wall else 0, c.get("taken", 0),
    c.get("ahead", 0), c.get("took_queued", 0), c.get("unhinted", 0),
    c.get("parallel", 0), c.get("peak_running", 0),
    100 * c.get("gpu_idle_fraction", 0)))
PY
done
[ "$KEEP" = 1 ] || rm -rf "$WORK"
exit $status
