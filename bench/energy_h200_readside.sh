#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 31 on the H200 after device settings became search dimensions
# (docs/energy.md, "Clocks and power limit"), READ SIDE ONLY: no job here
# lists nvml_gr_clock, nvml_mem_clock or nvml_pwr_limit, so ktune calls no
# NVML set function; the GPU's settings are read before and after
# (nvidia-smi) and must be equal, and no restore file may appear.
#  1. ktune tune configs/vector_add.ini with objective = energy (the
#     evaluator's per-setting grouping with every point under the device's
#     own settings: one group, nothing set): it runs, its points carry no
#     "nvml", the environment reports the power limit and clocks in force;
#  2. ktune report of that run: the "Time and energy" section with its
#     chart and the per-configuration energy table (joules per launch,
#     power against the limit, energy per byte against the device's best);
#  3. the GPU tests labelled gpu whose names say energy or tune.
# About 3 minutes once built.
#
#   OUT=/path/to/out bash bench/energy_h200_readside.sh [BUILD_DIR]
#
# Prints PASS/FAIL lines and ends with "readside: N failure(s)"; exit 0
# only with none.
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
mkdir -p "$out"
if [ ! -x "$build/ktune" ]; then
    cmake -S . -B "$build" -DKT_WERROR=ON >"$out/cmake.log" 2>&1 &&
        cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 ||
        { echo "FAIL: build (see $out/build.log)"; exit 1; }
fi
ktune=$build/ktune
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
settings() {
    command -v nvidia-smi >/dev/null || { echo "no nvidia-smi"; return; }
    nvidia-smi -i 0 --format=csv,noheader \
        --query-gpu=power.limit,clocks.applications.graphics,clocks.applications.memory,clocks.max.sm
}
# Where a set would leave its restore file: it must never appear.
export KTUNE_NVML_RESTORE=$out/nvml-restore.must-not-exist
before=$(settings)
echo "settings before: $before"

timeout 240 "$ktune" tune configs/vector_add.ini --set strategy.objective=energy \
    --journal "$out/va-energy.jsonl" --json "$out/va-energy.json" \
    >"$out/va-energy.log" 2>&1 && pass "tune vector_add objective=energy" ||
    fail "tune vector_add objective=energy: exit $? (see $out/va-energy.log)"
python3 - "$out" <<'PY' && pass "records: no device setting, the settings in force reported" ||
import json, sys
out = sys.argv[1]
d = json.load(open(out + "/va-energy.json"))
env = d["environment"]["energy"]
assert env["available"] is True, env
assert env["power_limit_w"] > 0 and env["sm_clock_mhz"] > 0, env
assert "nvml" not in (d.get("best") or {}), d["best"]
assert all("nvml" not in t for t in d.get("top", [])), "a top entry has nvml"
assert "nvml" not in d.get("space", {}), d.get("space")
pts = d["energy"]["points"]
assert pts and all(p["joules"] > 0 for p in pts), pts
n = 0
for line in open(out + "/va-energy.jsonl"):
    r = json.loads(line)
    assert "nvml" not in (r.get("point") or {}), r["point"]
    n += 1
print("%d journal records, %d energy points, limit %.0f W, SM %.0f MHz in force"
      % (n, len(pts), env["power_limit_w"], env["sm_clock_mhz"]))
PY
    fail "records (see above)"

"$ktune" report "$out/va-energy.json" --journal "$out/va-energy.jsonl" \
    -o "$out/va-energy.html" >"$out/report.log" 2>&1 || fail "report: exit $?"
for want in '<section id="energy">' 'Time against energy, the Pareto front marked' \
    'energy per launch \(mJ, 95% CI\)' '% of [0-9]+ W\)</td>' 'pJ/B \([0-9.,]+x the best\)</td>'; do
    grep -qE "$want" "$out/va-energy.html" && pass "report has: $want" ||
        fail "report lacks: $want"
done

timeout 400 ctest --test-dir "$build" -L gpu -R 'energy|tune' --output-on-failure \
    >"$out/ctest-gpu.log" 2>&1 && pass "ctest -L gpu -R 'energy|tune'" ||
    fail "ctest -L gpu -R 'energy|tune' (see $out/ctest-gpu.log)"
grep -E "tests passed|Passed|Failed|Skipped" "$out/ctest-gpu.log" | tail -12

after=$(settings)
echo "settings after:  $after"
[ "$before" = "$after" ] && pass "the GPU's settings did not change" ||
    fail "the GPU's settings changed: '$before' -> '$after'"
[ ! -e "$KTUNE_NVML_RESTORE" ] && pass "no restore file: nothing was set" ||
    fail "a restore file appeared: something was set"
echo "readside: $fails failure(s)"
[ "$fails" = 0 ]
