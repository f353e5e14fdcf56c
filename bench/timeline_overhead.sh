#!/bin/bash
# What tracing costs: the timeline test program (tests/timeline), REPEAT
# rounds per run (copies in, four kernels, a 20 ms host sleep, a copy
# out), RUNS runs untraced and RUNS traced by `ktune timeline`, alternated.
# The program times itself from main() to exit (CUDA start-up included),
# so both sides are measured the same way; the traced command's whole wall
# time (ktune reading and printing the records too) is shown beside it.
# Target: traced program wall time <= 1.10 x untraced (medians).
# Takes about RUNS x 2 x (0.3 s + REPEAT x 25 ms): 10 s with the defaults.
# Output: OUT_DIR/timeline-overhead-DATE.md (table last on stdout too).
#
# usage: bench/timeline_overhead.sh [BUILD_DIR] [OUT_DIR] [RUNS] [REPEAT]
set -u
BUILD=${1:-build}
OUT=${2:-docs/results}
RUNS=${3:-7}
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

now() { date +%s.%N; }
# The program's own "wall X ms" line.
own_wall() { awk '/^wall /{print $2}' "$1"; }
for r in $(seq 1 "$RUNS"); do
    t0=$(now)
    "$PROG" --repeat "$REPEAT" >"$WORK/u-$r.txt" 2>&1 ||
        { cat "$WORK/u-$r.txt"; exit 1; }
    t1=$(now)
    "$KTUNE" timeline --json "$WORK/t-$r.json" -- "$PROG" --repeat "$REPEAT" \
        >"$WORK/t-$r.txt" 2>&1 || { cat "$WORK/t-$r.txt"; exit 1; }
    t2=$(now)
    echo "$(own_wall "$WORK/u-$r.txt") $(own_wall "$WORK/t-$r.txt") $t0 $t1 $t2" |
        awk '{print $1, $2, ($4 - $3) * 1000, ($5 - $4) * 1000}' >>"$WORK/runs.txt"
done
pct() { awk -v u="$1" -v t="$2" 'BEGIN {printf "%.1f", 100 * (t - u) / u}'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
u=$(cut -d' ' -f1 "$WORK/runs.txt" | median)
t=$(cut -d' ' -f2 "$WORK/runs.txt" | median)
uc=$(cut -d' ' -f3 "$WORK/runs.txt" | median)
tc=$(cut -d' ' -f4 "$WORK/runs.txt" | median)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
    echo "# ktune timeline: tracing overhead on the test program"
    echo
    echo "$STAMP, ${gpu:-unknown GPU}, ktune $("$KTUNE" --version)."
    echo "Command: bench/timeline_overhead.sh $BUILD $OUT $RUNS $REPEAT"
    echo "($RUNS runs each, alternated; kt_timeline_prog --repeat $REPEAT)."
    echo
    echo "| run | untraced program (ms) | traced program (ms) | untraced command (ms) | ktune timeline command (ms) |"
    echo "|---|---|---|---|---|"
    awk '{printf "| %d | %.1f | %.1f | %.1f | %.1f |\n", NR, $1, $2, $3, $4}' "$WORK/runs.txt"
    echo
    echo "Medians: program wall untraced $u ms, traced $t ms:" \
        "overhead $(pct "$u" "$t")% (target <= 10%)."
    echo "Whole commands: $uc ms against $tc ms (ktune's reading and printing" \
        "of the records included)."
    echo
    echo "Summary of the last traced run:"
    echo
    echo '```'
    sed -n '/== ktune timeline/,$p' "$WORK/t-$RUNS.txt"
    echo '```'
} >"$REPORT"
echo "wrote $REPORT"
printf '%-28s %10s %10s %9s\n' "program wall (median)" untraced traced overhead
printf '%-28s %10.1f %10.1f %8s%%\n' "kt_timeline_prog x$REPEAT" "$u" "$t" \
    "$(pct "$u" "$t")"
