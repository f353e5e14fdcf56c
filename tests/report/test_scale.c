// SPDX-License-Identifier: Apache-2.0
/* The plotting maths: linear and log mappings, nice domains, ticks (1-2-5
 * steps, decades, powers of two) and the compact labels on them. */
#include "tests/kt_test.h"

#include <math.h>

#include "report/scale.h"

static void linear_scale_maps_ends_and_extrapolates(void **state)
{
    kt_scale s = {KT_SCALE_LINEAR, 10, 20, 100, 300};
    (void)state;
    assert_float_equal(kt_scale_map(&s, 10), 100, 1e-12);
    assert_float_equal(kt_scale_map(&s, 20), 300, 1e-12);
    assert_float_equal(kt_scale_map(&s, 15), 200, 1e-12);
    assert_float_equal(kt_scale_map(&s, 25), 400, 1e-12);
    assert_true(isnan(kt_scale_map(&s, NAN)));
    assert_true(isnan(kt_scale_map(&s, INFINITY)));
}

static void y_scale_maps_upwards(void **state)
{
    /* Pixels grow downwards: the domain's top maps to the smaller y. */
    kt_scale s = {KT_SCALE_LINEAR, 0, 1, 280, 20};
    (void)state;
    assert_float_equal(kt_scale_map(&s, 0), 280, 1e-12);
    assert_float_equal(kt_scale_map(&s, 1), 20, 1e-12);
    assert_float_equal(kt_scale_map(&s, 0.25), 215, 1e-12);
}

static void log_scale_spaces_decades_evenly(void **state)
{
    kt_scale s = {KT_SCALE_LOG, 1, 1000, 0, 300};
    (void)state;
    assert_float_equal(kt_scale_map(&s, 10), 100, 1e-9);
    assert_float_equal(kt_scale_map(&s, 100), 200, 1e-9);
    assert_float_equal(kt_scale_map(&s, sqrt(10)), 50, 1e-9);
    /* log2 and log10 axes are the same mapping. */
    kt_scale b = {KT_SCALE_LOG, 32, 1024, 0, 500};
    assert_float_equal(kt_scale_map(&b, 256), 300, 1e-9);
    assert_true(isnan(kt_scale_map(&s, 0)));
    assert_true(isnan(kt_scale_map(&s, -5)));
}

static void contains_allows_rounding_at_the_ends(void **state)
{
    kt_scale s = {KT_SCALE_LINEAR, 0, 0.3, 0, 1};
    kt_scale l = {KT_SCALE_LOG, 1e-3, 1e3, 0, 1};
    (void)state;
    assert_true(kt_scale_contains(&s, 0.1 + 0.2)); /* 0.30000000000000004 */
    assert_false(kt_scale_contains(&s, 0.31));
    assert_false(kt_scale_contains(&s, -0.01));
    assert_true(kt_scale_contains(&l, 1e3 * (1 + 1e-12)));
    assert_false(kt_scale_contains(&l, 0));
    assert_false(kt_scale_contains(&l, NAN));
}

static void nice_steps_are_one_two_five(void **state)
{
    (void)state;
    assert_float_equal(kt_scale_nice_step(10, 5), 2, 1e-12);
    assert_float_equal(kt_scale_nice_step(1, 5), 0.2, 1e-12);
    assert_float_equal(kt_scale_nice_step(100, 10), 10, 1e-12);
    assert_float_equal(kt_scale_nice_step(7, 2), 5, 1e-12);
    assert_float_equal(kt_scale_nice_step(8000, 6), 1000, 1e-9);
    assert_float_equal(kt_scale_nice_step(0.03, 6), 0.005, 1e-15);
    assert_float_equal(kt_scale_nice_step(0, 5), 1, 0); /* degenerate */
}

static void linear_domain_widens_to_step_multiples(void **state)
{
    kt_scale s = {KT_SCALE_LINEAR};
    (void)state;
    assert_int_equal(kt_scale_nice_domain(&s, 0, 8182, 6), 0);
    assert_float_equal(s.d0, 0, 0);
    assert_float_equal(s.d1, 9000, 1e-9);
    assert_int_equal(kt_scale_nice_domain(&s, 732.3, 734.9, 5), 0);
    assert_float_equal(s.d0, 732, 1e-9);
    assert_float_equal(s.d1, 735, 1e-9);
    /* One value gets a domain around it, not an empty one. */
    assert_int_equal(kt_scale_nice_domain(&s, 5, 5, 5), 0);
    assert_true(s.d0 < 5 && s.d1 > 5);
    assert_int_equal(kt_scale_nice_domain(&s, 0, 0, 5), 0);
    assert_true(s.d0 < 0 && s.d1 > 0);
    assert_int_equal(kt_scale_nice_domain(&s, NAN, 1, 5), -1);
}

