# SPDX-License-Identifier: Apache-2.0
# On a GPU: the declared transpose compiles, loads, launches and verifies at
# boundary sizes (a size that is no multiple of any tile); a second run
# reads every kernel from the cache and compiles nothing; a configuration
# that does not compile costs that one point (T4 invalidity "compile"),
# never the run; the ahead-of-time plugin agrees with the declaration.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || {
    echo "no CUDA device: skipped"
    exit 77
}
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.json ./*.jsonl
decl=$KT_SOURCE_DIR/examples/declared_transpose/transpose.ini
PROTO="--min-time 0.01 --max-time 1"
TILED="--variant tiled --set tile=32 --set pad=1 --set rows_per=8"

# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" bench transpose --plugin "$decl" $TILED \
    --size rows=1000 --size cols=3001 $PROTO --json first.json
expect_text "rows=1 cols=1, "
expect_text "outputs poisoned, every element compared"
expect_text "compiled    1 kernel(s) with NVRTC"
entries=$(ls cache/nvrtc | wc -l)

# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" bench transpose --plugin "$decl" $TILED \
    --size rows=1000 --size cols=3001 $PROTO --json second.json
expect_text "compiled    0 kernel(s) with NVRTC in 0.000 s, 1 read from"
[ "$(ls cache/nvrtc | wc -l)" = "$entries" ] || {
    echo "FAIL: the cached run wrote cache entries"
    failures=$((failures + 1))
}

expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/tests/declared/compile_error.ini" \
    --journal ce.jsonl --t4 ce.json --set strategy.max_seconds=60
expect_text "1 point(s) invalid, skipped:"
expect_text "items=3: "
expect_text "does not compile: "
expect_text "ITEMS = 3 is refused on purpose"
expect_text "did not compile"
grep -q '"invalidity": "compile"' ce.json || {
    echo "FAIL: no T4 invalidity 'compile' in ce.json"
    failures=$((failures + 1))
}
[ "$(grep -c '"invalidity": "correct"' ce.json)" = 3 ] || {
    echo "FAIL: expected 3 correct points in ce.json"
    failures=$((failures + 1))
}

# The same kernels ahead of time, and compiled by the plugin at run time.
# shellcheck disable=SC2086
expect_exit 0 "$KTUNE" compare transpose_aot:transpose \
    --plugin "$KT_FIXTURES/../declared/transpose_aot.so" --size rows=1000 --size cols=3001 \
    --variants tiled,tiled_nvrtc --config tiled:tile=32,pad=1,rows_per=8 \
    --config tiled_nvrtc:tile=32,pad=1,rows_per=8 --no-counters $PROTO
expect_text "tiled_nvrtc"
finish
