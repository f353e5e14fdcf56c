# SPDX-License-Identifier: Apache-2.0
# On a GPU, the wisdom loop of examples/wisdom_app as the install test
# built it (fixture wisdom_app_built): the installed ktune tunes the
# example's kernels through its plugin over two sizes each into a wisdom
# file; the application then verifies every output with its defaults and
# with the wisdom, gets exact entries at the tuned sizes and the nearest
# elsewhere, and times both. Skipped (77) without a device.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
unset KTUNE_PLUGIN_PATH

K=$KT_INSTALL_WORK/moved/bin/ktune
B=$KT_SELECT_WORK/app-build
for f in "$K" "$B/wisdom_app" "$B/wisdom_app_kernels.so"; do
    [ -e "$f" ] || { echo "FAIL: $f is missing: run the install tests first"; exit 1; }
done
rm -f ./*.jsonl ./*.lock
quick=(--plugin "$B/wisdom_app_kernels.so" --wisdom w.jsonl --quiet
       --set strategy.max_evals=8 --set strategy.max_seconds=3
       --set measure.max_time=0.5 --journal none)
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/examples/wisdom_app/vadd.ini" \
    --set "job.n=2^18, 2^20" "${quick[@]}"
expect_text "2 answer(s) added"
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/examples/wisdom_app/gemv.ini" \
    --set "job.m, n=1024x1024, 4096x4096" "${quick[@]}"
expect_text "2 answer(s) added"
expect_exit 0 "$K" wisdom check w.jsonl --plugin "$B/wisdom_app_kernels.so"
expect_text "4 current, 0 stale"

expect_exit 0 "$B/wisdom_app" --quick --rounds 3
expect_text "all outputs verified"
expect_exit 0 "$B/wisdom_app" --wisdom w.jsonl --quick --rounds 5
expect_text "wisdom w.jsonl: 4 entries"
expect_text "n=262144           exact"
expect_text "m=1024 n=1024      exact"
expect_text "nearest"
expect_text "all outputs verified"
finish
