#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A declared operator against the same kernels compiled ahead of time, on
# a GPU: the declared transpose (examples/declared_transpose, 56 lines of
# job + kernel) tuned at 4096 x 4096 with a fresh NVRTC cache (every point;
# kernels compiled in the background), re-run with the cache (nothing
# compiled), then one `ktune compare` of tests/declared/transpose_aot:
# naive and tiled compiled by nvcc, tiled_nvrtc by NVRTC, at the
# configurations the declaration's tuning found. Runs in under 60 s (each
# step under its own timeout; typically ~35 s).
# Output: OUT_DIR/DATE-h200-declared-tune.md, the raw outputs in
# OUT_DIR/declared-work/.
#
# usage: bench/declared_transpose.sh [BUILD_DIR] [OUT_DIR]
set -u
BUILD=${1:-build}
OUT_DIR=${2:-docs/results}
O=$OUT_DIR/declared-work
K=$BUILD/ktune
D=examples/declared_transpose/transpose.ini
A=$BUILD/tests/declared/transpose_aot.so
[ -x "$K" ] && [ -f "$A" ] || {
    echo "no $K or $A; build ktune and transpose_aot first" >&2
    exit 2
}
mkdir -p "$O"
SZ="--set job.rows=4096 --set job.cols=4096"
# A fresh cache of its own, outside OUT_DIR (compiled kernels are not
# results); how many entries it holds is.
KTUNE_CACHE_DIR=$(mktemp -d)
export KTUNE_CACHE_DIR
trap 'rm -rf "$KTUNE_CACHE_DIR"' EXIT
: >"$O/times.txt"
run() { # name, timeout, command...
    local name=$1 limit=$2
    shift 2
    local t0
    t0=$(date +%s%N)
    timeout "$limit" "$@" >"$O/$name.txt" 2>&1
    local rc=$?
    local cmd="$*"
    printf '%-12s rc=%-3s %6d ms  %3d cache entries after  %s\n' "$name" \
        "$rc" $((($(date +%s%N) - t0) / 1000000)) \
        "$(ls "$KTUNE_CACHE_DIR/nvrtc" 2>/dev/null | wc -l)" \
        "${cmd//$O/declared-work}" >>"$O/times.txt"
}
# 1. the declaration, every point (45), fresh cache: each kernel compiled
#    once, in the background while earlier points are measured
run decl_tune 30 $K tune $D $SZ --set strategy.max_seconds=20 \
    --journal "$O/decl.jsonl" --json "$O/decl.json" --t4 "$O/decl_t4.json"
# 2. again with the cache, six tiled points: nothing compiled
run decl_cached 9 $K tune $D $SZ --set space.variant=tiled \
    --set strategy.max_evals=6 --journal none
# 3. the fastest verified point of each variant in the declaration's journal
best() { # variant -> "k=v,k=v" of its lowest median
    python3 - "$O/decl.jsonl" "$1" <<'PY' 2>/dev/null
import json, sys
best = None
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    pt = r.get("point") or {}
    if r.get("status") != "ok" or pt.get("variant") != sys.argv[2]:
        continue
    med = r["timing"]["kernel"]["median"]
    if best is None or med < best[0]:
        best = (med, pt["params"])
if best:
    print(",".join("%s=%s" % kv for kv in best[1].items()))
PY
}
N=$(best naive)
T=$(best tiled)
[ -n "$N" ] || N="bx=32,by=8"
[ -n "$T" ] || T="tile=32,pad=1,rows_per=8"
echo "declared best: naive $N; tiled $T" >"$O/best.txt"
# 4. side by side in one compare: ahead of time vs NVRTC, same kernels
run compare 16 $K compare transpose_aot:transpose --plugin "$A" \
    --size rows=4096 --size cols=4096 --variants naive,tiled,tiled_nvrtc \
    --config "naive:$N" --config "tiled:$T" --config "tiled_nvrtc:$T" \
    --max-time 2 --json "$O/compare.json"
R=$OUT_DIR/$(date -u +%Y-%m-%d)-h200-declared-tune.md
{
    echo "# A declared operator tuned on the H200: transpose from 56 lines"
    echo
    echo "Commit $(git rev-parse --short HEAD 2>/dev/null), $(date -u +%FT%TZ)," \
        "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)."
    echo "Produced by \`bench/declared_transpose.sh\`: the"
    echo "declaration examples/declared_transpose (transpose.cu 27 lines +"
    echo "transpose.ini 29 lines) tuned at 4096 x 4096 with a fresh NVRTC cache,"
    echo "re-run with the cache, then the same kernels compiled ahead of time"
    echo "(tests/declared/transpose_aot) compared with the kernel NVRTC compiles"
    echo "at the configurations the declaration's tuning found ($(cat "$O/best.txt"))."
    echo
    echo '```'
    cat "$O/times.txt"
    echo '```'
    for f in decl_tune decl_cached compare; do
        echo
        echo "## $f"
        echo
        echo '```'
        grep -v "^ktune: warning: plugin left" "$O/$f.txt"
        echo '```'
    done
} >"$R"
cat "$O/times.txt" "$O/best.txt"
grep -h "compiled .* kernel" "$O/decl_tune.txt" "$O/decl_cached.txt"
grep -A6 "^| variant" "$O/compare.txt" | head -8
