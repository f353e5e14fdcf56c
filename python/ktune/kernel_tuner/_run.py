# SPDX-License-Identifier: Apache-2.0
"""One launch of a kernel through CuPy, for run_kernel: libktune hands
back timings and verdicts, not a run's outputs (docs/kernel-tuner.md)."""
from __future__ import annotations

import math
import os
from typing import Any, Mapping, Sequence

import numpy as np

from .._errors import KtuneRuntimeError, KtuneUnsupportedError


def _value(expr: Any, params: Mapping[str, Any]) -> float:
    """An int, a parameter name or an expression of the parameters, with
    Kernel Tuner's (Python's) arithmetic."""
    if isinstance(expr, (int, float, np.integer, np.floating)):
        return float(expr)
    if callable(expr):
        raise KtuneUnsupportedError("kernel_tuner.run_kernel: callables in "
                                    "problem_size or grid_div are not supported")
    return float(eval(str(expr), {"__builtins__": {}}, dict(params)))  # noqa: S307 the caller's expression


def _source_text(kernel_source: Any) -> tuple[str, list[str]]:
    files = list(kernel_source) if isinstance(kernel_source, (list, tuple)) else [kernel_source]
    main, rest = files[0], files[1:]
    text = str(main)
    if isinstance(main, os.PathLike) or ("\n" not in text and os.path.isfile(text)):
        with open(os.fspath(main), encoding="utf-8") as f:
            text = f.read()
    dirs = [os.path.dirname(os.path.abspath(str(p))) for p in rest]
    if not isinstance(main, str) or "\n" not in str(main):
        dirs.append(os.path.dirname(os.path.abspath(os.fspath(main))))
    return text, dirs


def run_once(kernel_name: str, kernel_source: Any, problem_size: Any,
             arguments: Sequence[Any], params: Mapping[str, Any],
             grid_div: tuple[Any, Any, Any], device: int, smem_args: Any,
             cmem_args: Any, compiler_options: Any, defines: Any,
             block_names: list[str]) -> list[Any]:
    try:
        import cupy as cp  # type: ignore
    except ImportError as e:
        raise KtuneUnsupportedError(
            "kernel_tuner.run_kernel needs CuPy (libktune does not return a "
            "run's outputs)") from e
    p = dict(params)
    block = [int(p.get(n, d)) for n, d in zip(block_names, (256, 1, 1))]
    dims = list(problem_size) if isinstance(problem_size, (tuple, list)) else [problem_size]
    dims += [1] * (3 - len(dims))
    grid = []
    for i in range(3):
        div = grid_div[i] if grid_div[i] is not None else [block_names[i]]
        d = math.prod(_value(x, {**p, **dict(zip(block_names, block))}) for x in div) if div else 1.0
        grid.append(int(math.ceil(_value(dims[i], p) / d)))
    macros = {**{k: v for k, v in p.items()},
              **dict(zip(block_names, block)),
              **{f"grid_size_{a}": g for a, g in zip("xyz", grid)},
              "kernel_tuner": 1, **dict(defines or {})}
    text, dirs = _source_text(kernel_source)
    options = tuple([f"-D{k}={v}" for k, v in macros.items()] +
                    [f"-I{d}" for d in dirs] + list(compiler_options or []))
    with cp.cuda.Device(device):
        # The name as an expression: NVRTC resolves a C++ (mangled) name
        # as well as an extern "C" one.
        module = cp.RawModule(code=text, options=options,
                              name_expressions=[kernel_name])
        fn = module.get_function(kernel_name)
        for sym, arr in dict(cmem_args or {}).items():
            host = np.ascontiguousarray(arr)
            ptr = module.get_global(sym)
            ptr.copy_from_host(host.ctypes.data, host.nbytes)
        dev_args = [_on_device(cp, a) for a in arguments]
        smem = 0
        if smem_args:
            smem = int(_value(smem_args.get("size", 0), p))
        try:
            fn(tuple(grid), tuple(block), tuple(dev_args), shared_mem=smem)
            cp.cuda.Device(device).synchronize()
        except Exception as e:  # CuPy's own CUDA errors, with its message
            raise KtuneRuntimeError(f"kernel_tuner.run_kernel: {e}") from e
        return [_returned(cp, a, d) for a, d in zip(arguments, dev_args)]


def _is_torch(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "torch"


def _on_device(cp: Any, a: Any) -> Any:
    """An argument as the launch takes it: numpy arrays and CPU tensors
    copied to the device, CuPy arrays and CUDA tensors used in place (as
    Kernel Tuner does), scalars as given."""
    if isinstance(a, np.ndarray):
        return cp.asarray(a)
    if _is_torch(a):
        return cp.asarray(a.detach()) if a.is_cuda else cp.asarray(a.detach().numpy())
    return a


def _returned(cp: Any, a: Any, d: Any) -> Any:
    """Each argument after the launch, as Kernel Tuner's run_kernel returns
    it: a numpy array for a numpy array, a new CuPy array for a CuPy one
    (numpy.zeros_like dispatches to CuPy there), a CPU tensor for a tensor,
    a scalar as given."""
    if _is_torch(a):
        import torch  # type: ignore
        return a.cpu() if a.is_cuda else torch.from_numpy(cp.asnumpy(d))
    if isinstance(a, cp.ndarray):
        return d.copy()
    if isinstance(d, cp.ndarray):
        return cp.asnumpy(d)
    return d
