#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ktune never changes its own environment: options reach the library
# through its structs, and a program ktune starts (a worker, a traced or
# captured program) gets its environment built for it (core/childenv.h).
# No setenv, unsetenv, putenv or clearenv call in the tree outside tests/;
# a planted call in a scratch tree must be found, so the scan can fail.
src=${1:?usage: test_no_setenv.sh SOURCE_DIR}

# The calls in the C and CUDA sources under DIR (not tests/, build*/,
# hidden folders), comment lines left out.
scan() {
    (cd "$1" && find . \( -path ./tests -o -path './build*' -o -path './.*' \) \
        -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
        -o -name '*.cuh' \) -print0 |
        xargs -0 grep -nE '\b(setenv|unsetenv|putenv|clearenv)[[:space:]]*\(' |
        grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)')
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/core" "$scratch/tests"
printf 'void f(void) { setenv("A", "1", 1); }\n' >"$scratch/core/planted.c"
printf 'void g(void) { setenv("A", "1", 1); }\n' >"$scratch/tests/allowed.c"
[ "$(scan "$scratch" | wc -l)" -eq 1 ] ||
    { echo "FAIL: the scan misses a planted setenv (or counts tests/)"; exit 1; }

hits=$(scan "$src")
if [ -n "$hits" ]; then
    echo "FAIL: the environment is set outside tests:"
    echo "$hits"
    exit 1
fi
echo "ok"
