#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One call of the methodology benchmark's runs on the device machine's cores
# (no package index there): Kernel Tuner 1.5.0's wheels from .kt-wheels/
# (bench/hub/fetch_wheels.sh) and .meth-wheels/ (pymoo and scikit-optimize
# with what they import that the machine lacks:
# bench/methodology/fetch_wheels.sh); the 12 cache files as
# .hub/cachefiles/APP/GPU.json.xz with the hub's kernels/ input files and
# .hub/budgets.json (bench/methodology/prepare_device.sh makes them);
# .meth-state/done.txt, the chunks earlier calls returned (device.py
# --collect keeps it); .devlibs/ (tools/devlibs: jansson, iniparser, which
# the machine lacks). ktune is built there from the working tree (Release,
# the ktune target only) first, while the wheels install. Results, at most
# 7 files: $OUT/runs.tar.NN pieces (device.py --collect unpacks them),
# $OUT/done-new.txt, $OUT/device.log, $OUT/build.log.
#
#   run(kind=nvidia-h200, timeout_s=600,
#       carry=[.kt-wheels, .meth-wheels, .hub, .meth-state, .devlibs]):
#       bash bench/methodology/device.sh [LAUNCH_UNTIL KILL_AT SPEED [ARGS]]
#   (ARGS: more device.py options, e.g. --gpus A100,A4000 for the tuning
#   set first)
#   then here: python3 bench/methodology/device.py --collect FILES_AT
#       (chunks into .meth-runs/, done lines into .meth-state/done.txt)
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
launch=${1:-420}
kill_at=${2:-500}
speed=${3:-1.0}
shift $(($# < 3 ? $# : 3))
out="${OUT:-/tmp/meth-out}"
w=/tmp/meth
rm -rf "$w/runs" "$w/done-new.txt" "$w/device.log"
mkdir -p "$out" "$w/hub/kernels" .meth-state
cd "$root"
nproc; python3 --version
(python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site .kt-wheels/*.whl .meth-wheels/*.whl >"$w/pip.log" 2>&1; echo "pip exit $?" >>"$w/pip.log") &
. bench/methodology/build_ktune.sh  # .devlibs on the paths, kt_meth_build
(rm -f /tmp/kb/ktune.ok /tmp/kb/ktune.failed
 if kt_meth_build /tmp/kb "$w/build.log"; then
     touch /tmp/kb/ktune.ok
 else
     touch /tmp/kb/ktune.failed
 fi) &
for f in .hub/cachefiles/*/*.json.xz; do
    d="$w/hub/${f#.hub/}"
    mkdir -p "$(dirname "$d")"
    [ -s "${d%.xz}" ] || xz -dc "$f" >"${d%.xz}" &
done
cp -r .hub/kernels/. "$w/hub/kernels/"
# Everything waits for the build: Kernel Tuner counts its own wall time
# against the time limit, so its runs must not share the cores with the
# compiler (a warm machine's build is incremental, seconds).
wait
cat "$w/pip.log"
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
# One worker a core, one thread a worker: Kernel Tuner's wall time counts
# against its limit, and NumPy's BLAS would start a thread per core in each.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 -c 'import kernel_tuner, sklearn, numpy, pymoo, skopt; print("kernel_tuner", kernel_tuner.__version__, "sklearn", sklearn.__version__, "numpy", numpy.__version__, "pymoo", pymoo.__version__, "skopt", skopt.__version__)'
mkdir -p /tmp/kb
python3 bench/methodology/device.py --hub "$w/hub" --budgets .hub/budgets.json \
    --ktune /tmp/kb/ktune --work "$w" --jobs "$(nproc)" \
    --done .meth-state/done.txt --speed "$speed" \
    --launch-until "$launch" --kill-at "$kill_at" "$@"
tail -3 "$w/build.log"
touch "$w/done-new.txt"
echo "chunks written: $(wc -l <"$w/done-new.txt")"
grep -v " ok " "$w/device.log" | head -30
python3 bench/methodology/device.py --plan --jobs "$(nproc)" "$@" \
    --done <(cat .meth-state/done.txt "$w/done-new.txt" 2>/dev/null) | tail -1
cp "$w/device.log" "$w/build.log" "$w/done-new.txt" "$out/"
mkdir -p "$w/runs"
tar cf - -C "$w" runs done-new.txt | split -b 15m -d - "$out/runs.tar."
ls -l "$out"
