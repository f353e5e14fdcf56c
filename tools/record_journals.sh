#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Records exhaustive journals of the built-in vector_add space on this GPU at
# n = 2^20, 2^24 and 2^28: every feasible point verified and measured once
# under the tuning protocol of configs/vector_add.ini, raw samples kept. The
# journals are what the replay tests and benchmarks run against: copy them
# to tests/data/ (the tests take every *.jsonl there).
#
#   tools/record_journals.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to build, OUT_DIR to tests/data. Run from the repository
# root. Each size also leaves its run summary (*.summary.json). Set TAG to
# name the device in the file names (default: h200).
set -euo pipefail
build=${1:-build}
out=${2:-tests/data}
tag=${TAG:-h200}
mkdir -p "$out"
for log2 in 20 24 28; do
    n=$((1 << log2))
    journal=$out/vector_add-$tag-n$n.jsonl
    rm -f "$journal"
    echo "== n = 2^$log2 -> $journal"
    "$build/ktune" tune configs/vector_add.ini --quiet \
        --set "job.n=2^$log2" --set strategy.name=exhaustive \
        --set strategy.max_evals=0 --set strategy.max_seconds=0 \
        --journal "$journal" --json "$out/vector_add-$tag-n$n.summary.json"
    python3 - "$out/vector_add-$tag-n$n.summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
b = s["best"]
print(f"   {s['evaluations']} evaluated, {s['measured']} timed; best "
      f"{b['config']} {b['median_us']:.2f} us "
      f"({b.get('bandwidth_gbs', 0):.0f} GB/s, "
      f"{b.get('pct_of_copy', 0):.1f}% of copy) in {s['elapsed_s']:.0f} s")
PY
done
