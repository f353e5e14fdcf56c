// SPDX-License-Identifier: Apache-2.0
// y = a * x + y, Items elements per thread, BLOCK threads per block: the
// kernel jit_app compiles at run time with the wisdom entry's BLOCK and
// ITEMS (-DBLOCK=512 -DITEMS=4, and saxpy<4>), and also builds in as its
// precompiled default (BLOCK 256, ITEMS 1) for machines without NVRTC.
#ifndef BLOCK
#define BLOCK 256
#endif

template <int Items>
__global__ void __launch_bounds__(BLOCK)
    saxpy(float a, const float *x, float *y, int n)
{
    const int stride = gridDim.x * BLOCK;
    const int i0 = blockIdx.x * BLOCK + threadIdx.x;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
        const int i = i0 + k * stride;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}
