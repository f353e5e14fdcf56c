# SPDX-License-Identifier: Apache-2.0
# On a GPU: tests/declared/features/features.ini verifies and tunes. Every
# point is checked against the reference at its own `steps` (follows),
# with the weights in constant memory, x read as float4, inputs from a
# distribution, a .npy file and a generator kernel, and the in-out buffer
# restored before each launch (without the restore, the second launch of
# a point would start from the first's answer and fail verification); a
# wrong constant upload or an unrestored in-out makes points mismatch, so
# "0 mismatch" is the test. The point's work follows its steps.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.jsonl
decl=$KT_SOURCE_DIR/tests/declared/features/features.ini
PROTO="--min-time 0.01 --max-time 0.5"

# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" bench features --plugin "$decl" --variant vec \
    --set steps=3 --set vec=4 --set block=64 $PROTO --json bench.json
expect_text "outputs poisoned, every element compared"
python3 - bench.json <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
flops = r["result"]["work"]["flops"]
assert flops == 6 * 4096 * 3, flops
print("per-point work:", flops)
PY

expect_exit 0 "$KTUNE" tune "$decl" --journal tune.jsonl \
    --set strategy.name=exhaustive --set measure.max_time=0.2
if grep -q '"status": *"mismatch"' tune.jsonl; then
    echo "FAIL: a point mismatched its reference"
    failures=$((failures + 1))
fi
finish
