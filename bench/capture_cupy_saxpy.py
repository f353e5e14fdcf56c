#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A Python program launching a CuPy RawKernel, as an application would,
for bench/capture_h200.sh: y = a * x + y over 2^26 floats with 32 threads
per block (a choice an application might make without measuring), ten
times, then a check. It knows nothing of ktune."""
import sys

import cupy as cp

code = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""


def main():
    n = 1 << 26
    k = cp.RawKernel(code, "saxpy")
    x = cp.arange(n, dtype=cp.float32) % 1000
    y = cp.ones(n, dtype=cp.float32)
    block = 32
    grid = (n + block - 1) // block
    for _ in range(10):
        k((grid,), (block,), (cp.float32(0.5), x, y, cp.int32(n)))
    cp.cuda.Device().synchronize()
    want = 1 + 10 * 0.5 * (cp.arange(n, dtype=cp.float32) % 1000)
    ok = bool(cp.allclose(y, want))
    print("saxpy", "verified" if ok else "WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
