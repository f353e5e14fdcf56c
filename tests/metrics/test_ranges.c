// SPDX-License-Identifier: Apache-2.0
/* Several kernels' counters combined into one value per counter, as the
 * CUPTI source does for a launch of several kernels (gemv:atx
 * col_split_2pass: the split kernel then the partial sums). */
#include "tests/kt_test.h"

#include <math.h>

#include "metrics/ranges.h"

static void rules_follow_the_suffix(void **state)
{
    (void)state;
    assert_int_equal(kt_range_rule_of("l1tex__t_requests_pipe_lsu_mem_global_"
                                      "op_ld.sum"),
                     KT_RANGE_SUM);
    assert_int_equal(kt_range_rule_of("smsp__cycles_active.max"), KT_RANGE_MAX);
    assert_int_equal(kt_range_rule_of("smsp__cycles_active.min"), KT_RANGE_MIN);
    assert_int_equal(
        kt_range_rule_of("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        KT_RANGE_TIME_WEIGHTED);
    assert_int_equal(kt_range_rule_of("dram__bytes_read.sum.per_second"),
                     KT_RANGE_TIME_WEIGHTED);
}

static void counts_add_and_percentages_weigh_by_duration(void **state)
{
    const char *names[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                           "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                           "gpu__time_duration.sum", "x.max"};
    /* A 300 us kernel at 90% of DRAM peak, then a 100 us one at 10%. */
    const double per_range[] = {1000, 90, 300e3, 5, 24, 10, 100e3, 7};
    const double durations[] = {300e3, 100e3};
    double out[4];
    (void)state;

    kt_ranges_combine(names, 4, 2, per_range, durations, out);
    assert_float_equal(out[0], 1024, 0);
    assert_float_equal(out[1], (90 * 3 + 10 * 1) / 4.0, 1e-12);
    assert_float_equal(out[2], 400e3, 0);
    assert_float_equal(out[3], 7, 0);
}

static void one_range_is_its_own_value(void **state)
{
    const char *names[] = {"a.sum", "b.pct"};
    const double per_range[] = {3, 42.5};
    const double durations[] = {0};
    double out[2];
    (void)state;

    kt_ranges_combine(names, 2, 1, per_range, durations, out);
    assert_float_equal(out[0], 3, 0);
    assert_float_equal(out[1], 42.5, 0);
}

static void a_missing_value_stays_missing(void **state)
{
    const char *names[] = {"a.sum", "b.pct"};
    const double per_range[] = {3, NAN, 4, 50};
    const double durations[] = {NAN, 1};
    double out[2];
    (void)state;

    /* Unusable weights: the plain mean. */
    kt_ranges_combine(names, 2, 2, per_range, durations, out);
    assert_float_equal(out[0], 7, 0);
    assert_true(isnan(out[1]));
}

/* Three launches of a two-kernel point in one pass, each after a flush
 * range: [flush, k0, k1] x 3, two counters (duration, DRAM %). The
 * second launch ran long; each kernel's medians drop it. */
static void repeated_launches_give_each_kernel_its_median(void **state)
{
    const double per_range[] = {
        9, 9, 200, 85, 20, 30, /* launch 1: flush, k0, k1 */
        9, 9, 210, 80, 21, 29, /* launch 2: slow */
        9, 9, 201, 86, 19, 31, /* launch 3 */
    };
    double kernels[4];
    size_t k = 0;
    (void)state;

    assert_int_equal(
        kt_ranges_median_launches(2, 9, 3, 1, per_range, kernels, &k), 0);
    assert_int_equal(k, 2);
    assert_float_equal(kernels[0], 201, 0);
    assert_float_equal(kernels[1], 85, 0);
    assert_float_equal(kernels[2], 20, 0);
    assert_float_equal(kernels[3], 30, 0);
    /* Two launches: the mean of the two. */
    assert_int_equal(
        kt_ranges_median_launches(2, 6, 2, 1, per_range, kernels, &k), 0);
    assert_float_equal(kernels[0], 205, 0);
    assert_float_equal(kernels[1], 82.5, 0);
    /* One launch: its own values. */
    assert_int_equal(
        kt_ranges_median_launches(2, 3, 1, 1, per_range, kernels, &k), 0);
    assert_float_equal(kernels[2], 20, 0);
}

static void ranges_that_are_not_whole_launches_are_refused(void **state)
{
    const double per_range[8] = {0};
    double kernels[8];
    size_t k = 7;
    (void)state;

    assert_int_equal(
        kt_ranges_median_launches(1, 8, 3, 1, per_range, kernels, &k), -1);
    assert_int_equal(k, 0);
    /* Only flush ranges: no kernel ran. */
    assert_int_equal(
        kt_ranges_median_launches(1, 2, 2, 1, per_range, kernels, &k), -1);
    assert_int_equal(
        kt_ranges_median_launches(1, 2, 0, 1, per_range, kernels, &k), -1);
}

static void a_missing_value_in_one_launch_stays_missing(void **state)
{
    const double per_range[] = {1, NAN, 3};
    double kernels[1];
    size_t k;
    (void)state;

    assert_int_equal(
        kt_ranges_median_launches(1, 3, 3, 0, per_range, kernels, &k), 0);
    assert_true(isnan(kernels[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_follow_the_suffix),
        cmocka_unit_test(counts_add_and_percentages_weigh_by_duration),
        cmocka_unit_test(one_range_is_its_own_value),
        cmocka_unit_test(a_missing_value_stays_missing),
        cmocka_unit_test(repeated_launches_give_each_kernel_its_median),
        cmocka_unit_test(ranges_that_are_not_whole_launches_are_refused),
        cmocka_unit_test(a_missing_value_in_one_launch_stays_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
