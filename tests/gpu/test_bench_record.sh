# SPDX-License-Identifier: Apache-2.0
# `ktune bench` on a GPU: verifies, prints the table, and writes a JSON record
# with the full environment (device, plugin fingerprint, protocol,
# calibration, command line) and the raw samples.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
expect_exit 0 "$KTUNE" bench vector_add:add --variant vec4 --set items=2 \
    --size n=2^22 --min-time 0.05 --json bench.json
expect_text "effective bandwidth"
expect_text "of the measured copy ceiling"
expect_text "verified    n=1, n=129, n=256, n=1024, n=1029, n=4194304"
python3 - <<'PY' || failures=$((failures + 1))
import json
r = json.load(open("bench.json"))
env = r["environment"]
for key in ("name", "cc_major", "sm_count", "l2_bytes", "mem_clock_mhz",
            "bus_width_bits", "peak_bw_gbs", "driver_version",
            "runtime_version"):
    assert key in env["device"], key
assert env["plugin"]["cuda_archs"], env["plugin"]
assert env["protocol"]["cache"] == "cold"
assert env["calibration"]["copy_gbs"] > 0
assert "bench vector_add:add" in env["host"]["command_line"]
t = r["result"]["timing"]
assert r["result"]["status"] == "ok"
assert len(t["samples_us"]) == t["rounds"] >= 10
assert t["kernel"]["ci_lo"] <= t["kernel"]["median"] <= t["kernel"]["ci_hi"]
assert r["derived"]["bandwidth_gbs"] > 0
print("record ok:", t["kernel"]["median"], "us")
PY
finish
