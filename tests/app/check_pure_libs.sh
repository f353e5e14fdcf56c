#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_pure_libs.sh BASE ENGINE ISOLATION LIB...: the pure libraries LIB
# (tuner, compare, report, metrics, and the base itself) need nothing of
# engine/ or isolation/: nm -u of each names no symbol that only ENGINE or
# ISOLATION defines (docs/hacking.md, Layers). Prints one line per such
# symbol, LIB: SYMBOL (defined only in engine/ or isolation/), and exits 1
# when there is any.
base=${1:?usage: check_pure_libs.sh BASE ENGINE ISOLATION LIB...}
engine=${2:?}
isolation=${3:?}
shift 3
defined() { nm --defined-only -g "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
defined "$base" >"$tmp/base"
defined "$engine" "$isolation" | comm -23 - "$tmp/base" >"$tmp/upper"
bad=0
for lib in "$@"; do
    nm -u "$lib" 2>/dev/null | awk '{ print $NF }' | sort -u |
        comm -12 - "$tmp/upper" >"$tmp/found"
    while read -r sym; do
        echo "$(basename "$lib"): $sym (defined only in engine/ or isolation/)"
        bad=$((bad + 1))
    done <"$tmp/found"
done
if [ "$bad" -ne 0 ]; then
    echo "$bad symbol(s) of engine/ or isolation/ needed by a pure library"
    exit 1
fi
echo "$# pure libraries need nothing of engine/ or isolation/"
