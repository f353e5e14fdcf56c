#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The environment variables ktune checks, documents and reads are one
# list: the table of core/settings.c (what `ktune` checks before a command
# runs, app/envcheck.c), docs/cli.md's "Environment variables" section,
# and the code's reads (a table entry whose kt_settings field some code
# reads, or a getenv("KTUNE_...") of the app or the timeline tracer). A
# variable nobody reads can be neither checked nor documented, and one read
# must be documented. The capturer's KTUNE_CAPTURE_* are left out: `ktune
# capture` sets them for the library it injects (docs/capture.md). Planted
# mistakes in a scratch tree must be found, so the comparison can fail.
src=${1:?usage: test_env_lists.sh SOURCE_DIR}

# The C and CUDA sources under DIR (not tests/, build*/, hidden folders).
sources() {
    (cd "$1" && find . \( -path ./tests -o -path './build*' -o -path './.*' \) \
        -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
        -print | sed 's|^\./||')
}

# The KTUNE_* names of the table, one a line.
table() {
    grep -oE '^\s*\{"KTUNE_[A-Z0-9_]+", F\(' "$1/core/settings.c" |
        grep -oE 'KTUNE_[A-Z0-9_]+' | sort -u
}

# The names the code reads: table entries whose field (the name in lower
# case) is read outside core/settings.*, and getenv("KTUNE_...") in app/
# and timeline/trace/.
reads() {
    local files
    files=$(sources "$1" | grep -vE '^core/settings\.[ch]$')
    for name in $(table "$1"); do
        field=$(echo "$name" | tr 'A-Z' 'a-z')
        (cd "$1" && grep -qE "[.>]$field\b" $files) && echo "$name"
    done
    (cd "$1" && sources . | grep -E '^(app|timeline/trace)/' |
        xargs grep -ohE 'getenv\("KTUNE_[A-Z0-9_]+"\)' |
        grep -oE 'KTUNE_[A-Z0-9_]+')
}

# The KTUNE_* names docs/cli.md's "Environment variables" section names.
documented() {
    awk '/^## Environment variables/ {on = 1; next} /^## / {on = 0} on' \
        "$1/docs/cli.md" | grep -oE 'KTUNE_[A-Z0-9_]+' | sort -u
}

# Prints what differs; fails when anything does.
compare() {
    local t r d bad=0
    t=$(table "$1")
    r=$(reads "$1" | sort -u)
    d=$(documented "$1")
    for n in $(comm -23 <(echo "$t") <(echo "$r")); do
        echo "$n: in core/settings.c's table but read by no code"; bad=1
    done
    for n in $(comm -23 <(echo "$d") <(echo "$r")); do
        echo "$n: in docs/cli.md but read by no code"; bad=1
    done
    for n in $(comm -13 <(echo "$d") <(echo "$r")); do
        echo "$n: read by the code but not in docs/cli.md"; bad=1
    done
    return $bad
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/core" "$scratch/app" "$scratch/docs"
cat >"$scratch/core/settings.c" <<'C'
static const variable variables[] = {
    {"KTUNE_USED", F(ktune_used), V_ANY, 0, 0, NULL},
    {"KTUNE_UNREAD", F(ktune_unread), V_ANY, 0, 0, NULL},
};
C
printf 'int f(const kt_settings *s) { return !!s->ktune_used; }\n' \
    >"$scratch/app/use.c"
printf 'const char *g(void) { return getenv("KTUNE_UNDOCUMENTED"); }\n' \
    >>"$scratch/app/use.c"
printf '## Environment variables\n`KTUNE_USED`, `KTUNE_UNREAD`\n## Next\n' \
    >"$scratch/docs/cli.md"
planted=$(compare "$scratch")
for want in "KTUNE_UNREAD: in core/settings.c's table but read by no code" \
    "KTUNE_UNREAD: in docs/cli.md but read by no code" \
    "KTUNE_UNDOCUMENTED: read by the code but not in docs/cli.md"; do
    grep -qF "$want" <<<"$planted" ||
        { echo "FAIL: the comparison misses: $want"; echo "$planted"; exit 1; }
done
[ "$(wc -l <<<"$planted")" -eq 3 ] ||
    { echo "FAIL: the comparison finds more than planted:"; echo "$planted"; exit 1; }

if ! out=$(compare "$src"); then
    echo "FAIL: the variables' lists differ:"
    echo "$out"
    exit 1
fi
echo "ok: $(table "$src" | wc -l) variables checked, documented and read"
