#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The report as a browser shows it: two reports rendered from the H200
# recordings (the main job's summary with a journal, and a replayed
# comparison) are opened in headless Chromium, which dumps the document it
# parsed and takes a screenshot. check_render.py then requires every chart
# in the DOM with drawn data paths, tick labels and axis titles, no script
# and no outside reference, and a screenshot that is not blank and shows
# the series colours. Skipped (77) where Chromium is not installed.
source "$KT_SOURCE_DIR/tests/cli/lib.sh"
data="$KT_SOURCE_DIR/tests/data"
rdata="$KT_SOURCE_DIR/tests/report/data"

browser=""
for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then
        browser=$b
        break
    fi
done
if [ -z "$browser" ]; then
    echo "skipped: no chromium (Debian: apt-get install chromium)"
    exit 77
fi
rm -rf ./*

# Nothing may be fetched: every host name resolves to nothing.
shoot() { # HTML PNG HEIGHT DOM
    local flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage
        --no-first-run --hide-scrollbars --user-data-dir="$PWD/profile"
        --host-resolver-rules="MAP * ~NOTFOUND" --window-size="1000,$3")
    timeout 120 "$browser" "${flags[@]}" --screenshot="$PWD/$2" \
        "file://$PWD/$1" >/dev/null 2>&1
    timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$PWD/$1" \
        >"$4" 2>/dev/null
    if [ ! -s "$2" ] || [ ! -s "$4" ]; then
        echo "FAIL: $browser made no screenshot or DOM of $1"
        failures=$((failures + 1))
        return 1
    fi
}

check() { # DOM PNG MIN_CHARTS
    if ! python3 "$KT_SOURCE_DIR/tests/report/check_render.py" "$@"; then
        echo "FAIL: $1 / $2 as rendered by $browser"
        failures=$((failures + 1))
    fi
}

"$KTUNE" report "$rdata/vector_add-h200-main.summary.json" \
    --journal "$data/vector_add-h200-n268435456.jsonl" -o main.html \
    2>/dev/null || { echo "FAIL: ktune report"; exit 1; }
# The time charts, the path, the trace, the roofline, the calibration.
shoot main.html main.png 4600 main.dom.html && check main.dom.html main.png 8

"$KTUNE" report "$rdata/vector_add-h200-compare-replay.json" -o cmp.html \
    2>/dev/null || { echo "FAIL: ktune report (compare)"; exit 1; }
# Times with intervals, speed-ups, the roofline, the calibration.
shoot cmp.html cmp.png 2600 cmp.dom.html && check cmp.dom.html cmp.png 4
finish
