# SPDX-License-Identifier: Apache-2.0
# No chart of a report puts text outside its viewBox or plot area, or over
# its marks or other text (check_layout.py, with the renderer's own text
# estimate): reports of every H200 recording in tests/data (the journals as
# recorded, the main job's summary with a journal, a replayed comparison,
# replayed tuning runs of the GEMV, reduce and transpose recordings), a run in which
# parameters have one measured value (a sentence, no chart, for those), and
# the timeline chart of a recorded program.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
data=$KT_SOURCE_DIR/tests/data
configs=$KT_SOURCE_DIR/configs
command -v python3 >/dev/null || {
    echo "skipped: no python3"
    exit 77
}
rm -rf ./*

report() { # OUT RESULTS [options]: writes OUT, counted as a failure if not
    local out=$1
    shift
    expect_exit 0 "$KTUNE" report "$@" -o "$out"
}

for j in "$data"/vector_add-h200-*.jsonl; do
    report "$(basename "$j" .jsonl).html" "$j"
done
report main.html "$KT_SOURCE_DIR/tests/report/data/vector_add-h200-main.summary.json" \
    --journal "$data/vector_add-h200-n268435456.jsonl"
report compare.html "$KT_SOURCE_DIR/tests/report/data/vector_add-h200-compare-replay.json"

# Replayed runs of every recording (its sidecar names the job that
# recorded it): the summary (answer, ringed on the roofline) and journal.
for meta in "$data"/*-h200-*.meta.json; do
    name=$(basename "$meta" .meta.json)
    job=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"])' "$meta")
    need=$(missing_source_dir "$KT_SOURCE_DIR/$job")
    [ -n "$need" ] && { echo "SKIPPED: $name: its declaration needs $need"; continue; }
    expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/$job" --replay "$data/$name.jsonl.gz" \
        --json "$name.json" --journal "$name.jsonl" --quiet
    report "$name.html" "$name.json"
done

# block and items at one value each: a sentence for each, no chart.
expect_exit 0 "$KTUNE" tune "$configs/vector_add.ini" \
    --replay "$data/vector_add-h200-n16777216.jsonl" --set space.block=256 \
    --set space.items=4 --json one.json --journal one.jsonl --quiet
report one.html one.json
out=$(cat one.html)
expect_text "block was measured at one value only, 256 (5 configurations): no chart"
expect_text "items was measured at one value only, 4 (1 configuration)"
expect_text "Median kernel time against blocks_per_sm"
for p in block items; do
    if grep -q "Median kernel time against $p<" one.html; then
        echo "FAIL: a chart of time against $p, which has one value"
        failures=$((failures + 1))
    fi
done
# Numbers never break inside a table cell: each in a span that does not
# wrap, and a list of them breaks after its commas only.
out=$(cat main.html)
expect_text "span.num{white-space:nowrap;font-variant-numeric:tabular-nums}"
expect_text "span.list{overflow-wrap:normal}"
expect_text '<th>l2_bytes</th><td class="num"><span class="num">62914560 (60 MiB)</span>'
expect_text '<th>max_grid</th><td><span class="list"><span class="num">2147483647</span>, '
out=$(cat one.html)
# The replay's time row keeps the recording's GPU time apart from its own.
expect_text "s of wall time for the replay, which ran nothing on a GPU"
if grep -q "s of it sampled on the GPU" one.html; then
    echo "FAIL: a replay's GPU time given as part of its wall time"
    failures=$((failures + 1))
fi

expect_exit 0 "$KTUNE" timeline --records "$KT_SOURCE_DIR/tests/timeline/fixtures/program" \
    --json t.json
expect_exit 0 "$KTUNE" report t.json -o timeline.svg

expect_exit 0 python3 "$KT_SOURCE_DIR/tests/report/check_layout.py" \
    "$KT_SOURCE_DIR/report/plot.h" ./*.html timeline.svg
echo "$out" | tail -n 1

# The check itself catches each kind of defect, planted in a small chart.
plant() { # NAME BODY: a 200x100 chart with plot area (20,10)-(180,80)
    printf '%s' '<svg class="chart" viewBox="0 0 200 100" font-size="12">' \
        '<defs><clipPath id="kt-c1"><rect x="20" y="10" width="160" ' \
        'height="70"/></clipPath></defs>' "$2" '</svg>' >"$1.svg"
}
check_planted() { # NAME TEXT: the check fails on NAME.svg, saying TEXT
    expect_exit 1 python3 "$KT_SOURCE_DIR/tests/report/check_layout.py" \
        "$KT_SOURCE_DIR/report/plot.h" "$1.svg"
    expect_text "$2"
}
plant clean '<text class="note" x="30" y="40">fine</text><circle cx="150" cy="60" r="4"/>'
expect_exit 0 python3 "$KT_SOURCE_DIR/tests/report/check_layout.py" \
    "$KT_SOURCE_DIR/report/plot.h" clean.svg
plant past '<text x="150" y="40">runs past the edge</text>'
check_planted past "text 'runs past the edge' at"
plant outside '<text class="line-label" x="150" y="95" text-anchor="end">low</text>'
check_planted outside "text 'low' leaves the plot area"
plant marker '<text class="note" x="30" y="40">on a point</text><circle cx="50" cy="36" r="4"/>'
check_planted marker "text 'on a point' lies over a marker"
plant roof '<text class="note" x="30" y="40">on the roof</text><path class="series" stroke-width="2" d="M20,80L100,20"/>'
check_planted roof "text 'on the roof' lies over a line (series)"
plant bar '<text x="30" y="40" font-size="11">on a bar</text><rect x="40" y="30" width="5" height="5"/>'
check_planted bar "text 'on a bar' lies over a bar"
plant texts '<text x="30" y="40">one</text><text x="40" y="42">two</text>'
check_planted texts "text 'two' overlaps text 'one'"
# A clipped mark counts only where it shows; the legend's samples and
# regions behind the data are no marks.
plant clipped '<text x="30" y="95">below</text><circle cx="40" cy="92" r="4" clip-path="url(#kt-c1)"/><g class="legend"><circle cx="35" cy="40" r="4"/></g>'
expect_exit 0 python3 "$KT_SOURCE_DIR/tests/report/check_layout.py" \
    "$KT_SOURCE_DIR/report/plot.h" clipped.svg
finish
