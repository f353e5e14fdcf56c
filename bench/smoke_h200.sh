#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/smoke_h200.sh BUILD: two minutes of the GPU paths, read side only,
# from a build made elsewhere and carried (no compiler needed on the GPU
# machine), for a session with little device time. Each step is
# time-boxed and writes $OUT/smoke.log as it goes, so a cut-short call
# still says what ran. The GPU's settings are read before and after and
# must be equal; nothing here lists a clock or power setting.
#   1. ktune bench vector_add:add and gemv:ax: energy per launch, power
#   2. an endless kernel given to bench: its whole cost against the stated
#      per-point limit (tests/gpu/test_gpu_endless_bench.sh)
#   3. ktune capture of tests' kt_capture_prog (<<< >>> launches), its
#      check and its bench, verified against the captured output
#   4. ktune tune vector_add with objective = energy, a short budget
set -u
b=$(cd "${1:-build}" && pwd)
OUT=${OUT:-/tmp/smoke-h200}
mkdir -p "$OUT"
log=$OUT/smoke.log
K=$b/ktune
exec > >(tee -a "$log") 2>&1
settings() {
    nvidia-smi -i 0 --format=csv,noheader --query-gpu=power.limit,clocks.applications.graphics,clocks.applications.memory,clocks.max.sm
}
step() {
    local name=$1 limit=$2
    shift 2
    local t0 rc
    t0=$(date +%s%3N)
    timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
    rc=$?
    echo "STEP $name: exit $rc, $(($(date +%s%3N) - t0)) ms"
    tail -n 12 "$OUT/$name.txt"
}
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(settings)
echo "settings before: $before"
export KTUNE_NVML_RESTORE=$OUT/nvml-restore.must-not-exist
export KTUNE_CACHE_DIR=$OUT/cache
step va-bench 30 "$K" bench vector_add:add --json "$OUT/va-bench.json"
step gemv-bench 40 "$K" bench gemv:ax --json "$OUT/gemv-bench.json"
src=$PWD
mkdir -p "$OUT/endless-work"
(cd "$OUT/endless-work" &&
    KT_SOURCE_DIR=$src KTUNE=$K KT_FIXTURES=$b/tests/fixtures KT_HAS_GPU=true \
        step endless 60 bash "$src/tests/gpu/test_gpu_endless_bench.sh")
step capture 40 "$K" capture --verbose --kernel '^scale_add$' \
    --out "$OUT/caps" -- "$b/tests/capture/kt_capture_prog" add
cap=$(ls -d "$OUT/caps"/001-* 2>/dev/null | head -1)
if [ -n "$cap" ]; then
    step capture-check 20 "$K" capture --check "$cap"
    step capture-bench 40 "$K" bench "$cap" --cache hot
else
    echo "STEP capture: nothing captured"
fi
step va-energy 50 "$K" tune configs/vector_add.ini --set strategy.objective=energy \
    --set strategy.max_seconds=20 --json "$OUT/va-energy.json" --journal none
after=$(settings)
echo "settings after:  $after"
[ "$before" = "$after" ] && echo "RESULT settings unchanged" || echo "RESULT settings CHANGED"
[ -e "$KTUNE_NVML_RESTORE" ] && echo "RESULT a restore file appeared" || echo "RESULT no restore file"
rm -rf "$OUT/cache" "$OUT/caps" "$OUT/endless-work"
