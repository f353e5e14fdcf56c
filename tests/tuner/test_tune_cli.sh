# SPDX-License-Identifier: Apache-2.0
# `ktune tune` without a GPU: usage and job errors exit 2 with one line
# (file:line, key, what is allowed); a replayed run prints the answer and
# the path and writes JSON, CSV and T4; every strategy runs from the command
# line; journals are never overwritten and resume only under the same
# conditions; the progress line is redrawn on a terminal (and never a \r in
# a pipe);
# without a device the live command says how to replay instead; [metrics]
# journals counters, resumes from them and shows them, unavailable counters
# are one line, an unknown counter exits 2.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
REC=$DATA/vector_add-synthetic-n16777216.jsonl
GOOD=$DATA/good-synthetic.jsonl
rm -f ./*.json ./*.csv ./*.t4 ./*.jsonl

cat > job.ini <<'EOF'
[job]
operator = vector_add:add
n = 2^24
[strategy]
name = one_at_a_time
EOF

# --- usage ------------------------------------------------------------------
expect_exit 0 "$KTUNE" tune --help
expect_text "usage: ktune tune CONFIG"
expect_text "--replay FILE"
expect_exit 0 "$KTUNE" --help
expect_text "tune "
expect_exit 2 "$KTUNE" tune
expect_text "CONFIG is missing"
expect_exit 2 "$KTUNE" tune job.ini other.ini
expect_text "one CONFIG expected"
expect_exit 2 "$KTUNE" tune job.ini --bogus
expect_exit 2 "$KTUNE" tune job.ini --replay-delay 0.1
expect_text "--replay-delay needs --replay"
expect_exit 2 "$KTUNE" tune missing.ini
expect_text "missing.ini: cannot open"
expect_lines 1

# --- job errors: one line with file:line, key and what is allowed ------------
cat > bad.ini <<'EOF'
[job]
operator = vector_add:add

[space]
block = 64, 100
EOF
expect_exit 2 "$KTUNE" tune bad.ini
expect_text "bad.ini:5: [space] block:"
expect_text "100 is not one of 32..1024 (powers of two)"
expect_lines 1
# Found by fuzz_job: a bad list after [space] variant freed a list twice.
printf '[job]\noperator = vector_add:add\n[space]\nvariant = vec4, coalesced\nblock = 64,\n' > twice.ini
expect_exit 2 "$KTUNE" tune twice.ini
expect_text "twice.ini:5: [space] block:"
expect_text "empty item 2"
expect_exit 2 "$KTUNE" tune job.ini --set strategy.name=anneal
expect_text "--set strategy.name=anneal: [strategy] name: unknown strategy 'anneal'; did you mean 'annealing'?"
expect_lines 1
# The removed counter-guided strategy (docs/metrics.md) is as unknown as a
# misspelt one.
printf '[job]\noperator = vector_add:add\n[strategy]\nname = guided\n' \
    > removed.ini
expect_exit 2 "$KTUNE" tune removed.ini --check
expect_text "removed.ini:4: [strategy] name: unknown strategy"
expect_lines 1
expect_exit 0 "$KTUNE" tune job.ini --check --set space.variant=vec4
expect_text "vec4           24 point(s): block {32, 64, 128, 256, 512, 1024}, items {1, 2, 4, 8}"
# With a recording, --check also counts on its device record (no GPU).
expect_exit 0 "$KTUNE" tune job.ini --check --replay "$REC"
expect_text "feasible on NVIDIA H200 (the recording's device record) at n=16777216: "

# --- a replayed run ------------------------------------------------------------
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --json s.json --csv s.csv \
    --t4 s.t4
expect_text "vector_add:add  n=16777216  on NVIDIA H200  (replay of"
expect_text "best  vec4"
expect_text "95% CI"
expect_text "path (one_at_a_time"
expect_text "stopped: converged: "
expect_text "recorded optimum"
if grep -q $'\r' <<<"$out"; then
    echo "FAIL: a progress line went to a pipe"
    failures=$((failures + 1))
fi
python3 - <<'PY' || failures=$((failures + 1))
import csv, json
s = json.load(open("s.json"))
assert s["evaluations"] > 0 and s["evaluations"] == len(s["trace"])
assert s["best"]["variant"] == "vec4", s["best"]
assert set(s["best"]["params"]) == {"block", "items"}
assert s["best"]["median_us"] > 0
assert s["strategy"]["name"] == "one_at_a_time"
r = s["replay"]
assert r["recorded_optimum"]["median_us"] <= s["best"]["median_us"] * 1.03
assert 0 < r["fraction_evaluated"] <= 0.5, r
assert s["stop_reason"].startswith("converged: "), s["stop_reason"]
assert s["path"], s
# Every visited point, refused on the host or not.
visited = s["evaluations"] + s["host_invalid"]
rows = list(csv.DictReader(open("s.csv")))
assert len(rows) == visited, (len(rows), visited)
t4 = json.load(open("s.t4"))
assert t4["schema_version"] == "1.0.0"
assert len(t4["results"]) == visited
bad = [x["invalidity"] for x in t4["results"] if x["invalidity"] != "correct"]
assert bad == ["constraints"] * s["host_invalid"], bad
print("summary, CSV and T4 agree:", s["evaluations"], "evaluations")
PY

# --- every strategy, deterministic for a seed -----------------------------------
for s in one_at_a_time exhaustive random annealing genetic; do
    for run in 1 2; do
        expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
            --set strategy.name=$s --set strategy.seed=3 \
            --set strategy.max_evals=20 --json "$s-$run.json"
    done
    python3 - "$s" <<'PY' || failures=$((failures + 1))
import json, sys
s = sys.argv[1]
a, b = (json.load(open(f"{s}-{i}.json")) for i in (1, 2))
assert a["evaluations"] <= 20, a["evaluations"]
assert a["trace"] == b["trace"] and a["best"] == b["best"], s
PY
done
expect_exit 0 "$KTUNE" tune job.ini --replay "$GOOD" --quiet \
    --plugin "$KT_FIXTURES/good_plugin.so" --set job.operator=good:scale \
    --set strategy.name=exhaustive --json good.json
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("good.json"))
st = {x["status"] for x in s["invalid"]}
assert {"mismatch", "execution-error", "error", "invalid"} <= st, st
assert s["best"]["config"] == "tiled block=256 unroll=2 pad=4 layout=rows"
PY

# --- journals --------------------------------------------------------------------
# A replay measures nothing new: the journal the job file names is for real
# runs, so a replay writes none (--journal asks for one).
printf '[job]\noperator = vector_add:add\nn = 2^24\n[output]\njournal = named.jsonl\n' > named.ini
rm -f named.jsonl named.2.jsonl
expect_exit 0 "$KTUNE" tune named.ini --replay "$REC" --quiet
[ ! -e named.jsonl ] || { echo "FAIL: a replay wrote the job's journal"; failures=$((failures + 1)); }


expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal j.jsonl \
    --json first.json
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal j.jsonl
expect_text "journal j.jsonl exists: add --resume to continue it"
expect_lines 1
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal j.jsonl \
    --resume --json again.json
python3 - <<'PY' || failures=$((failures + 1))
import json
a, b = json.load(open("first.json")), json.load(open("again.json"))
assert b["from_journal"] == b["evaluations"] == a["evaluations"], b
assert a["best"] == b["best"]
PY
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal j.jsonl \
    --resume --set space.items=1,2
expect_text "searched another space: vec4 items: [1,2,4,8] in the journal, [1,2] now"
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal j.jsonl \
    --resume --set measure.min_samples=20
expect_text "used another measurement protocol: min_samples is 10 in the journal, 20 now"
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --resume
expect_text "--resume needs a journal"
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --resume --journal none.jsonl
expect_text "none.jsonl: cannot open"
expect_exit 2 "$KTUNE" tune job.ini --replay "$GOOD" --quiet
expect_text "records good:scale, not vector_add:add"
expect_exit 0 "$KTUNE" tune job.ini --replay "$GOOD" --quiet \
    --plugin "$KT_FIXTURES/good_plugin.so" --set job.operator=good:scale \
    --journal g.jsonl --set strategy.max_evals=5
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal g.jsonl \
    --resume
expect_text "g.jsonl was written by another plugin build: name is \"good\" in the journal, \"vector_add\" in the plugin loaded now"

# --- [metrics]: counters journaled, resumed, shown; unavailable is one line ------
CREC=$DATA/vector_add-synthetic-counters-n16777216.jsonl
cat > metrics.ini <<'EOF'
[job]
operator = vector_add:add
n = 2^24
[metrics]
counters = default, registers_per_thread
points = every
EOF
expect_exit 0 "$KTUNE" tune metrics.ini --check
expect_text "metrics every, 21 metric(s), 19 raw counter(s)"
expect_exit 0 "$KTUNE" tune metrics.ini --replay "$CREC" --journal m.jsonl \
    --json m.json
expect_text "point(s) profiled (every), from launches of their own"
expect_text "ld s/req  st s/req  occ %  theo %  DRAM %  class"
expect_text "  best vec4 "
expect_text "coalescing: loads: 16.00 sectors/request, 512 B asked for per request need 16.00"
expect_exit 0 "$KTUNE" tune metrics.ini --replay "$CREC" --journal m.jsonl \
    --resume --json m2.json --quiet
python3 - <<'PY' || failures=$((failures + 1))
import json
lines = [json.loads(l) for l in open("m.jsonl")]
assert lines[0]["format"] == 2 and lines[0]["metrics"]["points"] == "every"
prof = [l for l in lines if l["kind"] == "profile"]
a, b = json.load(open("m.json")), json.load(open("m2.json"))
assert len(prof) == a["measured"] == a["metrics"]["profiled"], len(prof)
assert all(p["counters"] == "ok" and p["raw"] for p in prof)
assert b["metrics"]["from_journal"] == b["metrics"]["profiled"] > 0, b["metrics"]
assert a["best"]["counters"]["registers_per_thread"] > 0
assert a["best"]["diagnosis"]["bound"], a["best"]["diagnosis"]
print("profiles journaled:", len(prof), "; resumed from the journal:",
      b["metrics"]["from_journal"])
PY
expect_exit 0 "$KTUNE" tune metrics.ini --replay "$REC" --quiet
expect_text "ktune tune: no hardware counters: the recording"
expect_text "holds no counters (it was recorded without a [metrics] section); continuing without counters"
expect_lines 1
expect_exit 2 "$KTUNE" tune metrics.ini --replay "$CREC" \
    --set metrics.counters=occupncy
expect_text "--set metrics.counters=occupncy: [metrics] counters: unknown metric 'occupncy'; did you mean 'achieved_occupancy'"
expect_lines 1

# --- the progress line, on a terminal only -------------------------------------
python3 - "$KTUNE" "$REC" <<'PY' || failures=$((failures + 1))
import os, pty, sys
ktune, rec = sys.argv[1], sys.argv[2]
argv = [ktune, "tune", "job.ini", "--replay", rec, "--replay-delay", "0.01"]
chunks = []
def read(fd):
    data = os.read(fd, 65536)
    chunks.append(data)
    return data
status = pty.spawn(argv, read)
text = b"".join(chunks).decode()
assert os.waitstatus_to_exitcode(status) == 0, text
assert "\rsearching [1/<=62], best " in text and " left" in text, text[:400]
assert "best " in text
print("progress line shown on a terminal")
PY

# --- no GPU: say how to watch a run in replay ------------------------------------
if ! "$KT_HAS_GPU"; then
    expect_exit 1 "$KTUNE" tune job.ini
    expect_text "no CUDA device or driver found on this machine"
    expect_text "to watch a recorded tuning run instead: ktune tune job.ini --replay "
    expect_lines 1
    # The command it gives, pasted, works (ktune from this build).
    hint=${out##*instead: }
    expect_exit 0 env PATH="$(dirname "$KTUNE"):$PATH" bash -c "$hint --quiet"
    expect_exit 1 "$KTUNE" tune job.ini --in-process
    expect_text "no CUDA device or driver found on this machine"
    expect_lines 1
fi
finish
