// SPDX-License-Identifier: Apache-2.0
/*
 * kt_sizespec: the value of a problem-size key of [job], which may name one
 * size or a sweep of them (docs/configs.md, "Size sweeps"):
 *
 *   n = 2^24                       one size
 *   n = 2^20, 2^24, 2^28           a list
 *   n = 2^20..2^28 step ×4         a geometric range: 2^20, 2^22, ... while
 *                                  <= 2^28 (×, x, X and * all spell times)
 *   n = 1000..5000 step +1000      an arithmetic range (`step 1000` too)
 *   m, n = 1024x1024, 65536x4096   a joint key: a list of tuples, one
 *                                  value per named size (x, X, × or *)
 *
 * Values are written as kt_parse_i64 reads them (decimal, 0x hex, 2^k).
 */
#ifndef KT_SIZESPEC_H
#define KT_SIZESPEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* At most this many sizes in one sweep (after the product of its keys). */
#define KT_SIZESPEC_MAX 1024

/* Parses text for a key naming dims sizes (1 for a plain key). *values
 * receives count * dims integers, tuple after tuple (malloc'd; the caller
 * frees it); *values is NULL on failure. Ranges are for dims == 1 only.
 * KT_S_INPUT with what was expected and found; the caller adds where. */
kt_status kt_sizespec_parse(const char *text, size_t dims, int64_t **values,
                            size_t *count, kt_err *err);

#endif
