# SPDX-License-Identifier: Apache-2.0
# --kt-cache FILE (records/ktcache_write.c): a replay writes a Kernel Tuner
# 1.5 cache file, one entry per point, closed as Kernel Tuner closes it;
# ktune reads it back to the same answer; a run killed mid-way leaves an
# open file that both readers take, holding every point evaluated so far;
# its journal resumed writes every point it answered into a cache; a
# second run continues the file without writing a configuration twice;
# another kernel's file and a space of several variants are refused (exit
# 2). The finalists' entries hold their closing re-measurement's figures
# (a resumed journal whose closing round ranked them otherwise than the
# search). Last, Kernel Tuner 1.5.0 itself reads the files in simulation
# mode (brute_force) and finds ktune's best (skipped with a note where
# Kernel Tuner cannot be pip-installed).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

JOB=$KT_SOURCE_DIR/tests/tuner/kt_cache_vec4.ini
REC=$KT_SOURCE_DIR/tests/data/vector_add-h200-n1048576.jsonl
rm -f ./*.json ./*.jsonl

# check_cache FILE COUNT: valid JSON (closed or, with "open", as Kernel
# Tuner's correct_open_cache closes it), COUNT entries, no key twice, each
# key the values of tune_params_keys joined by commas.
check_cache() {
    python3 - "$@" <<'PY' || fail "cache $1"
import json, sys
path, want = sys.argv[1], int(sys.argv[2])
text = open(path).read().strip()
if len(sys.argv) > 3:
    assert text.endswith(","), text[-20:]
    text = text[:-1] + "}\n}"
def pairs(items):
    keys = [k for k, _ in items]
    assert len(keys) == len(set(keys)), "a key twice"
    return dict(items)
doc = json.loads(text, object_pairs_hook=pairs)
assert doc["kernel_name"] == "vec4" and doc["problem_size"] == [1048576], doc
assert doc["tune_params_keys"] == ["block", "items"], doc["tune_params_keys"]
assert doc["objective"] == "time"
assert len(doc["cache"]) == want, (len(doc["cache"]), want)
for key, e in doc["cache"].items():
    assert key == ",".join(str(e[k]) for k in doc["tune_params_keys"]), key
    assert isinstance(e["time"], float) or e["time"] in (
        "InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig"), e
    if isinstance(e["time"], float):
        assert len(e["times"]) > 1 and min(e["times"]) <= e["time"] <= max(e["times"])
    for f in ("compile_time", "verification_time", "benchmark_time",
              "strategy_time", "framework_time"):
        assert e[f] >= 0, (f, e)
PY
}

expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache full.json \
    --json full_summary.json
check_cache full.json 24
# ktune's own reader takes it: the same answer from the file alone.
expect_exit 0 "$KTUNE" tune --replay full.json --set strategy.name=brute_force \
    --json back.json
expect_text "strategy brute_force -> exhaustive"
python3 - <<'PY' || fail "ktune's replay of its cache"
import json
a, b = json.load(open("full_summary.json")), json.load(open("back.json"))
assert a["best"]["params"] == b["best"]["params"], (a["best"], b["best"])
PY

# Killed mid-way: an open file (a trailing comma), every point so far in it,
# read by ktune as it is; continued by the next run, nothing twice. The
# killed run's journal resumed with a fresh cache: every point the journal
# answered is in the cache too.
"$KTUNE" tune "$JOB" --replay "$REC" --replay-delay 0.2 --kt-cache cut.json \
    --journal cut.jsonl --quiet >/dev/null 2>&1 &
pid=$!
sleep 2.5
kill -KILL $pid
wait $pid 2>/dev/null
n=$(grep -c '^".*},$' cut.json)
[ "$n" -ge 3 ] && [ "$n" -lt 24 ] || fail "a killed run left $n entries"
check_cache cut.json "$n" open
expect_exit 0 "$KTUNE" tune --replay cut.json --set strategy.name=exhaustive
expect_text "$n configurations recorded"
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --resume --journal cut.jsonl \
    --kt-cache resumed.json
expect_text "strategy exhaustive"
check_cache resumed.json 24
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache cut.json
check_cache cut.json 24

# An empty file is a new cache; a file that is not JSON is refused.
: >empty.json
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache empty.json
check_cache empty.json 24
echo "not json" >text.json
expect_exit 2 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache text.json
expect_text "--kt-cache: text.json:1:"
grep -qx "not json" text.json || fail "a refused cache file was changed"

# Refused: another kernel's cache, several variants, stdout.
expect_exit 0 "$KTUNE" tune --replay \
    "$KT_SOURCE_DIR/tests/data/kt/vector_add-h200-n1048576.cache.json.gz" \
    --set strategy.max_evals=3 --kt-cache other.json
expect_exit 2 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache other.json
expect_text "--kt-cache other.json: kernel_name is \"vector_add_add\", this run's is \"vec4\""
python3 - <<'PY'
import json
d = json.load(open("full.json"))
d["problem_size"] = [2048]
json.dump(d, open("size.json", "w"))
PY
expect_exit 2 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache size.json
expect_text "--kt-cache size.json: problem_size is [2048], this run's is [1048576]"
expect_exit 2 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$REC" --kt-cache multi.json
expect_text "a Kernel Tuner cache holds one kernel's parameters; this space has 4 variants"
[ -e multi.json ] && fail "a refused run wrote multi.json"
expect_exit 2 "$KTUNE" tune "$JOB" --replay "$REC" --kt-cache -
expect_text "--kt-cache: '-'"

# The answer comes from the finalists' closing re-measurement; the file
# gives them its figures. On a GPU the closing round can rank the finalists
# otherwise than the search did (the H100's hub convolution T1 run did);
# here the recorded run's journal is made to say so: its closing round
# measured vec4 block=1024 items=1 3% faster than the search did (every
# sample, paired rounds kept). The run resumed from it answers 1024,1, and
# the cache's lowest time is that answer's closing median (the search put
# 64,1 lowest: a file of search-time figures leads Kernel Tuner to 64,1).
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --journal closing.jsonl \
    --quiet
python3 - <<'PY' || fail "the closing round's journal"
import json
recs = [json.loads(l) for l in open("closing.jsonl")]
final = [r for r in recs if r.get("purpose") == "final"]
assert len(final) == 3, len(final)
for r in final:
    if r["point"]["params"] == {"block": 1024, "items": 1}:
        t = r["timing"]
        t["samples_us"] = [x * 0.97 for x in t["samples_us"]]
        for k in ("median", "min", "max", "mean", "stddev", "q1", "q3",
                  "ci_lo", "ci_hi"):
            t["kernel"][k] *= 0.97
        break
else:
    raise AssertionError("1024,1 is not a finalist")
with open("closing.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in recs)
PY
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --resume \
    --journal closing.jsonl --kt-cache closing.json --json closing_summary.json
check_cache closing.json 24
python3 - <<'PY' || fail "the finalists' closing figures in the cache"
import json
s = json.load(open("closing_summary.json"))
assert s["best"]["params"] == {"block": 1024, "items": 1}, s["best"]
closing = {f"{f['params']['block']},{f['params']['items']}": f["median_us"]
           for f in s["finalists"]}
cache = json.load(open("closing.json"))["cache"]
for key, median in closing.items():
    assert abs(cache[key]["time"] - median / 1e3) < 1e-9, (key, cache[key]["time"], median)
# Non-finalists keep the search's figure.
assert abs(cache["64,2"]["time"] - 0.007712000049650669) < 1e-9, cache["64,2"]["time"]
timed = {k: e["time"] for k, e in cache.items() if isinstance(e["time"], float)}
assert min(timed, key=timed.get) == "1024,1", sorted(timed.items(), key=lambda x: x[1])[:3]
PY

# A closing round slower throughout (every finalist 5% above its search
# figure) leaves a point the search measured, 256,1, below the answer:
# the file cannot lead Kernel Tuner to ktune's answer, and the run says so.
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --journal drift.jsonl --quiet
python3 - <<'PY' || fail "the drifting closing round's journal"
import json
recs = [json.loads(l) for l in open("drift.jsonl")]
for r in recs:
    if r.get("purpose") == "final" and r["status"] == "ok":
        t = r["timing"]
        t["samples_us"] = [x * 1.05 for x in t["samples_us"]]
        for k in ("median", "min", "max", "mean", "stddev", "q1", "q3",
                  "ci_lo", "ci_hi"):
            t["kernel"][k] *= 1.05
with open("drift.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in recs)
PY
expect_exit 0 "$KTUNE" tune "$JOB" --replay "$REC" --resume \
    --journal drift.jsonl --kt-cache drift.json --json drift_summary.json
check_cache drift.json 24
expect_text "--kt-cache drift.json: Kernel Tuner, which takes the lowest time, will pick 256,1"
printf '%s\n' "$out" >drift.out

# Kernel Tuner 1.5.0 itself, in simulation mode, on the files ktune wrote.
if [ "$failures" -eq 0 ]; then
    . "$KT_SOURCE_DIR/tests/tuner/kt_venv.sh"
    "$py" "$KT_SOURCE_DIR/tests/tuner/kt_simulate.py" full.json \
        full_summary.json || fail "Kernel Tuner's simulation mode"
    "$py" "$KT_SOURCE_DIR/tests/tuner/kt_simulate.py" closing.json \
        closing_summary.json || fail "Kernel Tuner's simulation mode on the closing figures"
    # The drifted file: Kernel Tuner picks what the run said it would.
    "$py" "$KT_SOURCE_DIR/tests/tuner/kt_simulate.py" drift.json \
        drift_summary.json ties drift.out || fail "Kernel Tuner's pick as noted"
    "$py" "$KT_SOURCE_DIR/tests/tuner/kt_simulate.py" drift.json \
        drift_summary.json ties >/dev/null && fail "the drifted file agreed without the note"
fi
finish
