// SPDX-License-Identifier: Apache-2.0
#include "metrics/ranges.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

kt_range_rule kt_range_rule_of(const char *name)
{
    if (ends_with(name, ".sum"))
        return KT_RANGE_SUM;
    if (ends_with(name, ".max"))
        return KT_RANGE_MAX;
    if (ends_with(name, ".min"))
        return KT_RANGE_MIN;
    return KT_RANGE_TIME_WEIGHTED;
}

static double combine_one(kt_range_rule rule, size_t n, size_t i, size_t ranges,
                          const double *v, const double *w, double w_total)
{
    double acc = rule == KT_RANGE_MAX   ? -INFINITY
                 : rule == KT_RANGE_MIN ? INFINITY
                                        : 0.0;
    for (size_t r = 0; r < ranges; ++r) {
        double x = v[r * n + i];
        if (isnan(x))
            return NAN;
        switch (rule) {
        case KT_RANGE_SUM: acc += x; break;
        case KT_RANGE_MAX: acc = x > acc ? x : acc; break;
        case KT_RANGE_MIN: acc = x < acc ? x : acc; break;
        case KT_RANGE_TIME_WEIGHTED:
            acc += x * (w_total > 0 ? w[r] / w_total : 1.0 / (double)ranges);
            break;
        }
    }
    return acc;
}

void kt_ranges_combine(const char *const *names, size_t n, size_t ranges,
                       const double *per_range, const double *durations,
                       double *out)
{
    double w_total = 0;
    int weights_ok = durations != NULL;

    for (size_t r = 0; weights_ok && r < ranges; ++r) {
        if (!(durations[r] >= 0))
            weights_ok = 0;
        else
            w_total += durations[r];
    }
    if (!weights_ok)
        w_total = 0;
    for (size_t i = 0; i < n; ++i)
        out[i] = combine_one(kt_range_rule_of(names[i]), n, i, ranges,
                             per_range, durations, w_total);
}

/* The median of v[0..count), reordered in place; NaN if any is NaN. */
static double median_of(double *v, size_t count)
{
    for (size_t r = 0; r < count; ++r)
        if (isnan(v[r]))
            return NAN;
    kt_stats_sort(v, count);
    return kt_stats_quantile_sorted(v, count, 0.5);
}

int kt_ranges_median_launches(size_t n, size_t total, size_t launches,
                              size_t skip, const double *per_range,
                              double *kernels, size_t *num_kernels)
{
    size_t block, k_count;
    double *column;

    *num_kernels = 0;
    if (launches == 0 || total % launches != 0)
        return -1;
    block = total / launches;
    if (block <= skip)
        return -1;
    k_count = block - skip;
    if (!(column = malloc(launches * sizeof *column)))
        return -1;
    for (size_t k = 0; k < k_count; ++k)
        for (size_t i = 0; i < n; ++i) {
            for (size_t r = 0; r < launches; ++r)
                column[r] = per_range[(r * block + skip + k) * n + i];
            kernels[k * n + i] = median_of(column, launches);
        }
    free(column);
    *num_kernels = k_count;
    return 0;
}
