#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One call of orders_device.py on the device machine's cores (no GPU used):
# Kernel Tuner 1.5.0's five best strategies and ktune's on the evaluation
# files in every ordering of the value lists, 20 repeats. Needs, carried:
# .kt-wheels/ (bench/hub/fetch_wheels.sh), .hub/ with
# cachefiles/APP/GPU.json.xz and budgets.json (prepare_device.sh) and the
# hub's kernels/, .meth-state/orders-done.txt where an earlier call
# returned chunks, and .devlibs/. Results: $OUT/orders.tar.NN pieces (the
# chunks, W/done-new.txt), $OUT/orders.log, $OUT/build.log.
#
#   run(timeout_s=480, carry=[".kt-wheels", ".hub", ".meth-state", ".devlibs"]):
#       bash bench/methodology/orders_device.sh [KILL_AT [SPEED [ARGS]]]
#   then here: bash bench/methodology/orders_score.sh FILES_AT
# KILL_AT (default 400): no chunk starts that its estimate would end past,
# and one still running then is stopped (left for the next call); SPEED
# (default 0.8): this machine's seconds per estimated CPU-second (the
# call's orders.log gives each chunk's seconds beside its estimate); ARGS:
# more orders_device.py options (--slow-repeats 3 on 16 cores: bayes_opt
# on dedispersion/W6600 is about 200 CPU-s a repeat).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
kill_at=${1:-400}
speed=${2:-0.8}
shift $(($# < 2 ? $# : 2))
out="${OUT:-/tmp/orders-out}"
hub="${KT_ORDERS_HUB:-.hub}"  # another folder of the same shape, for a trial
w=/tmp/meth-orders
rm -rf "$w"/*/runs "$w/done-new.txt" "$w/orders.log"
mkdir -p "$out" "$w" /tmp/kb .meth-state
cd "$root"
echo "cores $(nproc); $(python3 --version)"
(python3 -m pip install -q --no-index --no-deps --no-compile --upgrade \
    --target /tmp/site .kt-wheels/*.whl >"$w/pip.log" 2>&1
 echo "pip exit $?" >>"$w/pip.log") &
# ktune: the warm machine's build/ when it has one (brought up to date),
# else the ktune target alone from this tree (Release). Everything waits for it: Kernel Tuner
# counts its own wall time against the limit, so its runs must not share
# the cores with the compiler.
. bench/methodology/build_ktune.sh  # .devlibs on the paths, kt_meth_build
rm -f /tmp/kb/ktune
if [[ " $* " == *" --ktune-strategies none "* ]]; then
    echo "no ktune strategy asked: no build" >"$w/build.log"
elif [ -f build/CMakeCache.txt ] &&
    PATH=/usr/local/cuda/bin:$PATH cmake --build build --target ktune -j"$(nproc)" >"$w/build.log" 2>&1 &&
    build/ktune --version >>"$w/build.log" 2>&1; then
    ln -s "$root/build/ktune" /tmp/kb/ktune  # the warm machine's build, brought up to date
else
    (kt_meth_build /tmp/kb "$w/build.log" ||
         { echo "ktune build FAILED: ktune's tasks will not run"; rm -f /tmp/kb/ktune; }) &
fi
for f in "$hub"/cachefiles/*/*.json.xz; do
    d="$w/hub-original/${f#"$hub"/}"
    mkdir -p "$(dirname "$d")"
    [ -s "${d%.xz}" ] || { xz -dc "$f" >"${d%.xz}.part" && mv "${d%.xz}.part" "${d%.xz}"; } &
done
wait
cat "$w/pip.log"
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
# One worker a core, one thread a worker: Kernel Tuner's wall time counts
# against its limit.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 -c 'import kernel_tuner, sklearn, numpy; print("kernel_tuner", kernel_tuner.__version__, "sklearn", sklearn.__version__, "numpy", numpy.__version__)'
python3 bench/methodology/orders_device.py --hub "$hub" --budgets "$hub/budgets.json" \
    --ktune /tmp/kb/ktune --work "$w" --jobs "$(nproc)" \
    --done .meth-state/orders-done.txt --kill-at "$kill_at" --speed "$speed" "$@"
wait
tail -3 "$w/build.log"
touch "$w/done-new.txt"
echo "chunks written: $(wc -l <"$w/done-new.txt")"
grep -v " ok " "$w/orders.log" | head -30
python3 bench/methodology/orders_device.py --plan --jobs "$(nproc)" \
    --kill-at "$kill_at" "$@" \
    --done <(cat .meth-state/orders-done.txt "$w/done-new.txt" 2>/dev/null) | tail -1
cp "$w/orders.log" "$w/build.log" "$out/"
(cd "$w" && tar cf - done-new.txt */runs 2>/dev/null) | split -b 15m -d - "$out/orders.tar."
ls -l "$out"
