#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_spdx.sh ROOT: every source file under ROOT that we write (C, CUDA,
# headers, CMake, shell, Python) names its licence, Apache-2.0 (LICENSE), in
# an SPDX line: the first line, or the second after a "#!" line. When ROOT
# is a git checkout the files are the tracked ones; otherwise those found. The
# new-plugin templates (app/templates/) are left out: what they become is
# the user's code, under the user's licence. Exits 1 naming each file that
# lacks the line.
root=${1:?usage: check_spdx.sh ROOT}
cd "$root" || exit 2
want='SPDX-License-Identifier: Apache-2.0'

sources() {
    # ROOT itself must be the top of the checkout: a folder inside another
    # project's checkout (a build tree) is a plain folder.
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
        git ls-files
    else
        find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||'
    fi | grep -E '(\.(c|h|cu|cuh|sh|py|cmake)|CMakeLists\.txt|\.cmake\.in|\.h\.in)$|^\.ci/run$|^tools/deps$' |
        grep -v '^app/templates/' | LC_ALL=C sort
}

missing=0
checked=0
while IFS= read -r f; do
    [ -f "$f" ] || continue
    checked=$((checked + 1))
    first=$(head -n 1 -- "$f")
    case $first in
    '#!'*) line=$(sed -n 2p -- "$f") ;;
    *) line=$first ;;
    esac
    case $line in
    *"$want"*) ;;
    *)
        echo "$f: no '$want' line at the top"
        missing=$((missing + 1))
        ;;
    esac
done < <(sources)
if [ "$missing" -ne 0 ]; then
    echo "$missing of $checked source files lack the SPDX line"
    exit 1
fi
echo "all $checked source files carry the SPDX line"
