#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The function-length gate fails a listed function that grew past its
# listed length: the same tree against the allow-list with one cap lowered
# by a line must fail naming that function, and against the list as it is
# must pass.
src=${1:?usage: test_length_caps.sh SOURCE_DIR}
dir=$src/tests/app
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$dir/check_length.sh" "$src" "$dir/long_functions.txt" >/dev/null ||
    { echo "FAIL: the gate fails on the tree as it is"; exit 1; }
entry=$(grep -v '^#' "$dir/long_functions.txt" | grep . | head -1)
read -r file fn lines <<<"$entry"
sed "s|^$file $fn $lines\$|$file $fn $((lines - 1))|" \
    "$dir/long_functions.txt" >"$work/list.txt"
out=$(bash "$dir/check_length.sh" "$src" "$work/list.txt") &&
    { echo "FAIL: $fn over its cap of $((lines - 1)) passed"; exit 1; }
grep -qF "$fn is $lines lines, more than the $((lines - 1))" <<<"$out" ||
    { echo "FAIL: no finding naming $fn in:"; echo "$out"; exit 1; }
# A line without a cap is refused too.
sed "s|^$file $fn $lines\$|$file $fn|" "$dir/long_functions.txt" \
    >"$work/nocap.txt"
bash "$dir/check_length.sh" "$src" "$work/nocap.txt" >/dev/null &&
    { echo "FAIL: an entry without LINES passed"; exit 1; }
echo "ok"
