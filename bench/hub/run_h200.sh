#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark-hub kernels (convolution, dedispersion, gemm, hotspot; and
# the other declarations under examples/hub, BAT's) on one GPU, ktune and
# Kernel Tuner 1.5.0 side by side in one run (issue 28, parts 4-5):
#   (a) ktune tune DECL --check, from a folder of its own;
#   (b) recordings: convolution's whole space (4,362 points; target <= 300
#       s), dedispersion/gemm/hotspot a uniform random sample (random
#       strategy seed 1, up to 5,000 points each) with the time left; the
#       journals resume across calls (--resume DIR);
#   (c) ktune's default strategy at a 60 s budget on each kernel;
#   (d) Kernel Tuner through the hub's own scripts (cupy backend): the
#       first 100 points of convolution's recording (the same points; its
#       whole sweep extrapolated), the same for gemm and dedispersion
#       (evaluations per second), and its genetic_algorithm at 60 s;
#   (e) every winner re-timed by the neutral harness (bench/hub/neutral.cu:
#       nvcc, the unmodified source with -D defines, events, cold L2,
#       median of 50);
#   (f) ktune profile on each tool's winner.
# Each step is bounded by what is left of --deadline (default 570 s, so a
# call stays under the device tool's 10 minutes) and skipped, with the
# reason, when too little is left; a missing piece (a declaration that
# fails --check, Kernel Tuner, the hub checkout) is reported and skipped.
#
#   OUT=/path KTUNE_HUB_DIR=$HOME/src/benchmark_hub KTUNE_BAT_DIR=$HOME/src/BAT \
#       bash bench/hub/run_h200.sh [--build build] [--deadline 570] \
#       [--resume PREVIOUS_OUT] [--steps check,record,...] [--dry-run] ...
#
# --kt-device 1 on a two-GPU machine: Kernel Tuner's steps on GPU 1 at the
# same time as ktune's on GPU 0 (about 11 minutes for everything but the
# longer samples, against about 20 on one GPU).
# Kernel Tuner's wheels: bench/hub/fetch_wheels.sh puts them in .kt-wheels/
# (git-ignored; carry it), installed here with pip --target /tmp/site.
# --dry-run (no GPU): budgets x 0.02, Kernel Tuner in simulation mode, the
# harness only built; ktune's GPU commands fail at once ("no CUDA device").
# Writes under $OUT: logs/, rec/, default/, kt/, profile/, neutral.json,
# state.json, results.md (bench/hub/results.py), its summary table last.
# Options after the script's name go to bench/hub/run_h200.py (--help).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$PWD/hub-out}"
mkdir -p "$out/logs"
exec > >(tee -a "$out/logs/run_h200.log") 2>&1
start=$(date +%s)

echo "== environment"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
    --format=csv 2>&1 | head -3 || true
command -v nvcc >/dev/null 2>&1 || export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
nvcc --version 2>&1 | tail -1 || true
python3 --version
nproc

echo "== Kernel Tuner"
wheels="${KT_WHEELS:-$root/.kt-wheels}"
site="${KT_SITE:-/tmp/site}"
if python3 -c 'import kernel_tuner' 2>/dev/null; then
    echo "kernel_tuner already importable"
elif ls "$wheels"/*.whl >/dev/null 2>&1; then
    if python3 -m pip install -q --no-index --no-deps --no-compile --upgrade \
        --target "$site" "$wheels"/*.whl; then
        export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    else
        echo "wheel install failed: Kernel Tuner's steps will be reported and skipped"
    fi
else
    echo "no wheels in $wheels (bench/hub/fetch_wheels.sh): Kernel Tuner's steps will be reported and skipped"
fi
python3 -c 'import kernel_tuner, numpy; print("kernel_tuner", kernel_tuner.__version__, "numpy", numpy.__version__)' 2>&1 | tail -1
python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1

echo "== run"
python3 "$root/bench/hub/run_h200.py" --out "$out" "$@"
rc=$?
echo "== done: exit $rc after $(($(date +%s) - start)) s; $out/results.md"
exit $rc
