# SPDX-License-Identifier: Apache-2.0
# The new-plugin template (app/templates/plugin.cu and plugin.ini), built as
# the plugin `scaffold` by the test suite: it loads with its operator, both
# variants and their parameters, and its tuning job checks without a GPU.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

plugin=$KT_SCAFFOLD_DIR/scaffold.so
expect_exit 0 "$KTUNE" list --plugin "$plugin"
expect_text "operator scaffold:mul — z = x * y element by element"
expect_text "variant one_per_thread"
expect_text "variant grid_stride"
expect_text "blocks_per_sm"
grep -qF "not loaded" <<<"$out" &&
    { echo "FAIL: a plugin did not load:"; echo "$out"; failures=$((failures + 1)); }

expect_exit 0 "$KTUNE" tune "$KT_SCAFFOLD_DIR/scaffold.ini" --plugin "$plugin" \
    --check
expect_text "scaffold:mul"
expect_text "one_per_thread"
expect_text "grid_stride"
finish
