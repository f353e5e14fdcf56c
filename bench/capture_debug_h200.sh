#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/capture_debug_h200.sh: why `ktune capture` takes or misses each
# launch, on a GPU, in one device call of under four minutes. Builds no
# ktune (run it after `source .devlibs/setup.sh; kt_build ON`); carries
# .samples/ (bench/capture_samples.sh makes it: the cuda-samples transpose,
# prebuilt there, and CuPy's examples/gemm). Runs, each under
# `ktune capture --verbose` (every launch callback on stderr: callback
# domain and id, mangled and demangled name, grid, block, and why it was
# or was not taken):
#   prog       tests' kt_capture_prog (runtime <<< >>> launches), --kernel
#              '^scale_add$' (the base name), then `capture --check` and
#              `bench` of the capture (re-run and verified)
#   prog-all   the same program, every kernel's first launch
#   prog-eager the same with CUDA_MODULE_LOADING=EAGER (lazy loading ruled
#              in or out)
#   graph, managed   the refusals, said by name
#   transpose  NVIDIA cuda-samples' transpose, --kernel transposeCoalesced
#   saxpy      our CuPy RawKernel program (driver cuLaunchKernel)
#   sgemm      CuPy's examples/gemm, as published
# then the GPU test capture_gpu_test_program. Logs go to $OUT (default
# /tmp/capture-debug); the captures themselves stay in a work folder
# outside it. The last lines are a table: case, exit status, captures
# written, refusals, launch callbacks seen, bench verdict, first reason.
set -u
OUT=${OUT:-/tmp/capture-debug}
mkdir -p "$OUT"
ROOT=$PWD
K=$ROOT/build/ktune
PROG=$ROOT/build/tests/capture/kt_capture_prog
S=$ROOT/.samples
W=${CAPTURE_DEBUG_WORK:-/tmp/capture-debug-work}
rm -rf "$W" && mkdir -p "$W"
BUDGET=${CAPTURE_DEBUG_BUDGET:-210} # seconds; later cases are skipped
ROWS=$OUT/table.txt
: >"$ROWS"
[ -x "$K" ] || { echo "build/ktune missing: kt_build first"; exit 3; }

{
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') date $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-unset (LAZY)}"
    echo "capture library: $(ls -l "$ROOT/build/libktune_capture.so" 2>&1)"
    ldd "$ROOT/build/libktune_capture.so" | grep -E 'cupti|cuda|not found'
    python3 -c 'import cupy; print("cupy", cupy.__version__, "runtime", cupy.cuda.runtime.runtimeGetVersion(), "driver", cupy.cuda.runtime.driverGetVersion())' 2>&1 | tail -1
    cat "$S/SOURCES" 2>/dev/null || echo ".samples/SOURCES missing"
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# row CASE EXIT LOG CAPS BENCH: one line of the table.
row() {
    local log=$3 caps=$4 bench=$5 n r cbs why
    n=$(find "$caps" -name capture.json 2>/dev/null | wc -l)
    r=$(grep -c 'not captured:\|capture failed:' "$log")
    cbs=$(grep -cE 'ktune capture \[[0-9]+\]: (runtime|driver) ' "$log")
    why=$(grep -m1 -E 'not captured:|capture failed:|no launch matched|saw no kernel launch|made no CUDA call' "$log" | sed -e 's/^ktune capture: //' -e "s|$ROOT/||g" | cut -c1-90)
    printf '%-10s %4s %8s %7s %9s %-9s %s\n' "$1" "$2" "$n" "$r" "$cbs" \
        "$bench" "${why:--}" >>"$ROWS"
}

# one CASE SECONDS KTUNE-CAPTURE-ARGS... -- PROGRAM...: capture under
# --verbose, then check and bench the first capture (BENCH=0: not).
one() {
    local name=$1 limit=$2 rc bench=- cap
    shift 2
    if [ "$SECONDS" -ge "$BUDGET" ]; then
        printf '%-10s skipped: %ss budget spent\n' "$name" "$BUDGET" >>"$ROWS"
        return
    fi
    timeout "$limit" "$K" capture --verbose --out "$W/$name" "$@" \
        >"$OUT/$name.log" 2>&1
    rc=$?
    echo "--- $name: exit $rc ($SECONDS s)"
    grep -vE 'ktune capture \[[0-9]+\]: (runtime|driver) ' "$OUT/$name.log" | tail -n 12
    grep -m3 -E 'ktune capture \[[0-9]+\]: (runtime|driver) ' "$OUT/$name.log"
    cap=$(dirname "$(find "$W/$name" -name capture.json 2>/dev/null | sort | head -1)")
    if [ "${BENCH:-1}" = 1 ] && [ -n "$cap" ] && [ -f "$cap/capture.json" ]; then
        cp "$cap/capture.json" "$OUT/$name.capture.json"
        "$K" capture --check "$cap" >"$OUT/$name.check.log" 2>&1
        timeout 40 "$K" bench "$cap" --cache hot --max-time 3 \
            >"$OUT/$name.bench.log" 2>&1
        bench="exit$?"
        grep -qi 'verified' "$OUT/$name.bench.log" && bench=verified
        tail -n 4 "$OUT/$name.bench.log"
    fi
    row "$name" "$rc" "$OUT/$name.log" "$W/$name" "$bench"
}

one prog 40 --kernel '^scale_add$' -- "$PROG" add
BENCH=0 one prog-all 40 -- "$PROG" add
BENCH=0 CUDA_MODULE_LOADING=EAGER one prog-eager 40 --kernel scale_add -- "$PROG" add
one graph 30 -- "$PROG" graph
one managed 30 --kernel scale_add -- "$PROG" managed
if [ ! -x "$S/transpose/transpose" ] && [ -f "$S/transpose/transpose.cu" ]; then
    echo "building the transpose sample (bench/capture_samples.sh builds it ahead)"
    mkdir -p "$W/bin"
    nvcc -O3 -arch=sm_90 -I"$S/transpose/Common" "$S/transpose/transpose.cu" \
        -o "$W/bin/transpose" >"$OUT/nvcc.log" 2>&1 && T=$W/bin/transpose
else
    T=$S/transpose/transpose
fi
if [ -x "${T:-}" ]; then
    one transpose 60 --kernel transposeCoalesced -- "$T"
else
    printf '%-10s missing: .samples/transpose (bench/capture_samples.sh)\n' transpose >>"$ROWS"
fi
one saxpy 60 --kernel '^saxpy$' -- python3 "$ROOT/bench/capture_cupy_saxpy.py"
if [ -f "$S/cupy_gemm/sgemm.py" ]; then
    one sgemm 60 --kernel '^sgemm$' -- python3 "$S/cupy_gemm/sgemm.py" \
        --m 1024 --n 1024 --k 1024
else
    printf '%-10s missing: .samples/cupy_gemm (bench/capture_samples.sh)\n' sgemm >>"$ROWS"
fi
if [ "$SECONDS" -lt "$BUDGET" ]; then
    (cd build && timeout $((BUDGET + 20 - SECONDS)) ctest -R capture_gpu_test_program \
        --output-on-failure) >"$OUT/ctest.log" 2>&1
    echo "ctest capture_gpu_test_program: $(grep -E "tests passed|tests failed|Skipped|Not Run" "$OUT/ctest.log" | tr "\n" " ")"
    grep -m8 'FAIL' "$OUT/ctest.log"
fi
rm -rf "$W"
echo
printf '%-10s %4s %8s %7s %9s %-9s %s\n' case exit captures refused callbacks bench \
    "first reason"
cat "$ROWS"
echo "($SECONDS s; logs in $OUT)"
