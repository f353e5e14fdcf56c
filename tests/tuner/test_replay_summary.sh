# SPDX-License-Identifier: Apache-2.0
# A replay's summary says what a replay does: its finalists and its path's
# changes are compared on their recorded samples, nothing is re-measured
# or interleaved (issue 54: it said "closing re-measurement ... in
# interleaved rounds"). The reduce job replayed from its H200 recording
# (one_at_a_time: a path and four finalists), text and Markdown.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

rm -f ./*.md
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/reduce.ini" \
    --replay "$KT_SOURCE_DIR/tests/data/reduce-h200-n268435456.jsonl.gz" \
    --set strategy.max_seconds=0 --markdown summary.md
expect_text "from the closing comparison of 4 finalists on their recorded samples (a replay: nothing re-measured):"
if grep -q "interleaved" <<<"$out"; then
    echo "FAIL: a replay's summary speaks of interleaved rounds:"
    grep "interleaved" <<<"$out" | sed 's/^/    /'
    failures=$((failures + 1))
fi
out=$(cat summary.md)
expect_text "Finalists compared on their recorded samples (a replay: nothing re-measured)."
if grep -q "interleaved" summary.md; then
    echo "FAIL: a replay's Markdown speaks of interleaved rounds"
    failures=$((failures + 1))
fi
finish
