#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The compile pool at the host's speed (issue 54 part 3), on the GPU host,
# in under 2 minutes: (1) the host's CPUs (hyper-threads or cores); (2)
# NVRTC's CPU time per hub convolution kernel alone (one helper) and with
# 16 compiling at once (16 helpers), the same 16 kernels, no cache
# (bench_compile_pool); (3) the hub convolution tuned for 60 s from a
# fresh cache (its compiles, calibration included in the budget): the
# pool's occupancy while compiling, CPUs busy compiling, CPU per compile,
# the GPU's wait, how the hints fared, and the host's CPU use over the run
# from /proc/stat; its wall from start to exit. Prints a short table.
#
# usage: KTUNE_HUB_DIR=HUB bench/compile_occupancy.sh [BUILD] [OUT]
#   HUB: the folder holding the hub's kernels/ (examples/hub/README.md)
set -eu
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
: "${KTUNE_HUB_DIR:?set KTUNE_HUB_DIR (the hub folder holding kernels/)}"
decl=examples/hub/convolution.ini
echo "== host"
nproc
lscpu | grep -E "^(Model name|Thread|Core|Socket)" || true
echo "== NVRTC CPU per kernel: 1 helper, then 16 at once (16 kernels)"
KTUNE_NVRTC_CACHE=off "$build/bench/bench_compile_pool" "$decl" \
    --kernels 16 --sample --seed 1 --helpers 1,16 | tee "$out/pool.txt"
echo "== convolution, max_seconds=60, fresh cache"
cache=$(mktemp -d)
cpu_before=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
start=$(date +%s.%N)
COLUMNS=200 KTUNE_CACHE_DIR=$cache "$build/ktune" tune "$decl" \
    --set strategy.max_seconds=60 --json "$out/conv60.json" \
    >"$out/conv60.txt" 2>&1 || echo "ktune tune exited $?"
end=$(date +%s.%N)
cpu_after=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
rm -rf "$cache"
grep -E "^(compile|budget|  left out)" "$out/conv60.txt" || true
python3 - "$out" "$start" "$end" "$cpu_before" "$cpu_after" <<'PY'
import json, os, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
b0, i0 = map(float, sys.argv[4].split())
b1, i1 = map(float, sys.argv[5].split())
hz = os.sysconf("SC_CLK_TCK")
wall = end - start
pool = [l.split() for l in open(out + "/pool.txt") if l.startswith("helpers=")]
j = json.load(open(out + "/conv60.json"))
c, k = j.get("compilation", {}), j.get("compile", {})
rows = [
    ("NVRTC CPU per kernel, alone (s)", pool[0][-1] if pool else "-"),
    ("NVRTC CPU per kernel, 16 at once (s)", pool[-1][-1] if pool else "-"),
    ("16-at-once speed-up over 1 (x)", pool[-1][6] if pool else "-"),
    ("conv60 wall, start to exit (s)", "%.1f" % wall),
    ("conv60 budget.used_s / left_out", "%.1f / %s" % (
        j["budget"]["used_s"], j["budget"].get("left_out") or "-")),
    ("evaluations", j["evaluations"]),
    ("kernels compiled", c.get("compiled", 0)),
    ("compiles at once while compiling", "%.1f" % c.get("occupancy", 0)),
    ("peak at once", k.get("peak_running", "-")),
    ("CPUs busy compiling", "%.1f" % c.get("cpus_busy", 0)),
    ("compile CPU per kernel (s)", "%.2f" % c.get("cpu_per_compile_s", 0)),
    ("pool wall with a compile running (s)", "%.1f" % c.get("wall_s", 0)),
    ("GPU idle on compiles", "%.0f%%" % (100 * c.get("gpu_idle_fraction", 0))),
    ("takes: ahead / took_queued / unhinted", "%s / %s / %s" % (
        k.get("ahead"), k.get("took_queued"), k.get("unhinted"))),
    ("host CPUs busy over the run (all processes)",
     "%.1f of %d" % ((b1 - b0) / hz / wall, os.cpu_count())),
]
for name, v in rows:
    print("| %-44s | %s |" % (name, v))
PY
