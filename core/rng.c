// SPDX-License-Identifier: Apache-2.0
#include "core/rng.h"

/* splitmix64's finaliser: a bijection with full avalanche, so consecutive
 * counters give independent-looking values. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t kt_rng_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t key = mix(seed ^ mix(stream + UINT64_C(0x9e3779b97f4a7c15)));
    return mix(key + index * UINT64_C(0x9e3779b97f4a7c15));
}

void kt_rng_fill_f32(uint64_t seed, uint64_t stream, float *dst, size_t count,
                     float lo, float hi)
{
    kt_rng_fill_f32_at(seed, stream, dst, 0, count, lo, hi);
}

uint64_t kt_rng_stream_key(uint64_t seed, uint64_t stream)
{
    return mix(seed ^ mix(stream + UINT64_C(0x9e3779b97f4a7c15)));
}

void kt_rng_fill_f32_at(uint64_t seed, uint64_t stream, float *dst,
                        uint64_t first, size_t count, float lo, float hi)
{
    uint64_t key = kt_rng_stream_key(seed, stream);
    float scale = hi - lo;
    for (size_t i = 0; i < count; ++i) {
        /* 24 random bits: every value is an exact float in [0, 1). */
        uint64_t bits =
            mix(key + (first + i) * UINT64_C(0x9e3779b97f4a7c15)) >> 40;
        dst[i] = lo + scale * ((float)bits * (1.0f / 16777216.0f));
    }
}

void kt_rng_seed(kt_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t kt_rng_next(kt_rng *rng)
{
    rng->state += UINT64_C(0x9e3779b97f4a7c15);
    return mix(rng->state);
}

uint64_t kt_rng_below(kt_rng *rng, uint64_t bound)
{
    /* Rejection removes the modulo bias. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do {
        x = kt_rng_next(rng);
    } while (x >= limit);
    return x % bound;
}

double kt_rng_unit(kt_rng *rng)
{
    return (double)(kt_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}
