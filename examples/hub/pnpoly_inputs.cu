// SPDX-License-Identifier: Apache-2.0
/* Generator of pnpoly.ini's polygon: 600 vertices (x, y pairs) of a star
 * around the origin whose radius wobbles between 0.3 and 0.9, so about
 * half of the points in [-1, 1)^2 lie inside. Every vertex y is an odd
 * multiple of 2^-24: the points (uniform(-1, 1) from 24 random bits, so
 * multiples of 2^-23) never share a y with a vertex, where the tuned
 * between_methods 0..3 legitimately disagree. With that, every
 * configuration's bitmap equals the naive kernel's exactly. */
#include "inputs_hash.h"

__global__ void pnpoly_vertices(float *out, unsigned long long count,
                                unsigned long long seed)
{
    unsigned long long j =
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long n = count / 2;
    if (j < n) {
        double angle = 6.283185307179586 * (double)j / (double)n;
        double r = 0.3 + 0.6 * ktune_uniform(seed, 7, j);
        double x = r * cos(angle), y = r * sin(angle);
        /* y onto the odd multiples of 2^-24 (exact in float for |y| < 1). */
        y = (2.0 * floor(y * 8388608.0) + 1.0) / 16777216.0;
        out[2 * j] = (float)x;
        out[2 * j + 1] = (float)y;
    }
}
