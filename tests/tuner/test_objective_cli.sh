# SPDX-License-Identifier: Apache-2.0
# [strategy] objective from the command line and the job file, without a
# GPU and without NVML: the default stays time and the run is as before
# (its JSON names the objective and no energy point); an unknown objective
# and one needing energy where none is measured (a replay of a recording
# without energy) exit 2 before anything is measured, with one line saying
# why; a throughput objective on the problem's work ranks as time does.
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
finish
