// SPDX-License-Identifier: Apache-2.0
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Arrays this short are sorted by insertion. */
#define KT_STATS_SHORT 64

void kt_stats_sort(double *x, size_t n)
{
    size_t k = 0;

    /* A short array without NaN (a recording's 32 runs, sorted twice per
     * point: 10% of a 1e5-point replay's CPU went to qsort's calls of the
     * comparator) by insertion, stable as glibc's merge sort is, so the
     * same order; qsort otherwise, NaN's place being the sort's. */
    while (n <= KT_STATS_SHORT && k < n && !isnan(x[k]))
        ++k;
    if (n > KT_STATS_SHORT || k < n) {
        qsort(x, n, sizeof *x, compare_doubles);
        return;
    }
    for (size_t i = 1; i < n; ++i) {
        double v = x[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > v; --j)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

double kt_stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    double h = p * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* log of the binomial(n, 1/2) probability mass at k. */
static double log_binom_half(size_t n, size_t k)
{
    return lgamma((double)n + 1) - lgamma((double)k + 1) -
           lgamma((double)(n - k) + 1) - (double)n * log(2.0);
}

void kt_stats_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi)
{
    /* B ~ Binomial(n, 1/2) counts the samples below the median. The 0-based
     * order statistics [x_j, x_(n-1-j)] miss the median when B <= j (or,
     * symmetrically, n - B <= j): coverage 1 - 2 P(B <= j). The narrowest
     * interval reaching the level takes the largest j with P(B <= j) <=
     * alpha; the full range when n is too small to reach it at all. */
    double tail = 0.0, alpha = (1.0 - level) / 2.0;
    size_t j = 0;

    *lo = 0;
    *hi = n ? n - 1 : 0;
    if (n == 0)
        return;
    for (size_t k = 0; k < n / 2; ++k) {
        tail += exp(log_binom_half(n, k));
        if (tail > alpha)
            break;
        j = k;
    }
    *lo = j;
    *hi = n - 1 - j;
}

void kt_stats_compute(const double *x, size_t n, kt_stats *out)
{
    double *s, *dev, sum = 0.0, sq = 0.0;
    size_t lo, hi;

    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    s = malloc(2 * n * sizeof *s);
    if (!s)
        return;
    dev = s + n;
    memcpy(s, x, n * sizeof *s);
    kt_stats_sort(s, n);
    for (size_t i = 0; i < n; ++i)
        sum += s[i];
    out->n = n;
    out->mean = sum / (double)n;
    for (size_t i = 0; i < n; ++i)
        sq += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = kt_stats_quantile_sorted(s, n, 0.5);
    out->q1 = kt_stats_quantile_sorted(s, n, 0.25);
    out->q3 = kt_stats_quantile_sorted(s, n, 0.75);
    out->rel_spread = out->median > 0 ? (out->q3 - out->q1) / out->median : 0;
    out->rel_stddev = out->mean > 0 ? out->stddev / out->mean : 0;
    for (size_t i = 0; i < n; ++i)
        dev[i] = fabs(s[i] - out->median);
    kt_stats_sort(dev, n);
    out->noise =
        out->median > 0
            ? 1.4826 * kt_stats_quantile_sorted(dev, n, 0.5) / out->median
            : 0;
    kt_stats_median_ci_ranks(n, 0.95, &lo, &hi);
    out->ci_lo = s[lo];
    out->ci_hi = s[hi];
    free(s);
}

void kt_stats_paired_ratio(const double *a, const double *b, size_t n,
                           kt_ratio *out)
{
    double *r;
    size_t lo, hi, m = 0;

    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    r = malloc(n * sizeof *r);
    if (!r)
        return;
    for (size_t i = 0; i < n; ++i)
        if (a[i] > 0 && isfinite(b[i]))
            r[m++] = b[i] / a[i];
    if (m == 0) {
        free(r);
        return;
    }
    kt_stats_sort(r, m);
    kt_stats_median_ci_ranks(m, 0.95, &lo, &hi);
    out->n = m;
    out->ratio = kt_stats_quantile_sorted(r, m, 0.5);
    out->lo = r[lo];
    out->hi = r[hi];
    free(r);
}

int kt_stats_verdict(const kt_ratio *r, double min_gain)
{
    if (r->n == 0)
        return 0;
    if (r->hi < 1.0 && r->ratio < 1.0 - min_gain)
        return -1;
    if (r->lo > 1.0 && r->ratio > 1.0 + min_gain)
        return 1;
    return 0;
}

/* x[0..n) with its finite samples > 0, sorted, thinned to at most `cap`
 * evenly spaced order statistics. NULL when none (or out of memory). */
static double *thinned_sorted(const double *x, size_t n, size_t cap,
                              size_t *out_n)
{
    double *s = malloc((n ? n : 1) * sizeof *s), *t;
    size_t m = 0;

    *out_n = 0;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; ++i)
        if (x[i] > 0 && isfinite(x[i]))
            s[m++] = x[i];
    if (m == 0) {
        free(s);
        return NULL;
    }
    kt_stats_sort(s, m);
    if (m > cap) {
        if (!(t = malloc(cap * sizeof *t))) {
            free(s);
            return NULL;
        }
        for (size_t i = 0; i < cap; ++i)
            t[i] = s[(size_t)((double)i * (double)(m - 1) / (double)(cap - 1))];
        free(s);
        s = t;
        m = cap;
    }
    *out_n = m;
    return s;
}

void kt_stats_unpaired_ratio(const double *a, size_t n, const double *b,
                             size_t m, kt_ratio *out)
{
    size_t na, nb, total, k;
    double *sa = NULL, *sb = NULL, *d = NULL, half;

    memset(out, 0, sizeof *out);
    sa = thinned_sorted(a, n, KT_STATS_UNPAIRED_MAX, &na);
    sb = thinned_sorted(b, m, KT_STATS_UNPAIRED_MAX, &nb);
    if (!sa || !sb)
        goto done;
    total = na * nb;
    if (!(d = malloc(total * sizeof *d)))
        goto done;
    for (size_t j = 0; j < nb; ++j)
        for (size_t i = 0; i < na; ++i)
            d[j * na + i] = log(sb[j]) - log(sa[i]);
    kt_stats_sort(d, total);
    /* Mann-Whitney: the interval's ends are the k-th smallest and largest
     * differences, k from U's normal approximation at 95%. */
    half =
        1.959964 * sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12.0);
    k = (double)total / 2.0 - half > 0
            ? (size_t)floor((double)total / 2.0 - half)
            : 0;
    out->n = na < nb ? na : nb;
    out->ratio = exp(kt_stats_quantile_sorted(d, total, 0.5));
    out->lo = exp(d[k]);
    out->hi = exp(d[total - 1 - k]);
done:
    free(sa);
    free(sb);
    free(d);
}
