# SPDX-License-Identifier: Apache-2.0
# On a GPU: a tuning run over kernels that fault, never terminate, compute
# wrong results or cannot launch finishes, records each of those points with
# its reason, measures every other point, and answers with the one that is
# right.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
rm -f ./*.json ./*.jsonl
cat > faults.ini <<'INI'
[job]
operator = gpu_faults:twice
n = 100000
[space]
variant = correct, skips_last, wrong_one, refused, out_of_bounds, endless
block = 128, 256
[strategy]
name = exhaustive
[measure]
min_time = 0
max_time = 1
timeout = 3
INI
KTUNE_PLUGIN_PATH="$KT_FIXTURES/gpu_faults.so" \
    expect_exit 0 "$KTUNE" tune faults.ini --journal faults.jsonl \
    --json faults.json
expect_text "best "
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("faults.json"))
assert s["best"]["variant"] == "correct", s["best"]
seen = {}
for x in s["invalid"]:
    seen.setdefault(x["variant"], set()).add(x["status"])
print("invalid:", seen)
assert seen.get("out_of_bounds") == {"execution-error"}, seen
assert seen.get("endless") == {"timeout"}, seen
assert seen.get("skips_last") == {"mismatch"}, seen
assert seen.get("wrong_one") == {"mismatch"}, seen
assert seen.get("refused") == {"invalid"}, seen
# Both correct points were verified and timed despite the crashes between.
assert s["measured"] >= 2, s["measured"]
PY
finish
