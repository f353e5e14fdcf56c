#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The methodology benchmark's runs on the device machine's 16 cores (no
# package index there): Kernel Tuner 1.5.0's wheels from .kt-wheels/
# (bench/hub/fetch_wheels.sh plus scikit-learn, joblib, threadpoolctl for
# bayes_opt), the 12 cache files as .hub/cachefiles/APP/GPU.json.xz with the
# hub's kernels/ input files and .hub/budgets.json (run.py's budgets, made
# here: bench/methodology/prepare_device.sh). ktune is built there from the
# working tree (Release, the ktune target only) while Kernel Tuner's tasks
# start. Results: $OUT/runs.tar.gz.NN pieces (cat them, then run.py
# --import-runs), $OUT/device.log.
#
#   run(kind=nvidia-h200, carry=[.kt-wheels, .hub], timeout_s=480):
#       bash bench/methodology/device.sh [LAUNCH_UNTIL KILL_AT]
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
launch=${1:-330}
kill_at=${2:-370}
out="${OUT:-/tmp/meth-out}"
w=/tmp/meth
mkdir -p "$out" "$w/hub/kernels"
cd "$root"
nproc; python3 --version
(python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .kt-wheels/*.whl >"$w/pip.log" 2>&1; echo "pip exit $?" >>"$w/pip.log") &
(export PATH=/usr/local/cuda/bin:$PATH
 if cmake -S . -B /tmp/kb -DCMAKE_BUILD_TYPE=Release >"$w/build.log" 2>&1 &&
     cmake --build /tmp/kb --target ktune -j16 >>"$w/build.log" 2>&1 &&
     /tmp/kb/ktune --version >>"$w/build.log" 2>&1; then
     touch /tmp/kb/ktune.ok
 else
     touch /tmp/kb/ktune.failed
 fi) &
build=$!
for f in .hub/cachefiles/*/*.json.xz; do
    d="$w/hub/${f#.hub/}"
    mkdir -p "$(dirname "$d")"
    xz -dc "$f" >"${d%.xz}" &
done
cp -r .hub/kernels/. "$w/hub/kernels/"
wait $(jobs -p | grep -v "^$build\$") 2>/dev/null
sleep 1
cat "$w/pip.log"
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 -c 'import kernel_tuner, sklearn, numpy; print("kernel_tuner", kernel_tuner.__version__, "sklearn", sklearn.__version__, "numpy", numpy.__version__)'
mkdir -p /tmp/kb
python3 bench/methodology/device.py --hub "$w/hub" --budgets .hub/budgets.json \
    --ktune /tmp/kb/ktune --work "$w" --jobs "$(nproc)" \
    --launch-until "$launch" --kill-at "$kill_at"
wait
tail -5 "$w/build.log"
grep -c "^ *[0-9.]* ok" "$w/device.log"
grep -v "^ *[0-9.]* ok" "$w/device.log" | head -40
cp "$w/device.log" "$w/build.log" "$out/"
tar czf - -C "$w" runs device.log | split -b 15m -d - "$out/runs.tar.gz."
ls -l "$out"
