# SPDX-License-Identifier: Apache-2.0
# A tuning run killed with SIGKILL in the middle, then `--resume`: the torn
# last line is dropped with a note, nothing finished is measured again, and
# the run ends exactly where an uninterrupted one ends. Replay with a delay
# per evaluation stands in for the GPU, so this runs anywhere.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

REC=$KT_SOURCE_DIR/tests/data/vector_add-synthetic-n16777216.jsonl
rm -f ./*.json ./*.jsonl

cat > job.ini <<'EOF'
[job]
operator = vector_add:add
n = 2^24
[output]
journal = none
EOF

evals_in() {
    local n
    n=$(grep -c '"kind":"eval"' "$1" 2>/dev/null)
    echo "${n:-0}"
}

for strategy in one_at_a_time exhaustive; do
    rm -f killed.jsonl
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
        --set strategy.name=$strategy --json "ref-$strategy.json"

    "$KTUNE" tune job.ini --replay "$REC" --replay-delay 0.04 --quiet \
        --set strategy.name=$strategy --journal killed.jsonl \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 300); do
        [ "$(evals_in killed.jsonl)" -ge 8 ] && break
        sleep 0.02
    done
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    before=$(evals_in killed.jsonl)
    if [ "$before" -lt 8 ]; then
        echo "FAIL: $strategy: only $before records before the kill"
        failures=$((failures + 1))
    fi
    # As if the kill had landed in the middle of a write.
    printf '{"kind":"eval","call":99,"slot":0,"of":' >>killed.jsonl

    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
        --set strategy.name=$strategy --journal killed.jsonl --resume \
        --json "resumed-$strategy.json"
    expect_text "the last line is incomplete"
    python3 - "$strategy" <<'PY' || failures=$((failures + 1))
import json, sys
strategy = sys.argv[1]
ref = json.load(open(f"ref-{strategy}.json"))
res = json.load(open(f"resumed-{strategy}.json"))
# The same run as without the kill.
assert res["best"] == ref["best"], (res["best"], ref["best"])
assert res["trace"] == ref["trace"]
assert res["evaluations"] == ref["evaluations"]
assert 0 < res["from_journal"] < res["evaluations"], res["from_journal"]

# Nothing finished was measured twice: every call (its purpose and points)
# appears once in the journal.
lines = open("killed.jsonl").read().splitlines()
head = json.loads(lines[0])
assert head["kind"] == "ktune.journal"
calls, envs = {}, set()
for line in lines[1:]:
    r = json.loads(line)
    if r["kind"] == "environment":
        envs.add(r["environment"]["id"])
    if r["kind"] != "eval":
        continue
    calls.setdefault(r["call"], []).append(
        (r["purpose"], r["point"]["variant"],
         tuple(sorted(r["point"]["params"].items())), r["env"]))
signatures = [tuple((p, v, q) for p, v, q, _ in recs)
              for _, recs in sorted(calls.items())]
dups = {s for s in signatures if signatures.count(s) > 1}
assert not dups, dups
assert envs == {1}, envs
# The resumed session's records point at its own environment record.
assert {e for recs in calls.values() for *_, e in recs} == {0, 1}
print(strategy, ": killed after", res["from_journal"], "evaluations; resumed to",
      res["evaluations"], "without measuring anything twice")
PY
done
finish
