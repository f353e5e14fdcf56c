// SPDX-License-Identifier: Apache-2.0
/* Descriptive statistics, order-statistic confidence intervals and the
 * paired-ratio verdict the tuner decides with. */
#include "tests/kt_test.h"

#include <math.h>

#include "core/stats.h"

static void statistics_of_a_known_sample(void **state)
{
    const double x[] = {5, 1, 4, 2, 3, 100};
    kt_stats s;
    (void)state;
    kt_stats_compute(x, 6, &s);
    assert_int_equal(s.n, 6);
    assert_float_equal(s.min, 1, 1e-12);
    assert_float_equal(s.max, 100, 1e-12);
    assert_float_equal(s.median, 3.5, 1e-12);
    assert_float_equal(s.mean, 115.0 / 6, 1e-12);
    /* Type 7 quantiles of 1 2 3 4 5 100: q1 at h = 1.25, q3 at h = 3.75. */
    assert_float_equal(s.q1, 2.25, 1e-12);
    assert_float_equal(s.q3, 4.75, 1e-12);
    assert_float_equal(s.rel_spread, 2.5 / 3.5, 1e-12);
    /* The outlier moves the mean and stddev, not the robust noise:
     * MAD of |x - 3.5| = {2.5,1.5,0.5,0.5,1.5,96.5} is 1.5. */
    assert_float_equal(s.noise, 1.4826 * 1.5 / 3.5, 1e-9);
    assert_true(s.rel_stddev > 1.0);
}

static void empty_and_single_samples_are_safe(void **state)
{
    const double one = 7.0;
    kt_stats s;
    (void)state;
    kt_stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    kt_stats_compute(&one, 1, &s);
    assert_float_equal(s.median, 7, 0);
    assert_float_equal(s.stddev, 0, 0);
    assert_float_equal(s.ci_lo, 7, 0);
    assert_float_equal(s.ci_hi, 7, 0);
}

static void median_ci_ranks_match_the_binomial_table(void **state)
{
    size_t lo, hi;
    (void)state;
    /* Classic table values (95%): n = 10 -> x(2)..x(9), 1-based. */
    kt_stats_median_ci_ranks(10, 0.95, &lo, &hi);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 8);
    /* n = 20 -> x(6)..x(15). */
    kt_stats_median_ci_ranks(20, 0.95, &lo, &hi);
    assert_int_equal(lo, 5);
    assert_int_equal(hi, 14);
    /* Too few samples for 95%: the whole range. */
    kt_stats_median_ci_ranks(5, 0.95, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 4);
    /* Large n stays symmetric and near n/2 -/+ 0.98 sqrt(n). */
    kt_stats_median_ci_ranks(10000, 0.95, &lo, &hi);
    assert_true(lo >= 4900 && lo <= 4903);
    assert_int_equal(lo + hi, 9999);
}

static void paired_ratio_cancels_common_drift(void **state)
{
    /* Both drift upward round by round; b is always 10% faster in its own
     * round. The unpaired medians overlap, the paired ratio does not. */
    double a[40], b[40];
    kt_ratio r;
    (void)state;
    for (int i = 0; i < 40; ++i) {
        a[i] = 100.0 * (1.0 + 0.02 * i) * (1.0 + 0.001 * ((i * 7) % 5));
        b[i] = 0.9 * a[i] * (1.0 + 0.001 * ((i * 3) % 4));
    }
    kt_stats_paired_ratio(a, b, 40, &r);
    assert_int_equal(r.n, 40);
    assert_true(r.ratio > 0.899 && r.ratio < 0.905);
    assert_true(r.hi < 1.0);
    assert_int_equal(kt_stats_verdict(&r, 0.01), -1);
    kt_stats_paired_ratio(b, a, 40, &r);
    assert_int_equal(kt_stats_verdict(&r, 0.01), 1);
}

