// SPDX-License-Identifier: Apache-2.0
// y = 2x, with a compile cost set by DEPTH: a fully unrolled chain of
// DEPTH steps the kernel keeps (behind a run-time flag that is 0), so
// NVRTC and ptxas work in proportion to DEPTH while the result stays 2x.
// SALT makes kernels of equal cost that are distinct to the cache. For
// the compile pool's tests and bench/compile_pool.sh.
template <int DEPTH, int SALT>
__global__ void heavy(float *y, const float *x, int n, int extra)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = 2.0f * x[i];
    if (extra) {
        float w = x[i];
#pragma unroll
        for (int k = 0; k < DEPTH; ++k)
            w = __sinf(w * 0.999f + (float)((k * 7 + SALT) % 13)) * w;
        v += w;
    }
    y[i] = v;
}
