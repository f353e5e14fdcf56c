# SPDX-License-Identifier: Apache-2.0
# On a GPU: vector_add variants at n = 2^22 compared side by side — every
# variant verified and measured in the same interleaved rounds (equal round
# counts), speed-ups against the reference with intervals that hold the
# ratio of the medians' neighbourhood, coalesced loads at 4 sectors per
# request and strided ones far above when counters can be read; then a
# short tuning run and a comparison from its journal that measures each
# variant at the journal's fastest record.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
rm -f ./*.json ./*.jsonl ./*.csv
PROTO="--min-time 0.02 --max-time 2 --noise 0.01"

# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" compare vector_add:add --size n=2^22 \
    --variants coalesced,strided,vec4 --config vec4:block=256,items=2 \
    $PROTO --json live.json --csv live.csv
expect_text "## vector_add:add at n=4194304 on "
expect_text "3 of 3 variants verified and measured together in "
expect_text "Reference: **coalesced**"
expect_text "| vec4 | block=256 items=2 | --config |"
expect_text "% of copy"
python3 - <<'PY' || failures=$((failures + 1))
import json
c = json.load(open("live.json"))
assert c["evaluator"] == "worker", c["evaluator"]
vs = {v["variant"]: v for v in c["variants"]}
rounds = {v["timing"]["rounds"] for v in c["variants"]}
assert len(rounds) == 1, rounds            # one interleaved measurement
for v in c["variants"]:
    assert v["status"] == "ok", v
    s = v["stats"]
    assert s["ci_lo_us"] <= s["median_us"] <= s["ci_hi_us"], s
    assert v["derived"]["bandwidth_gbs"] > 0
r = vs["strided"]["vs_reference"]
assert r["lo"] <= r["speedup"] <= r["hi"], r
assert r["verdict"] == "slower", r         # uncoalesced: several times slower
ratio = vs["coalesced"]["stats"]["median_us"] / vs["strided"]["stats"]["median_us"]
assert abs(r["speedup"] / ratio - 1) < 0.1, (r, ratio)
if c["counters"]["collected"]:
    co = vs["coalesced"]["figures"]
    st = vs["strided"]["figures"]
    assert abs(co["ld_sectors_per_request"] - 4) < 0.2, co
    assert st["ld_sectors_per_request"] > 16, st
    assert vs["strided"]["diagnosis"]["coalescing"]["loads"]["uncoalesced"]
    print("counters: coalesced", co, "strided", st)
else:
    print("no counters here:", c["counters"]["why"])
for v in c["variants"]:
    print(v["variant"], v["config"], round(v["stats"]["median_us"], 2), "us",
          v.get("vs_reference"))
PY

# From a tuning journal: each variant at its fastest ok record.
# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --set job.n=2^22 --set strategy.max_evals=12 --journal tuned.jsonl --quiet
# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" compare vector_add:add --from tuned.jsonl $PROTO \
    --no-counters --json fromj.json
expect_text "\`tuned.jsonl\` journal: fastest of "
python3 - <<'PY' || failures=$((failures + 1))
import json
best = {}
for line in open("tuned.jsonl"):
    r = json.loads(line)
    if r.get("kind") != "eval" or r["status"] != "ok":
        continue
    m = r["timing"]["kernel"]["median"]
    v = r["point"]["variant"]
    if v not in best or m < best[v][0]:
        best[v] = (m, r["point"]["params"])
c = json.load(open("fromj.json"))
assert c["sizes"] == {"n": 4194304}, c["sizes"]
assert {v["variant"] for v in c["variants"]} == set(best), (best, c["variants"])
for v in c["variants"]:
    assert v["status"] == "ok", v
    assert v["params"] == best[v["variant"]][1], (v, best[v["variant"]])
    assert abs(v["source"]["recorded_median_us"] - best[v["variant"]][0]) < 1e-6
PY

finish