static void log_domain_snaps_to_decades_or_125(void **state)
{
    kt_scale s = {KT_SCALE_LOG};
    (void)state;
    /* Over two decades: whole decades. */
    assert_int_equal(kt_scale_nice_domain(&s, 7.4, 5043, 5), 0);
    assert_float_equal(s.d0, 1, 1e-12);
    assert_float_equal(s.d1, 1e4, 1e-8);
    /* Narrower: the 1-2-5 values around it. */
    assert_int_equal(kt_scale_nice_domain(&s, 733, 5043, 5), 0);
    assert_float_equal(s.d0, 500, 1e-9);
    assert_float_equal(s.d1, 1e4, 1e-8);
    assert_int_equal(kt_scale_nice_domain(&s, 2, 5, 5), 0);
    assert_float_equal(s.d0, 2, 1e-12);
    assert_float_equal(s.d1, 5, 1e-12);
    assert_int_equal(kt_scale_nice_domain(&s, 0, 5, 5), -1);
    assert_int_equal(kt_scale_nice_domain(&s, -1, 5, 5), -1);
}

static void linear_ticks_are_multiples_inside_the_domain(void **state)
{
    kt_scale s = {KT_SCALE_LINEAR, 0, 9000, 0, 1};
    double t[64];
    size_t n;
    (void)state;
    n = kt_scale_ticks(&s, 9, t, 64);
    assert_int_equal(n, 10); /* step 1000: 0, 1000, ..., 9000 */
    for (size_t i = 0; i < n; ++i)
        assert_float_equal(t[i], 1000.0 * (double)i, 1e-9);
    n = kt_scale_ticks(&s, 6, t, 64);
    assert_int_equal(n, 5); /* 1500 a tick rounds up to 2000 */
    assert_float_equal(t[4], 8000, 1e-9);
    /* Through zero: exactly 0, never -0 or 1e-17. */
    s = (kt_scale){KT_SCALE_LINEAR, -0.3, 0.3, 0, 1};
    n = kt_scale_ticks(&s, 6, t, 64);
    assert_int_equal(n, 7);
    assert_true(t[3] == 0 && !signbit(t[3]));
    /* max bounds the output. */
    assert_int_equal(kt_scale_ticks(&s, 6, t, 3), 3);
}

static void log_ticks_are_decades_or_125(void **state)
{
    kt_scale s = {KT_SCALE_LOG, 1, 1e5, 0, 1};
    double t[64];
    size_t n;
    (void)state;
    n = kt_scale_ticks(&s, 6, t, 64);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; ++i)
        assert_float_equal(t[i], pow(10, (double)i), 1e-6 * t[i]);
    /* Eleven decades for about five ticks: every third one. */
    s = (kt_scale){KT_SCALE_LOG, 1e-3, 1e7, 0, 1};
    n = kt_scale_ticks(&s, 5, t, 64);
    assert_int_equal(n, 4);
    assert_float_equal(t[0], 1e-3, 1e-15);
    assert_float_equal(t[1], 1, 1e-12);
    assert_float_equal(t[3], 1e6, 1e-6);
    /* Under two decades: 1-2-5 values. */
    s = (kt_scale){KT_SCALE_LOG, 500, 1e4, 0, 1};
    n = kt_scale_ticks(&s, 6, t, 64);
    assert_int_equal(n, 5);
    assert_float_equal(t[0], 500, 1e-9);
    assert_float_equal(t[1], 1000, 1e-9);
    assert_float_equal(t[2], 2000, 1e-9);
    assert_float_equal(t[3], 5000, 1e-9);
    assert_float_equal(t[4], 1e4, 1e-8);
    /* Inside one 1-2-5 interval: linear steps. */
    s = (kt_scale){KT_SCALE_LOG, 700, 900, 0, 1};
    n = kt_scale_ticks(&s, 5, t, 64);
    assert_true(n >= 3);
    assert_float_equal(t[0], 700, 1e-9);
    assert_float_equal(t[1] - t[0], 50, 1e-9);
}

