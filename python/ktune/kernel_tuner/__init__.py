# SPDX-License-Identifier: Apache-2.0
"""Kernel Tuner's public interface, answered by ktune.

``from ktune.kernel_tuner import tune_kernel`` in new code, or run an
unmodified Kernel Tuner script with ``python -m ktune.kernel_tuner
SCRIPT.py [ARGS]``, which answers its ``import kernel_tuner`` (and the
submodules util, file_utils, interface) from this package. What differs
from Kernel Tuner and what is not supported: docs/kernel-tuner.md.
"""
from __future__ import annotations

from . import file_utils, util
from .interface import run_kernel, tune_kernel

__all__ = ["tune_kernel", "run_kernel", "util", "file_utils", "__version__"]

#: The Kernel Tuner version whose interface this package follows.
__version__ = "1.5.0"
