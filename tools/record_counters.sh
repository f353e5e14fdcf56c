#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Records exhaustive journals of the built-in vector_add space WITH hardware
# counters on this GPU, at n = 2^24 and 2^28: every feasible point verified
# and measured once under the protocol of configs/vector_add.ini, then
# profiled with the default counter set on launches of its own ([metrics]
# points = every; journal format 2). The replay tests and the strategy
# benchmark read them: copy them to tests/data/.
#
#   tools/record_counters.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to build, OUT_DIR to tests/data. Run from the repository
# root. Each size also leaves its run summary (*.summary.json), whose
# "metrics" says how many points were profiled, in how many replay passes and
# seconds, or why counters were unavailable. Set TAG to name the device in
# the file names (default: h200).
#
# Cost on the H200: the exhaustive sweeps take about 8 s (2^24) and 48 s
# (2^28) of measuring, and each of the 2 x 62 profiles about 0.55 s (docs/
# results/2026-11-30-h200-metrics-collection-cost.md): 2 to 2.5 minutes.
set -euo pipefail
build=${1:-build}
out=${2:-tests/data}
tag=${TAG:-h200}
mkdir -p "$out"
for log2 in 24 28; do
    n=$((1 << log2))
    journal=$out/vector_add-$tag-counters-n$n.jsonl
    summary=$out/vector_add-$tag-counters-n$n.summary.json
    rm -f "$journal"
    echo "== n = 2^$log2 -> $journal"
    "$build/ktune" tune configs/vector_add.ini --quiet \
        --set "job.n=2^$log2" --set strategy.name=exhaustive \
        --set strategy.max_evals=0 --set strategy.max_seconds=0 \
        --set metrics.points=every --journal "$journal" --json "$summary"
    python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m, b = s["metrics"], s["best"]
print(f"   {s['evaluations']} evaluated, {s['measured']} timed, "
      f"{m['profiled']} profiled in {m['passes']} passes, "
      f"{m['profile_s']:.1f} s of profiling; run {s['elapsed_s']:.0f} s")
if m["unavailable"]:
    print("   NO COUNTERS:", m["unavailable"])
d = b.get("diagnosis", {})
print(f"   best {b['config']} {b['median_us']:.2f} us: "
      f"{d.get('bound', '?')} ({d.get('why', '')})")
PY
done
