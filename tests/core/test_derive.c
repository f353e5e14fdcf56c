// SPDX-License-Identifier: Apache-2.0
/* Effective bandwidth and its ratios: GB are 1e9 bytes, the algorithm's
 * bytes (not DRAM traffic), and the ceiling is the measured copy. */
#include "tests/kt_test.h"

#include "core/derive.h"

static void vector_add_figures_from_the_brief(void **state)
{
    /* c = a + b, n = 2^24 floats: 12 bytes per element in 66 us. */
    kt_work w = {sizeof w, 0, 8.0 * (1 << 24), 4.0 * (1 << 24), 1 << 24};
    kt_derived d;
    (void)state;
    kt_derive(&w, 66.0, 4185.0, 4814.0, &d);
    assert_float_equal(d.bandwidth_gbs, 12.0 * 16777216 / 66e-6 / 1e9, 1e-9);
    assert_true(d.bandwidth_gbs > 3050 && d.bandwidth_gbs < 3051);
    assert_float_equal(d.pct_of_copy, 100.0 * d.bandwidth_gbs / 4185.0, 1e-9);
    assert_float_equal(d.pct_of_peak, 100.0 * d.bandwidth_gbs / 4814.0, 1e-9);
    assert_float_equal(d.intensity, 1.0 / 12.0, 1e-12);
    assert_float_equal(d.gflops, 16777216 / 66e-6 / 1e9, 1e-9);
}

static void gigabytes_are_not_gibibytes(void **state)
{
    /* 1 GiB moved in one second is 1.0737 GB/s, not 1: a 7.4% trap (4.9%
     * for MiB vs MB). */
    kt_work w = {sizeof w, 0, 1073741824.0, 0, 0};
    kt_derived d;
    (void)state;
    kt_derive(&w, 1e6, 0, 0, &d);
    assert_float_equal(d.bandwidth_gbs, 1.073741824, 1e-12);
    assert_float_equal(d.pct_of_copy, 0, 0);
}

static void zero_or_negative_time_gives_nothing(void **state)
{
    kt_work w = {sizeof w, 0, 100, 100, 10};
    kt_derived d;
    (void)state;
    kt_derive(&w, 0, 1000, 1000, &d);
    assert_float_equal(d.bandwidth_gbs, 0, 0);
    kt_derive(&w, -1, 1000, 1000, &d);
    assert_float_equal(d.bandwidth_gbs, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_add_figures_from_the_brief),
        cmocka_unit_test(gigabytes_are_not_gibibytes),
        cmocka_unit_test(zero_or_negative_time_gives_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
