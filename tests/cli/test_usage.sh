# SPDX-License-Identifier: Apache-2.0
# Usage errors exit 2 with one line that says what is wrong; --help exits 0
# on every subcommand.
. "$(dirname "$0")/lib.sh"

expect_exit 2 "$KTUNE"
expect_exit 2 "$KTUNE" frobnicate
expect_text "unknown command 'frobnicate'"
expect_exit 0 "$KTUNE" --help
expect_text "Exit codes"
expect_exit 0 "$KTUNE" --version
expect_exit 0 "$KTUNE" -V
expect_text "ktune"
for cmd in list info bench; do
    expect_exit 0 "$KTUNE" "$cmd" --help
    expect_text "usage: ktune $cmd"
done
expect_exit 2 "$KTUNE" list --bogus
expect_exit 2 "$KTUNE" bench
expect_text "PLUGIN:OPERATOR is missing"
expect_exit 2 "$KTUNE" bench vector_ad:add
expect_text "unknown plugin 'vector_ad'; did you mean 'vector_add'?"
expect_exit 2 "$KTUNE" bench vector_add:ad
expect_text "no operator 'ad'"
expect_exit 2 "$KTUNE" bench vector_add:add --variant coalesed
expect_text "did you mean 'coalesced'?"
expect_exit 2 "$KTUNE" bench vector_add:add --set block=100
expect_text "100 is not one of 32..1024 (powers of two)"
expect_lines 1
expect_exit 2 "$KTUNE" bench vector_add:add --set blocks=64
expect_text "did you mean 'block'?"
expect_exit 2 "$KTUNE" bench vector_add:add --size n=12x
expect_text "expected an integer"
expect_exit 2 "$KTUNE" bench vector_add:add --size m=5
expect_text "has no size 'm'"
expect_exit 2 "$KTUNE" bench vector_add:add --cache warm
expect_text "--cache: expected cold, hot or cold-dirty"
expect_exit 2 "$KTUNE" bench vector_add:add --min-samples 50 --max-samples 5
expect_text "samples: min 50, max 5"
expect_exit 2 "$KTUNE" bench vector_add:add extra
# Help (issue 30 item 16): `ktune help CMD` is CMD's help; tune --help
# lists every strategy of the registry (tuner/strategies/list.h).
expect_exit 0 "$KTUNE" help tune
expect_text "usage: ktune tune CONFIG"
expect_exit 2 "$KTUNE" help nosuch
expect_text "help: unknown command 'nosuch'"
expect_exit 0 "$KTUNE" tune --help
strategies=$(sed -n 's/^KT_STRATEGY(\(.*\))$/\1/p' "$KT_SOURCE_DIR/tuner/strategies/list.h")
[ -n "$strategies" ] || { echo "FAIL: no strategy in list.h"; failures=$((failures + 1)); }
for s in $strategies; do
    grep -qE "(^| )$s( \(default\))?[,.]" <<<"$out" ||
        { echo "FAIL: tune --help does not list strategy $s"; failures=$((failures + 1)); }
done
# list --json takes FILE or '-' as every other --json does; alone it is stdout.
rm -f l.json
expect_exit 0 "$KTUNE" list --json l.json
python3 -c 'import json; assert json.load(open("l.json"))["kind"] == "ktune.list"' ||
    { echo "FAIL: list --json FILE wrote no list"; failures=$((failures + 1)); }
expect_exit 0 "$KTUNE" list --json -
expect_text '"kind": "ktune.list"'
expect_exit 0 "$KTUNE" list --json
expect_text '"kind": "ktune.list"'
rm -f l.json
expect_exit 0 "$KTUNE" list --json=l.json
python3 -c 'import json; assert json.load(open("l.json"))["kind"] == "ktune.list"' ||
    { echo "FAIL: list --json=FILE wrote no list"; failures=$((failures + 1)); }
expect_exit 2 "$KTUNE" list --json=
expect_text "--json: expected a file name"
expect_exit 2 "$KTUNE" info --json /nonexistent/folder/i.json
expect_text "does not exist"
expect_exit 2 "$KTUNE" list --json a b
expect_text "unexpected argument 'a'"
expect_exit 2 "$KTUNE" info --json a b
expect_text "unexpected argument 'a'"
rm -f l.json
# The first strategy of the registry is the default, in tune --help and in
# docs/configs.md, whose [strategy] name row lists every one of them.
expect_exit 0 "$KTUNE" tune --help
first=1
row=$(grep '^| `name` |' "$KT_SOURCE_DIR/docs/configs.md")
for name in $strategies; do
    grep -qF "\`$name\`" <<<"$row" ||
        { echo "FAIL: docs/configs.md's [strategy] name row lacks $name"; failures=$((failures + 1)); }
    if [ $first = 1 ]; then
        expect_text "Strategies ([strategy] name): $name (default)"
        grep -qE "\| \`$name\` \|\$" <<<"$row" ||
            { echo "FAIL: docs/configs.md does not give $name as the default"; failures=$((failures + 1)); }
        first=0
    fi
done
# wisdom's verbs take --help after the verb (exit 0, their usage).
for verb in show check select; do
    expect_exit 0 "$KTUNE" wisdom $verb --help
    expect_text "usage: ktune wisdom"
done
finish
