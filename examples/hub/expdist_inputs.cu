// SPDX-License-Identifier: Apache-2.0
/* Generators of expdist.ini's point sets, as BAT's expdist.py draws them:
 * A ~ N(0, 1) in each of its 2 dimensions, B = A + 1e-5 * N(0, 1) (so
 * that near pairs, which give the cost its value, exist), and the scales
 * |0.01 * N(0, 1)|. Each value is a function of (seed, stream, element)
 * alone, so B can hold A's values plus its own noise without reading A. */
#include "inputs_hash.h"

/* A standard normal from two uniform streams (Box-Muller). */
__device__ inline double expdist_normal(unsigned long long seed, int stream,
                                        unsigned long long i)
{
    double u1 =
        1.0 - (double)ktune_uniform(seed, (unsigned long long)stream, i);
    double u2 = (double)ktune_uniform(seed, (unsigned long long)stream + 1, i);
    return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}

__global__ void expdist_a(double *out, unsigned long long count,
                          unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = expdist_normal(seed, 0, i);
}

__global__ void expdist_b(double *out, unsigned long long count,
                          unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = expdist_normal(seed, 0, i) + 1e-5 * expdist_normal(seed, 2, i);
}

__global__ void expdist_scale_a(double *out, unsigned long long count,
                                unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = fabs(0.01 * expdist_normal(seed, 4, i));
}

__global__ void expdist_scale_b(double *out, unsigned long long count,
                                unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = fabs(0.01 * expdist_normal(seed, 6, i));
}
