# SPDX-License-Identifier: Apache-2.0
# ktune capture on a GPU: the test program's scale_add is captured without
# changing it, its capture re-runs from its own module image and verifies
# (ktune bench CAPTURE), and tunes over block sizes (ktune tune CAPTURE);
# the in-place bump verifies too (inputs restored before each launch).
# Managed memory, a graph launch and a launch beyond --limit are refused by
# name; a crashing program keeps its signal, one that exits 7 its status.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
P=$KT_CAPTURE_PROG
rm -rf caps bumps managed graph limit crash exit7

expect_exit 0 "$KTUNE" capture --kernel scale_add --out caps -- "$P" add
echo "$out"
expect_text "checksum"
expect_text "grid 4096x1x1, block 256x1x1"
cap=$(ls -d caps/001-*)
expect_exit 0 "$KTUNE" bench "$cap"
echo "$out"
expect_text "verified"
expect_exit 0 "$KTUNE" tune "$cap" --set strategy.max_evals=6
echo "$out"
expect_exit 0 "$KTUNE" capture --kernel bump --out bumps -- "$P" add
expect_exit 0 "$KTUNE" bench "$(ls -d bumps/001-*)"
expect_text "verified"
# launch 2 of scale_add
rm -rf caps2
expect_exit 0 "$KTUNE" capture --kernel 'scale_add' --launch 2 --out caps2 -- "$P"
expect_text "launch   2 of the program's"

expect_exit 0 "$KTUNE" capture --kernel scale_add --out managed -- "$P" managed
expect_text "managed memory"
expect_exit 0 "$KTUNE" capture --out graph -- "$P" graph
expect_text "CUDA graph"
expect_exit 0 "$KTUNE" capture --limit 1000 --out limit -- "$P" add
expect_text "beyond the limit of 1000 bytes"
expect_exit 139 "$KTUNE" capture --kernel scale_add --out crash -- "$P" crash
expect_text "ended by signal 11"
expect_text "tune it"
expect_exit 7 "$KTUNE" capture --kernel scale_add --out exit7 -- "$P" exit7
finish
