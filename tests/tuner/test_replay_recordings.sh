# SPDX-License-Identifier: Apache-2.0
# Ground-truth recordings replay without a GPU: a gzip-compressed journal
# (the recordings' format: eval records with raw samples and phases, a
# closing "run" record) reads like a plain one, every strategy runs on it,
# the answer is the recorded optimum, and its sidecar states what was
# recorded. Every recording committed under tests/data replays the same way.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

DATA=$KT_SOURCE_DIR/tests/data
FIX=$DATA/gemv_ax-synthetic-m1024-n1024
rm -f ./*.json ./*.jsonl

cat > job.ini <<'EOF2'
[job]
operator = gemv:ax
m = 1024
n = 1024
[space]
variant = warp_row
[strategy]
name = exhaustive
EOF2

expect_exit 0 "$KTUNE" tune job.ini --replay "$FIX.jsonl.gz" --journal none \
    --json gz.json
expect_text "(replay of $FIX.jsonl.gz)"
expect_text "recorded optimum warp_row block=256 unroll=4"
gunzip -c "$FIX.jsonl.gz" > plain.jsonl
expect_exit 0 "$KTUNE" tune job.ini --replay plain.jsonl --journal none \
    --json plain.json
python3 - <<'PY' || fail "the compressed and the plain recording differ"
import json
a, b = json.load(open("gz.json")), json.load(open("plain.json"))
for s in (a, b):
    s.pop("replay_of", None)
    s.get("replay", {}).pop("recording", None)
assert a["best"] == b["best"], (a["best"], b["best"])
assert a["evaluations"] == b["evaluations"] == 24
assert a["replay"]["best_vs_optimum"] <= 1.0 + 1e-9, a["replay"]
PY
for s in random one_at_a_time annealing genetic; do
    expect_exit 0 "$KTUNE" tune job.ini --replay "$FIX.jsonl.gz" --journal none \
        --set strategy.name=$s --quiet
done
python3 - "$FIX.meta.json" <<'PY' || fail "the sidecar does not say what was recorded"
import json, sys
m = json.load(open(sys.argv[1]))
for key in ("space", "protocol", "device", "commit", "wall_s", "feasible",
            "recorded", "complete", "order"):
    assert key in m, key
assert m["recorded"] <= m["feasible"]
PY
# Every committed recording (sidecar next to it) replays its own problem,
# from the job file that recorded it (a declared operator needs its file):
# an exhaustive replay evaluates every recorded point, ends at the recorded
# optimum, and a complete recording holds every feasible point of the space.
for meta in "$DATA"/*.meta.json; do
    # The synthetic fixture covers a part of the space of its own (above).
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("synthetic", False))' "$meta" || continue
    read -r rec config sizes < <(python3 - "$meta" "$DATA" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
sets = [f"job.{k}={v}" for k, v in (m.get("sizes") or {}).items()]
print(os.path.join(sys.argv[2], m["recording"]), m["config"], ",".join(sets))
PY
    )
    need=$(missing_source_dir "$KT_SOURCE_DIR/$config")
    [ -n "$need" ] && { echo "SKIPPED: $meta: its declaration needs $need"; continue; }
    args=()
    IFS=',' read -r -a pairs <<<"$sizes"
    for p in "${pairs[@]}"; do args+=(--set "$p"); done
    name=$(basename "$meta" .meta.json)
    expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/$config" "${args[@]}" \
        --replay "$rec" --journal none --quiet --json "$name.json" \
        --set strategy.name=exhaustive --set strategy.max_evals=0 \
        --set strategy.max_seconds=0
    python3 - "$meta" "$name.json" <<'PY' || fail "$name: the exhaustive replay is not the recording"
import json, sys
m, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["replay"]["best_vs_optimum"] <= 1.0 + 1e-9, s["replay"]
assert s["evaluations"] >= m["recorded"], (s["evaluations"], m["recorded"])
# An operator with a reference variant (cublas, cub) has the answer held
# against it: the flag survives the plugin's probe.
refs = {"gemv:ax": "cublas", "gemv:atx": "cublas", "reduce:sum": "cub"}
if m["spec"] in refs:
    ref = s.get("reference") or {}
    assert ref.get("variant") == refs[m["spec"]], s.get("reference")
if m["complete"]:
    assert m["recorded"] == m["feasible"], m
PY
done
finish
