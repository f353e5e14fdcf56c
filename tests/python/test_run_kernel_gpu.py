# SPDX-License-Identifier: Apache-2.0
"""On a GPU (marker gpu; needs CuPy): ktune.kernel_tuner.run_kernel
returns every argument after one launch as Kernel Tuner 1.5's does: numpy
arrays for numpy inputs, new CuPy arrays for CuPy inputs, CPU tensors for
tensors, scalars as given."""
from __future__ import annotations

import numpy as np
import pytest

from kernels import VECTOR_ADD
from ktune.kernel_tuner import interface

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("libktune")]
N = 1000


def run(args):
    return interface.run_kernel("vector_add", VECTOR_ADD, N, args,
                                {"block_size_x": 128})


def test_numpy_inputs_give_numpy_outputs():
    pytest.importorskip("cupy")
    a = np.arange(N, dtype=np.float32)
    out = run([np.zeros_like(a), a, a, np.int32(N)])
    assert isinstance(out[0], np.ndarray) and np.array_equal(out[0], 2 * a)
    assert out[3] == N


def test_cupy_inputs_give_cupy_outputs():
    cp = pytest.importorskip("cupy")
    a = cp.arange(N, dtype=cp.float32)
    c = cp.zeros_like(a)
    out = run([c, a, a, np.int32(N)])
    assert isinstance(out[0], cp.ndarray) and out[0] is not c
    assert bool(cp.all(out[0] == 2 * a))


def test_torch_tensors_come_back_on_the_cpu():
    pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    a = torch.arange(N, dtype=torch.float32, device="cuda")
    out = run([torch.zeros_like(a), a, a, np.int32(N)])
    assert out[0].device.type == "cpu"
    assert torch.equal(out[0], 2 * a.cpu())
    cpu = torch.arange(N, dtype=torch.float32)
    out = run([torch.zeros_like(cpu), cpu, cpu, np.int32(N)])
    assert torch.equal(out[0], 2 * cpu)
