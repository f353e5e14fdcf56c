// SPDX-License-Identifier: Apache-2.0
/*
 * kt_stats: descriptive statistics of timing samples, and the comparisons
 * the tuner decides with.
 *
 * Quantiles use linear interpolation between order statistics (Hyndman-Fan
 * type 7, what R and NumPy call "linear"). Confidence intervals of medians
 * are distribution-free: they come from order statistics and the binomial
 * distribution, not from a normality assumption timings do not satisfy.
 */
#ifndef KT_STATS_H
#define KT_STATS_H

#include <stddef.h>

typedef struct kt_stats {
    size_t n;
    double min, max, mean, stddev; /* stddev: sample (n - 1) */
    double median, q1, q3;
    double rel_spread;   /* (q3 - q1) / median */
    double rel_stddev;   /* stddev / mean */
    double noise;        /* robust relative noise: 1.4826 * MAD / median */
    double ci_lo, ci_hi; /* 95% confidence interval of the median */
} kt_stats;

/* Fills out from x[0..n); x is not modified. n == 0 gives all zeros. */
void kt_stats_compute(const double *x, size_t n, kt_stats *out);

/* Sorts x[0..n) ascending, in place (no NaN in x). */
void kt_stats_sort(double *x, size_t n);

/* Quantile p in [0, 1] of sorted[0..n), n > 0. */
double kt_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* 0-based ranks [lo, hi] of the order statistics that bound a `level`
 * (e.g. 0.95) confidence interval of the median of n samples. For n too
 * small to reach the level, the full range [0, n - 1]. */
void kt_stats_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi);

/* Ratio of two configurations measured in interleaved rounds: b[i] and a[i]
 * come from the same round, so drift between rounds cancels in b[i] / a[i].
 * ratio is the median of the per-round ratios, [lo, hi] its 95% interval.
 * ratio < 1 means b is faster. */
typedef struct kt_ratio {
    size_t n;
    double ratio, lo, hi;
} kt_ratio;

void kt_stats_paired_ratio(const double *a, const double *b, size_t n,
                           kt_ratio *out);

/* Ratio of two configurations measured independently (in other runs or
 * sessions, so nothing pairs their samples): the Hodges-Lehmann estimate,
 * the median of every b[j] / a[i], with its distribution-free 95%
 * interval from the Mann-Whitney statistic (order statistics of those
 * ratios; normal approximation of U). Samples that are not finite and > 0
 * are left out; a side with more than KT_STATS_UNPAIRED_MAX samples is
 * thinned to that many evenly spaced order statistics (the interval then
 * widens a little: conservative). out->n: the smaller side's count; 0 when
 * a side has no sample (or memory ran out). */
#define KT_STATS_UNPAIRED_MAX 1000
void kt_stats_unpaired_ratio(const double *a, size_t n, const double *b,
                             size_t m, kt_ratio *out);

/* Verdict on a ratio (paired or unpaired): -1 when b is faster than a by more
 * than `min_gain` (relative, e.g. 0.01) with 95% confidence, +1 when slower by
 * that much, 0 when the two are a statistical tie. */
int kt_stats_verdict(const kt_ratio *r, double min_gain);

#endif
