// SPDX-License-Identifier: Apache-2.0
/*
 * One value per counter from several profiled ranges. The CUPTI source
 * profiles each kernel of a launch as a range of its own (as Nsight
 * Compute does); an operator whose launch enqueues several kernels gets
 * one figure per counter for the whole launch: counts (".sum") add up,
 * ".max" and ".min" keep the extreme, and every other form — percentages,
 * ratios, rates, averages — is the mean over the ranges weighted by each
 * range's duration, i.e. the figure over the launch's kernel time. For one
 * range every value is the range's own. A point launched several times
 * in one pass (to take a median) gets each kernel's median first.
 */
#ifndef KT_METRICS_RANGES_H
#define KT_METRICS_RANGES_H

#include <stddef.h>

typedef enum kt_range_rule {
    KT_RANGE_SUM = 0,
    KT_RANGE_MAX,
    KT_RANGE_MIN,
    KT_RANGE_TIME_WEIGHTED
} kt_range_rule;

/* How values of counter `name` from several ranges combine. */
kt_range_rule kt_range_rule_of(const char *name);

/* out[i] from per_range[r * n + i] for r in [0, ranges), with durations[r]
 * the weights (any unit; when they are all zero or NaN the mean is plain).
 * A NaN value in a range makes that counter NaN. ranges >= 1. */
void kt_ranges_combine(const char *const *names, size_t n, size_t ranges,
                       const double *per_range, const double *durations,
                       double *out);

/* Repeated launches in one pass: the counter data holds `launches`
 * blocks of `block` ranges each, the first `skip` of every block not the
 * point's (a flush), the rest its kernels. kernels[k * n + i] becomes the
 * median over the launches of counter i of kernel k (block - skip
 * kernels; an even count takes the mean of the middle two). A NaN in any
 * launch makes that value NaN. Returns 0, or -1 when the ranges are not
 * launches x block or no kernel is left. */
int kt_ranges_median_launches(size_t n, size_t total, size_t launches,
                              size_t skip, const double *per_range,
                              double *kernels, size_t *num_kernels);

#endif
