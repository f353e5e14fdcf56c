# SPDX-License-Identifier: Apache-2.0
# `ktune new-plugin NAME [DIR]` without a compiler: the three files with the
# name in place, every kind of bad NAME or DIR refused with exit 2 and one
# line, and existing files never overwritten (nothing written at all).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
rm -rf my_op partial deep afile ok

expect_exit 0 "$KTUNE" new-plugin --help
expect_text "usage: ktune new-plugin NAME [DIR]"

expect_exit 0 "$KTUNE" new-plugin my_op
expect_text "created my_op/CMakeLists.txt, my_op/my_op.cu, my_op/my_op.ini"
expect_text "cmake --build my_op/build"
for f in my_op/CMakeLists.txt my_op/my_op.cu my_op/my_op.ini; do
    [ -s "$f" ] || { echo "FAIL: $f missing or empty"; failures=$((failures + 1)); }
done
grep -q "@NAME@\|@VERSION@" my_op/* &&
    { echo "FAIL: placeholders left in the files"; failures=$((failures + 1)); }
grep -qF "project(my_op LANGUAGES CUDA)" my_op/CMakeLists.txt &&
    grep -qF "find_package(ktune 0." my_op/CMakeLists.txt &&
    grep -qF "ktune_add_plugin(my_op my_op.cu)" my_op/CMakeLists.txt ||
    { echo "FAIL: CMakeLists.txt:"; sed 's/^/    /' my_op/CMakeLists.txt; failures=$((failures + 1)); }
grep -qF '"my_op", "0.1.0"' my_op/my_op.cu && grep -qF "check_f32" my_op/my_op.cu &&
    grep -qF "random_f32" my_op/my_op.cu && grep -qF "bytes_read" my_op/my_op.cu ||
    { echo "FAIL: my_op.cu lacks the name, verification, inputs or work"; failures=$((failures + 1)); }
grep -qF "operator = my_op:mul" my_op/my_op.ini ||
    { echo "FAIL: my_op.ini does not name my_op:mul"; failures=$((failures + 1)); }

# A second run over the same files: refused, and the files untouched.
echo "// mine" >> my_op/my_op.cu
sum=$(cat my_op/* | cksum)
expect_exit 2 "$KTUNE" new-plugin my_op
expect_text "my_op/CMakeLists.txt exists; new-plugin never overwrites files"
expect_lines 1
[ "$(cat my_op/* | cksum)" = "$sum" ] ||
    { echo "FAIL: existing files changed"; failures=$((failures + 1)); }

# One file present: none of the others is written.
mkdir partial && echo keep > partial/other.ini
expect_exit 2 "$KTUNE" new-plugin other partial
expect_text "partial/other.ini exists"
[ "$(ls partial)" = "other.ini" ] ||
    { echo "FAIL: files written next to an existing one: $(ls partial)"; failures=$((failures + 1)); }

# Another folder, created with its parents.
expect_exit 0 "$KTUNE" new-plugin other2 deep/er/folder
[ -f deep/er/folder/other2.cu ] || { echo "FAIL: deep/er/folder/other2.cu"; failures=$((failures + 1)); }

expect_exit 2 "$KTUNE" new-plugin
expect_text "NAME is missing"
expect_exit 2 "$KTUNE" new-plugin 9lives
expect_text "not an identifier: a leading digit '9' at position 1"
expect_lines 1
expect_exit 2 "$KTUNE" new-plugin my-op
expect_text "not an identifier: the character '-' at position 3"
expect_exit 2 "$KTUNE" new-plugin "my op"
expect_text "the byte 0x20 at position 3"
expect_exit 2 "$KTUNE" new-plugin "$(printf 'x%.0s' $(seq 65))"
expect_text "has 65 characters; expected at most 64"
expect_exit 2 "$KTUNE" new-plugin test
expect_text "NAME 'test' is reserved"
expect_exit 2 "$KTUNE" new-plugin vector_add
expect_text "a plugin called 'vector_add' is already loaded"
expect_exit 2 "$KTUNE" new-plugin a b c
expect_text "unexpected argument 'c'"
expect_exit 2 "$KTUNE" new-plugin --bogus x
echo text > afile
expect_exit 2 "$KTUNE" new-plugin ok afile
expect_text "afile exists and is not a folder"
expect_exit 2 "$KTUNE" new-plugin ok afile/below
expect_text "afile exists and is not a folder"
[ -e ok ] && { echo "FAIL: a refused call created ./ok"; failures=$((failures + 1)); }
finish
