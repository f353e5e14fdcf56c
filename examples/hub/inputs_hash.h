// SPDX-License-Identifier: Apache-2.0
/* What the generator kernels of examples/hub share: a counter-based hash
 * (element i of a stream gets a uniform float in [0, 1) from (seed,
 * stream, i) alone, so every machine and every launch shape makes the
 * same inputs), and the element a thread makes. */
#ifndef KTUNE_HUB_INPUTS_HASH_H
#define KTUNE_HUB_INPUTS_HASH_H

__device__ inline float ktune_uniform(unsigned long long seed,
                                      unsigned long long stream,
                                      unsigned long long i)
{
    unsigned long long x =
        seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xbf58476d1ce4e5b9ull ^ i;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (float)(x >> 40) * (1.0f / 16777216.0f); /* 24 bits: exact */
}

/* The element a generator thread makes, i; threads past count return. */
#define KTUNE_GENERATOR_ELEMENT(i)                                             \
    unsigned long long i =                                                     \
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;             \
    if (i >= count)                                                            \
    return

#endif
