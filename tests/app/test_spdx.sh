# SPDX-License-Identifier: Apache-2.0
# Every tracked source file names its licence in an SPDX line
# (check_spdx.sh); the check also catches planted files without one, in a
# git checkout (tracked files) and in a plain folder (a source tarball).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
check=$KT_SOURCE_DIR/tests/app/check_spdx.sh

expect_exit 0 bash "$check" "$KT_SOURCE_DIR"
expect_text "source files carry the SPDX line"

rm -rf planted && mkdir -p planted/core planted/tools planted/app/templates
spdx='SPDX-License-Identifier: Apache-2.0'
printf '// %s\nint a;\n' "$spdx" >planted/core/good.c
printf '#!/bin/sh\n# %s\ntrue\n' "$spdx" >planted/tools/good.sh
printf '# %s\nproject(x)\n' "$spdx" >planted/CMakeLists.txt
printf 'int b;\n// %s\n' "$spdx" >planted/core/late.h
printf '#!/usr/bin/env python3\nprint(1)\n' >planted/tools/bare.py
printf '__global__ void k() {}\n' >planted/app/templates/plugin.cu
printf 'not source\n' >planted/core/notes.txt

expect_exit 1 bash "$check" planted
expect_text "core/late.h: no '$spdx' line at the top"
expect_text "tools/bare.py: no"
expect_text "2 of 5 source files lack the SPDX line"

# In a git checkout only tracked files count.
if command -v git >/dev/null; then
    (cd planted && git init -q . && git add core/good.c tools/good.sh \
        CMakeLists.txt core/late.h)
    expect_exit 1 bash "$check" planted
    expect_text "1 of 4 source files lack the SPDX line"
    (cd planted && git rm -q --cached core/late.h)
    expect_exit 0 bash "$check" planted
fi
finish
