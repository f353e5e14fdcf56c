# SPDX-License-Identifier: Apache-2.0
# Every C, header and CUDA file follows the repository's .clang-format: one
# clang-format run over all of them (--dry-run --Werror), and only when it
# finds something, one run per file to name each.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

command -v clang-format >/dev/null || {
    echo "no clang-format: skipped"
    exit 77
}
cd "$KT_SOURCE_DIR" || exit 1
# A checkout (a worktree's .git is a file): the tracked files; else those
# found in the source folders.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
else
    files=$(find app bench compare core engine examples isolation metrics \
        plugins records report select tests timeline tools tuner \( -name '*.c' \
        -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -type f 2>/dev/null)
fi
# shellcheck disable=SC2086 # one word per file: the names have no blanks
if ! clang-format --dry-run --Werror $files >/dev/null 2>&1; then
    for f in $files; do
        if ! clang-format "$f" | cmp -s - "$f"; then
            echo "FAIL: $f is not formatted (clang-format -i $f)"
            failures=$((failures + 1))
        fi
    done
    # A failure of clang-format itself, with every file formatted.
    [ "$failures" -ne 0 ] || {
        echo "FAIL: clang-format --dry-run --Werror failed:"
        clang-format --dry-run --Werror $files 2>&1 | head -n 20
        failures=1
    }
fi
echo "$(wc -w <<<"$files") files checked"
finish
