# SPDX-License-Identifier: Apache-2.0
"""ktune from Python: find the fastest *correct* launch configuration of a
CUDA kernel, with numpy, CuPy or PyTorch arguments.

A thin, typed layer over libktune (ctypes; include/ktune/ktune.h): the
library runs the same engine as the ``ktune`` command (verification at
boundary sizes, kernels in worker processes, medians with confidence
intervals, the environment recorded with every number), and this package
turns its results into plain Python objects.

Quick start::

    import numpy as np, ktune
    src = '''__global__ void add(float *c, const float *a, const float *b, int n) {
        int i = blockIdx.x * block_size_x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }'''
    n = 1 << 24
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    r = ktune.tune("add", src, [ktune.Out(np.empty_like(a)), a, b, np.int32(n)],
                   {"block_size_x": [32 * i for i in range(1, 21)]},
                   problem_size=n, answer=[a + b, None, None, None])
    print(r.best["config"], r.best["median_us"], r.best["ci_lo_us"], r.best["ci_hi_us"])

Main names: :func:`tune`, :class:`Kernel` (``check``, ``tune``, ``bench``,
``profile``, ``replay``), :func:`replay` (a ktune journal, a Kernel Tuner
cache or T4 file), :class:`Result`, the argument roles :class:`Out`,
:class:`InOut`, :class:`Scratch`, :class:`SizeExpr`, and the exceptions
:class:`KtuneError`, :class:`KtuneInputError` (a ``ValueError``),
:class:`KtuneRuntimeError`. ``ktune.kernel_tuner`` is Kernel Tuner's
interface over the same library. docs/python.md has the whole guide.
"""
from __future__ import annotations

from ._errors import (KtuneError, KtuneInputError, KtuneRuntimeError,
                      KtuneUnsupportedError)
from ._kernel import (Buffer, InOut, Kernel, Out, Scratch, SizeExpr, Variant,
                      bench, check, profile, replay, tune)
from ._result import Result

__all__ = ["__version__", "library_version", "Kernel", "Variant", "Buffer", "Out", "InOut",
           "Scratch", "SizeExpr", "Result", "tune", "bench", "profile",
           "check", "replay", "KtuneError", "KtuneInputError",
           "KtuneRuntimeError", "KtuneUnsupportedError"]


def _package_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("ktune")
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    try:
        return library_version()
    except KtuneError:  # no library here: the version is still asked for
        return "0+unknown"


def library_version() -> str:
    """The version libktune reports (ktune_version), e.g. "0.1.0"."""
    from . import _lib
    return _lib.s(_lib.lib().ktune_version(None, None, None))


#: The package's version (the wheel's, else libktune's).
__version__: str = _package_version()
