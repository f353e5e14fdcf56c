# SPDX-License-Identifier: Apache-2.0
# Size sweeps and wisdom through the CLI, without a GPU: a sweep written in
# [job] is listed by --check and mistakes in it are one line with
# file:line; replaying three recordings is a sweep over their sizes, with a
# journal and outputs per size, the table per size and the answers merged
# into a wisdom file; resuming continues every size's journal and starts
# the ones the stopped run never reached; a second run replaces the
# answers; a killed sweep keeps the answers it had and resumes; `ktune
# wisdom` shows, checks (stale versions and parameters) and
# selects; damaged and non-regular files are refused, never overwritten.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
R1=$DATA/vector_add-h200-n1048576.jsonl
R2=$DATA/vector_add-h200-n16777216.jsonl
R3=$DATA/vector_add-h200-n268435456.jsonl
rm -rf ./*.jsonl ./*.json ./*.lock wisdom-dir link.jsonl
cp "$KT_SOURCE_DIR/configs/vector_add.ini" sweep.ini

# --- sweeps in [job] --------------------------------------------------------
expect_exit 0 "$KTUNE" tune sweep.ini --check --set "job.n=2^20..2^28 step ×16"
expect_text "sweep of 3 sizes, one search each: n=1048576, n=16777216, n=268435456"
expect_exit 0 "$KTUNE" tune sweep.ini --check --set "job.n=2^20..2^28 step x16"
expect_text "n=1048576, n=16777216, n=268435456"
expect_exit 0 "$KTUNE" tune sweep.ini --check --set "job.n=2^20..2^28 step *16"
expect_text "n=1048576, n=16777216, n=268435456"
expect_exit 0 "$KTUNE" tune sweep.ini --check --set "job.n=1000..3000 step +1000"
expect_text "n=1000, n=2000, n=3000"
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/gemv_ax.ini" --check \
    --set "job.m, n=1024x1024, 16384x16384, 65536x4096"
expect_text "sweep of 3 sizes, one search each: m=1024 n=1024, m=16384 n=16384, m=65536 n=4096"
printf '[job]\noperator = vector_add:add\nn = 2^20..2^28\n' > nostep.ini
expect_exit 2 "$KTUNE" tune nostep.ini --check
expect_text "nostep.ini:3: [job] n: '2^20..2^28': a range needs a step"
expect_lines 1
printf '[job]\noperator = vector_add:add\n\nn = 2^20, 2^40\n' > big.ini
expect_exit 2 "$KTUNE" tune big.ini --check
expect_text "big.ini:4: [job] n: 1099511627776 is out of range"
expect_lines 1

# --- a sweep over recordings, with journals, table and wisdom ---------------
expect_exit 0 "$KTUNE" tune sweep.ini --replay "$R1" --replay "$R2" \
    --replay "$R3" --journal sweep.jsonl --json sweep.json --wisdom w.jsonl
expect_text "=== size 3 of 3 ==="
expect_text "sweep: vector_add:add on NVIDIA H200, 3 size(s), one search each"
expect_text "vs dflt"
expect_text "wisdom w.jsonl: 3 answer(s) added, 0 replaced"
# the lock file lives only while the run merges (issue 30 item 19)
[ ! -e w.jsonl.lock ] || {
    echo "FAIL: w.jsonl.lock left beside the wisdom file"
    failures=$((failures + 1))
}
# Each size's files carry its size (the recording's).
for n in 1048576 16777216 268435456; do
    head -n 1 "sweep.n$n.jsonl" 2>/dev/null | grep -q "\"sizes\":{\"n\":$n}" &&
        grep -q "\"n\": *$n" "sweep.n$n.json" 2>/dev/null || {
        echo "FAIL: sweep.n$n.jsonl or sweep.n$n.json missing or not at n=$n"
        failures=$((failures + 1))
    }
done
table=$(sed -n '/^sweep:/,$p' <<<"$out")
grep -q "n=268435456 .* vec4 " <<<"$table" || {
    echo "FAIL: no row for n=268435456 in:"
    echo "$table"
    failures=$((failures + 1))
}

# --- resume across the sweep: the third size was never reached -------------
rm sweep.n268435456.jsonl
expect_exit 0 "$KTUNE" tune sweep.ini --replay "$R1" --replay "$R2" \
    --replay "$R3" --journal sweep.jsonl --resume --wisdom w.jsonl
expect_text "no journal sweep.n268435456.jsonl yet: starting it"
expect_text "from the journal"
expect_text "wisdom w.jsonl: 0 answer(s) added, 3 replaced"
[ -s sweep.n268435456.jsonl ] || {
    echo "FAIL: the resumed sweep did not write the third journal"
    failures=$((failures + 1))
}

# --- a sweep killed in its second size keeps the first answer; resumed, it
# answers the first from its journal and finishes -----------------------------
rm -f kill.*.jsonl kw.jsonl kw.jsonl.lock
"$KTUNE" tune sweep.ini --replay "$R1" --replay "$R2" --replay "$R3" \
    --journal kill.jsonl --wisdom kw.jsonl --replay-delay 0.05 --quiet \
    >kill.log 2>&1 &
pid=$!
for _ in $(seq 200); do
    [ -s kill.n16777216.jsonl ] && break
    sleep 0.05
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
expect_exit 0 "$KTUNE" wisdom show kw.jsonl
expect_text "kw.jsonl: 1 entry"
expect_exit 0 "$KTUNE" tune sweep.ini --replay "$R1" --replay "$R2" \
    --replay "$R3" --journal kill.jsonl --resume --wisdom kw.jsonl
expect_text "wisdom kw.jsonl: 2 answer(s) added, 1 replaced"
expect_text "from the journal"

# --- ktune wisdom -----------------------------------------------------------
expect_exit 0 "$KTUNE" wisdom show w.jsonl
expect_text "w.jsonl: 3 entries (wisdom format 1)"
expect_text "vector_add:add     NVIDIA H200"
expect_exit 0 "$KTUNE" wisdom check w.jsonl
expect_text "3 current, 0 stale, 0 unknown"
expect_exit 0 "$KTUNE" wisdom select w.jsonl vector_add:add "NVIDIA H200" 2^24
expect_text "match: exact"
expect_exit 0 "$KTUNE" wisdom select w.jsonl vector_add:add sm_90 3000000
expect_text "match: same compute capability, nearest"
expect_exit 1 "$KTUNE" wisdom select w.jsonl vector_add:add "8.0" 2^24
expect_text "no wisdom for vector_add:add on 8.0"
expect_exit 2 "$KTUNE" wisdom frobnicate w.jsonl
expect_text "'frobnicate' is not show, check or select"

# Stale: another plugin version, a parameter value no longer declared.
sed -e '2s/"plugin_version":"[^"]*"/"plugin_version":"0.9"/' \
    -e '3s/"block":[0-9]*/"block":48/' w.jsonl > stale.jsonl
