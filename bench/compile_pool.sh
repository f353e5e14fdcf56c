#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The compile pool (engine/compile_pool.h): NVRTC compiles/s of a declared
# kernel at 1..N threads (no GPU needed), and, on a GPU, a tune's wall
# time and the GPU's idle fraction while it waits on compiles, with the
# pool on every core and on one thread, each from a fresh NVRTC cache.
# Writes a Markdown table to OUT (default: stdout) and the raw outputs to
# WORK.
#
# usage: bench/compile_pool.sh [DECLARATION] [options]
#   DECLARATION     a declared operator (default tests/declared/heavy.ini;
#                   on the H200: examples/hub/convolution.ini with
#                   KTUNE_HUB_DIR set)
#   --build DIR     the build tree (default build)
#   --threads LIST  thread counts for the throughput table (default
#                   1 2 4 ... up to nproc, and nproc)
#   --kernels K     distinct kernels compiled per count (default 2 * nproc,
#                   at least 8)
#   --evals N       the tunes' budget of evaluations (default 64)
#   --strategy S    the tunes' strategy (default exhaustive)
#   --no-gpu        the throughput table only
#   --out FILE      the table (default stdout); --work DIR the raw outputs
#                   (default a temporary folder, removed)
set -u
DECL=tests/declared/heavy.ini
BUILD=build
CPUS=$(nproc)
THREADS=""
KERNELS=$((2 * CPUS < 8 ? 8 : 2 * CPUS))
EVALS=64
STRATEGY=exhaustive
GPU=1
OUT=""
WORK=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --kernels) KERNELS=$2; shift 2 ;;
    --evals) EVALS=$2; shift 2 ;;
    --strategy) STRATEGY=$2; shift 2 ;;
    --no-gpu) GPU=0; shift ;;
    --out) OUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -*) echo "compile_pool.sh: unknown option $1" >&2; exit 2 ;;
    *) DECL=$1; shift ;;
    esac
done
K=$BUILD/ktune
B=$BUILD/bench/bench_compile_pool
if [ ! -x "$K" ] || [ ! -x "$B" ]; then
    echo "compile_pool.sh: no $K or $B; build ktune and bench_compile_pool" >&2
    exit 2
fi
[ -f "$DECL" ] || {
    echo "compile_pool.sh: no declaration $DECL" >&2
    exit 2
}
if [ -z "$THREADS" ]; then
    t=1
    while [ "$t" -lt "$CPUS" ]; do
        THREADS="$THREADS $t"
        t=$((t * 2))
    done
    THREADS="$THREADS $CPUS"
fi
if [ -z "$WORK" ]; then
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
exec 3>&1
[ -n "$OUT" ] && exec 3>"$OUT"

{
    echo "# Compile pool: $(basename "$DECL")"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $CPUS CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "Command: \`bench/compile_pool.sh $DECL --kernels $KERNELS --evals $EVALS\`"
    echo
    echo "## NVRTC throughput (no cache, $KERNELS distinct kernels, hinted at once and taken in order)"
    echo
    echo "| threads | wall s | compiles/s | compile CPU s | failed | speed-up |"
    echo "|---:|---:|---:|---:|---:|---:|"
} >&3
list=$(echo "$THREADS" | sed 's/^ *//; s/ *$//' | tr -s ' ' ',')
if ! KTUNE_NVRTC_CACHE=off "$B" "$DECL" --kernels "$KERNELS" --threads "$list" \
    >"$WORK/throughput.txt" 2>"$WORK/throughput.err"; then
    echo "compile_pool.sh: bench_compile_pool failed:" >&2
    cat "$WORK/throughput.err" >&2
    exit 1
fi
tail -n +2 "$WORK/throughput.txt" | while read -r t _ wall rate cpu failed up; do
    echo "| $t | $wall | $rate | $cpu | $failed | ${up}x |" >&3
done

if [ "$GPU" = 0 ] || ! "$K" info >/dev/null 2>&1; then
    echo >&3
    echo "No GPU here (\`ktune info\` failed) or --no-gpu: no tune measured." >&3
    exit 0
fi

# tune NAME THREADS: one tune from a fresh cache; its JSON summary.
tune() {
    local cache="$WORK/cache-$1"
    rm -rf "$cache"
    KTUNE_CACHE_DIR=$cache "$K" tune "$DECL" --journal "$WORK/$1.jsonl" \
        --json "$WORK/$1.json" --set "strategy.name=$STRATEGY" \
        --set "strategy.max_evals=$EVALS" \
        --set "measure.compile_threads=$2" >"$WORK/$1.txt" 2>&1
}
row() { # NAME
    python3 - "$WORK/$1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get("compilation", {})
o = j.get("overhead", {})
wall = o.get("wall_s", 0) or 0
print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f%% |" % (
    c.get("threads", 0), j.get("evaluations", 0), wall,
    j["evaluations"] / wall if wall else 0, o.get("gpu_s", 0),
    c.get("seconds", 0), c.get("wall_s", 0), c.get("gpu_wait_s", 0),
    100 * c.get("gpu_idle_fraction", 0)))
PY
}
{
    echo
    echo "## Tuning on $("$K" info 2>/dev/null | grep -m1 -i 'name\|device' | sed 's/^ *//') ($STRATEGY, $EVALS evaluations, fresh cache)"
    echo
    echo "| compile threads | evaluations | run wall s | evals/s | sampled GPU s | compile s (summed) | compile wall s | GPU waited s | GPU idle on compiles |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >&3
for t in "$CPUS" 1; do
    if tune "t$t" "$t"; then
        row "t$t" >&3
    else
        echo "| $t | tune failed: see $WORK/t$t.txt | | | | | | | |" >&3
        tail -3 "$WORK/t$t.txt" >&2
    fi
done
echo >&3
echo "Compile s (summed): NVRTC wall time of every compile; compile wall s: time with at least one compile running; GPU idle: the time verification waited on a compile with nothing to measure, over the run's wall time." >&3
