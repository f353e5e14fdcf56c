#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What tracing costs: the timeline test program (tests/timeline), REPEAT
# rounds per run (copies in, four kernels, a 20 ms host sleep, a copy
# out), RUNS runs each untraced (`ktune timeline --no-trace`), traced
# (`ktune timeline`) and traced with --no-driver, alternated. Both sides
# are timed the same way, by ktune from the program's start to its exit
# (exec, CUDA start-up, the tracer's start and its final flush included);
# the program's own main()-to-return times are shown beside them.
# Target: traced wall time <= 1.10 x untraced (medians).
# Takes about RUNS x 3 x (0.6 s + REPEAT x 30 ms): 15 s with the defaults.
# Needs python3 (reads the JSON). Output: OUT_DIR/timeline-overhead-DATE.md
# (table last on stdout too).
#
# usage: bench/timeline_overhead.sh [BUILD_DIR] [OUT_DIR] [RUNS] [REPEAT]
set -u
BUILD=${1:-build}
OUT=${2:-docs/results}
RUNS=${3:-5}
REPEAT=${4:-20}
KTUNE=$BUILD/ktune
PROG=$BUILD/tests/timeline/kt_timeline_prog
STAMP=$(date -u +%Y-%m-%d)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
REPORT=$OUT/timeline-overhead-$STAMP.md
for f in "$KTUNE" "$PROG"; do
    [ -x "$f" ] || { echo "no $f; build first" >&2; exit 2; }
done

# run NAME [ktune timeline options]: prints "wall_ms own_ms" of one run.
run() {
    local name=$1
    shift
    "$KTUNE" timeline "$@" --json "$WORK/$name.json" -- "$PROG" \
        --repeat "$REPEAT" >"$WORK/$name.txt" 2>&1 ||
        { cat "$WORK/$name.txt" >&2; return 1; }
    python3 - "$WORK/$name.json" "$WORK/$name.txt" <<'PY'
import json, sys
wall = json.load(open(sys.argv[1]))["wall_ns"] / 1e6
own = [l.split()[1] for l in open(sys.argv[2]) if l.startswith("wall ")]
print("%.1f %s" % (wall, own[0] if own else "nan"))
PY
}
for r in $(seq 1 "$RUNS"); do
    u=$(run "u-$r" --no-trace) || exit 1
    t=$(run "t-$r") || exit 1
    n=$(run "n-$r" --no-driver) || exit 1
    echo "$u $t $n" >>"$WORK/runs.txt"
done
median() {
    sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
col() { cut -d' ' -f"$1" "$WORK/runs.txt" | median; }
pct() { awk -v u="$1" -v t="$2" 'BEGIN {printf "%.1f", 100 * (t - u) / u}'; }
u=$(col 1) uo=$(col 2) t=$(col 3) to=$(col 4) n=$(col 5) no=$(col 6)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
    echo "# ktune timeline: tracing overhead on the test program"
    echo
    echo "$STAMP, ${gpu:-unknown GPU}, $("$KTUNE" --version)."
    echo "Command: bench/timeline_overhead.sh $BUILD $OUT $RUNS $REPEAT"
    echo "($RUNS runs of each, alternated; kt_timeline_prog --repeat $REPEAT)."
    echo "\"wall\": start to exit, timed by ktune the same way for every run;"
    echo "\"own\": the program's main() to its return, timed by itself."
    echo
    echo "| run | untraced wall (ms) | own | traced wall (ms) | own | --no-driver wall (ms) | own |"
    echo "|---|---|---|---|---|---|---|"
    awk '{printf "| %d | %s | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5, $6}' "$WORK/runs.txt"
    echo
    echo "Medians: wall untraced $u ms, traced $t ms: overhead $(pct "$u" "$t")%" \
        "(target <= 10%); traced with --no-driver $n ms: $(pct "$u" "$n")%."
    echo "The programs' own times: $uo, $to and $no ms ($(pct "$uo" "$to")%" \
        "and $(pct "$uo" "$no")%)."
    echo
    echo "Summary of the last traced run:"
    echo
    echo '```'
    sed -n '/== ktune timeline/,$p' "$WORK/t-$RUNS.txt"
    echo '```'
} >"$REPORT"
echo "wrote $REPORT"
printf '%-24s %9s %9s %9s %12s\n' "wall, median (ms)" untraced traced overhead "--no-driver"
printf '%-24s %9s %9s %8s%% %11s%%\n' "kt_timeline_prog x$REPEAT" "$u" "$t" \
    "$(pct "$u" "$t")" "$(pct "$u" "$n")"
