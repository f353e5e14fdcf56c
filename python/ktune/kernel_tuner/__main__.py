# SPDX-License-Identifier: Apache-2.0
"""``python -m ktune.kernel_tuner SCRIPT.py [ARGS]`` (or ``-m MODULE
[ARGS]``, e.g. ``-m pytest test_vector_add.py``): runs a Kernel Tuner
script unmodified, its ``import kernel_tuner`` answered by ktune."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
from typing import Any, Optional, Sequence

_ALIAS = "kernel_tuner"
_TARGET = "ktune.kernel_tuner"
# Kernel Tuner's submodules that scripts import and ktune answers.
_SUBMODULES = {"util", "file_utils", "interface"}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``kernel_tuner`` and ``kernel_tuner.X`` with ktune's modules;
    a submodule ktune does not have is an ImportError naming it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Optional[Any]:
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        tail = spec.name[len(_ALIAS):]
        sub = tail.lstrip(".")
        if sub and sub.split(".")[0] not in _SUBMODULES:
            raise ImportError(
                f"{spec.name}: ktune answers kernel_tuner and its submodules "
                f"{', '.join(sorted(_SUBMODULES))}; this one is not supported "
                "(docs/kernel-tuner.md)", name=spec.name)
        return importlib.import_module(_TARGET + tail)

    def exec_module(self, module: Any) -> None:
        pass  # the target module is already executed


def install() -> None:
    """Makes ``import kernel_tuner`` import ktune.kernel_tuner in this
    process (kept when the real Kernel Tuner is installed too)."""
    for name in [m for m in sys.modules if m == _ALIAS or m.startswith(_ALIAS + ".")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _Finder())


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m ktune.kernel_tuner SCRIPT.py [ARGS]\n"
              "       python -m ktune.kernel_tuner -m MODULE [ARGS]\n"
              "runs a Kernel Tuner script unmodified, answered by ktune")
        sys.exit(0 if args else 2)
    install()
    if args[0] == "-m":
        if len(args) < 2:
            sys.stderr.write("python -m ktune.kernel_tuner: -m needs a module\n")
            sys.exit(2)
        sys.argv = [args[1]] + args[2:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return
    sys.argv = list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
    try:
        runpy.run_path(args[0], run_name="__main__")
    except ModuleNotFoundError as e:
        _note_missing(args[0], e)
        raise


# Modules a Kernel Tuner script may import itself that ktune neither needs
# nor provides (a stand-in would pretend to be them): what to say.
_OWN_IMPORTS = {
    "pycuda": "PyCUDA (pnpoly.py, for instance, allocates its mapped host "
              "memory with it); ktune runs without PyCUDA and provides no "
              "stand-in: install pycuda to run the script's own PyCUDA code",
}


def _note_missing(script: str, e: ModuleNotFoundError) -> None:
    top = (e.name or "").split(".")[0]
    if top in _OWN_IMPORTS:
        sys.stderr.write(f"python -m ktune.kernel_tuner: {os.path.basename(script)} "
                         f"imports {top} itself: {_OWN_IMPORTS[top]}\n")


if __name__ == "__main__":
    main()
