/* The stopping rule: never before the minimum samples and GPU time; then on
 * the noise target, on noise that stopped improving, or at the caps. */
#include "tests/kt_test.h"

#include "core/measure.h"

static kt_protocol defaults(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    return p;
}

static kt_stats with_noise(size_t n, double noise)
{
    kt_stats s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.noise = noise;
    return s;
}

static void quiet_samples_stop_once_minimums_are_met(void **state)
{
    kt_protocol p = defaults();
    kt_stats s = with_noise(9, 0.001);
    (void)state;
    assert_null(kt_meter_stop_reason(&p, &s, 1.0, 1.0, 9, NULL, 0));
    s.n = 10;
    assert_null(kt_meter_stop_reason(&p, &s, 0.4, 1.0, 10, NULL, 0));
    assert_string_equal(kt_meter_stop_reason(&p, &s, 0.5, 1.0, 10, NULL, 0),
                        "noise target");
}

static void noisy_samples_continue_until_noise_stabilises(void **state)
{
    kt_protocol p = defaults();
    kt_stats s = with_noise(200, 0.03);
    const double improving[] = {0.08, 0.06, 0.045, 0.03};
    const double flat[] = {0.05, 0.0301, 0.0302, 0.0299, 0.03};
    (void)state;
    assert_null(kt_meter_stop_reason(&p, &s, 1.0, 2.0, 200, improving, 4));
    assert_string_equal(kt_meter_stop_reason(&p, &s, 1.0, 2.0, 200, flat, 5),
                        "noise stable");
}

static void caps_stop_regardless_of_noise(void **state)
{
    kt_protocol p = defaults();
    kt_stats s = with_noise(3, 0.5);
    (void)state;
    p.max_samples = 3;
    assert_string_equal(kt_meter_stop_reason(&p, &s, 0.0, 0.1, 3, NULL, 0),
                        "max samples");
    p.max_samples = 1000;
    assert_string_equal(kt_meter_stop_reason(&p, &s, 0.0, 15.0, 3, NULL, 0),
                        "time cap");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quiet_samples_stop_once_minimums_are_met),
        cmocka_unit_test(noisy_samples_continue_until_noise_stabilises),
        cmocka_unit_test(caps_stop_regardless_of_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
