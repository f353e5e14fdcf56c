#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_length.sh ROOT ALLOW: no function longer than 80 lines (the lines
# between its opening and closing brace) in the library, app and plugin
# code under ROOT, except those listed in ALLOW ("FILE FUNCTION LINES" per
# line, # comments), which are today's long functions, each capped at its
# length when it was listed: a listed function that grows past its LINES is
# a finding, and so is one now short enough, so the list only ever shrinks
# and no listed function gets longer. Like curl's scripts/top-length, run
# by ctest; exits 1 on any finding.
root=${1:?usage: check_length.sh ROOT ALLOW}
allow=${2:?usage: check_length.sh ROOT ALLOW}
limit=80
cd "$root" || exit 2

# Function definitions as clang-format lays them out (.clang-format: Linux
# braces): a signature starting in column 0, "{" alone on the next line,
# "}" in column 0 at the end. Prints "LINES FILE FUNCTION".
lengths() {
    find core declared engine isolation metrics records tuner compare report \
        select timeline capture app plugins libktune \
        examples bench \
        \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' \) \
        -type f 2>/dev/null | LC_ALL=C sort | xargs awk '
    FNR == 1 { sig = ""; start = 0 }
    start == 0 && /^\{$/ {
        name = sig
        gsub(/__launch_bounds__\([^)]*\)/, "", name)
        sub(/\(.*/, "", name)
        n = split(name, w, /[ *&]+/)
        name = w[n]
        start = FNR
        next
    }
    start > 0 && /^\}/ {
        print FNR - start - 1, FILENAME, name
        start = 0; sig = ""
        next
    }
    start == 0 {
        if ($0 ~ /^[A-Za-z_].*\(/) sig = $0
        else if ($0 ~ /^[ \t]/ && sig != "") sig = sig " " $0
        else if ($0 ~ /^$/ || $0 ~ /;[ \t]*$/ || $0 ~ /^[#\/]/) sig = ""
    }'
}

lengths | awk -v limit="$limit" -v allow="$allow" '
BEGIN {
    bad = 0
    while ((getline entry < allow) > 0) {
        if (entry ~ /^[ \t]*(#|$)/) continue
        split(entry, f, /[ \t]+/)
        if (f[3] !~ /^[0-9]+$/) {
            printf "%s: \"%s\": expected FILE FUNCTION LINES\n", allow, entry
            bad++
            continue
        }
        listed[f[1] " " f[2]] = 1
        cap[f[1] " " f[2]] = f[3] + 0
    }
}
{
    key = $2 " " $3
    seen[key] = 1
    if ($1 > limit && !(key in listed)) {
        printf "%s: %s is %d lines (limit %d): split it, or as a last resort list it in %s\n", $2, $3, $1, limit, allow
        bad++
    } else if ((key in listed) && $1 > cap[key]) {
        printf "%s: %s is %d lines, more than the %d it is listed with in %s: shorten it\n", $2, $3, $1, cap[key], allow
        bad++
    } else if ($1 <= limit && (key in listed)) {
        printf "%s: %s is %d lines now: remove it from %s\n", $2, $3, $1, allow
        bad++
    }
    if ($1 > limit) long++
    total++
}
END {
    for (key in listed)
        if (!(key in seen)) {
            printf "%s: listed in %s, but there is no such function\n", key, allow
            bad++
        }
    printf "%d functions, %d over %d lines (all listed)\n", total, long, limit
    exit bad ? 1 : 0
}'
