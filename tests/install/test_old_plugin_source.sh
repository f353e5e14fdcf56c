# SPDX-License-Identifier: Apache-2.0
# Plugin source compatibility: a plugin written against <ktune/plugin.h>
# from before the ABI/helper split (tests/fixtures/old_source_plugin.c: it
# includes that header alone and uses KT_PARAM_POW2, KT_STRUCT_SIZE,
# KT_PLUGIN_HEADER, kt_config_get, kt_shape_1d, kt_div_up) builds unchanged
# against today's headers, warnings as errors, and ktune lists it. With
# KT_NO_DEPRECATED the header is the ABI alone again: the same source is
# refused, so the compatibility path is the one that made it build.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
src=$KT_SOURCE_DIR/tests/fixtures/old_source_plugin.c
inc=$KT_SOURCE_DIR/core/include
rm -f old_source.so

expect_exit 0 "$KT_C_COMPILER" -std=c11 -Wall -Wextra -Werror -shared -fPIC \
    -I"$inc" "$src" -o old_source.so
expect_exit 0 "$KTUNE" list --plugin "$PWD/old_source.so"
expect_text "operator old_source:op"
expect_exit 1 "$KT_C_COMPILER" -std=c11 -DKT_NO_DEPRECATED -fsyntax-only \
    -I"$inc" "$src"
expect_text "kt_shape_1d"
finish
