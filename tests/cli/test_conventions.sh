# SPDX-License-Identifier: Apache-2.0
# The command-line conventions, on every command: -h and --help print the
# command's help (exit 0), --version the version; an option error is one
# line with one prefix, "ktune CMD: ...", naming the option; "-" is stdout
# for output options; a bare x.so that exists is that file; list exits 1
# when a named plugin does not load; --warmups -5 is refused; --noise takes
# a percentage ("0.5%") and warns on a bare value that looks like one.
. "$(dirname "$0")/lib.sh"

for cmd in list info bench tune compare diff profile report sanitize new-plugin; do
    for h in -h --help; do
        expect_exit 0 "$KTUNE" "$cmd" "$h"
        expect_text "usage: ktune $cmd"
    done
    expect_exit 0 "$KTUNE" "$cmd" --version
    expect_text "ktune "
    expect_lines 1
    expect_exit 2 "$KTUNE" "$cmd" --no-such-option
    expect_text "ktune $cmd: unknown option '--no-such-option'; see 'ktune $cmd --help'"
    expect_lines 1
done
expect_exit 2 "$KTUNE" bench vector_add:add --json
expect_text "ktune bench: option '--json' needs a value"
expect_lines 1

# help text is printed as written, never with printf escapes left in
expect_exit 0 "$KTUNE" bench --help
if grep -qF '%%' <<<"$out"; then
    echo "FAIL: bench --help shows a literal %%"
    failures=$((failures + 1))
fi

expect_exit 2 "$KTUNE" bench vector_add:add --warmups -5
expect_text "ktune bench: --warmups: -5, expected 0 to 1000"
expect_lines 1
expect_exit 2 "$KTUNE" bench vector_add:add --noise 50
expect_text "a percentage such as 0.5%"
# A bare 0.5 (50%) warns, 0.5% does not; both then go on (to the device).
out=$("$KTUNE" bench vector_add:add --noise 0.5 --variant nope 2>&1)
expect_text "WARNING: --noise 0.5 is a fraction: 50% noise"
out=$("$KTUNE" bench vector_add:add --noise 0.5% --variant nope 2>&1)
if grep -q WARNING <<<"$out"; then
    echo "FAIL: --noise 0.5% warned: $out"
    failures=$((failures + 1))
fi

# list: a bare file name that exists is that file; a named plugin that does
# not load or does not exist is exit 1
cp "$KT_FIXTURES/good_plugin.so" ./good_copy.so
expect_exit 0 "$KTUNE" list --plugin good_copy.so
expect_text "$PWD/good_copy.so"
expect_exit 1 "$KTUNE" list --plugin missing.so
expect_text "ktune list: --plugin missing.so: not loaded: no such file"
printf 'not an ELF file\n' > broken.so
expect_exit 1 "$KTUNE" list --plugin broken.so
expect_text "not loaded"
rm -f good_copy.so broken.so

# "-" is stdout: no file named "-" appears
rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
job="$KT_SOURCE_DIR/configs/vector_add.ini"
for opt in --json --csv --t4; do
    "$KTUNE" tune "$job" --replay "$rec" --quiet "$opt" - >stdout.txt 2>/dev/null
    [ -s stdout.txt ] || { echo "FAIL: tune $opt - wrote nothing to stdout"; failures=$((failures + 1)); }
    [ ! -e ./- ] || { echo "FAIL: tune $opt - created a file named -"; failures=$((failures + 1)); rm -f ./-; }
done
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' stdout.txt 2>/dev/null ||
    { "$KTUNE" tune "$job" --replay "$rec" --quiet --json - 2>/dev/null |
        python3 -c 'import json,sys; json.load(sys.stdin)' ||
        { echo "FAIL: --json - is not JSON"; failures=$((failures + 1)); }; }
rm -f stdout.txt
finish
