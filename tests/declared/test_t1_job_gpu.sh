# SPDX-License-Identifier: Apache-2.0
# On a GPU: a T1 file runs as a whole job, as `kernel_tuner FILE.json`
# runs it, and every configuration verifies against the kernel at the
# file's Default: our own scale.json (its Search, brute_force, and Budget,
# 20 evaluations: all 11 points, none mismatched) with --kt-cache, which
# Kernel Tuner 1.5.0's simulation mode then reads to ktune's answer (or a
# configuration ktune found statistically tied with it, or the one the run
# named where its closing round drifted below what the search measured;
# that part skipped with a note where Kernel Tuner cannot be
# pip-installed); then, with a
# checkout of the hub (KTUNE_HUB_DIR), the hub's convolution T1 file
# directly, 40 evaluations, none mismatched.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.jsonl ./*.cu
cp "$KT_SOURCE_DIR/tests/declared/t1job/scale.json" \
    "$KT_SOURCE_DIR/tests/declared/t1job/scale.cu" .

# no_mismatch JOURNAL OKS: every evaluation verified, OKS of them timed.
no_mismatch() {
    python3 - "$1" "$2" <<'PY' || fail "$1"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
evals = [r for r in recs if r.get("kind") == "eval" and r.get("purpose") == "measure"]
bad = [r for r in evals if r["status"] == "mismatch"]
assert not bad, bad[:2]
ok = {json.dumps(r["point"], sort_keys=True) for r in evals if r["status"] == "ok"}
assert len(ok) >= int(sys.argv[2]), (len(ok), sys.argv[2])
print(len(evals), "evaluations,", len(ok), "configurations verified and timed")
PY
}

expect_exit 0 "$KTUNE" tune scale.json --journal scale.jsonl \
    --kt-cache scale.cache.json --json scale.summary.json \
    --set measure.max_time=0.2
expect_text "strategy brute_force -> exhaustive"
expect_text "best "
printf '%s\n' "$out" >scale.out
no_mismatch scale.jsonl 11
python3 - <<'PY' || fail "the live cache"
import json
c = json.load(open("scale.cache.json"))
assert c["kernel_name"] == "scale", c["kernel_name"]
assert c["problem_size"] == [1000] and c["tune_params_keys"] == ["block_size_x", "items"]
assert len(c["cache"]) >= 11, len(c["cache"])  # 12 with the point its Condition refuses
PY
(
    . "$KT_SOURCE_DIR/tests/tuner/kt_venv.sh"
    "$py" "$KT_SOURCE_DIR/tests/tuner/kt_simulate.py" scale.cache.json \
        scale.summary.json ties scale.out
)
rc=$?
if [ $rc -eq 77 ]; then
    echo "Kernel Tuner's simulation mode not run (the note above says why)"
elif [ $rc -ne 0 ]; then
    fail "Kernel Tuner's simulation mode on the live cache"
fi

if [ -n "${KTUNE_HUB_DIR:-}" ]; then
    expect_exit 0 "$KTUNE" tune "$KTUNE_HUB_DIR/kernels/convolution_milo.json" \
        --journal conv.jsonl --json conv.json --set strategy.max_evals=40
    expect_text "best "
    no_mismatch conv.jsonl 10
else
    echo "KTUNE_HUB_DIR not set: the hub's convolution T1 file not run"
fi
finish
