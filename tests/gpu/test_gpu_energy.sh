# SPDX-License-Identifier: Apache-2.0
# Energy on a real GPU, read side only (nothing here sets a clock or a
# power limit, and the test checks that none changed): `ktune bench`
# measures joules per launch with its window, counter step, power against
# the enforced limit and clocks, and its record validates against the
# schema; the figure agrees within 10% with bench/energy_check's counter
# read around a long loop of the same kernel; with NVML absent the same
# bench runs and says once that energy is not measured.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
build=$(dirname "$KTUNE")
settings() {
    command -v nvidia-smi >/dev/null || return 0
    nvidia-smi --query-gpu=power.limit,clocks.applications.graphics,clocks.applications.memory \
        --format=csv,noheader -i 0
}
before=$(settings)
expect_exit 0 "$KTUNE" bench vector_add:add --json va.json --no-calibration
expect_text "mJ per launch, 95% CI"
expect_text "% of the "
expect_text "counter step"
python3 - "$KT_SOURCE_DIR/docs/schemas/bench.schema.json" va.json <<'PY' ||
import json, sys
s = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
try:  # the schema is also checked in CI, where jsonschema is installed
    import jsonschema
    jsonschema.Draft202012Validator(s).validate(d)
except ImportError:
    print("note: no jsonschema module here: the schema was not checked")
e = d["result"]["energy"]
assert e["measured"], e
env = d["environment"]["energy"]
assert env["available"] is True
# What is in force is reported (and the test's end checks nothing changed).
assert env["power_limit_w"] > 0 and env["sm_clock_mhz"] > 0 and env["mem_clock_mhz"] > 0, env
assert e["joules_per_launch"] > 0 and e["ci_lo_j"] <= e["joules_per_launch"] <= e["ci_hi_j"]
assert 20 < e["power_w"] < 2000, e["power_w"]
assert e["power_limit_w"] > 0 and e["power_w"] <= 1.2 * e["power_limit_w"]
# Three windows of at least 1 s each (core/energy.h, KT_ENERGY_WINDOW_S),
# aligned on counter updates: the bound is the edges' timing and the
# counter's jitter over the window, under 5%.
assert len(e["samples_j"]) == 3 and e["window_s"] >= 3 * 1.0, e
assert 0 < e["counter_step_s"] < 1 and e["resolution"] < 0.05, e
assert 0 <= e["counter_jitter_s"] < e["counter_step_s"], e
assert abs(e["crosscheck"]) < 0.5, e["crosscheck"]
assert e["sm_mhz"] > 0 and e["mem_mhz"] > 0
print("energy %.4g mJ/launch, %.1f W of %.0f W, step %.1f ms / %.0f mJ, jitter %.2f ms, "
      "window %.2f s, resolution %.2f%%, cross-check %+.1f%%" % (
    1e3 * e["joules_per_launch"], e["power_w"], e["power_limit_w"],
    1e3 * e["counter_step_s"], e["counter_step_mj"], 1e3 * e["counter_jitter_s"],
    e["window_s"], 100 * e["resolution"], 100 * e["crosscheck"]))
open("ktune_mj", "w").write("%.9g" % (1e3 * e["joules_per_launch"]))
PY
    { echo "FAIL: bench's energy record"; failures=$((failures + 1)); }
expect_exit 0 "$build/bench/energy_check" "$build/plugins" vector_add:add 3
echo "$out"
chk=$(sed -n 's/.* \([0-9.e+-]*\) mJ per launch.*/\1/p' <<<"$out")
python3 -c 'import sys; k=float(open("ktune_mj").read()); c=float(sys.argv[1]); print("ktune %.4g mJ, energy_check %.4g mJ: %+.2f%%" % (k, c, 100*(k/c-1))); assert abs(k/c-1) < 0.10' "$chk" ||
    { echo "FAIL: ktune's energy and energy_check's differ by 10% or more"; failures=$((failures + 1)); }

KTUNE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
    expect_exit 0 "$KTUNE" bench vector_add:add --size n=2^22 --no-calibration --json none.json
expect_text "energy               not measured: /nonexistent/libnvidia-ml.so.1 could not be loaded"
[ "$(grep -c 'note: energy not measured' <<<"$out")" = 1 ] ||
    { echo "FAIL: the note is not said exactly once"; failures=$((failures + 1)); }
python3 -c 'import json; e=json.load(open("none.json"))["result"]["energy"]; assert e["measured"] is False and "could not be loaded" in e["note"]' ||
    { echo "FAIL: the record without NVML"; failures=$((failures + 1)); }
after=$(settings)
[ "$before" = "$after" ] ||
    { echo "FAIL: the GPU's settings changed: '$before' -> '$after'"; failures=$((failures + 1)); }
rm -f va.json none.json ktune_mj
finish
