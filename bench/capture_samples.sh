#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bench/capture_samples.sh CUDA_SAMPLES_GIT CUPY_GIT: makes the git-ignored
# .samples/ that bench/capture_h200.sh and bench/capture_debug_h200.sh
# run, from local clones (or bare mirrors) of NVIDIA/cuda-samples and
# cupy/cupy, each at its HEAD, copying only the files the programs need:
#   .samples/transpose/transpose.cu + Common/ helpers (cuda-samples'
#       Samples/6_Performance/transpose), and .samples/transpose/transpose
#       built from them for sm_90 when nvcc is on PATH
#   .samples/cupy_gemm/{sgemm.py,sgemm.cu,utils.py} (CuPy's examples/gemm)
#   .samples/SOURCES: where each came from (repository, commit)
# Third-party code: .samples/ is never committed (.gitignore).
set -eu
cs=${1:?usage: capture_samples.sh CUDA_SAMPLES_GIT CUPY_GIT}
cupy=${2:?usage: capture_samples.sh CUDA_SAMPLES_GIT CUPY_GIT}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.samples

# show GITDIR PATH DEST: one file of GITDIR's HEAD into DEST.
show() {
    git --git-dir="$1" show "HEAD:$2" >"$3"
}
gitdir() { # a clone's .git, or a bare mirror as it is
    if [ -d "$1/.git" ]; then echo "$1/.git"; else echo "$1"; fi
}
cs=$(gitdir "$cs")
cupy=$(gitdir "$cupy")

rm -rf "$out/transpose" "$out/cupy_gemm"
mkdir -p "$out/transpose/Common" "$out/cupy_gemm"
show "$cs" Samples/6_Performance/transpose/transpose.cu "$out/transpose/transpose.cu"
for h in helper_cuda.h helper_functions.h helper_image.h helper_string.h \
    helper_timer.h exception.h; do
    show "$cs" "Common/$h" "$out/transpose/Common/$h"
done
for f in sgemm.py sgemm.cu utils.py; do
    show "$cupy" "examples/gemm/$f" "$out/cupy_gemm/$f"
done
# Built here, so that the GPU machine's call builds nothing (static cudart:
# the binary runs where the driver is).
if command -v nvcc >/dev/null; then
    nvcc -O3 -arch=sm_90 -I"$out/transpose/Common" \
        "$out/transpose/transpose.cu" -o "$out/transpose/transpose"
fi
{
    echo "transpose: NVIDIA/cuda-samples $(git --git-dir="$cs" rev-parse HEAD) Samples/6_Performance/transpose"
    echo "cupy_gemm: cupy/cupy $(git --git-dir="$cupy" rev-parse HEAD) examples/gemm"
} >"$out/SOURCES"
cat "$out/SOURCES"
find "$out" -type f | sort
