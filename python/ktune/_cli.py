# SPDX-License-Identifier: Apache-2.0
"""The ``ktune`` command the wheel installs: the bundled executable, run
with the same arguments (so ``pip install`` gives the whole CLI)."""
from __future__ import annotations

import os
import sys

from . import _lib


def main() -> None:
    """Replaces this process with the bundled ``ktune`` executable."""
    exe = _lib.exe_path()
    if exe is None:
        sys.stderr.write("ktune: the bundled executable is missing "
                         f"(looked beside {_lib.library_path()})\n")
        sys.exit(1)
    os.execv(str(exe), [str(exe)] + sys.argv[1:])
