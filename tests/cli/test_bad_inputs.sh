# SPDX-License-Identifier: Apache-2.0
# The bad-input generator (tests/cli/bad_inputs.py): over a thousand inputs
# across every command, job file, declaration, journal, wisdom, diff and
# report input and environment variable; none may crash ktune, hang it,
# draw a sanitizer report (this test runs in the ASan/UBSan build too), or
# exit 0 where the input is nonsense by construction.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

jobs=$(nproc 2>/dev/null || echo 2)
expect_exit 0 python3 "$KT_SOURCE_DIR/tests/cli/bad_inputs.py" "$KTUNE" \
    "$KT_SOURCE_DIR" --jobs $((jobs + 1))
echo "$out" | tail -n 30
finish
