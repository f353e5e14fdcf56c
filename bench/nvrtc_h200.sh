#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Issue 28 on the H200 machine: (1) what its host gives NVRTC: the CPUs
# (lscpu, the cgroup's cpu.max, steal time over the run) and NVRTC's
# scaling in threads of one process (the compile pool) against child
# processes (bench_compile_pool --threads / --procs; random convolution
# kernels, sharing and the cache off), also with glibc's malloc told to
# keep its memory (no trim, no mmap: rules out page-fault and mmap-lock
# contention between threads); (2) the whole-space exhaustive sweep of
# the hub convolution (4,362 points, 2,746 kernels by code key) from a
# fresh NVRTC cache: wall time, evaluations, compile line.
#
# usage: KTUNE_HUB_DIR=.hub bench/nvrtc_h200.sh [options]
#   --build DIR    the build tree (default build)
#   --kernels K    kernels per scaling row (default 32)
#   --sweep-s S    the sweep's time budget (default 560; 0: no sweep)
#   --no-scaling   the sweep only
#   --work DIR     raw outputs (default a temporary folder, kept; printed)
set -u
DECL=examples/hub/convolution.ini
BUILD=build
KERNELS=32
SWEEP=560
SCALING=1
WORK=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --kernels) KERNELS=$2; shift 2 ;;
    --sweep-s) SWEEP=$2; shift 2 ;;
    --no-scaling) SCALING=0; shift ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "nvrtc_h200.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "${KTUNE_HUB_DIR:-}" ] || { echo "nvrtc_h200.sh: set KTUNE_HUB_DIR" >&2; exit 2; }
K=$BUILD/ktune
B=$BUILD/bench/bench_compile_pool
[ -x "$K" ] && [ -x "$B" ] || { echo "nvrtc_h200.sh: build $K and $B" >&2; exit 2; }
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
steal() { awk '/^cpu /{print $9}' /proc/stat; }
echo "## machine ($(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '-'))"
echo "nproc $(nproc); cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo -)"
lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|CPU max MHz)'
s0=$(steal)
status=0
if [ "$SCALING" = 1 ]; then
    echo "## NVRTC: threads of one process vs processes ($KERNELS random kernels, seed 1)"
    KTUNE_NVRTC_CACHE=off KTUNE_NVRTC_SHARE=off "$B" "$DECL" --sample --seed 1 \
        --kernels "$KERNELS" --threads 1,4,8,16 --procs 4,8,16 || status=1
    echo "## the same, 16 threads, malloc keeping its memory"
    GLIBC_TUNABLES=glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=4294967295:glibc.malloc.top_pad=268435456 \
        KTUNE_NVRTC_CACHE=off KTUNE_NVRTC_SHARE=off "$B" "$DECL" --sample --seed 1 \
        --kernels "$KERNELS" --threads 16 | tail -1 || status=1
    echo "## sharing on (code keys), 16 threads, the first $((2 * KERNELS)) kernels from index 2600"
    KTUNE_NVRTC_CACHE=off "$B" "$DECL" --from 2600 --kernels $((2 * KERNELS)) --threads 16 || status=1
fi
if [ "$SWEEP" != 0 ]; then
    echo "## exhaustive sweep, fresh cache, budget $SWEEP s"
    rm -rf "$WORK/cache"
    t0=$(date +%s.%N)
    KTUNE_CACHE_DIR="$WORK/cache" "$K" tune "$DECL" \
        --set strategy.name=exhaustive --set strategy.max_evals=0 \
        --set strategy.max_seconds="$SWEEP" --set strategy.finalists=1 \
        --journal "$WORK/sweep.jsonl" --json "$WORK/sweep.json" >"$WORK/sweep.txt" 2>&1 || status=1
    t1=$(date +%s.%N)
    grep -E '^(compile|best)' "$WORK/sweep.txt"
    python3 - "$WORK/sweep.json" "$t0" "$t1" "$WORK/cache" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
c = j.get("compile", {})
entries = sum(1 for f in os.listdir(sys.argv[4] + "/nvrtc")) if os.path.isdir(sys.argv[4] + "/nvrtc") else 0
print("sweep: %s evaluations in %.1f s wall (the command); compile %s; cache files %d"
      % (j.get("evaluations"), float(sys.argv[3]) - float(sys.argv[2]),
         json.dumps(c, sort_keys=True), entries))
PY
fi
echo "steal ticks over the run: $(( $(steal) - s0 ))"
echo "raw outputs: $WORK"
exit $status
