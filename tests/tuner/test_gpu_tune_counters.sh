# SPDX-License-Identifier: Apache-2.0
# On a GPU: [metrics] profiles the points of a tuning run through a worker
# process and journals them (format 2): vector_add coalesced reads 4
# sectors per request and strided 32 at n = 2^24, block 256 (the counts
# Nsight Compute gives, docs/metrics.md); the main job run in-process
# profiles its best three and the answer (points = top). Where counters are
# off limits (no privileges, another profiler) the run must still succeed
# and say why in one line.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
CFG=$KT_SOURCE_DIR/configs/vector_add.ini
rm -f ./*.json ./*.jsonl

cat > counters.ini <<'INI'
[job]
operator = vector_add:add
n = 2^24
[space]
variant = coalesced, strided
block = 256
[strategy]
name = exhaustive
[metrics]
points = every
INI
expect_exit 0 "$KTUNE" tune counters.ini --journal counters.jsonl \
    --json counters.json
expect_text "point(s) profiled (every)"
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("counters.json"))
m = s["metrics"]
assert m["profiled"] == 2, m
lines = [json.loads(l) for l in open("counters.jsonl")]
assert lines[0]["format"] == 2
prof = {p["point"]["variant"]: p for p in lines if p["kind"] == "profile"}
assert set(prof) == {"coalesced", "strided"}, prof.keys()
if m["unavailable"]:
    print("counters unavailable here:", m["unavailable"])
    assert all(p["counters"] == "unavailable" for p in prof.values())
else:
    def per_request(v):
        r = prof[v]["raw"]
        return (r["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] /
                r["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"])
    assert per_request("coalesced") == 4.0, per_request("coalesced")
    assert per_request("strided") == 32.0, per_request("strided")
    top = {t["variant"]: t for t in s["top"]}
    assert top["strided"]["diagnosis"]["coalescing"]["loads"]["uncoalesced"]
    assert not top["coalesced"]["diagnosis"]["coalescing"]["loads"][
        "uncoalesced"]
    print("sectors/request: coalesced", per_request("coalesced"),
          "strided", per_request("strided"), "; profiling took",
          round(m["profile_s"], 2), "s in", m["passes"], "passes")
PY

expect_exit 0 "$KTUNE" tune "$CFG" --set job.n=2^24 --set metrics.top=3 \
    --in-process --journal top.jsonl --json top.json
expect_text "point(s) profiled (top)"
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("top.json"))
assert s["best"]["median_us"] > 0
m = s["metrics"]
# The best three by their own medians, and the answer when it is not one.
assert m["points"] == "top" and 3 <= m["profiled"] <= 4, m
lines = [json.loads(l) for l in open("top.jsonl")]
prof = [p for p in lines if p["kind"] == "profile"]
assert len(prof) == m["profiled"], len(prof)
if not m["unavailable"]:
    assert all(p["counters"] == "ok" for p in prof), prof
print("top:", s["evaluations"], "evaluations, best", s["best"]["config"],
      ";", m["profiled"], "profiled in-process in", round(m["profile_s"], 2),
      "s")
PY
finish
