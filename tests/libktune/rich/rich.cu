// SPDX-License-Identifier: Apache-2.0
// A kernel with a constant symbol, a float scalar, an in-out buffer and a
// define, declared by rich.ini and by libktune (test_libktune_declaration).
#ifndef UNROLL
#define UNROLL 1
#endif
__constant__ float cw[16];

extern "C" __global__ void rich_kernel(float *y, const float *x, int n, float a)
{
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
    for (int k = 0; k < UNROLL; ++k)
        if (base + k < n)
            y[base + k] += a * x[base + k] * cw[(base + k) % 16];
}
