#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# max_seconds as the command's wall time (issue 54): each hub job tuned
# with strategy.max_seconds=S (default 60) for each seed, the wall time
# from the command's start to its exit measured from outside, and the
# run's own account (--json budget: used_s, closing_s, what was left out)
# with its answer (the winner's median and configuration). One table row
# per run; a row whose wall is over S + 3 s is marked OVER.
#
# usage: KTUNE_HUB_DIR=HUB bench/budget_wall.sh [options]
#   --build DIR      the build tree (default build)
#   --jobs "A B"     hub jobs of examples/hub (default: gemm convolution
#                    dedispersion)
#   --seeds "1 2 3"  strategy seeds (default 1 2 3)
#   --seconds S      strategy.max_seconds (default 60)
#   --out DIR        the runs' --json and summaries (default a temporary
#                    folder)
# Nine runs of 60 s take about 9.5 minutes: give one call a job or two.
set -u
build=build jobs="gemm convolution dedispersion" seeds="1 2 3" secs=60 out=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "budget_wall.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
: "${KTUNE_HUB_DIR:?set KTUNE_HUB_DIR (the hub folder holding kernels/)}"
out=${out:-$(mktemp -d)}
mkdir -p "$out"
echo "| job | seed | wall s | used_s | closing_s | left out | evals | best us | best |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---|"
for job in $jobs; do
    for seed in $seeds; do
        base=$out/$job-s$seed
        start=$(date +%s.%N)
        COLUMNS=200 "$build/ktune" tune "examples/hub/$job.ini" \
            --set strategy.max_seconds="$secs" --set strategy.seed="$seed" \
            --json "$base.json" >"$base.txt" 2>&1
        rc=$?
        end=$(date +%s.%N)
        python3 - "$job" "$seed" "$start" "$end" "$secs" "$base.json" "$rc" <<'PY'
import json, sys
job, seed, start, end, secs, path, rc = sys.argv[1:]
wall = float(end) - float(start)
try:
    j = json.load(open(path))
except (OSError, ValueError):
    print("| %s | %s | %.1f | - | - | exit %s, no --json | - | - | - |"
          % (job, seed, wall, rc))
    sys.exit(0)
b, best = j["budget"], j.get("best") or {}
cfg = best.get("config")
print("| %s | %s | %.1f%s | %.1f | %.1f | %s | %d | %s | %s |" % (
    job, seed, wall, " OVER" if wall > float(secs) + 3 else "",
    b["used_s"], b["closing_s"], b.get("left_out") or "-", j["evaluations"],
    "%.3f" % best["median_us"] if "median_us" in best else "-", cfg or "-"))
PY
    done
done
