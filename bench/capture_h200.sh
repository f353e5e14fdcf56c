#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/capture_h200.sh: issue 32's H200 checks in one device call (about
# 5 minutes after the build). Run from the repository root after
#   source .devlibs/setup.sh; kt_build ON || exit 3
# with .samples/ carried (NVIDIA cuda-samples' transpose with its Common/
# helpers, and CuPy's examples/gemm: fetched, git-ignored, made by
# bench/capture_samples.sh). bench/capture_debug_h200.sh is the shorter
# run that says why each launch is or is not captured. Everything it writes goes under $OUT (default
# /tmp/capture-h200). For each program nobody here wrote (the transpose
# sample, CuPy's sgemm RawKernel example) and for our CuPy saxpy:
#   ktune timeline   the program's own launches (CUPTI durations)
#   ktune capture    one launch of the kernel, unchanged program
#   ktune bench      the capture re-run at its own geometry, verified
#   ktune tune       the capture over the default geometry rules
# and capture_report.py prints the comparison (3% target) and the tuned
# speed-up with its interval. Then a 1 GiB capture and its refusal beyond
# --limit, a crashing program's exit status, and examples/jit_app compiled
# at run time from saxpy.cu and its wisdom (then from the cache). Lines
# that start with RESULT are the answers.
set -u
OUT=${OUT:-/tmp/capture-h200}
mkdir -p "$OUT"
K=$PWD/build/ktune
W=$OUT/work
rm -rf "$W" && mkdir -p "$W"
S=$PWD/.samples
REPORT="python3 $PWD/bench/capture_report.py"
PROG=$PWD/build/tests/capture/kt_capture_prog
JIT=$PWD/build/tests/select/kt_jit_app
[ -x "$K" ] || { echo "build/ktune missing: kt_build first"; exit 3; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') date $(date -u +%FT%TZ)"

# run NAME SECONDS CMD...: CMD's output in $W/NAME.log, its status said.
run() {
    local name=$1 limit=$2
    shift 2
    timeout "$limit" "$@" >"$W/$name.log" 2>&1
    local rc=$?
    echo "--- $name: exit $rc ($*)"
    tail -n 25 "$W/$name.log"
    return $rc
}

# one LABEL KERNEL_REGEX PROGRAM...: timeline, capture, bench, tune, report.
one() {
    local label=$1 kernel=$2
    shift 2
    run "$label-timeline" 60 "$K" timeline --top 5 --json "$W/$label-tl.json" -- "$@"
    run "$label-capture" 90 "$K" capture --kernel "$kernel" --out "$W/$label-caps" -- "$@"
    local cap
    cap=$(find "$W/$label-caps" -name capture.json 2>/dev/null | sort | head -1)
    [ -n "$cap" ] || { echo "RESULT $label: nothing captured"; return; }
    cap=$(dirname "$cap")
    run "$label-bench" 60 "$K" bench "$cap" --cache hot --json "$W/$label-bench.json"
    run "$label-tune" 100 "$K" tune "$cap" --set measure.cache=hot \
        --set strategy.max_seconds=45 --json "$W/$label-tune.json"
    $REPORT --label "$label" --timeline "$W/$label-tl.json" --kernel "$kernel" \
        --bench "$W/$label-bench.json" --tune "$W/$label-tune.json" |
        sed 's/^/RESULT /'
    du -sh "$cap" | sed 's/^/capture size /'
}

# 1. NVIDIA cuda-samples transpose, built from its own source
#    (bench/capture_samples.sh builds it ahead; else here).
T=$S/transpose/transpose
if [ ! -x "$T" ]; then
    T=$W/transpose
    nvcc -O3 -arch=sm_90 -I"$S/transpose/Common" "$S/transpose/transpose.cu" \
        -o "$T" >"$W/nvcc.log" 2>&1 || cat "$W/nvcc.log"
fi
[ -x "$T" ] &&
    one transpose 'transposeCoalesced' "$T" -dimX=8192 -dimY=8192

# 2. CuPy's examples/gemm (a RawKernel from sgemm.cu), as published.
python3 -c 'import cupy; print("cupy", cupy.__version__)'
one cupy_sgemm '^sgemm$' python3 "$S/cupy_gemm/sgemm.py" --m 4096 --n 4096 --k 4096

# 3. Our minimal CuPy RawKernel program (32 threads per block).
one cupy_saxpy '^saxpy$' python3 "$PWD/bench/capture_cupy_saxpy.py"

# 4. A capture of 1 GiB of arguments (512 MiB in, 512 MiB out), and the
#    same refused beyond --limit 2^29.
run big-capture 120 "$K" capture --kernel copy --out "$W/big" -- "$PROG" big
big=$(ls -d "$W/big"/001-* 2>/dev/null | head -1)
if [ -n "$big" ]; then
    run big-check 30 "$K" capture --check "$big" &&
        echo "RESULT 1 GiB capture: $(grep -o '[0-9]* allocations, [0-9]* bytes' "$W/big-check.log"), on disk $(du -sh "$big" | cut -f1)"
    run big-bench 90 "$K" bench "$big" --cache hot &&
        echo "RESULT 1 GiB capture re-run and verified: $(grep -m1 -i 'verified' "$W/big-bench.log")"
else
    echo "RESULT 1 GiB capture: FAILED (see big-capture above)"
fi
rm -rf "$W/big"
run big-limit 60 "$K" capture --kernel copy --limit 536870912 --out "$W/biglimit" -- "$PROG" big
echo "RESULT beyond the limit: $(grep -m1 'not captured' "$W/big-limit.log")"

# 5. A program that crashes under capture keeps its signal.
run crash 60 "$K" capture --kernel scale_add --out "$W/crash" -- "$PROG" crash
echo "RESULT crash: ktune capture exited $? (the program's SIGSEGV: 139); $(grep -c '^capture ' "$W/crash.log") capture(s) kept"
"$PROG" crash >/dev/null 2>&1
echo "RESULT crash without ktune: exit $?"

# 6. examples/jit_app: the wisdom's configuration compiled at run time.
export KTUNE_SELECT_CACHE=$W/jitcache
for i in 1 2; do
    run "jit$i" 60 "$JIT" "$PWD/examples/jit_app/jit_app.wisdom.jsonl" \
        "$PWD/examples/jit_app/saxpy.cu"
    echo "RESULT jit_app run $i: $(tr '\n' ';' <"$W/jit$i.log")"
done
ls -la "$W/jitcache"

# 7. The GPU tests of this issue.
(cd build && timeout 150 ctest -R 'capture_gpu|jit_app' --output-on-failure) \
    >"$W/ctest.log" 2>&1
echo "RESULT gpu tests: $(grep -E 'tests passed|tests failed' "$W/ctest.log")"
tail -n 30 "$W/ctest.log"
# The small files come back; captures stay on the machine.
find "$W" -name '*.json' -size -20M -exec cp {} "$OUT/" \;
cp "$W"/*.log "$OUT/" 2>/dev/null
exit 0
