// SPDX-License-Identifier: Apache-2.0
/*
 * Deterministic pseudo-random inputs.
 *
 * Element i of stream s under seed k is a pure function of (k, s, i): the
 * same inputs on every machine, whatever the chunking, so every configuration
 * and every rerun is measured on identical data.
 */
#ifndef KT_RNG_H
#define KT_RNG_H

#include <stddef.h>
#include <stdint.h>

/* A well-mixed 64-bit value for (seed, stream, index). */
uint64_t kt_rng_u64(uint64_t seed, uint64_t stream, uint64_t index);

/* Uniform floats in [lo, hi) for elements [0, count). */
void kt_rng_fill_f32(uint64_t seed, uint64_t stream, float *dst, size_t count,
                     float lo, float hi);

/* Elements [first, first + count) of the same sequence into dst[0..count):
 * a chunk of a fill, so chunks can be filled in parallel. */
void kt_rng_fill_f32_at(uint64_t seed, uint64_t stream, float *dst,
                        uint64_t first, size_t count, float lo, float hi);

/* The key of a stream: element i is then
 * mix(key + i * 0x9e3779b97f4a7c15) >> 40, scaled (core/rng.c), which the
 * device fill (engine/kernels.h) computes alike. */
uint64_t kt_rng_stream_key(uint64_t seed, uint64_t stream);

/* A small sequential generator for strategies (random search, annealing). */
typedef struct kt_rng {
    uint64_t state;
} kt_rng;

void kt_rng_seed(kt_rng *rng, uint64_t seed);
uint64_t kt_rng_next(kt_rng *rng);
/* Uniform integer in [0, bound); bound > 0. */
uint64_t kt_rng_below(kt_rng *rng, uint64_t bound);
/* Uniform double in [0, 1). */
double kt_rng_unit(kt_rng *rng);

#endif
