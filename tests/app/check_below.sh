#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_below.sh LOWER UPPER...: the static library LOWER stands below the
# libraries UPPER (docs/hacking.md, Layers): nm -u of LOWER names no symbol
# that only an UPPER defines. Prints one line per such symbol, LOWER:
# SYMBOL (defined only in UPPER), and exits 1 when there is any.
lower=${1:?usage: check_below.sh LOWER UPPER...}
shift
[ $# -gt 0 ] || { echo "usage: check_below.sh LOWER UPPER..."; exit 2; }
defined() { nm --defined-only -g "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
defined "$lower" >"$tmp/own"
for upper in "$@"; do
    defined "$upper" | comm -23 - "$tmp/own" >"$tmp/upper"
    nm -u "$lower" 2>/dev/null | awk '{ print $NF }' | sort -u |
        comm -12 - "$tmp/upper" >"$tmp/found"
    while read -r sym; do
        echo "$(basename "$lower"): $sym (defined only in $(basename "$upper"))"
        bad=$((${bad:-0} + 1))
    done <"$tmp/found"
done
if [ "${bad:-0}" -ne 0 ]; then
    echo "$bad symbol(s) that $(basename "$lower") needs from a library above it"
    exit 1
fi
echo "$(basename "$lower") needs nothing of the $# libraries above it"
