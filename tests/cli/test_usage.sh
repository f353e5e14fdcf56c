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
finish

# tune --help lists the strategies of the registry (tuner/strategies/
# list.h), every one of them, the first as the default: the list is not
# written by hand.
expect_exit 0 "$KTUNE" tune --help
first=1
for name in $(sed -n 's/^KT_STRATEGY(\([a-z_0-9]*\))$/\1/p' \
                  "$KT_SOURCE_DIR/tuner/strategies/list.h"); do
    if [ $first = 1 ]; then
        expect_text "Strategies ([strategy] name): $name (default)"
        first=0
    elif ! grep -qE "(^| )$name[,.]" <<<"$out"; then
        echo "FAIL: strategy $name missing from tune --help"
        failures=$((failures + 1))
    fi
done
