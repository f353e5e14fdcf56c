# SPDX-License-Identifier: Apache-2.0
# The bash completion and the man page are generated from `ktune CMD --help`
# (app/gen_cli_docs.py): the completion is valid bash and offers, for each
# command, every option its --help names (and -h, --help, --version); the man
# page has a section per command holding its help, and formats without
# warnings where groff is installed.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

rm -rf gen
expect_exit 0 python3 "$KT_SOURCE_DIR/app/gen_cli_docs.py" "$KTUNE" gen
expect_exit 0 bash -n gen/ktune.bash

complete_words() { # complete_words WORD...: the completions of the last word
    bash -c '. gen/ktune.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
             _ktune; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
out=$(complete_words ktune tu)
expect_text "tune"
for cmd in list info bench tune compare diff profile report sanitize new-plugin; do
    help=$("$KTUNE" "$cmd" --help)
    out=$(complete_words ktune "$cmd" -)
    for opt in $(grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' <<<"$help" |
                 grep -oE -- '--[a-z][a-z0-9-]*'); do
        grep -qxF -- "$opt" <<<"$out" || {
            echo "FAIL: completion of '$cmd' lacks $opt"
            failures=$((failures + 1))
        }
    done
    expect_text "--version"
    grep -qF ".SS $cmd" gen/ktune.1 || {
        echo "FAIL: the man page has no section for $cmd"
        failures=$((failures + 1))
    }
done
out=$(complete_words ktune tune --re)
expect_text "--replay"
expect_text "--resume"
if command -v groff >/dev/null; then
    out=$(groff -man -Tutf8 -ww -z gen/ktune.1 2>&1)
    [ -z "$out" ] || { echo "FAIL: groff warns: $out"; failures=$((failures + 1)); }
fi
rm -rf gen
finish