static void equal_configurations_are_a_tie(void **state)
{
    double a[30], b[30];
    kt_ratio r;
    (void)state;
    for (int i = 0; i < 30; ++i) {
        a[i] = 50.0 + ((i * 13) % 7) * 0.1;
        b[i] = 50.0 + ((i * 5) % 7) * 0.1;
    }
    kt_stats_paired_ratio(a, b, 30, &r);
    assert_true(r.lo <= 1.0 && r.hi >= 1.0);
    assert_int_equal(kt_stats_verdict(&r, 0.005), 0);
}

static void a_gain_below_the_threshold_is_not_adopted(void **state)
{
    double a[50], b[50];
    kt_ratio r;
    (void)state;
    for (int i = 0; i < 50; ++i) {
        a[i] = 100.0;
        b[i] = 99.7; /* 0.3% faster, consistently */
    }
    kt_stats_paired_ratio(a, b, 50, &r);
    assert_true(r.hi < 1.0);
    assert_int_equal(kt_stats_verdict(&r, 0.01), 0);
    assert_int_equal(kt_stats_verdict(&r, 0.001), -1);
}

static void nan_samples_are_dropped_from_pairs(void **state)
{
    double a[4] = {10, 10, NAN, 10}, b[4] = {5, NAN, 5, 5};
    kt_ratio r;
    (void)state;
    kt_stats_paired_ratio(a, b, 4, &r);
    assert_int_equal(r.n, 2);
    assert_float_equal(r.ratio, 0.5, 1e-12);
}

/* Two independent runs: a 10% shift between noisy samples is found with
 * an interval around it; the same distribution twice is a tie; a side
 * with nothing usable gives no ratio; more than KT_STATS_UNPAIRED_MAX
 * samples are thinned, not refused. */
static void unpaired_ratio_finds_a_shift_between_runs(void **state)
{
    static double a[3000], b[3000];
    kt_ratio r;
    (void)state;
    for (int i = 0; i < 3000; ++i) {
        a[i] = 100.0 * (1.0 + 0.01 * ((i * 37) % 101) / 100.0);
        b[i] = 1.1 * 100.0 * (1.0 + 0.01 * ((i * 53) % 97) / 97.0);
    }
    kt_stats_unpaired_ratio(a, 200, b, 300, &r);
    assert_int_equal(r.n, 200);
    assert_true(r.lo < r.ratio && r.ratio < r.hi);
    assert_true(r.ratio > 1.095 && r.ratio < 1.105);
    assert_true(r.lo > 1.09 && r.hi < 1.11);
    assert_int_equal(kt_stats_verdict(&r, 0.02), 1);
    assert_int_equal(kt_stats_verdict(&r, 0.2), 0);
    kt_stats_unpaired_ratio(b, 300, a, 200, &r);
    assert_int_equal(kt_stats_verdict(&r, 0.02), -1);
    /* The same samples: the interval holds 1. */
    kt_stats_unpaired_ratio(a, 200, a, 200, &r);
    assert_true(r.lo < 1.0 && r.hi > 1.0);
    assert_int_equal(kt_stats_verdict(&r, 0.0), 0);
    /* Thinned to KT_STATS_UNPAIRED_MAX each, same answer. */
    kt_stats_unpaired_ratio(a, 3000, b, 3000, &r);
    assert_int_equal(r.n, KT_STATS_UNPAIRED_MAX);
    assert_true(r.ratio > 1.095 && r.ratio < 1.105);
    /* Nothing finite > 0 on one side. */
    a[0] = NAN;
    a[1] = -1;
    kt_stats_unpaired_ratio(a, 2, b, 10, &r);
    assert_int_equal(r.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_of_a_known_sample),
        cmocka_unit_test(empty_and_single_samples_are_safe),
        cmocka_unit_test(median_ci_ranks_match_the_binomial_table),
        cmocka_unit_test(paired_ratio_cancels_common_drift),
        cmocka_unit_test(equal_configurations_are_a_tie),
        cmocka_unit_test(a_gain_below_the_threshold_is_not_adopted),
        cmocka_unit_test(nan_samples_are_dropped_from_pairs),
        cmocka_unit_test(unpaired_ratio_finds_a_shift_between_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
