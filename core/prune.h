// SPDX-License-Identifier: Apache-2.0
/*
 * kt_prune: the points of a Cartesian product that satisfy a conjunction
 * of constraints, found without visiting the product. Each constraint is a
 * kt_expr over fixed values (a problem's sizes) followed by the
 * dimensions; it is evaluated as soon as the dimensions it reads are
 * assigned, so a partial assignment that breaks it is dropped with
 * everything below it, and dimensions no constraint reads multiply the
 * count instead of being enumerated. A constraint that is false, or whose
 * evaluation fails (division by zero, overflow), excludes the point.
 */
#ifndef KT_PRUNE_H
#define KT_PRUNE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/expr.h"

typedef struct kt_prune_dim {
    const int64_t *values;
    size_t count;
} kt_prune_dim;

/* Called with each satisfying point's values (one per dimension, in
 * dimension order): KT_S_OK counts it, KT_S_INVALID does not, anything
 * else stops the walk with that status. */
typedef kt_status (*kt_prune_visit)(void *ctx, const int64_t *values,
                                    kt_err *err);

typedef struct kt_prune_spec {
    const kt_prune_dim *dims;
    size_t num_dims;
    const int64_t *fixed; /* names 0..num_fixed-1 of the constraints */
    size_t num_fixed;
    kt_expr *const *constraints; /* names: fixed, then the dimensions */
    size_t num_constraints;
    kt_prune_visit visit; /* NULL: count only */
    void *ctx;
} kt_prune_spec;

/* *count = the satisfying points (those visit accepted, with visit). At
 * most 64 names (num_fixed + num_dims). */
kt_status kt_prune_count(const kt_prune_spec *spec, uint64_t *count,
                         kt_err *err);

/* Random points an estimate draws (fixed seed: the same estimate each
 * time). */
#define KT_PRUNE_SAMPLES (UINT64_C(1) << 18)

/* The same count (no visit) within a budget of values tried: exact when
 * the walk tries at most budget values, else estimated (*estimated = 1)
 * from KT_PRUNE_SAMPLES random points of the constrained dimensions, so a
 * space of 2^48 points takes seconds either way. budget 0: always
 * exact. */
kt_status kt_prune_count_within(const kt_prune_spec *spec, uint64_t budget,
                                uint64_t *count, int *estimated, kt_err *err);

#endif
