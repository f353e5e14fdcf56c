# SPDX-License-Identifier: Apache-2.0
"""Kernel arguments from Python objects to what libktune takes.

libktune takes host buffers and host scalars: ktune allocates, fills and
frees its own device memory in the worker process that runs the kernel
(isolation: a kernel that faults costs one point, not the caller's
process), so a device pointer of the caller's process would mean nothing
there. A device array (CuPy, PyTorch on CUDA, anything with
``__cuda_array_interface__`` or ``__dlpack__``) is therefore copied to the
host once, when the kernel is declared; the copy is what ktune uploads.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ._errors import KtuneInputError

__all__ = ["HostArg", "to_host", "DTYPE_NAMES"]

# numpy dtype -> ktune's element type names (docs/declared.md, "buffer").
DTYPE_NAMES = {
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64", np.dtype(np.int8): "i8",
    np.dtype(np.uint8): "u8", np.dtype(np.int16): "i16",
    np.dtype(np.uint16): "u16", np.dtype(np.int32): "i32",
    np.dtype(np.uint32): "u32", np.dtype(np.int64): "i64",
    np.dtype(np.uint64): "u64", np.dtype(np.bool_): "u8",
}


@dataclass
class HostArg:
    """One kernel argument on the host.

    Attributes:
        value: a C-contiguous numpy array (a buffer) or a 0-d numpy array
            (a scalar passed by value).
        is_scalar: whether the kernel takes it by value.
        copied_from: where a copy came from ("cupy", "torch", ...), None
            when the caller's own numpy memory is used as it is.
    """

    value: np.ndarray
    is_scalar: bool
    copied_from: Optional[str] = None

    @property
    def type_name(self) -> str:
        """ktune's element type name (f32, i32, ...)."""
        return DTYPE_NAMES[self.value.dtype]


def _device_to_numpy(obj: Any) -> Optional[tuple[np.ndarray, str]]:
    mod = type(obj).__module__.split(".")[0]
    if mod == "torch":
        # A tensor on any device: .cpu() copies only when it is elsewhere.
        return obj.detach().cpu().contiguous().numpy(), "torch"
    if mod == "cupy":
        return obj.get(), "cupy"
    if hasattr(obj, "__cuda_array_interface__"):
        # numba, pycuda, jax and others: each has a copy to the host.
        for name in ("copy_to_host", "get", "cpu"):
            fn = getattr(obj, name, None)
            if callable(fn):
                host = fn()
                return np.asarray(host), mod
        raise KtuneInputError(
            f"a device array of type {type(obj).__name__} ({mod}) has no "
            "method to copy it to the host (copy_to_host, get or cpu)")
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj), mod
        except (TypeError, RuntimeError, BufferError) as e:
            raise KtuneInputError(
                f"an array of type {type(obj).__name__} could not be read "
                f"through DLPack: {e}") from e
    return None


def to_host(obj: Any, where: str) -> HostArg:
    """Turn one argument into a :class:`HostArg`.

    Accepts numpy arrays, numpy scalars (``numpy.int32(n)``), 0-d arrays,
    and device arrays (CuPy, PyTorch, ``__cuda_array_interface__``,
    DLPack), which are copied to the host. A plain Python ``int`` or
    ``float`` is refused: its C type would be a guess.

    Args:
        obj: the argument.
        where: how the message names it ("argument 3").
    Raises:
        KtuneInputError: the type or the element type is not one ktune has.
    """
    copied: Optional[str] = None
    if isinstance(obj, np.generic):
        arr = np.asarray(obj)
        return _checked(arr, True, where, None)
    if isinstance(obj, (bool, int, float, complex)):
        kind = type(obj).__name__
        raise KtuneInputError(
            f"{where}: a Python {kind} has no C type; pass a numpy scalar "
            f"(numpy.int32({obj!r}), numpy.float32({obj!r}), ...)")
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        got = _device_to_numpy(obj)
        if got is None:
            raise KtuneInputError(
                f"{where}: {type(obj).__name__} is not an array; expected a "
                "numpy array or scalar, a CuPy array or a PyTorch tensor")
        arr, copied = got
    if arr.ndim == 0:
        return _checked(arr, True, where, copied)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return _checked(arr, False, where, copied)


def _checked(arr: np.ndarray, scalar: bool, where: str,
             copied: Optional[str]) -> HostArg:
    if arr.dtype not in DTYPE_NAMES:
        names = ", ".join(sorted({str(d) for d in DTYPE_NAMES}))
        raise KtuneInputError(
            f"{where}: element type {arr.dtype} is not one ktune has "
            f"(expected one of {names})")
    return HostArg(arr, scalar, copied)