expect_exit 1 "$KTUNE" wisdom check stale.jsonl
expect_text "STALE    line 2"
expect_text "plugin version 1.0.0, tuned with 0.9: tune again"
expect_text "STALE    line 3"
expect_text "no longer valid"
expect_text "1 current, 2 stale, 0 unknown"
sed '2s/"vector_add:add"/"nosuch:op"/' w.jsonl > unknown.jsonl
expect_exit 1 "$KTUNE" wisdom check unknown.jsonl
expect_text "unknown  line 2"

# --- damaged and non-regular files are refused, never overwritten -----------
head -c 300 w.jsonl > torn.jsonl
cp torn.jsonl torn.before
expect_exit 2 "$KTUNE" wisdom show torn.jsonl
expect_text "torn.jsonl:"
expect_exit 2 "$KTUNE" tune sweep.ini --replay "$R1" --wisdom torn.jsonl
expect_text "will not overwrite a damaged wisdom file"
cmp -s torn.jsonl torn.before || {
    echo "FAIL: a damaged wisdom file was rewritten"
    failures=$((failures + 1))
}
mkdir wisdom-dir
expect_exit 2 "$KTUNE" tune sweep.ini --replay "$R1" --wisdom wisdom-dir
expect_text "not a regular file"
ln -s w.jsonl link.jsonl
expect_exit 2 "$KTUNE" tune sweep.ini --replay "$R1" --wisdom link.jsonl
expect_text "not a regular file"
finish
