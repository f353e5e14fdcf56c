#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_tuner_lines.sh ROOT [CAP]: the tuner keeps the search alone — the
# formats it reads and writes are records/'s (docs/hacking.md, Layers) —
# so tuner/ (every .c and .h, strategies/ included) holds at most CAP lines
# (11,000 unless told). Prints the count and exits 1 when it is over.
root=${1:?usage: check_tuner_lines.sh ROOT [CAP]}
cap=${2:-11000}
cd "$root" || exit 2
files=$(find tuner \( -name '*.c' -o -name '*.h' \) -type f | LC_ALL=C sort)
[ -n "$files" ] || { echo "no tuner/ sources under $root"; exit 2; }
# shellcheck disable=SC2086 # one word per file: the names have no blanks
n=$(cat $files | wc -l)
if [ "$n" -gt "$cap" ]; then
    echo "tuner/ is $n lines, more than $cap: a format belongs in records/," \
        "the tuner keeps the search"
    exit 1
fi
echo "tuner/ is $n lines (at most $cap)"
