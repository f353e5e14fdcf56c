# SPDX-License-Identifier: Apache-2.0
# Helpers for CLI test scripts. Environment from tests/CMakeLists.txt:
# KTUNE (the binary), KT_FIXTURES, KT_SOURCE_DIR, KT_HAS_GPU.
set -u
failures=0

# expect_exit CODE CMD...: runs CMD, captures stdout+stderr in $out.
expect_exit() {
    local want=$1
    shift
    out=$("$@" 2>&1)
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"
        echo "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

# expect_text TEXT: the last command's output contains TEXT.
expect_text() {
    if ! grep -qF -- "$1" <<<"$out"; then
        echo "FAIL: expected '$1' in:"
        echo "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

# expect_lines N: the last command's output has exactly N lines.
expect_lines() {
    local got
    got=$(printf '%s\n' "$out" | wc -l)
    if [ "$got" != "$1" ]; then
        echo "FAIL: expected $1 line(s), found $got:"
        echo "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

# decl_mutate FROM TO SED-EXPRESSION: the declaration TO, FROM with one
# change (declaration tests that refuse one mistake at a time).
decl_mutate() {
    sed "$3" "$1" >"$2"
}

# decl_refused FILE PATTERN SECTION-AND-KEY TEXT: `tune FILE --check`
# exits 2 naming FILE:LINE (the line PATTERN is first found on), the
# section and key, and TEXT.
decl_refused() {
    local line
    line=$(grep -n -- "$2" "$1" | head -1 | cut -d: -f1)
    expect_exit 2 "$KTUNE" tune "$1" --check
    expect_text "$1:$line: $3"
    expect_text "$4"
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}

# missing_source_dir CONFIG: the first of KTUNE_HUB_DIR, KTUNE_BAT_DIR that
# the declaration CONFIG names (in any spelling) and the environment does not
# set; nothing when none. The hub's and BAT's sources are never in this
# repository, so a recording of theirs replays only where they are.
missing_source_dir() {
    local var
    for var in KTUNE_HUB_DIR KTUNE_BAT_DIR; do
        if grep -q "$var" "$1" 2>/dev/null && [ -z "${!var:-}" ]; then
            echo "$var"
            return
        fi
    done
}
