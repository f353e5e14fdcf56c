// SPDX-License-Identifier: Apache-2.0
// Two kernels per evaluation (docs/declared.md, "Several kernels per
// evaluation"): partial_sums leaves one partial sum per block, whose count
// and order follow the configuration (BLOCK threads, ITEMS elements each),
// so the partials cannot be verified; total adds them into one value that
// every configuration must agree on. total_t is the same as a template.

#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

// Sums v over the block's threads (a power of two) into s[0].
__device__ void block_sum(double *s, double v, int nthreads)
{
    s[threadIdx.x] = v;
    __syncthreads();
    for (int half = nthreads / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
}

extern "C" __global__ void partial_sums(const float *x, double *partials, int n)
{
    __shared__ double s[BLOCK];
    long long base = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;
    double v = 0.0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (base + (long long)i * BLOCK < n)
            v += x[base + (long long)i * BLOCK];
    block_sum(s, v, BLOCK);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s[0];
}

extern "C" __global__ void total(const double *partials, double *out, int count)
{
    __shared__ double s[256];
    double v = 0.0;
    for (int i = threadIdx.x; i < count; i += 256)
        v += partials[i];
    block_sum(s, v, 256);
    if (threadIdx.x == 0)
        out[0] = s[0];
}

template <int THREADS>
__global__ void total_t(const double *partials, double *out, int count)
{
    __shared__ double s[THREADS];
    double v = 0.0;
    for (int i = threadIdx.x; i < count; i += THREADS)
        v += partials[i];
    block_sum(s, v, THREADS);
    if (threadIdx.x == 0)
        out[0] = s[0];
}
