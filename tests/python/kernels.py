# SPDX-License-Identifier: Apache-2.0
"""The kernel the Python tests declare: Kernel Tuner's vector add, with a
20-point space (block_size_x 32..640 step 32)."""
from __future__ import annotations

import numpy as np

VECTOR_ADD = r"""
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
BLOCKS = [32 * i for i in range(1, 21)]


def vector_add_args(n: int, xp=np):
    """c (output), a, b, n for module xp (numpy, cupy or torch-like)."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return np.zeros_like(a), a, b, np.int32(n)
