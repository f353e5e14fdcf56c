# SPDX-License-Identifier: Apache-2.0
"""Kernel arguments from Python objects (no library, no GPU): what becomes
a buffer, what a scalar, what is copied, and what is refused with which
message."""
from __future__ import annotations

import numpy as np
import pytest

import ktune
from ktune._arrays import to_host


def test_numpy_array_is_a_buffer_used_in_place():
    a = np.arange(10, dtype=np.float32)
    h = to_host(a, "argument 1")
    assert not h.is_scalar and h.type_name == "f32"
    assert h.value is a and h.copied_from is None


def test_numpy_scalar_is_passed_by_value_in_its_type():
    h = to_host(np.int32(7), "argument 4")
    assert h.is_scalar and h.type_name == "i32" and int(h.value) == 7
    assert to_host(np.float64(0.5), "x").type_name == "f64"


def test_non_contiguous_array_is_copied_contiguous():
    a = np.arange(20, dtype=np.int64).reshape(4, 5)[:, ::2]
    h = to_host(a, "argument 1")
    assert h.value.flags.c_contiguous and np.array_equal(h.value, a)


@pytest.mark.parametrize("value", [3, 2.5, True])
def test_python_number_is_refused_with_the_numpy_spelling(value):
    with pytest.raises(ktune.KtuneInputError, match=r"argument 2: a Python .* numpy"):
        to_host(value, "argument 2")


def test_input_errors_are_value_errors():
    with pytest.raises(ValueError):
        to_host(1, "argument 1")


def test_element_type_ktune_lacks_is_named():
    with pytest.raises(ktune.KtuneInputError, match="complex64 is not one ktune has"):
        to_host(np.zeros(3, np.complex64), "argument 1")


def test_object_that_is_no_array_is_named():
    with pytest.raises(ktune.KtuneInputError, match="argument 3: list is not an array"):
        to_host([1, 2, 3], "argument 3")


class _FakeDeviceArray:
    """Has __cuda_array_interface__ and a copy to the host, as numba's do."""

    def __init__(self, host):
        self._host = host
        self.__cuda_array_interface__ = {"shape": host.shape, "version": 3}

    def copy_to_host(self):
        return self._host.copy()


def test_device_array_is_copied_to_the_host():
    host = np.arange(5, dtype=np.uint16)
    h = to_host(_FakeDeviceArray(host), "argument 1")
    assert h.copied_from is not None and np.array_equal(h.value, host)


def test_device_array_without_a_copy_method_is_refused():
    class Bare:
        __cuda_array_interface__ = {"shape": (3,)}

    with pytest.raises(ktune.KtuneInputError, match="no method to copy it"):
        to_host(Bare(), "argument 1")