static void pow2_ticks_thin_out_to_the_target(void **state)
{
    kt_scale s = {KT_SCALE_LOG, 400e3, 3e9, 0, 1}; /* 512 KiB .. 2 GiB */
    double t[64];
    size_t n;
    (void)state;
    n = kt_scale_ticks_pow2(&s, 16, t, 64);
    assert_int_equal(n, 13);
    assert_float_equal(t[0], 524288, 0);
    assert_float_equal(t[12], 2147483648.0, 0);
    n = kt_scale_ticks_pow2(&s, 7, t, 64);
    assert_true(n <= 7 && n >= 4);
    for (size_t i = 1; i < n; ++i)
        assert_float_equal(t[i] / t[i - 1], 4, 0); /* every other power */
    s = (kt_scale){KT_SCALE_LOG, 20, 1500, 0, 1};
    n = kt_scale_ticks_pow2(&s, 10, t, 64);
    assert_int_equal(n, 6); /* 32 .. 1024 */
    assert_float_equal(t[0], 32, 0);
    /* Domains no chart can have give no ticks rather than garbage. */
    s = (kt_scale){KT_SCALE_LOG, 1, INFINITY, 0, 1};
    assert_int_equal(kt_scale_ticks_pow2(&s, 10, t, 64), 0);
    assert_int_equal(kt_scale_ticks(&s, 10, t, 64), 0);
    s = (kt_scale){KT_SCALE_LINEAR, NAN, 1, 0, 1};
    assert_int_equal(kt_scale_ticks(&s, 10, t, 64), 0);
}

static void number_labels_are_compact(void **state)
{
    char b[64];
    (void)state;
    kt_scale_fmt_number(0, 3, b, sizeof b);
    assert_string_equal(b, "0");
    kt_scale_fmt_number(500, 3, b, sizeof b);
    assert_string_equal(b, "500");
    kt_scale_fmt_number(1000, 3, b, sizeof b);
    assert_string_equal(b, "1k");
    kt_scale_fmt_number(1500, 3, b, sizeof b);
    assert_string_equal(b, "1.5k");
    kt_scale_fmt_number(66908.16, 3, b, sizeof b);
    assert_string_equal(b, "66.9k");
    kt_scale_fmt_number(999.7, 3, b, sizeof b); /* rounds into the next */
    assert_string_equal(b, "1k");
    kt_scale_fmt_number(2e7, 3, b, sizeof b);
    assert_string_equal(b, "20M");
    kt_scale_fmt_number(0.1 + 0.2, 3, b, sizeof b);
    assert_string_equal(b, "0.3");
    kt_scale_fmt_number(0.0833333, 3, b, sizeof b);
    assert_string_equal(b, "0.0833");
    kt_scale_fmt_number(2e-5, 3, b, sizeof b);
    assert_string_equal(b, "2e-5");
    kt_scale_fmt_number(-2500, 3, b, sizeof b);
    assert_string_equal(b, "-2.5k");
    kt_scale_fmt_number(732.5, 4, b, sizeof b); /* more digits on request */
    assert_string_equal(b, "732.5");
    kt_scale_fmt_number(NAN, 3, b, sizeof b);
    assert_string_equal(b, "");
}

static void byte_labels_use_binary_units(void **state)
{
    char b[64];
    (void)state;
    kt_scale_fmt_bytes(512, b, sizeof b);
    assert_string_equal(b, "512 B");
    kt_scale_fmt_bytes(524288, b, sizeof b);
    assert_string_equal(b, "512 KiB");
    kt_scale_fmt_bytes(62914560, b, sizeof b);
    assert_string_equal(b, "60 MiB");
    kt_scale_fmt_bytes(2147483648.0, b, sizeof b);
    assert_string_equal(b, "2 GiB");
    kt_scale_fmt_bytes(1.5 * 1073741824.0, b, sizeof b);
    assert_string_equal(b, "1.5 GiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_scale_maps_ends_and_extrapolates),
        cmocka_unit_test(y_scale_maps_upwards),
        cmocka_unit_test(log_scale_spaces_decades_evenly),
        cmocka_unit_test(contains_allows_rounding_at_the_ends),
        cmocka_unit_test(nice_steps_are_one_two_five),
        cmocka_unit_test(linear_domain_widens_to_step_multiples),
        cmocka_unit_test(log_domain_snaps_to_decades_or_125),
        cmocka_unit_test(linear_ticks_are_multiples_inside_the_domain),
        cmocka_unit_test(log_ticks_are_decades_or_125),
        cmocka_unit_test(pow2_ticks_thin_out_to_the_target),
        cmocka_unit_test(number_labels_are_compact),
        cmocka_unit_test(byte_labels_use_binary_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
