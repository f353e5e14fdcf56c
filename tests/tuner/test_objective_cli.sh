# SPDX-License-Identifier: Apache-2.0
# [strategy] objective from the command line and the job file, without a
# GPU and without NVML: the default stays time and the run is as before
# (its JSON names the objective and no energy point); an unknown objective
# and one needing energy where none is measured (a replay of a recording
# without energy) exit 2 before anything is measured, with one line saying
# why; a throughput objective on the problem's work ranks as time does,
# and on a work each point declares (a parameter that changes it) ranks by
# that point's own work, the answer and the closing comparison included.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
job="$KT_SOURCE_DIR/configs/vector_add.ini"

expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --quiet --json time.json
best_time=$(python3 -c 'import json,sys; d=json.load(open("time.json")); assert d["energy"]["objective"] == "time", d["energy"]; assert d["energy"]["points"] == []; assert "tradeoff" not in d["energy"]; print(d["best"]["config"])') ||
    { echo "FAIL: time.json's energy object"; failures=$((failures + 1)); }

expect_exit 2 "$KTUNE" tune "$job" --replay "$rec" --set strategy.objective=joules
expect_text "[strategy] objective: 'joules' is not an objective; expected time, energy, edp"
expect_lines 1

for o in energy edp gflops_w gbs_w; do
    expect_exit 2 "$KTUNE" tune "$job" --replay "$rec" --set "strategy.objective=$o"
    expect_text "[strategy] objective = $o needs energy measurements, and there are none here"
    expect_lines 1
done

printf '[job]\noperator = vector_add:add\n[strategy]\nobjective = edp\n' > edp.ini
expect_exit 2 "$KTUNE" tune edp.ini --replay "$rec"
expect_text "objective = edp needs energy measurements"

expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --quiet --json gbs.json \
    --set strategy.objective=gbs
best_gbs=$(python3 -c 'import json; d=json.load(open("gbs.json")); assert d["energy"]["objective"] == "gbs"; print(d["best"]["config"])') ||
    { echo "FAIL: gbs.json's objective"; failures=$((failures + 1)); }
[ "$best_gbs" = "$best_time" ] ||
    { echo "FAIL: gbs on one work chose '$best_gbs', time '$best_time'"; failures=$((failures + 1)); }

# Each point's own flops grow as its median squared, so its GFLOP/s grow
# with its median: the slowest point is the best by gflops. Before points'
# own work was used, the search and the closing round divided every time
# by the problem's work and chose the fastest.
python3 - "$rec" own_work.jsonl <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for n, line in enumerate(f):
        d = json.loads(line)
        if n and d.get("status") == "ok" and "timing" in d:
            m = d["timing"]["kernel"]["median"]
            d["work"] = {"bytes_read": 0.0, "bytes_written": 0.0, "flops": 1e3 * m * m}
        out.write(json.dumps(d) + "\n")
PY
slowest=$(python3 -c '
import json, sys
best = None
for n, line in enumerate(open("own_work.jsonl")):
    d = json.loads(line)
    if n and d.get("status") == "ok" and "timing" in d:
        m = d["timing"]["kernel"]["median"]
        if best is None or m > best[0]:
            best = (m, d["point"])
print(json.dumps(best[1], sort_keys=True))')
expect_exit 0 "$KTUNE" tune "$job" --replay own_work.jsonl --quiet \
    --json own.json --set strategy.name=exhaustive --set strategy.objective=gflops
got=$(python3 -c 'import json; d=json.load(open("own.json")); b = d["best"]; print(json.dumps({"variant": b["variant"], "params": b["params"]}, sort_keys=True))')
[ "$got" = "$slowest" ] ||
    { echo "FAIL: gflops on each point's own work chose $got, expected $slowest"; failures=$((failures + 1)); }
python3 -c 'import json; r=json.load(open("own.json"))["replay"]; assert abs(r["best_vs_optimum"] - 1) < 1e-9, r' ||
    { echo "FAIL: the recorded optimum by gflops is not the answer"; failures=$((failures + 1)); }

# The summary's top list ranks by GFLOP/s and says so: a GFLOP/s column,
# falling down the list (the medians rise: the work grows faster).
"$KTUNE" tune "$job" --replay own_work.jsonl --set strategy.name=exhaustive \
    --set strategy.objective=gflops > own.txt 2> /dev/null
python3 - own.txt <<'PY' || { echo "FAIL: the top list under gflops shows no falling GFLOP/s"; failures=$((failures + 1)); }
import re, sys
lines = open(sys.argv[1]).read().split("\ntop ", 1)[1].splitlines()
assert "GFLOP/s" in lines[1], lines[1]
rates = [float(m.group(1)) for m in (re.match(r"\s+\d+\s+[\d.]+\s+([\d.]+)\s", l) for l in lines[2:]) if m]
assert len(rates) >= 5 and rates == sorted(rates, reverse=True), rates
PY

# A run stopped after 20 points and resumed keeps each point's own work:
# the answers read back from its journal are costed as they were measured.
rm -f own.jsonl
expect_exit 0 "$KTUNE" tune "$job" --replay own_work.jsonl --quiet --journal own.jsonl \
    --set strategy.name=exhaustive --set strategy.objective=gflops --set strategy.max_evals=20
expect_exit 0 "$KTUNE" tune "$job" --replay own_work.jsonl --quiet --journal own.jsonl \
    --resume --json resumed.json --set strategy.name=exhaustive --set strategy.objective=gflops
got=$(python3 -c 'import json; d=json.load(open("resumed.json")); b = d["best"]; assert d["from_journal"] >= 20, d["from_journal"]; print(json.dumps({"variant": b["variant"], "params": b["params"]}, sort_keys=True))')
[ "$got" = "$slowest" ] ||
    { echo "FAIL: resumed under gflops chose $got, expected $slowest"; failures=$((failures + 1)); }
finish
