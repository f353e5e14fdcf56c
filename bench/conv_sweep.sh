#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The whole hub convolution space (4,362 points, 2,746 distinct kernels)
# swept exhaustively from a fresh compile cache (issue 54: at most 5
# minutes of wall per 16 host cores), across calls if one call's limit
# cuts it: each call runs at most --limit seconds (SIGINT then, which
# leaves the journal whole), the next resumes the journal. State lives in
# DIR (the journal, the cache, one line per call), so keep DIR between
# calls (a build/ folder survives while the device machine is warm). One
# line per call, then the totals: wall summed over the calls, evaluations,
# kernels compiled, compile CPU per kernel, compiles at once.
#
# usage: KTUNE_HUB_DIR=HUB bench/conv_sweep.sh [--build DIR] [--dir DIR]
#            [--limit S]        (defaults: build, build/conv-sweep, 540)
#        bench/conv_sweep.sh --dir DIR --fresh   forget an earlier sweep
set -u
build=build dir=build/conv-sweep limit=540 fresh=0
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --fresh) fresh=1; shift ;;
    *) echo "conv_sweep.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ "$fresh" = 1 ]; then
    rm -rf "$dir"
    exit 0
fi
: "${KTUNE_HUB_DIR:?set KTUNE_HUB_DIR (the hub folder holding kernels/)}"
mkdir -p "$dir/cache"
resume=()
[ -s "$dir/sweep.jsonl" ] && resume=(--resume)
n=$(($(cat "$dir/calls.txt" 2>/dev/null | wc -l) + 1))
start=$(date +%s.%N)
COLUMNS=200 KTUNE_CACHE_DIR=$dir/cache timeout -s INT -k 30 "$limit" \
    "$build/ktune" tune examples/hub/convolution.ini \
    --set strategy.name=exhaustive --journal "$dir/sweep.jsonl" \
    "${resume[@]}" --json "$dir/call$n.json" >"$dir/call$n.txt" 2>&1
rc=$?
end=$(date +%s.%N)
python3 - "$dir" "$n" "$start" "$end" "$rc" <<'PY'
import json, os, sys
d, n, start, end, rc = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:5]), sys.argv[5]
wall = end - start
path = "%s/call%d.json" % (d, n)
j = json.load(open(path)) if os.path.exists(path) else None
done = bool(j) and j["stop_reason"] in ("every feasible point evaluated",
                                       "the strategy finished")
with open(d + "/calls.txt", "a") as f:
    f.write("%d %.1f %s %s\n" % (n, wall, rc, "done" if done else "cut"))
calls = [l.split() for l in open(d + "/calls.txt")]
total = sum(float(c[1]) for c in calls)
print("call %d: wall %.1f s, exit %s, %s" % (n, wall, rc,
      "sweep complete" if done else "cut short: run again to resume"))
if j:
    c = j.get("compilation", {})
    print("| calls | wall s (sum) | evaluations | compiled | compile CPU s | CPU s per kernel | at once | CPUs busy |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %.1f | %d | %d | %.0f | %.2f | %.1f | %.1f |" % (
        len(calls), total, j["evaluations"], c.get("compiled", 0),
        c.get("cpu_s", 0), c.get("cpu_per_compile_s", 0),
        c.get("occupancy", 0), c.get("cpus_busy", 0)))
    print("(compilation: this call's --json; entries answered from the "
          "journal carry their recorded compile figures)")
PY
