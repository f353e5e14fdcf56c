// SPDX-License-Identifier: Apache-2.0
#include "core/u64map.h"

#include <stdlib.h>

/* splitmix64's finaliser: consecutive indices land far apart. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void kt_u64map_init(kt_u64map *map)
{
    map->keys = map->values = NULL;
    map->used = NULL;
    map->capacity = map->count = 0;
}

void kt_u64map_free(kt_u64map *map)
{
    free(map->keys);
    free(map->values);
    free(map->used);
    kt_u64map_init(map);
}

static size_t slot_of(const kt_u64map *map, uint64_t key)
{
    size_t mask = map->capacity - 1, i = (size_t)mix(key) & mask;
    while (map->used[i] && map->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

/* A slot's bytes: its key, its value and its used flag. */
#define SLOT_BYTES (2 * sizeof(uint64_t) + 1)

/* The capacity a put needs: the load stays under one half so probes stay
 * short. */
static size_t capacity_for_put(const kt_u64map *map)
{
    if (2 * (map->count + 1) <= map->capacity)
        return map->capacity;
    return map->capacity ? 2 * map->capacity : 64;
}

size_t kt_u64map_bytes(const kt_u64map *map)
{
    return map->capacity * SLOT_BYTES;
}

size_t kt_u64map_bytes_after_put(const kt_u64map *map)
{
    return capacity_for_put(map) * SLOT_BYTES;
}

static kt_status grow(kt_u64map *map, kt_err *err)
{
    kt_u64map bigger;
    size_t capacity = capacity_for_put(map);

    bigger.keys = malloc(capacity * sizeof *bigger.keys);
    bigger.values = malloc(capacity * sizeof *bigger.values);
    bigger.used = calloc(capacity, 1);
    bigger.capacity = capacity;
    bigger.count = map->count;
    if (!bigger.keys || !bigger.values || !bigger.used) {
        free(bigger.keys);
        free(bigger.values);
        free(bigger.used);
        return kt_err_set(err, KT_S_NOMEM, "out of memory (a hash map)");
    }
    for (size_t i = 0; i < map->capacity; ++i) {
        if (map->used[i]) {
            size_t j = slot_of(&bigger, map->keys[i]);
            bigger.used[j] = 1;
            bigger.keys[j] = map->keys[i];
            bigger.values[j] = map->values[i];
        }
    }
    free(map->keys);
    free(map->values);
    free(map->used);
    *map = bigger;
    return KT_S_OK;
}

kt_status kt_u64map_put(kt_u64map *map, uint64_t key, uint64_t value,
                        kt_err *err)
{
    size_t i;
    kt_status rc;

    if (capacity_for_put(map) != map->capacity && (rc = grow(map, err)))
        return rc;
    i = slot_of(map, key);
    if (!map->used[i]) {
        map->used[i] = 1;
        map->keys[i] = key;
        ++map->count;
    }
    map->values[i] = value;
    return KT_S_OK;
}

int kt_u64map_get(const kt_u64map *map, uint64_t key, uint64_t *value)
{
    size_t i;
    if (!map->capacity)
        return 0;
    i = slot_of(map, key);
    if (!map->used[i])
        return 0;
    if (value)
        *value = map->values[i];
    return 1;
}
