// SPDX-License-Identifier: Apache-2.0
/* The energy meter's arithmetic on made-up counter readings: stairs,
 * a counter that wraps past 2^64, windows too short to say anything, a
 * counter reset in the window, rounds and their statistics, the JSON form
 * read back. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdlib.h>

#include "core/energy.h"
#include "core/energy_json.h"

/* A counter that steps every `step` seconds by watts * step joules,
 * polled every `poll` seconds from t = 0 to `until`, starting at `start`:
 * the changes as the meter records them. */
static size_t stairs(double watts, double step, double poll, double until,
                     uint64_t start, kt_energy_change *c, size_t cap)
{
    uint64_t inc = (uint64_t)llround(1e3 * watts * step), last = 0;
    double prev = 0;
    size_t n = 0;

    for (double t = 0; t <= until && n < cap; t += poll) {
        uint64_t v = start + (uint64_t)floor(t / step + 1e-9) * inc;
        if (n == 0 || v != last)
            c[n++] = (kt_energy_change){t, n ? prev : t, v};
        last = v;
        prev = t;
    }
    return n;
}

static void
power_over_a_window_of_steps_is_the_step_energy_over_its_time(void **state)
{
    kt_energy_change c[512];
    size_t n = stairs(300, 0.010, 0.0001, 0.205, 1000, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_span_of(c, n, 0.1, &s, &err), KT_S_OK);
    /* From the first change (t = 10 ms) to the last (t = 200 ms): 19
     * steps of 3000 mJ over 190 ms is 300 W. */
    assert_float_equal(s.t0_s, 0.010, 1e-4);
    assert_float_equal(s.t1_s, 0.200, 1e-4);
    assert_int_equal(s.mj, 19 * 3000);
    assert_float_equal(s.power_w, 300, 0.5);
    assert_float_equal(s.step_s, 0.010, 1e-4);
    assert_int_equal(s.step_mj, 3000);
    assert_true(s.edge_s <= 0.0001 + 1e-9);
}

static void a_counter_that_wraps_past_its_top_reads_right(void **state)
{
    kt_energy_change c[512];
    /* 2^64 - 5000 mJ at the start: the third step wraps. */
    size_t n = stairs(100, 0.010, 0.0005, 0.105, UINT64_MAX - 4999, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_delta_mj(UINT64_MAX - 1, 3), 5);
    assert_true(c[n - 1].mj < c[1].mj); /* it did wrap */
    assert_int_equal(kt_energy_span_of(c, n, 0.05, &s, &err), KT_S_OK);
    assert_int_equal(s.mj, 9 * 1000);
    assert_float_equal(s.power_w, 100, 0.5);
}

