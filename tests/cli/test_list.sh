# SPDX-License-Identifier: Apache-2.0
# `ktune list` works without a GPU and shows vector_add with its four
# variants, their parameters and defaults; --json is valid JSON; a broken
# plugin on the path is named and the others still load.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$KTUNE" list
expect_text "operator vector_add:add"
for v in coalesced strided grid_stride vec4; do
    expect_text "variant $v"
done
expect_text "block          32..1024 (powers of two), default 256"
expect_text "blocks_per_sm  {1, 2, 4, 8, 16, 32}, default 4"

expect_exit 0 "$KTUNE" list --json
count=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(len([v for p in d["plugins"] if p["name"]=="vector_add" for o in p["operators"] for v in o["variants"]]))' <<<"$out")
[ "$count" = 4 ] || { echo "FAIL: --json lists $count vector_add variants"; failures=$((failures + 1)); }

KTUNE_PLUGIN_PATH="$KT_FIXTURES/bad_abi_major.so:$KT_FIXTURES/good_plugin.so" \
    expect_exit 0 "$KTUNE" list
expect_text "operator good:scale"
expect_text "operator vector_add:add"
expect_text "not loaded: $KT_FIXTURES/bad_abi_major.so: ABI major version 2, expected 1"

# Plugins whose entry point crashes, hangs or exits are probed in a child
# process: each is named, every other plugin is listed.
KTUNE_PLUGIN_TIMEOUT=1 KTUNE_PLUGIN_PATH="$KT_FIXTURES/bad_crash_entry.so:$KT_FIXTURES/bad_hang_entry.so:$KT_FIXTURES/bad_exit_entry.so:$KT_FIXTURES/good_plugin.so" \
    expect_exit 0 "$KTUNE" list
expect_text "bad_crash_entry.so: loading it killed by signal 11"
expect_text "bad_hang_entry.so: did not finish loading within 1 s"
expect_text "bad_exit_entry.so: loading it exited with status 3"
expect_text "operator good:scale"
expect_text "operator vector_add:add"

# A plugin named on the command line that does not load: the others are
# listed, and the list fails (exit 1) because what was asked for is missing.
expect_exit 1 "$KTUNE" list --plugin "$KT_FIXTURES/not_elf.so"
expect_text "not loaded: $KT_FIXTURES/not_elf.so: cannot load"
expect_text "operator vector_add:add"
expect_text "ktune list: --plugin $KT_FIXTURES/not_elf.so: not loaded"
finish
