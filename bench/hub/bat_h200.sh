#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# BAT's kernels that examples/hub declares beyond the hub's four and the
# first three (pnpoly, nbody, triad), live on one GPU: MD5Hash, BAT's GEMM
# and expdist (two kernels per evaluation), each from its unmodified
# source in KTUNE_BAT_DIR with its full space and verification.
#   check:K    ktune tune examples/hub/K.ini --check (the space's count)
#   record:K   the whole space, random strategy seed 1 (a uniform
#              permutation, every point verified and measured once), for
#              tests/data (expdist: 96 points)
#   default:K  the default strategy at a 60 s budget
#   hubgemm    the benchmark hub's gemm default at 60 s, seed 1 (the
#              session-18 protocol: fresh caches, CUDA_CACHE_DISABLE=1)
# Each step is bounded by `timeout`; every step runs with fresh ktune
# caches and CUDA_CACHE_DISABLE=1 (NVRTC's own cache off).
#
#   KTUNE_BAT_DIR=.bat KTUNE_HUB_DIR=.hub OUT=/path \
#       bash bench/hub/bat_h200.sh [--build build] STEP ...
#
# Runtime on a 16-core H100 machine (session 20, docs/results/
# 2026-12-07-h100-session20-bat.md): check:* under 10 s each (expdist's
# four CUB compiles 9 s), record:expdist 38 s, each default:* and hubgemm
# 47-80 s (60 s of search, the closing round, the start; expdist's whole
# space ends sooner). Writes $OUT/bat/{logs,rec,default}/ and
# $OUT/bat/steps.tsv (step, exit code, milliseconds, command), tarred to
# $OUT/bat.tgz, for a results page under docs/results. A recording is
# named after the card it ran on (rec/K-h200.jsonl, rec/K-h100.jsonl, as
# tests/data names them): the GPU kinds may serve one for the other.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
build=$root/build
if [ "${1:-}" = "--build" ]; then
    build=$2
    shift 2
fi
: "${KTUNE_BAT_DIR:?point KTUNE_BAT_DIR at a checkout of NTNU-HPC-Lab/BAT}"
out=${OUT:-$PWD/bat-out}/bat
mkdir -p "$out/logs" "$out/rec" "$out/default"
export CUDA_CACHE_DISABLE=1
ktune=$build/ktune
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null |
    head -1 | awk '{print tolower($2)}')
gpu=${gpu:-gpu}

# step NAME SECONDS CMD...: runs CMD under timeout with a fresh ktune cache,
# its output in logs/NAME.log, one line in steps.tsv.
step() {
    local name=$1 limit=$2 t0 rc
    shift 2
    t0=$(date +%s%N)
    KTUNE_CACHE_DIR=$(mktemp -d) timeout "$limit" "$@" \
        >"$out/logs/${name//:/_}.log" 2>&1
    rc=$?
    printf '%s\t%s\t%s\t%s\n' "$name" "$rc" \
        "$((($(date +%s%N) - t0) / 1000000))" "$*" >>"$out/steps.tsv"
    tail -3 "$out/logs/${name//:/_}.log"
    echo "== $name: exit $rc"
}

for s in "$@"; do
    k=${s#*:}
    decl=$root/examples/hub/$k.ini
    case $s in
    check:*) step "$s" 120 "$ktune" tune "$decl" --check ;;
    record:*)
        step "$s" 400 "$ktune" tune "$decl" --quiet \
            --set strategy.name=random --set strategy.seed=1 \
            --set strategy.max_seconds=380 --set strategy.finalists=1 \
            --journal "$out/rec/$k-$gpu.jsonl" --json "$out/rec/$k-$gpu.json"
        gzip -9kf "$out/rec/$k-$gpu.jsonl"
        ;;
    default:*)
        step "$s" 150 "$ktune" tune "$decl" --set strategy.max_seconds=60 \
            --journal "$out/default/$k.jsonl" --json "$out/default/$k.json"
        ;;
    hubgemm)
        : "${KTUNE_HUB_DIR:?hubgemm needs KTUNE_HUB_DIR}"
        step "$s" 150 "$ktune" tune "$root/examples/hub/gemm.ini" \
            --set strategy.seed=1 --set strategy.max_seconds=60 --quiet \
            --journal "$out/default/hub_gemm.jsonl" \
            --json "$out/default/hub_gemm.json"
        ;;
    *) echo "unknown step '$s'" >&2 ;;
    esac
done
tar -C "$out/.." -czf "$out/../bat.tgz" bat
