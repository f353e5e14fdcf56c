// SPDX-License-Identifier: Apache-2.0
/* Generators of hotspot.ini's inputs, as the hub's script lays them out:
 * (w + 2 * 10) x (h + 2 * 10) grids whose border of max_tfactor = 10 cells
 * is zero, the interior a power density in [0, 1) and a temperature in
 * [324, 325). KTUNE_SIZE_w and KTUNE_SIZE_h come from the declaration. */
#include "inputs_hash.h"

#define KT_HOTSPOT_BORDER 10

__device__ inline int hotspot_interior(unsigned long long i)
{
    const long long width = KTUNE_SIZE_w + 2 * KT_HOTSPOT_BORDER;
    long long x = (long long)(i % width), y = (long long)(i / width);
    return x >= KT_HOTSPOT_BORDER && x < KT_HOTSPOT_BORDER + KTUNE_SIZE_w &&
           y >= KT_HOTSPOT_BORDER && y < KT_HOTSPOT_BORDER + KTUNE_SIZE_h;
}

__global__ void hotspot_power(float *out, unsigned long long count,
                              unsigned long long seed)
{
    unsigned long long i =
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = hotspot_interior(i) ? ktune_uniform(seed, 0, i) : 0.0f;
}

__global__ void hotspot_temp(float *out, unsigned long long count,
                             unsigned long long seed)
{
    unsigned long long i =
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < count)
        out[i] =
            hotspot_interior(i) ? 324.0f + ktune_uniform(seed, 1, i) : 0.0f;
}
