# SPDX-License-Identifier: Apache-2.0
# Progress goes to stderr, never stdout: a pipe or CI log gets plain lines
# (one per phase, then at most one every 10 s) naming the phase, the count
# measured of an honest bound ("<=N" when the strategy may stop earlier),
# the configuration being measured and the best so far. --quiet has none.
# A replay writes no journal (the job's [output] journal included) unless
# --journal asks for one.
. "$(dirname "$0")/lib.sh"

job="$KT_SOURCE_DIR/configs/vector_add.ini"
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
rm -f ./*.jsonl

"$KTUNE" tune "$job" --replay "$rec" >stdout.txt 2>stderr.txt
rc=$?
out=$(cat stderr.txt)
[ "$rc" = 0 ] || { echo "FAIL: replay exited $rc"; failures=$((failures + 1)); }
expect_text "ktune tune: searching [0/<=62], no valid point yet"
expect_text ", now coalesced block=256"
expect_text "ktune tune: re-measuring 3 finalists ["
expect_text "/<=62], best "
expect_text "best "
out=$(cat stdout.txt)
if grep -q "ktune tune: searching\|re-measuring" stdout.txt; then
    echo "FAIL: progress on stdout"
    failures=$((failures + 1))
fi
if ls ./*.jsonl >/dev/null 2>&1; then
    echo "FAIL: a replay wrote a journal unasked: $(ls ./*.jsonl)"
    failures=$((failures + 1))
fi

"$KTUNE" tune "$job" --replay "$rec" --quiet >stdout.txt 2>stderr.txt
if grep -q "ktune tune: searching" stderr.txt; then
    echo "FAIL: --quiet still shows progress"
    failures=$((failures + 1))
fi

expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --quiet --journal mine.jsonl
[ -s mine.jsonl ] || {
    echo "FAIL: --journal wrote no journal in replay"
    failures=$((failures + 1))
}
# The exhaustive strategy measures every feasible point: an exact count.
"$KTUNE" tune "$job" --replay "$rec" --set strategy.name=exhaustive \
    --set strategy.max_seconds=0 >stdout.txt 2>stderr.txt
out=$(cat stderr.txt)
expect_text "ktune tune: searching [0/62], no valid point yet"
rm -f ./*.jsonl stdout.txt stderr.txt
finish
