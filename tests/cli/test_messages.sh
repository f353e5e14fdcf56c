# SPDX-License-Identifier: Apache-2.0
# Every message on stderr carries one prefix, "ktune CMD: " (docs/cli.md):
# notes, warnings and errors of report, tune (replay), bench and the noise
# warning of the protocol, each line of them; "ktune: " alone only where
# there is no command. And no source file prints a bare "ktune: " itself:
# messages go through kt_msg (core/msg.h), which adds the command.
. "$(dirname "$0")/lib.sh"
data=$KT_SOURCE_DIR/tests/data
rm -rf ./*

# every_line PREFIX: each line the last command printed starts with PREFIX.
every_line() {
    local bad
    bad=$(grep -v -- "^$1" <<<"$out" | grep -v '^$')
    if [ -n "$bad" ]; then
        echo "FAIL: lines without the prefix '$1':"
        echo "$bad" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

# report: a note (another run's journal) and what it wrote.
expect_exit 0 "$KTUNE" report "$KT_SOURCE_DIR/tests/report/data/vector_add-h200-main.summary.json" \
    --journal "$data/vector_add-h200-n268435456.jsonl" -o r.html
expect_text "ktune report: note: per-point data from"
expect_text "ktune report: report written to r.html"
every_line "ktune report: "

# tune in replay: the recording's size replaces the job's; an existing
# journal is refused with the command named.
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$data/vector_add-h200-n16777216.jsonl" --journal j.jsonl --quiet
expect_text "ktune tune: replay: "
every_line "ktune tune: "
expect_exit 2 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$data/vector_add-h200-n16777216.jsonl" --journal j.jsonl --quiet
expect_text "ktune tune: journal j.jsonl exists"
every_line "ktune tune: "

# bench: the protocol's noise warning (core/) names the command too; the
# run then ends at the GPU (none here) or measures (a GPU).
"$KTUNE" bench vector_add:add --noise 0.5 --json b.json >/dev/null 2>err.txt
out=$(grep -i "noise" err.txt)
expect_text "ktune bench: WARNING: --noise 0.5 is a fraction"
out=$(cat err.txt)
every_line "ktune bench: "

# No command: the bare prefix.
expect_exit 2 "$KTUNE" no-such-command
expect_text "ktune: unknown command 'no-such-command'"

# The sources: no "ktune: " or "ktune CMD: " printed by hand (core/msg.c
# writes the prefix, kt_msg and kt_fmsg; the static_assert texts of
# declared/declared.c are compiler diagnostics).
bare=$(cd "$KT_SOURCE_DIR" && grep -rn --include='*.c' --include='*.cu' \
    -e 'stderr, *"ktune: ' -e '^ *"ktune: ' -e 'printf([^"]*"ktune [a-z-]*: ' \
    -e '^ *"ktune [a-z-]*: ' app core declared engine isolation tuner \
    metrics compare report timeline select capture | grep -v '^core/msg\.c:')
if [ -n "$bare" ]; then
    echo "FAIL: messages printed without the command's prefix (use kt_msg):"
    echo "$bare" | sed 's/^/    /'
    failures=$((failures + 1))
fi
finish
