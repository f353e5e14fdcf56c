# SPDX-License-Identifier: Apache-2.0
# max_seconds is the command's wall time from start to exit
# (tuner/tune_budget.c): a replay of the H200's vector add whose every
# evaluate() call waits 0.3 s (--replay-delay), so the closing call (the
# finalists' re-measurement) costs real time, with max_seconds 4. The
# search stops early enough for the closing to fit: the run's own account
# (--json budget.used_s, from the process's start) and the wall time seen
# from outside stay within the budget (before: the search ran to 4 s and
# the closing came after it), and the summary says the budget, the time
# used and what was kept for the closing. A replay of another tool's
# recording keeps that tool's simulated clock, with nothing reserved.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
job="$KT_SOURCE_DIR/configs/vector_add.ini"
start=$(date +%s.%N)
expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --replay-delay 0.3 \
    --set strategy.name=random --set strategy.max_seconds=4 --json run.json
end=$(date +%s.%N)
expect_text "stopped: max_seconds reached"
expect_text "budget max_seconds 4 s, used "
expect_text "kept for the closing"
python3 - "$start" "$end" <<'PY' ||
import json, sys
b = json.load(open("run.json"))["budget"]
wall = float(sys.argv[2]) - float(sys.argv[1])
print("budget", b, "wall seen from outside %.2f s" % wall)
assert b["max_seconds"] == 4 and not b["simulated"], b
# The run's own account, from the process's start to the summary.
assert b["used_s"] <= 4.0, b
assert b["reserve_s"] >= 0.3 * 2, b       # at least a finalist's call and one in flight
assert b["closing_s"] >= 0.3 and b["closing_s"] <= b["reserve_s"], b
# From outside (the process's exit too; a loaded machine gets 0.5 s).
assert wall <= 4.5, wall
PY
    { echo "FAIL: the run overran max_seconds"; failures=$((failures + 1)); }
# Another tool's recording: Kernel Tuner's time_limit on its simulated
# clock, counted as Kernel Tuner counts it, nothing reserved.
kt="$KT_SOURCE_DIR/tests/data/kt/vector_add-h200-n1048576.cache.json.gz"
expect_exit 0 "$KTUNE" tune --replay "$kt" --set strategy.name=random \
    --set strategy.max_seconds=1 --json sim.json
python3 -c 'import json; b=json.load(open("sim.json"))["budget"]
assert b["simulated"] and b["reserve_s"] == 0, b' ||
    { echo "FAIL: a simulated clock got a reserve"; failures=$((failures + 1)); }
rm -f run.json sim.json
finish
