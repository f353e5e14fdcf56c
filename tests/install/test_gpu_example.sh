# SPDX-License-Identifier: Apache-2.0
# On a GPU, the out-of-tree plugins the install test built (fixture
# ktune_installed) run under the installed ktune: every variant of the
# example and of the scaffold verifies (boundary sizes, an odd size) and is
# timed; their tuning jobs run to a verified answer; compare measures the
# example's two variants side by side and report renders the tuning run
# (the tutorial's steps). Skipped (77) without a device.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
unset KTUNE_PLUGIN_PATH

P=$KT_INSTALL_WORK/moved
K=$P/bin/ktune
stencil=$KT_INSTALL_WORK/stencil-build/stencil.so
scaffold=$KT_INSTALL_WORK/scaffold/build/scaffold_op.so
for f in "$K" "$stencil" "$scaffold"; do
    [ -e "$f" ] || {
        echo "FAIL: $f is missing: run the install test first (ctest adds it"
        echo "      to this one as the fixture ktune_installed)"
        exit 1
    }
done
quick=(--min-time 0.05 --max-time 2)

bench() { # bench PLUGIN_FILE SPEC ARGS...
    local so=$1 spec=$2
    shift 2
    expect_exit 0 "$K" bench "$spec" --plugin "$so" "${quick[@]}" "$@"
    expect_text "effective bandwidth"
    expect_text "of the measured copy ceiling"
}

bench "$stencil" stencil:blur9 --variant direct --size n=2^24
bench "$stencil" stencil:blur9 --variant tiled --set items=4 --size n=2^24
bench "$stencil" stencil:blur9 --variant tiled --set block=1024 --set items=8 \
    --size n=1000003
bench "$stencil" stencil:blur9 --variant direct --set block=32 --size n=777
bench "$scaffold" scaffold_op:mul --variant one_per_thread --size n=2^24
bench "$scaffold" scaffold_op:mul --variant grid_stride --set blocks_per_sm=8 \
    --size n=1000003

# The tuning jobs as shipped, made short: a smaller n and a budget.
tune() { # tune CONFIG PLUGIN_FILE NAME
    expect_exit 0 "$K" tune "$1" --plugin "$2" --set job.n=2^24 \
        --set strategy.max_evals=8 --set measure.max_time=1 \
        --journal "$3.journal.jsonl" --json "$3.json"
    python3 - "$3.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
assert r["best"] is not None, "no verified configuration"
assert r["best"]["median_us"] > 0 and r["measured"] >= 2, r["measured"]
print(sys.argv[1], "best", r["best"]["variant"], r["best"]["params"],
      r["best"]["median_us"], "us")
PY
}
rm -f stencil.journal.jsonl scaffold.journal.jsonl
tune "$KT_SOURCE_DIR/examples/stencil/stencil.ini" "$stencil" stencil
tune "$KT_INSTALL_WORK/scaffold/scaffold_op.ini" "$scaffold" scaffold

# The tutorial's comparison step: both variants at their tuned best.
expect_exit 0 "$K" compare stencil:blur9 --plugin "$stencil" \
    --from stencil.journal.jsonl --variants direct,tiled --no-counters \
    "${quick[@]}"
expect_text "direct"
expect_text "tiled"

# ... and the tutorial's report step, from the tuning summary.
expect_exit 0 "$K" report stencil.json -o stencil.html --plugin "$stencil"
[ -s stencil.html ] || { echo "FAIL: no stencil.html"; failures=$((failures + 1)); }
finish
