# SPDX-License-Identifier: Apache-2.0
# examples/jit_app on a GPU: the wisdom's configuration (BLOCK 512, ITEMS
# 4) compiled at run time from saxpy.cu through libktune-select, verified;
# the second run takes the image from the disk cache; without NVRTC the
# built-in default runs and verifies.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
EX=$KT_SOURCE_DIR/examples/jit_app
rm -rf cache
export KTUNE_SELECT_CACHE=$PWD/cache

expect_exit 0 "$KT_JIT_APP" "$EX/jit_app.wisdom.jsonl" "$EX/saxpy.cu"
echo "$out"
expect_text "compiled $PWD/cache/"
expect_text "wisdom: BLOCK 512 ITEMS 4 grid 8192"
expect_text "verified 16777216 elements"
[ "$(ls cache | wc -l)" = 1 ] || { echo "FAIL: cache holds $(ls cache)"; failures=$((failures + 1)); }
expect_exit 0 "$KT_JIT_APP" "$EX/jit_app.wisdom.jsonl" "$EX/saxpy.cu"
echo "$out"
expect_text "from the cache $PWD/cache/"
expect_text "verified 16777216 elements"
KTUNE_SELECT_NVRTC=/nonexistent/libnvrtc.so expect_exit 0 "$KT_JIT_APP" \
    "$EX/jit_app.wisdom.jsonl" "$EX/saxpy.cu" 1000001
echo "$out"
expect_text "run-time compilation unavailable"
expect_text "BLOCK 256 ITEMS 1"
expect_text "verified 1000001 elements"
finish
