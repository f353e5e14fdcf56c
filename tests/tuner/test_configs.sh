# SPDX-License-Identifier: Apache-2.0
# Every shipped job in configs/ is valid for the plugins built here, and
# the main job replays against every vector_add recording in tests/data.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

shopt -s nullglob
configs=("$KT_SOURCE_DIR"/configs/*.ini)
if [ ${#configs[@]} -eq 0 ]; then
    echo "FAIL: no configs in $KT_SOURCE_DIR/configs"
    failures=$((failures + 1))
fi
for c in "${configs[@]}"; do
    expect_exit 0 "$KTUNE" tune "$c" --check
    expect_text "space "
done

for rec in "$KT_SOURCE_DIR"/tests/data/vector_add-*.jsonl; do
    expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
        --replay "$rec" --journal none --json main.json
    expect_text "best "
    python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("main.json"))
assert s["replay"]["best_vs_optimum"] <= 1.03, s["replay"]
PY
done
finish
