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
# --collect keeps it). ktune is built there from the working tree (Release,
# the ktune target only) while Kernel Tuner's tasks start. Results, at most
# 7 files: $OUT/runs.tar.NN pieces (device.py --collect unpacks them),
# $OUT/done-new.txt, $OUT/device.log, $OUT/build.log.
#
#   run(kind=nvidia-h200, timeout_s=600,
#       carry=[.kt-wheels, .meth-wheels, .hub, .meth-state]):
#       bash bench/methodology/device.sh [LAUNCH_UNTIL KILL_AT [SPEED]]
#   then here: python3 bench/methodology/device.py --collect FILES_AT
#       (chunks into .meth-runs/, done lines into .meth-state/done.txt)
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
launch=${1:-420}
kill_at=${2:-500}
speed=${3:-1.0}
out="${OUT:-/tmp/meth-out}"
w=/tmp/meth
rm -rf "$w/runs" "$w/done-new.txt" "$w/device.log"
mkdir -p "$out" "$w/hub/kernels" .meth-state
cd "$root"
nproc; python3 --version
(python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .kt-wheels/*.whl .meth-wheels/*.whl >"$w/pip.log" 2>&1; echo "pip exit $?" >>"$w/pip.log") &
(export PATH=/usr/local/cuda/bin:$PATH
 rm -f /tmp/kb/ktune.ok /tmp/kb/ktune.failed
 if cmake -S . -B /tmp/kb -DCMAKE_BUILD_TYPE=Release >"$w/build.log" 2>&1 &&
     cmake --build /tmp/kb --target ktune -j"$(nproc)" >>"$w/build.log" 2>&1 &&
     /tmp/kb/ktune --version >>"$w/build.log" 2>&1; then
     touch /tmp/kb/ktune.ok
 else
     touch /tmp/kb/ktune.failed
 fi) &
build=$!
for f in .hub/cachefiles/*/*.json.xz; do
    d="$w/hub/${f#.hub/}"
    mkdir -p "$(dirname "$d")"
    [ -s "${d%.xz}" ] || xz -dc "$f" >"${d%.xz}" &
done
cp -r .hub/kernels/. "$w/hub/kernels/"
wait $(jobs -p | grep -v "^$build\$") 2>/dev/null
cat "$w/pip.log"
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 -c 'import kernel_tuner, sklearn, numpy, pymoo, skopt; print("kernel_tuner", kernel_tuner.__version__, "sklearn", sklearn.__version__, "numpy", numpy.__version__, "pymoo", pymoo.__version__, "skopt", skopt.__version__)'
mkdir -p /tmp/kb
python3 bench/methodology/device.py --hub "$w/hub" --budgets .hub/budgets.json \
    --ktune /tmp/kb/ktune --work "$w" --jobs "$(nproc)" \
    --done .meth-state/done.txt --speed "$speed" \
    --launch-until "$launch" --kill-at "$kill_at"
wait
tail -3 "$w/build.log"
touch "$w/done-new.txt"
echo "chunks written: $(wc -l <"$w/done-new.txt")"
grep -v " ok " "$w/device.log" | head -30
python3 bench/methodology/device.py --plan --jobs "$(nproc)" \
    --done <(cat .meth-state/done.txt "$w/done-new.txt" 2>/dev/null) | tail -1
cp "$w/device.log" "$w/build.log" "$w/done-new.txt" "$out/"
mkdir -p "$w/runs"
tar cf - -C "$w" runs done-new.txt | split -b 15m -d - "$out/runs.tar."
ls -l "$out"
