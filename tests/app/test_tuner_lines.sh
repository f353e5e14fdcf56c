# SPDX-License-Identifier: Apache-2.0
# The tuner keeps the search alone (issue 49): tuner/ stays under 11,000
# lines (check_tuner_lines.sh), and the check catches a tuner over its cap.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
check=$KT_SOURCE_DIR/tests/app/check_tuner_lines.sh

expect_exit 0 bash "$check" "$KT_SOURCE_DIR"
expect_text "(at most 11000)"

# Planted: a copy of tuner/ with one file grown past the cap.
rm -rf planted && mkdir planted && cp -r "$KT_SOURCE_DIR/tuner" planted/
yes '/* planted */' | head -n 11001 >planted/tuner/planted.c
expect_exit 1 bash "$check" planted
expect_text "more than 11000: a format belongs in records/"
rm -rf planted
finish
