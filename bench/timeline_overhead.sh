#!/bin/bash
# What tracing costs: the timeline test program (tests/timeline), REPEAT
# rounds per run (copies in, four kernels, a 20 ms host sleep, a copy
# out), RUNS runs each untraced, traced by `ktune timeline`, and traced
# with --no-driver (no driver API records), alternated. The program times
# itself from main() to exit (CUDA start-up included), so every side is
# measured the same way; the commands' whole wall times (ktune reading and
# printing the records too) are shown beside.
# Target: traced program wall time <= 1.10 x untraced (medians).
# Takes about RUNS x 3 x (0.4 s + REPEAT x 30 ms): 20 s with the defaults.
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
pct() { awk -v u="$1" -v t="$2" 'BEGIN {printf "%.1f", 100 * (t - u) / u}'; }
median() {
    sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
run() { # name, command...: the output in WORK/name.txt, the command's ms on stdout
    local name=$1 t0 t1
    shift
    t0=$(now)
    "$@" >"$WORK/$name.txt" 2>&1 || { cat "$WORK/$name.txt" >&2; exit 1; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) * 1000}'
}
for r in $(seq 1 "$RUNS"); do
    cu=$(run "u-$r" "$PROG" --repeat "$REPEAT") || exit 1
    ct=$(run "t-$r" "$KTUNE" timeline -- "$PROG" --repeat "$REPEAT") || exit 1
    cn=$(run "n-$r" "$KTUNE" timeline --no-driver -- "$PROG" --repeat "$REPEAT") || exit 1
    echo "$(own_wall "$WORK/u-$r.txt") $(own_wall "$WORK/t-$r.txt")" \
        "$(own_wall "$WORK/n-$r.txt") $cu $ct $cn" >>"$WORK/runs.txt"
done
col() { cut -d' ' -f"$1" "$WORK/runs.txt" | median; }
u=$(col 1) t=$(col 2) n=$(col 3) cu=$(col 4) ct=$(col 5) cn=$(col 6)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
    echo "# ktune timeline: tracing overhead on the test program"
    echo
    echo "$STAMP, ${gpu:-unknown GPU}, $("$KTUNE" --version)."
    echo "Command: bench/timeline_overhead.sh $BUILD $OUT $RUNS $REPEAT"
    echo "($RUNS runs of each, alternated; kt_timeline_prog --repeat $REPEAT;"
    echo "program times are the program's own, main() to exit)."
    echo
    echo "| run | untraced program (ms) | traced (ms) | traced, --no-driver (ms) | untraced command (ms) | ktune timeline command (ms) | --no-driver command (ms) |"
    echo "|---|---|---|---|---|---|---|"
    awk '{printf "| %d | %s | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5, $6}' "$WORK/runs.txt"
    echo
    echo "Medians: program wall untraced $u ms, traced $t ms: overhead" \
        "$(pct "$u" "$t")% (target <= 10%); traced with --no-driver $n ms:" \
        "$(pct "$u" "$n")%. Whole commands: $cu ms untraced, $ct ms and $cn ms" \
        "under ktune timeline (reading and printing the records included)."
    echo
    echo "Summary of the last traced run:"
    echo
    echo '```'
    sed -n '/== ktune timeline/,$p' "$WORK/t-$RUNS.txt"
    echo '```'
} >"$REPORT"
echo "wrote $REPORT"
printf '%-26s %10s %10s %9s %12s\n' "program wall, median (ms)" untraced traced overhead "--no-driver"
printf '%-26s %10s %10s %8s%% %11s%%\n' "kt_timeline_prog x$REPEAT" "$u" "$t" \
    "$(pct "$u" "$t")" "$(pct "$u" "$n")"
