# SPDX-License-Identifier: Apache-2.0
# The default search on the H200 ground-truth recordings, as the shipped
# jobs run it: on every gemv and reduce recording the answer is within 2% of
# the recorded optimum (three seeds each, the job's own evaluation budget),
# and on gemv:atx 65536x4096, where cuBLAS beats vec4 at vec4's defaults,
# the answer is still a tuned vec4 (cuBLAS loses to it there), not cuBLAS.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

DATA=$KT_SOURCE_DIR/tests/data
CFG=$KT_SOURCE_DIR/configs
rm -f ./*.json

for rec in gemv_ax-h200-m16384-n16384 gemv_ax-h200-m65536-n4096 \
    gemv_atx-h200-m16384-n16384 gemv_atx-h200-m65536-n4096 \
    reduce-h200-n268435456; do
    ini=$CFG/${rec%%-h200-*}.ini
    for seed in 1 2 3; do
        expect_exit 0 "$KTUNE" tune "$ini" --replay "$DATA/$rec.jsonl.gz" \
            --journal none --quiet --set strategy.seed=$seed \
            --set strategy.max_seconds=0 --json "$rec-$seed.json"
    done
done
python3 - <<'PY' || fail "an answer is more than 2% off the recorded optimum"
import glob, json
bad = []
for path in sorted(glob.glob("*-[0-9].json")):
    s = json.load(open(path))
    ratio = s["replay"]["best_vs_optimum"]
    print("%s: %s %+.2f%%" % (path, s["best"]["config"], 100 * (ratio - 1)))
    if ratio > 1.02:
        bad.append(path)
assert not bad, bad
PY
python3 - "$DATA/gemv_atx-h200-m65536-n4096.jsonl.gz" <<'PY' ||
import gzip, json, sys
# The premise: at vec4's declared defaults (plugins/gemv/gemv.cu) cuBLAS is
# faster.
t = {}
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        r = json.loads(line)
        if r.get("kind") == "eval" and r.get("status") == "ok":
            p = r["point"]
            t[(p["variant"], tuple(sorted(p["params"].items())))] = \
                r["timing"]["kernel"]["median"]
cublas = t[("cublas", ())]
defaults = [v for (var, ps), v in t.items() if var == "vec4" and
            dict(ps) == {"block": 256, "col_threads": 64, "unroll": 4,
                         "split": 16, "cache": "default",
                         "schedule": "occupancy"}]
assert defaults and defaults[0] > cublas, (defaults, cublas)
PY
    fail "the premise: cuBLAS is not faster than vec4 at its defaults"
for seed in 1 2 3; do
    python3 -c 'import json,sys; s = json.load(open(sys.argv[1])); sys.exit(s["best"]["variant"] == "cublas")' \
        "gemv_atx-h200-m65536-n4096-$seed.json" ||
        fail "seed $seed: the reference fastest at the defaults ended the search"
done
finish
