# SPDX-License-Identifier: Apache-2.0
# First contact: the README is what a newcomer reads in two minutes. It is
# short, shows a real output of the main job with the GPU and date it came
# from, keeps a place for the Python section, lists every command that
# `ktune --help` lists (capture included) and links every manual in docs/;
# history and build timings live in docs/, and docs/layout.md names every
# source folder (capture/ included).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
readme=$KT_SOURCE_DIR/README.md
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

lines=$(wc -l <"$readme")
[ "$lines" -le 150 ] || fail "README.md has $lines lines (at most 150: two minutes)"
for doc in "$KT_SOURCE_DIR"/docs/*.md; do
    name=$(basename "$doc")
    grep -qF "(docs/$name)" "$readme" || fail "README.md does not link docs/$name"
done
grep -qF '<!-- python-section -->' "$readme" || fail "README.md lost <!-- python-section -->"
# A real output of the main job, saying where it ran and when.
grep -q '^vector_add:add  n=268435456  on NVIDIA' "$readme" ||
    fail "README.md shows no output of ktune tune configs/vector_add.ini"
grep -qE '^Real output on an NVIDIA [A-Z0-9]+.*20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]' "$readme" ||
    fail "README.md's output does not say which GPU and date"
# History and build timings moved out.
for moved in 'Measured on the development machine' 'Kernel Tuner 1.5.0' \
    'libnvperf_host'; do
    grep -qF "$moved" "$readme" && fail "README.md still holds '$moved' (docs/ has it)"
done
# Every command of `ktune --help` is in the commands table.
expect_exit 0 "$KTUNE" --help
for cmd in $(sed -n 's/^  \([a-z-]*\)  .*/\1/p' <<<"$out"); do
    [ "$cmd" = worker ] && continue
    grep -qE "^\| \`ktune $cmd( |\`)" "$readme" || fail "README.md's commands table lacks '$cmd'"
done
# The layout page names every folder that holds source (a CMakeLists.txt).
for dir in "$KT_SOURCE_DIR"/*/CMakeLists.txt; do
    d=$(basename "$(dirname "$dir")")
    grep -qF "| \`$d/\`" "$KT_SOURCE_DIR/docs/layout.md" || fail "docs/layout.md lacks $d/"
done
finish
