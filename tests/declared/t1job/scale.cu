// SPDX-License-Identifier: Apache-2.0
// out = a * in + bias, each thread `items` elements: a kernel of our own
// for the T1 job tests (scale.json), written as Kernel Tuner's kernels
// are: parameters as macros, and bias both an argument and constant
// memory, as a T1 file's MemType Constant argument is both.
__constant__ float bias[1];

extern "C" __global__ void scale(float *out, const float *in, float a, int n,
                                 const float *bias_arg)
{
    int first = (blockIdx.x * block_size_x + threadIdx.x) * items;
    for (int k = 0; k < items; ++k)
        if (first + k < n)
            out[first + k] = a * in[first + k] + bias[0];
}
