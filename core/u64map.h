// SPDX-License-Identifier: Apache-2.0
/*
 * kt_u64map: a map from 64-bit keys to 64-bit values, open addressing with
 * linear probing. The tuner looks points up by their index in the space
 * thousands of times a run (a linear scan would make long runs quadratic);
 * keyed by a hash (core/hash.h), a value can head a chain of positions the
 * caller keeps, whose keys it compares in full.
 */
#ifndef KT_U64MAP_H
#define KT_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct kt_u64map {
    uint64_t *keys;
    uint64_t *values;
    unsigned char *used;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
} kt_u64map;

void kt_u64map_init(kt_u64map *map);
void kt_u64map_free(kt_u64map *map);

/* Inserts or replaces. KT_S_NOMEM when growing fails (the map is unchanged).
 */
kt_status kt_u64map_put(kt_u64map *map, uint64_t key, uint64_t value,
                        kt_err *err);

/* 1 and *value when key is present, else 0. value may be NULL. */
int kt_u64map_get(const kt_u64map *map, uint64_t key, uint64_t *value);

/* The heap bytes the map holds now, and those it would hold after one more
 * kt_u64map_put (which may grow it), for a caller that keeps a budget. */
size_t kt_u64map_bytes(const kt_u64map *map);
size_t kt_u64map_bytes_after_put(const kt_u64map *map);

#endif
