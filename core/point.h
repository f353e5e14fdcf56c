// SPDX-License-Identifier: Apache-2.0
/*
 * kt_point: one configuration of an operator: a variant and a value for
 * each of its parameters. Fixed-size and comparable with memcmp-free
 * equality, so strategies, journals and workers can pass points by value.
 */
#ifndef KT_POINT_H
#define KT_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/param.h"
#include "ktune/plugin.h"

typedef struct kt_point {
    uint32_t variant; /* index into op->variants */
    uint32_t count;   /* == variants[variant].num_params */
    int64_t values[KT_MAX_PARAMS];
} kt_point;

/* A kt_config view of a point, with storage for the names array. */
typedef struct kt_bound_config {
    kt_config config;
    const char *names[KT_MAX_PARAMS];
} kt_bound_config;

/* The variant's defaults. */
void kt_point_default(const kt_operator *op, uint32_t variant, kt_point *pt);

/* Builds the config the plugin callbacks receive. bc must outlive its use. */
const kt_config *kt_point_bind(const kt_operator *op, const kt_point *pt,
                               kt_bound_config *bc);

int kt_point_equal(const kt_point *a, const kt_point *b);

/* Sets parameter `name` to the value `text`; KT_S_INPUT names what is
 * allowed, or which parameters the variant has. */
kt_status kt_point_set(const kt_operator *op, kt_point *pt, const char *name,
                       const char *text, kt_err *err);

/* "coalesced block=256" — the variant id, then name=value pairs. */
void kt_point_format(const kt_operator *op, const kt_point *pt, char *out,
                     size_t out_size);

/* Every value valid for the declared sets (checks a point read from a file
 * against the plugin loaded now). */
kt_status kt_point_validate(const kt_operator *op, const kt_point *pt,
                            kt_err *err);

#endif
