# SPDX-License-Identifier: Apache-2.0
# Every C, header and CUDA file follows the repository's .clang-format.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

command -v clang-format >/dev/null || {
    echo "no clang-format: skipped"
    exit 77
}
cd "$KT_SOURCE_DIR" || exit 1
if [ -d .git ]; then
    files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
else
    files=$(find core tuner metrics report plugins tests examples \
        -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh')
fi
for f in $files; do
    if ! clang-format "$f" | cmp -s - "$f"; then
        echo "FAIL: $f is not formatted (clang-format -i $f)"
        failures=$((failures + 1))
    fi
done
finish
