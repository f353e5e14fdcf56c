# SPDX-License-Identifier: Apache-2.0
# Several workers from the command line, without a GPU: simulated workers
# (--replay with --workers) give the single worker's answer and evaluate
# the same points; a run of several workers killed in the middle resumes
# on another number of workers without measuring anything twice; device
# lists are checked before anything runs.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

REC=$KT_SOURCE_DIR/tests/data/vector_add-synthetic-n16777216.jsonl
GEMV=$KT_SOURCE_DIR/tests/data/gemv_ax-synthetic-m1024-n1024.jsonl.gz
rm -f ./*.json ./*.jsonl

cat > job.ini <<'INI'
[job]
operator = vector_add:add
n = 2^24
[output]
journal = none
INI

best() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['best']['config'])" "$1"; }
points() {
    python3 -c "
import json, sys
print(sorted(json.dumps(r['point'], sort_keys=True) for r in map(json.loads, open(sys.argv[1]))
             if r.get('kind') == 'eval' and r.get('purpose') != 'final'))" "$1"
}
evals_in() {
    local n
    n=$(grep -c '"kind":"eval"' "$1" 2>/dev/null)
    echo "${n:-0}"
}

# Simulated workers: the same answer, the same points evaluated.
for strategy in exhaustive random; do
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
        --set strategy.name=$strategy --json one.json --journal one.jsonl
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --workers 3 \
        --time-scale 0 --set strategy.name=$strategy --json three.json \
        --journal three.jsonl
    expect_text "3 workers (each comparison on one of them)"
    [ "$(best one.json)" = "$(best three.json)" ] ||
        { echo "FAIL: $strategy: 3 workers answered $(best three.json), 1 worker $(best one.json)"; failures=$((failures + 1)); }
    [ "$(points one.jsonl)" = "$(points three.jsonl)" ] ||
        { echo "FAIL: $strategy: 3 workers evaluated other points"; failures=$((failures + 1)); }
    [ "$(python3 -c "import json; print(len(json.load(open('three.json'))['workers']))")" = 3 ] ||
        { echo "FAIL: $strategy: --json has no 3 workers"; failures=$((failures + 1)); }
    rm -f one.json* three.json*
done

# The default strategy and the batching ones: the single worker's answer.
for strategy in one_at_a_time annealing genetic; do
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
        --set strategy.name=$strategy --json one.json
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
        --workers 4 --time-scale 0 --set strategy.name=$strategy \
        --json four.json
    [ "$(best one.json)" = "$(best four.json)" ] ||
        { echo "FAIL: $strategy: 4 workers answered $(best four.json), 1 worker $(best one.json)"; failures=$((failures + 1)); }
    rm -f one.json four.json
done
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/gemv_ax.ini" \
    --replay "$GEMV" --quiet --set strategy.max_seconds=0 --json one.json
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/gemv_ax.ini" \
    --replay "$GEMV" --quiet --workers 4 --time-scale 0 \
    --set strategy.max_seconds=0 --json four.json
[ "$(best one.json)" = "$(best four.json)" ] ||
    { echo "FAIL: gemv: 4 workers answered $(best four.json), 1 worker $(best one.json)"; failures=$((failures + 1)); }

# Killed while 3 workers measure, resumed on 2: nothing measured twice,
# and the run ends where an uninterrupted one ends.
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet \
    --set strategy.name=exhaustive --json ref.json --journal ref.jsonl
"$KTUNE" tune job.ini --replay "$REC" --workers 3 --time-scale 1 --quiet \
    --set strategy.name=exhaustive --set strategy.max_seconds=0 \
    --journal killed.jsonl >/dev/null 2>&1 &
pid=$!
for _ in $(seq 500); do
    [ "$(evals_in killed.jsonl)" -ge 12 ] && break
    sleep 0.02
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
before=$(evals_in killed.jsonl)
if [ "$before" -lt 12 ] || [ "$before" -ge "$(evals_in ref.jsonl)" ]; then
    echo "FAIL: the run was not stopped in the middle ($before evaluations)"
    failures=$((failures + 1))
fi
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --workers 2 \
    --time-scale 0 --quiet --set strategy.name=exhaustive \
    --set strategy.max_seconds=0 --resume --journal killed.jsonl \
    --json resumed.json
[ "$(best ref.json)" = "$(best resumed.json)" ] ||
    { echo "FAIL: resumed answer $(best resumed.json), expected $(best ref.json)"; failures=$((failures + 1)); }
[ "$(points ref.jsonl)" = "$(points killed.jsonl)" ] ||
    { echo "FAIL: the resumed run measured points twice or others"; failures=$((failures + 1)); }

# Device lists: checked before anything runs (exit 2), or no GPU (exit 1).
expect_exit 2 "$KTUNE" tune job.ini --devices 0,0
expect_text "GPU 0 is named twice"
expect_exit 2 "$KTUNE" tune job.ini --devices 0,x
expect_text "expected GPU ordinals"
expect_exit 2 "$KTUNE" tune job.ini --workers 2
expect_text "--workers needs --replay"
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --devices 0,1
expect_text "with --replay use --workers"
printf '[job]\noperator = vector_add:add\ndevices = 1,0,7\n' > devices.ini
expect_exit 0 "$KTUNE" tune devices.ini --check
printf '[job]\noperator = vector_add:add\ndevices = 1/2\n' > bad.ini
expect_exit 2 "$KTUNE" tune bad.ini --check
expect_text "bad.ini"
expect_text "devices"
if ! "$KT_HAS_GPU" >/dev/null 2>&1; then
    expect_exit 1 "$KTUNE" tune job.ini --devices all
    expect_text "no CUDA device"
fi
finish
