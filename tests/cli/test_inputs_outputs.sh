# SPDX-License-Identifier: Apache-2.0
# Input and output without a GPU: every input error exits 2 before a device
# is looked for; output paths are checked before the run; a full stdout is
# exit 1; SIGINT and SIGTERM print the resume hint; an empty journal is
# resumed afresh; a second writer of a journal is refused; long values are
# read whole or refused with their length; long messages keep their reason.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

REC=$KT_SOURCE_DIR/tests/data/vector_add-synthetic-n16777216.jsonl
rm -f ./*.json ./*.jsonl ./*.err
evals_in() {
    local n
    n=$(grep -c '"kind":"eval"' "$1" 2>/dev/null)
    echo "${n:-0}"
}
cat > job.ini <<'INI'
[job]
operator = vector_add:add
n = 2^24
[strategy]
name = exhaustive
INI

# --- input before any device ----------------------------------------------------
for cmd in bench profile compare; do
    expect_exit 2 "$KTUNE" $cmd vector_add:add --size n=0
    expect_text "--size: n: expected 1 to 8589934592, found 0"
    expect_exit 2 "$KTUNE" $cmd vector_add:add --device -1
    expect_exit 2 "$KTUNE" $cmd vector_add:add --seed -1
    expect_exit 2 "$KTUNE" $cmd vector_add:add --json /no/such/folder/x.json
    expect_text "its folder /no/such/folder does not exist"
done
expect_exit 2 "$KTUNE" bench vector_add:add --set block=100
expect_text "ktune bench: --set: parameter 'block': 100 is not one of"
# 1^huge costs nothing; leading zeros are decimal.
expect_exit 0 "$KTUNE" tune job.ini --check --set job.n=1^999999999999
expect_text "n=1"
expect_exit 0 "$KTUNE" tune job.ini --check --set job.n=010
expect_text "n=10"

# --- outputs before the run --------------------------------------------------------
for flag in --json --csv --t4; do
    expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet $flag /no/such/folder/out
    expect_text "$flag /no/such/folder/out: its folder /no/such/folder does not exist"
done
long=$(printf 'd%.0s' $(seq 1 5000))
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --json "$long.json"
expect_text "--json: the path is 5005 characters, more than 4095"
# A message longer than its buffer keeps its head and its reason.
expect_exit 2 "$KTUNE" bench "vector_add:$long"
expect_text "characters cut"
expect_text "ktune bench: plugin 'vector_add' has no operator"

# --- stdout that cannot be written -------------------------------------------------
"$KTUNE" list >/dev/full 2>list.err
rc=$?
[ $rc = 1 ] || { echo "FAIL: list >/dev/full exited $rc"; failures=$((failures + 1)); }
grep -q "cannot write standard output" list.err ||
    { echo "FAIL: no message for a full stdout"; failures=$((failures + 1)); }
"$KTUNE" tune job.ini --replay "$REC" --quiet --json s.json >/dev/full 2>/dev/null
[ $? = 0 ] || { echo "FAIL: a quiet run with nothing on stdout failed"; failures=$((failures + 1)); }
"$KTUNE" tune job.ini --replay "$REC" >/dev/full 2>/dev/null
[ $? = 1 ] || { echo "FAIL: tune's summary into /dev/full was a success"; failures=$((failures + 1)); }

# --- signals print the resume hint ----------------------------------------------
for sig in INT TERM; do
    rm -f sig.jsonl
    "$KTUNE" tune job.ini --replay "$REC" --replay-delay 0.05 --quiet \
        --journal sig.jsonl 2>sig.err &
    pid=$!
    for _ in $(seq 200); do
        [ "$(evals_in sig.jsonl)" -ge 3 ] && break
        sleep 0.02
    done
    kill -$sig $pid
    wait $pid
    grep -q "continue with: ktune tune job.ini --resume --journal sig.jsonl" sig.err ||
        { echo "FAIL: SIG$sig: no resume hint"; cat sig.err; failures=$((failures + 1)); }
    expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal sig.jsonl --resume
done

# --- journals: empty, and one writer ------------------------------------------------
: >empty.jsonl
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal empty.jsonl --resume
expect_text "empty.jsonl is empty (its run stopped before writing the header); starting afresh"
: >empty2.jsonl
expect_exit 0 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal empty2.jsonl
rm -f busy.jsonl
"$KTUNE" tune job.ini --replay "$REC" --replay-delay 0.05 --quiet \
    --journal busy.jsonl >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
    [ "$(evals_in busy.jsonl)" -ge 2 ] && break
    sleep 0.02
done
expect_exit 2 "$KTUNE" tune job.ini --replay "$REC" --quiet --journal busy.jsonl --resume
expect_text "journal busy.jsonl is in use: another ktune is writing it"
kill $pid
wait $pid 2>/dev/null
finish
