# SPDX-License-Identifier: Apache-2.0
# Tuning for energy end to end without a GPU: a recording of the H200's
# vector add given synthetic energy records (power falling with the block
# size, where the fastest configuration has the smallest block, so the
# energy-best is not the time-best) is replayed with
# objective = energy and = time. The energy run's answer is the cheapest
# in energy the search found, the time run's the fastest; the summary
# lists the finalists' energy and says how the energy-best differs from
# the time-best in both measures, and each finalist's energy per byte
# against the device's measured best; --json validates against the schema and
# carries the tradeoff, --csv and --t4 the energy columns; the report
# draws the time-energy chart with its Pareto front.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
job="$KT_SOURCE_DIR/configs/vector_add.ini"
python3 - "$rec" synth.jsonl <<'PY'
import json, sys
out = open(sys.argv[2], "w")
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("kind") == "ktune.journal":
        r["environment"]["energy"] = {"available": True, "library": "synthetic", "note": ""}
        # The device's measured best (the calibration's copy and FMA kernel).
        r["environment"]["calibration"]["copy_pj_per_byte"] = 2.0
        r["environment"]["calibration"]["compute_pj_per_flop"] = 0.5
    elif r.get("kind") == "eval" and r.get("status") == "ok":
        us = r["timing"]["kernel"]["median"]
        w = 500 - 200 * r["point"]["params"]["block"] / 1024
        j = w * us * 1e-6
        s = [j * (1 + 0.001 * k) for k in (0, 1, 2)]
        r["energy"] = {"measured": True, "note": "", "joules_per_launch": s[1],
            "ci_lo_j": s[0], "ci_hi_j": s[2], "noise": 0.001, "samples_j": s,
            "power_w": w, "window_s": 0.6, "window_mj": int(600 * w),
            "launches": int(0.6e6 / us) + 1, "launch_us": us, "counter_step_s": 0.01,
            "counter_step_mj": 3000, "resolution": 0.01, "sampled_power_w": w,
            "crosscheck": 0.0, "power_samples": 100, "sm_mhz": 1980.0,
            "sm_mhz_min": 1970.0, "mem_mhz": 3201.0, "temp_c": 45.0,
            "power_limit_w": 700.0}
    out.write(json.dumps(r) + "\n")
PY
# With the objective time energy is measured only where asked (--energy or
# [measure] energy): without, no finalist has any, and the summary says so.
expect_exit 0 "$KTUNE" tune "$job" --replay synth.jsonl --set strategy.name=exhaustive \
    --json plain.json
expect_text "not measured: the objective is time and energy was not asked for"
python3 -c 'import json; d=json.load(open("plain.json")); e=d["energy"]
assert e["asked"] is False and not e["points"], e
assert all(not f.get("energy", {}).get("measured") for f in d["finalists"]), d["finalists"]' ||
    { echo "FAIL: energy measured with the objective time, unasked"; failures=$((failures + 1)); }
# The job's key asks as the flag does.
expect_exit 0 "$KTUNE" tune "$job" --replay synth.jsonl --set strategy.name=exhaustive \
    --set measure.energy=true
expect_text "mJ/launch"
for o in energy time; do
    ask=$([ "$o" = time ] && echo --energy || true)
    expect_exit 0 "$KTUNE" tune "$job" --replay synth.jsonl --set strategy.name=exhaustive \
        --set "strategy.objective=$o" --json "$o.json" --csv "$o.csv" --t4 "$o-t4.json" \
        --markdown "$o.md" $ask
    expect_text "energy of the finalists (objective: $o)"
    expect_text "mJ/launch"
    expect_text "of the 700 W limit"
    # Each finalist's energy per byte against the device's best.
    expect_text "x the copy's 2 pJ/byte"
done
expect_text "the energy-best finalist"
# The Markdown summary says it too: whether the energy-best differs from
# the time-best, and by how much in energy and in time, each with its
# paired interval.
grep -q "^### Energy (objective: time)" time.md &&
    grep -Eq "^the energy-best finalist .* differs from the time-best .*: energy -[0-9.]+% \[-[0-9.]+%, [-+][0-9.]+%\], time \+[0-9.]+% \[[-+][0-9.]+%, \+[0-9.]+%\] \(energy-best vs time-best, paired, 95% CI\)" time.md ||
    { echo "FAIL: the Markdown summary's energy tradeoff"; sed -n '/### Energy/,$p' time.md; failures=$((failures + 1)); }
python3 - "$KT_SOURCE_DIR/docs/schemas/tune.schema.json" <<'PY' ||
import csv, json, sys
import jsonschema
s = json.load(open(sys.argv[1]))
e, t = json.load(open("energy.json")), json.load(open("time.json"))
for d in (e, t):
    jsonschema.Draft202012Validator(s).validate(d)
pts = {p["config"]: p for p in e["energy"]["points"] if not p.get("final")}
cheapest = min(pts.values(), key=lambda p: p["joules"])
fastest = min(pts.values(), key=lambda p: p["median_us"])
assert e["energy"]["objective"] == "energy" and t["energy"]["objective"] == "time"
eb, tb = e["best"]["config"], t["best"]["config"]
# The answer by energy costs no more than any measured point beyond the
# tie rule (0.5%), and the answer by time is no slower than the fastest.
assert pts[eb]["joules"] <= cheapest["joules"] * 1.005, (eb, cheapest)
assert pts[tb]["median_us"] <= fastest["median_us"] * 1.005, (tb, fastest)
tr = t["energy"]["tradeoff"]
assert not tr["same"] and tr["energy_ratio"]["hi"] < 1 and tr["time_ratio"]["ratio"] > 1, tr
assert pts[eb]["joules"] < pts[tb]["joules"], (eb, tb)
assert all("energy" in f and f["energy"]["measured"] for f in e["finalists"])
rows = list(csv.DictReader(open("energy.csv")))
assert rows and all(r["energy_mj"] for r in rows if r["status"] == "ok")
names = {m["name"] for r in json.load(open("energy-t4.json"))["results"] for m in r["measurements"]}
assert {"nvml_energy", "nvml_power"} <= names, names
print("energy-best", eb, "time-best", tb)
PY
    { echo "FAIL: the energy run's records"; failures=$((failures + 1)); }
expect_exit 0 "$KTUNE" report energy.json -o energy.html
grep -q "Time against energy, the Pareto front marked" energy.html ||
    { echo "FAIL: no time-energy chart in the report"; failures=$((failures + 1)); }
grep -q "(Pareto front)</title>" energy.html ||
    { echo "FAIL: no point marked on the front"; failures=$((failures + 1)); }
rm -f synth.jsonl plain.json energy.* time.* energy-t4* time-t4* energy-metadata.json time-metadata.json
finish
