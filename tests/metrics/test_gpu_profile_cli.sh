# SPDX-License-Identifier: Apache-2.0
# `ktune profile` on a GPU: one table with the kernel's facts, the counters
# and the diagnosis; the JSON record holds the same; a counter unknown to
# the chip is refused (exit 2) before anything is timed; --no-counters
# still gives the static facts.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
expect_exit 0 "$KTUNE" profile vector_add:add --variant strided \
    --set block=256 --size n=2^24 --min-time 0.05 --json profile.json
if grep -q "counters    none" <<<"$out"; then
    echo "counters unavailable here: skipped"
    echo "$out"
    exit 77
fi
expect_text "registers/thread"
expect_text "occupancy   theoretical 100.0%"
expect_text "global_load_sectors_per_request"
expect_text "uncoalesced"
expect_text "This is the cause"
python3 - <<'PY' || failures=$((failures + 1))
import json
r = json.load(open("profile.json"))
assert r["kind"] == "ktune.profile"
assert r["result"]["status"] == "ok"
m = {x["name"]: x["value"] for x in r["counters"]["metrics"]}
assert m["global_load_requests"] == 1048576, m
assert m["global_load_sectors"] == 33554432, m
assert m["global_store_sectors"] == 16777216, m
assert m["global_load_sectors_per_request"] == 32.0, m
assert r["counters"]["cost"]["passes"] >= 1
k = r["kernel"]
assert k["occupancy"]["blocks_per_sm"] == k["api_blocks_per_sm"], k
d = r["diagnosis"]
assert d["coalescing"]["cause_uncoalesced"] is True, d
assert d["coalescing"]["access_bytes"] is None
assert d["coalescing"]["loads"]["bytes_per_request"] == 128, d
assert d["coalescing"]["loads"]["excess"] == 8, d
print("record ok:", d["bound"], d["why"])
PY
# Three launches per pass by default: the counts are those of one launch
# (each the median of three equal counts), the record says how many
# launches were taken.
expect_text "3 launches per pass: each counter is the median over them"
expect_exit 0 "$KTUNE" profile vector_add:add --variant strided \
    --set block=256 --size n=2^24 --min-time 0.05 --profile-launches 1 \
    --json profile1.json
expect_text "profiled    the profiled launch took"
python3 - <<'PY' || failures=$((failures + 1))
import json
three, one = json.load(open("profile.json")), json.load(open("profile1.json"))
m1 = {x["name"]: x["value"] for x in one["counters"]["metrics"]}
m3 = {x["name"]: x["value"] for x in three["counters"]["metrics"]}
for name in ("global_load_requests", "global_load_sectors",
             "global_store_requests", "global_store_sectors"):
    assert m1[name] == m3[name], (name, m1[name], m3[name])
assert three["counters"]["cost"]["launches"] == 3, three["counters"]["cost"]
assert one["counters"]["cost"]["launches"] == 1, one["counters"]["cost"]
assert three["counters"]["cost"]["kernels"] == 1, three["counters"]["cost"]
assert 0.5 < three["diagnosis"]["profiled"]["vs_timed"] < 2.0, three["diagnosis"]
print("three launches ok")
PY
expect_exit 2 "$KTUNE" profile vector_add:add --min-time 0.05 \
    --metrics dram__bytes_red.sum
expect_text "unknown metric 'dram__bytes_red.sum' for chip"
expect_text "did you mean 'dram__bytes_read.sum'"
expect_exit 0 "$KTUNE" profile vector_add:add --no-counters --min-time 0.05
expect_text "counters    none: not collected (--no-counters)"
expect_text "occupancy   theoretical"
finish
