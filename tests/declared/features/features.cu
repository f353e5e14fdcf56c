// SPDX-License-Identifier: Apache-2.0
/* Kernels of tests/declared/features/features.ini: every declaration
 * feature of issue 28 at once, small enough for a CPU check and a quick
 * GPU run. y = c_new and c is in-out; the weights live in constant memory;
 * x is read through a float4 view; `steps` changes the answer and the
 * work, so the reference follows it. */
#include "features.h"

__constant__ float c_weights[KT_FEATURE_WEIGHTS];

__device__ float step_all(float acc, float x, unsigned char byte, float r,
                          float a, double b, int i, int steps)
{
    for (int s = 0; s < steps; ++s)
        acc = acc * a + x * c_weights[i % KT_FEATURE_WEIGHTS] + byte + r +
              (float)b;
    return acc;
}

template <int STEPS>
__global__ void features_simple(float *y, float *c, const float4 *x4,
                                const unsigned char *bytes, const float *r,
                                float a, double b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = step_all(c[i], ((const float *)x4)[i], bytes[i], r[i], a, b,
                             i, STEPS);
        y[i] = acc;
        c[i] = 0.5f * acc;
    }
}

/* The same, VEC elements per thread. */
template <int STEPS, int VEC>
__global__ void features_vec(float *y, float *c, const float4 *x4,
                             const unsigned char *bytes, const float *r,
                             float a, double b, int n)
{
    int first = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        int i = first + k;
        if (i < n) {
            float acc = step_all(c[i], ((const float *)x4)[i], bytes[i], r[i],
                                 a, b, i, STEPS);
            y[i] = acc;
            c[i] = 0.5f * acc;
        }
    }
}

/* Generator of buffer r: a ramp made on the device from its index. */
__global__ void make_ramp(float *out, unsigned long long count,
                          unsigned long long seed)
{
    unsigned long long i =
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = (float)(i % 7) * 0.25f + (float)(seed % 3);
}
