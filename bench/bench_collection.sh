#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cost of collecting the default metric set for one configuration:
# replay passes, the time of the passes against passes x the kernel's own
# (unprofiled) median, the set-up and evaluation around them, and the wall
# time of `ktune profile` with and without counters. vector_add coalesced,
# block 256, at three sizes, REPEAT separate processes each.
# Output: OUT_DIR/metrics-collection-cost-DATE.md
#
# usage: bench/bench_collection.sh [BUILD_DIR] [OUT_DIR] [REPEAT]
set -u
BUILD=${1:-build}
OUT=${2:-docs/results}
REPEAT=${3:-5}
KTUNE=$BUILD/ktune
STAMP=$(date -u +%Y-%m-%d)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
REPORT=$OUT/metrics-collection-cost-$STAMP.md
[ -x "$KTUNE" ] || { echo "no $KTUNE; build first" >&2; exit 2; }

now() { date +%s.%N; }
for n in 20 24 28; do
    for r in $(seq 1 "$REPEAT"); do
        common=(vector_add:add --variant coalesced --set block=256
                --size "n=2^$n" --no-boundaries --min-time 0.2)
        t0=$(now)
        "$KTUNE" profile "${common[@]}" --json "$WORK/c-$n-$r.json" \
            > "$WORK/c-$n-$r.txt" 2>&1 || { cat "$WORK/c-$n-$r.txt"; exit 1; }
        t1=$(now)
        "$KTUNE" profile "${common[@]}" --no-counters \
            > "$WORK/n-$n-$r.txt" 2>&1 || { cat "$WORK/n-$n-$r.txt"; exit 1; }
        t2=$(now)
        awk -v n="$n" -v r="$r" -v a="$t0" -v b="$t1" -v c="$t2" \
            'BEGIN { printf "%s %s %.3f %.3f\n", n, r, b - a, c - b }' >> "$WORK/wall.txt"
    done
done

python3 - "$WORK" "$REPEAT" > "$REPORT" <<'PY'
import glob, json, os, statistics, subprocess, sys

work, repeat = sys.argv[1], int(sys.argv[2])
wall = {}
for line in open(os.path.join(work, "wall.txt")):
    n, r, with_c, without = line.split()
    wall.setdefault(int(n), []).append((float(with_c), float(without)))
first = json.load(open(glob.glob(os.path.join(work, "c-*.json"))[0]))
env = first["environment"]
print("# Cost of collecting the default metric set (one configuration)\n")
print("- command: `ktune profile vector_add:add --variant coalesced --set "
      "block=256 --size n=2^K --no-boundaries --min-time 0.2` with and "
      "without `--no-counters`, %d separate processes per size" % repeat)
print("- GPU: %s, driver %s; ktune %s" % (
    env["device"]["name"], env["device"]["driver_version"],
    env["host"].get("git_commit", "?")))
print("- date (UTC): %s" % env["host"].get("date", "?"))
print("- counters: %d raw counters (the default catalog set)\n" %
      len(first["counters"]["raw"]))
print("| n | passes | kernel median (unprofiled) | passes x kernel | passes, "
      "wall | per pass | set-up | decode+evaluate | collection total | "
      "`profile` wall | `--no-counters` wall |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for n in sorted(wall):
    recs = [json.load(open(p)) for p in
            sorted(glob.glob(os.path.join(work, "c-%d-*.json" % n)))]
    cost = [r["counters"]["cost"] for r in recs]
    med = lambda xs: statistics.median(xs)
    kernel_us = med([r["result"]["timing"]["kernel"]["median"] for r in recs])
    passes = med([c["passes"] for c in cost])
    print("| 2^%d | %d | %.1f us | %.2f ms | %.2f ms | %.3f ms | %.1f ms | "
          "%.1f ms | %.1f ms | %.2f s | %.2f s |" % (
              n, passes, kernel_us, passes * kernel_us / 1e3,
              1e3 * med([c["passes_s"] for c in cost]),
              1e3 * med([c["per_pass_s"] for c in cost]),
              1e3 * med([c["setup_s"] for c in cost]),
              1e3 * med([c["evaluate_s"] for c in cost]),
              1e3 * med([c["total_s"] for c in cost]),
              med([w[0] for w in wall[n]]), med([w[1] for w in wall[n]])))
print("\nMedians over the processes. A pass is: restore inputs (when the "
      "operator writes them), flush L2, synchronise, open a range, one "
      "launch, synchronise, close the range. `profile` wall includes "
      "verification, the unprofiled timing (>= 0.2 s of samples) and "
      "calibration lookup; the difference between the two wall columns is "
      "what counters add to one `ktune profile`.")
PY
cat "$REPORT"
echo "written: $REPORT"
