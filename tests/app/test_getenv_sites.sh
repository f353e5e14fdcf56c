#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The libraries read the environment in at most 5 places: core/settings.c
# (the one record of every variable ktune reads), core/envpath.c (${VAR}
# in files) and libktune-select's own variables (select/jit.c, installed
# for applications, which link nothing of ktune). libktune/ is counted
# too (it reads KTUNE_EXE, PATH and TMPDIR through app/embed.h's
# kt_embed_env_read, the same record). The injected tracer and
# capturer (*/trace/) link nothing of ktune either: the environment is
# how `ktune` talks to them, and they are not counted. A planted getenv in
# a scratch tree must be counted, so the gate can fail.
src=${1:?usage: test_getenv_sites.sh SOURCE_DIR}
max=5

# The getenv lines of the libraries under DIR, comment lines left out.
sites() {
    (cd "$1" && find core declared engine isolation metrics records tuner compare \
        report timeline capture select libktune -path '*/trace' -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print 2>/dev/null |
        xargs -r grep -nE '\b(secure_)?getenv[[:space:]]*\(' |
        grep -vE ':[0-9]+:[[:space:]]*(/\*|\*( |/|$)|//)')
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/core" "$scratch/timeline/trace"
printf 'void f(void) { getenv("A"); }\n' >"$scratch/core/planted.c"
printf 'void g(void) { getenv("A"); }\n' >"$scratch/timeline/trace/t.c"
[ "$(sites "$scratch" | wc -l)" -eq 1 ] ||
    { echo "FAIL: the scan misses a planted getenv (or counts trace/)"; exit 1; }

hits=$(sites "$src")
n=$(grep -c . <<<"$hits")
echo "$hits"
if [ "$n" -gt "$max" ]; then
    echo "FAIL: $n getenv sites in the libraries, at most $max (read the"
    echo "environment through core/settings.h)"
    exit 1
fi
echo "ok: $n getenv sites in the libraries (at most $max)"
