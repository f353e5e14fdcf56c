# SPDX-License-Identifier: Apache-2.0
# On a GPU: the main job tunes vector_add to a verified configuration and
# shows its path; a run killed with SIGKILL in the middle resumes without
# measuring anything twice. (n = 2^24 keeps it to a minute; the full 2^28
# job is `ktune tune configs/vector_add.ini`.)
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
CFG=$KT_SOURCE_DIR/configs/vector_add.ini
rm -f ./*.json ./*.jsonl

expect_exit 0 "$KTUNE" tune "$CFG" --set job.n=2^24 --journal main.jsonl \
    --json main.json
expect_text "best "
expect_text "path (one_at_a_time"
expect_text "% of copy"
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("main.json"))
b = s["best"]
assert b["median_us"] > 0 and b["ci_lo_us"] <= b["median_us"] <= b["ci_hi_us"]
assert s["finalists_remeasured"] or len(s["finalists"]) == 1
assert s["evaluations"] <= 62
# The worker's context has two hardware queues unless the user says.
start = s["environment"]["start"]
assert start["cuda_device_max_connections"] == "2", start
print("best", b["config"], b["median_us"], "us,", round(b["pct_of_copy"], 1),
      "% of copy")
PY

# Killed in the middle of an exhaustive sweep, then resumed.
"$KTUNE" tune "$CFG" --set job.n=2^24 --set strategy.name=exhaustive \
    --journal killed.jsonl --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
    n=$(grep -c '"kind":"eval"' killed.jsonl 2>/dev/null)
    [ "${n:-0}" -ge 10 ] && break
    sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
# Its worker process notices the closed socket after the point in flight.
sleep 3
expect_exit 0 env CUDA_DEVICE_MAX_CONNECTIONS=8 "$KTUNE" tune "$CFG" \
    --set job.n=2^24 --set strategy.name=exhaustive --journal killed.jsonl \
    --resume --json resumed.json
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("resumed.json"))
assert s["from_journal"] >= 10, s["from_journal"]
start = s["environment"]["start"]
assert start["cuda_device_max_connections"] == "8", start
points = {}
for line in open("killed.jsonl").read().splitlines()[1:]:
    r = json.loads(line)
    if r["kind"] == "eval" and r["purpose"] == "measure":
        key = (r["point"]["variant"], tuple(sorted(r["point"]["params"].items())))
        points[key] = points.get(key, 0) + 1
twice = [k for k, n in points.items() if n > 1]
assert not twice, twice
assert len(points) == s["evaluations"]
print("resumed after", s["from_journal"], "of", s["evaluations"],
      "evaluations; none measured twice")
PY
finish
