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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_follow_the_suffix),
        cmocka_unit_test(counts_add_and_percentages_weigh_by_duration),
        cmocka_unit_test(one_range_is_its_own_value),
        cmocka_unit_test(a_missing_value_stays_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
