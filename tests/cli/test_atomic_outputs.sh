# SPDX-License-Identifier: Apache-2.0
# Every output file is replaced whole or left as it was: --json, --csv and
# --t4 of tune and report -o go through a temporary file and a rename, so a
# write that fails part way (a file-size limit here, as a full disk would)
# exits 1 naming the cause and leaves the old file untouched, and SIGTERM or
# SIGINT during a write leave no temporary file behind.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

K=$KTUNE
JOB=$KT_SOURCE_DIR/configs/vector_add.ini
REC=$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl
rm -rf ./*

no_strays() {
    local left
    left=$(find . -name '*.tmp.*' | head -n 3)
    if [ -n "$left" ]; then
        echo "FAIL: $1 left temporary files: $left"
        failures=$((failures + 1))
        rm -f ./*.tmp.*
    fi
}

# A limit of 1 KB: a write past it fails with EFBIG (SIGXFSZ ignored).
limited() { (trap '' XFSZ; ulimit -f 1; "$@"); }

for flag in --json --csv --t4; do
    expect_exit 0 "$K" tune "$JOB" --replay "$REC" --quiet $flag out.x
    cp out.x before.x
    expect_exit 1 limited "$K" tune "$JOB" --replay "$REC" --quiet $flag out.x
    expect_text "out.x: cannot write: File too large"
    cmp -s out.x before.x ||
        { echo "FAIL: $flag: a failed write changed out.x"; failures=$((failures + 1)); }
    no_strays "$flag"
done

expect_exit 0 "$K" report "$REC" -o r.html
cp r.html before.html
expect_exit 1 limited "$K" report "$REC" -o r.html
expect_text "-o r.html: writing the report failed: File too large"
cmp -s r.html before.html ||
    { echo "FAIL: report -o: a failed write changed r.html"; failures=$((failures + 1)); }
no_strays "report -o"
expect_exit 2 "$K" report "$REC" -o ""
expect_text "-o: expected a file name"

# Stopped at any moment: the old report or the new one, never a fragment,
# and no temporary file.
for i in $(seq 1 12); do
    for sig in TERM INT; do
        "$K" report "$REC" -o r.html 2>/dev/null &
        pid=$!
        sleep "0.0$((i % 10))"
        kill -s $sig $pid 2>/dev/null
        wait $pid 2>/dev/null
        cmp -s r.html before.html ||
            { echo "FAIL: SIG$sig: r.html is neither old nor new"; failures=$((failures + 1)); }
    done
done
no_strays "report stopped by a signal"
finish