static void a_window_with_too_few_changes_says_so(void **state)
{
    kt_energy_change c[512];
    /* A 100 ms counter seen for 150 ms: one change only. */
    size_t n = stairs(300, 0.100, 0.001, 0.150, 0, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(n, 2);
    assert_int_equal(kt_energy_span_of(c, n, 0.01, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "changed 1 time in the window");
    assert_contains(err.msg, "needs 2 changes");
}

static void a_window_shorter_than_asked_says_so(void **state)
{
    kt_energy_change c[512];
    size_t n = stairs(300, 0.010, 0.001, 0.045, 0, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    /* Changes at 10..40 ms: a 30 ms span, 100 ms asked for. */
    assert_int_equal(kt_energy_span_of(c, n, 0.1, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "spans 30.000 ms");
    assert_contains(err.msg, "100.000 ms it needs");
}

static void a_counter_reset_in_the_window_is_not_taken_for_energy(void **state)
{
    kt_energy_change c[] = {
        {0.000, 0.000, 5000000},
        {0.010, 0.009, 5003000},
        {0.020, 0.019, 1000},
        {0.030, 0.029, 4000},
    };
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_span_of(c, 4, 0.01, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "reset");
}

static void poll_gaps_at_the_edges_bound_the_resolution(void **state)
{
    kt_energy_change c[512];
    size_t n = stairs(200, 0.020, 0.002, 0.505, 0, c, 512);
    kt_energy_span s;
    kt_energy e;
    kt_err err;
    (void)state;

    memset(&e, 0, sizeof e);
    assert_int_equal(kt_energy_span_of(c, n, 0.2, &s, &err), KT_S_OK);
    assert_float_equal(s.edge_s, 0.002, 1e-6);
    assert_int_equal(kt_energy_add_round(&e, &s, 1e-4, 4800, &err), KT_S_OK);
    /* 2 * 2 ms over 480 ms, plus one 4000 mJ step over 96000 mJ. */
    assert_float_equal(e.resolution, 2 * 0.002 / 0.48 + 4000.0 / 96000.0, 1e-6);
}

static void rounds_give_energy_per_launch_with_an_interval(void **state)
{
    const double watts[] = {300, 310, 290, 305, 295};
    kt_energy_device dev = {302, 40, 1900, 1850, 3200, 45, 700};
    kt_energy e;
    kt_err err;
    (void)state;

    memset(&e, 0, sizeof e);
    for (size_t r = 0; r < 5; ++r) {
        kt_energy_span s = {0,        0.2,   (uint64_t)(watts[r] * 200),
                            watts[r], 20,    0.01,
                            3000,     0.0001};
        assert_int_equal(kt_energy_add_round(&e, &s, 50e-6, 4000, &err),
                         KT_S_OK);
    }
    kt_energy_finish(&e, &dev);
    assert_true(e.measured);
    assert_int_equal(e.rounds, 5);
    /* 300 W x 50 us = 15 mJ per launch (the median round). */
    assert_float_equal(e.joules.median, 300 * 50e-6, 1e-9);
    assert_true(e.joules.ci_lo <= e.joules.median);
    assert_true(e.joules.ci_hi >= e.joules.median);
    assert_float_equal(e.power_w, 300, 1e-6);
    assert_float_equal(e.window_s, 1.0, 1e-9);
    assert_int_equal(e.launches, 20000);
    assert_float_equal(e.launch_us, 50, 1e-9);
    assert_float_equal(e.crosscheck, (302.0 / 300 - 1), 1e-6);
    assert_float_equal(kt_energy_per(&e, 1e6), 300 * 50e-6 / 1e6, 1e-15);
    assert_float_equal(kt_energy_per(&e, 0), 0, 0);
}

static void more_rounds_than_the_record_holds_are_refused(void **state)
{
    kt_energy_span s = {0, 0.2, 60000, 300, 20, 0.01, 3000, 0.0001};
    kt_energy e;
    kt_err err;
    (void)state;

    memset(&e, 0, sizeof e);
    for (size_t r = 0; r < KT_ENERGY_MAX_ROUNDS; ++r)
        assert_int_equal(kt_energy_add_round(&e, &s, 1e-5, 10, &err), KT_S_OK);
    assert_int_equal(kt_energy_add_round(&e, &s, 1e-5, 10, &err), KT_S_INPUT);
    assert_int_equal(kt_energy_add_round(&(kt_energy){0}, &s, 0, 10, &err),
                     KT_S_INPUT);
}

static void the_json_form_reads_back_the_same(void **state)
{
    kt_energy_span s = {0, 0.25, 75000, 300, 25, 0.01, 3000, 0.0001};
    kt_energy_device dev = {299, 50, 1980, 1900, 3201, 44, 700};
    kt_energy e, back;
    json_t *j;
    kt_err err;
    (void)state;

    memset(&e, 0, sizeof e);
    assert_int_equal(kt_energy_add_round(&e, &s, 2e-5, 12500, &err), KT_S_OK);
    s.power_w = 310;
    assert_int_equal(kt_energy_add_round(&e, &s, 2e-5, 12500, &err), KT_S_OK);
    kt_energy_finish(&e, &dev);
    j = kt_energy_to_json(&e);
    assert_int_equal(kt_energy_from_json(j, &back, &err), KT_S_OK);
    json_decref(j);
    assert_true(back.measured);
    assert_int_equal(back.rounds, 2);
    assert_float_equal(back.joules.median, e.joules.median, 1e-12);
    assert_float_equal(back.power_w, e.power_w, 1e-9);
    assert_float_equal(back.dev.power_limit_w, 700, 0);
    assert_float_equal(back.crosscheck, e.crosscheck, 1e-9);

    kt_energy_none(&e, "no NVML here");
    j = kt_energy_to_json(&e);
    assert_int_equal(kt_energy_from_json(j, &back, &err), KT_S_OK);
    json_decref(j);
    assert_false(back.measured);
    assert_string_equal(back.note, "no NVML here");

    j = json_pack("{s:b,s:[f],s:f,s:f,s:i,s:i,s:f}", "measured", 1, "samples_j",
                  -1.0, "power_w", 1.0, "window_s", 1.0, "window_mj", 1,
                  "launches", 1, "launch_us", 1.0);
    assert_int_equal(kt_energy_from_json(j, &back, &err), KT_S_INPUT);
    assert_contains(err.msg, "samples_j[0]");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            power_over_a_window_of_steps_is_the_step_energy_over_its_time),
        cmocka_unit_test(a_counter_that_wraps_past_its_top_reads_right),
        cmocka_unit_test(a_window_with_too_few_changes_says_so),
        cmocka_unit_test(a_window_shorter_than_asked_says_so),
        cmocka_unit_test(a_counter_reset_in_the_window_is_not_taken_for_energy),
        cmocka_unit_test(poll_gaps_at_the_edges_bound_the_resolution),
        cmocka_unit_test(rounds_give_energy_per_launch_with_an_interval),
        cmocka_unit_test(more_rounds_than_the_record_holds_are_refused),
        cmocka_unit_test(the_json_form_reads_back_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
