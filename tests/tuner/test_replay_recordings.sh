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
# Every committed recording (sidecar next to it) replays its own problem:
# random search with the recording's seed draws the recorded points first
# (a recording of part of a space is the start of that permutation).
for meta in "$DATA"/*.meta.json; do
    # The synthetic fixture covers a part of the space of its own (above).
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("synthetic", False))' "$meta" || continue
    rec=$DATA/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recording"])' "$meta")
    spec=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spec"])' "$meta")
    # A declared operator (an [operator] section, no plugin) is described
    # by the job it was recorded with.
    job=$KT_SOURCE_DIR/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"].split()[2])' "$meta")
    if grep -q '^\[operator\]' "$job" 2>/dev/null; then
        expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --journal none \
            --quiet --set strategy.name=random --set strategy.seed=1 \
            --set strategy.max_evals=20
        continue
    fi
    printf '[job]\noperator = %s\n[strategy]\nname = random\nseed = 1\nmax_evals = 20\n' "$spec" > rec.ini
    expect_exit 0 "$KTUNE" tune rec.ini --replay "$rec" --journal none --quiet
done
finish
