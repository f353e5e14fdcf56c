// SPDX-License-Identifier: Apache-2.0
#include "core/hash.h"

#include <stdio.h>

#define FNV1A_PRIME UINT64_C(0x100000001b3)

uint64_t kt_hash_fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ p[i]) * FNV1A_PRIME;
    return h;
}

uint64_t kt_hash_fnv1a_str(uint64_t h, const char *s)
{
    for (; s && *s; ++s)
        h = (h ^ (unsigned char)*s) * FNV1A_PRIME;
    return h;
}

void kt_hash_hex128(const void *data, size_t size, char out[33])
{
    snprintf(out, 33, "%016llx%016llx",
             (unsigned long long)kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, data, size),
             (unsigned long long)kt_hash_fnv1a(KT_HASH_FNV1A_SECOND_BASIS, data,
                                               size));
}
