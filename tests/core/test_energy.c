// SPDX-License-Identifier: Apache-2.0
/* The energy meter's arithmetic on made-up counter readings: stairs,
 * windows aligned on the counter's updates (a lead-in step left out), a
 * counter that wraps past 2^64, windows too short to say anything, a
 * counter reset in the window, the resolution from the edges' timing and
 * the counter's jitter (no step term), rounds and their statistics, the
 * JSON form read back. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdlib.h>

#include "core/energy.h"
#include "core/energy_json.h"
#include "core/energy_text.h"
#include "engine/calibrate.h"

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
    /* From the second change (t = 20 ms: the lead-in step to 10 ms left
     * out) to the last (t = 200 ms): 18 steps of 3000 mJ over 180 ms is
     * 300 W. */
    assert_float_equal(s.t0_s, 0.020, 1e-4);
    assert_float_equal(s.t1_s, 0.200, 1e-4);
    assert_int_equal(s.mj, 18 * 3000);
    assert_int_equal(s.changes, 19);
    assert_float_equal(s.power_w, 300, 0.5);
    assert_float_equal(s.step_s, 0.010, 1e-4);
    assert_int_equal(s.step_mj, 3000);
    assert_true(s.edge_s <= 0.0001 + 1e-9);
    assert_true(s.jitter_s <= 0.0001 + 1e-9);
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
    assert_true(c[n - 1].mj < c[2].mj); /* it did wrap */
    assert_int_equal(kt_energy_span_of(c, n, 0.05, &s, &err), KT_S_OK);
    assert_int_equal(s.mj, 8 * 1000);
    assert_float_equal(s.power_w, 100, 0.5);
}

static void a_window_with_too_few_changes_says_so(void **state)
{
    kt_energy_change c[512];
    /* A 100 ms counter seen for 250 ms: two changes, a lead-in and one
     * edge. */
    size_t n = stairs(300, 0.100, 0.001, 0.250, 0, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(n, 3);
    assert_int_equal(kt_energy_span_of(c, n, 0.01, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "changed 2 times in the window");
    assert_contains(err.msg, "needs 3 changes");
    assert_int_equal(kt_energy_span_of(c, 2, 0.01, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "changed 1 time in the window");
}

static void a_window_shorter_than_asked_says_so(void **state)
{
    kt_energy_change c[512];
    size_t n = stairs(300, 0.010, 0.001, 0.045, 0, c, 512);
    kt_energy_span s;
    kt_err err;
    (void)state;

    /* Changes at 10..40 ms, the window from 20 ms: a 20 ms span, 100 ms
     * asked for. */
    assert_int_equal(kt_energy_span_of(c, n, 0.1, &s, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "spans 20.000 ms");
    assert_contains(err.msg, "100.000 ms it needs");
}

static void a_counter_reset_in_the_window_is_not_taken_for_energy(void **state)
{
    kt_energy_change c[] = {
        {0.000, 0.000, 5000000}, {0.010, 0.009, 5003000},
        {0.020, 0.019, 5006000}, {0.030, 0.029, 1000},
        {0.040, 0.039, 4000},
    };
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_span_of(c, 5, 0.01, &s, &err), KT_S_UNSUPPORTED);
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
    assert_true(s.jitter_s < 1e-6);
    assert_int_equal(kt_energy_add_round(&e, &s, 1e-4, 4800, &err), KT_S_OK);
    /* 2 ms over the 460 ms from 40 ms to 500 ms, plus 2 mJ over the
     * 92000 mJ of 23 steps: no term for the 4000 mJ step, as both edges
     * are counter updates. */
    assert_int_equal(s.mj, 23 * 4000);
    assert_float_equal(e.resolution, 0.002 / 0.46 + 2.0 / 92000.0, 1e-9);
    assert_float_equal(kt_energy_resolution(&s), e.resolution, 1e-12);
}

/* A 100 ms counter like the H200's, seen by a fast poll, whose updates
 * wander by up to 3 ms: the wander is the counter's jitter and enters the
 * resolution; with 3 windows of 0.2 s the bound stays far below the 53%
 * a step term gave (one 50 J step over a window of two or three). */
static void the_counters_jitter_enters_the_resolution(void **state)
{
    const double wander[] = {0, 0.002, -0.001, 0.003, 0, -0.002, 0.001};
    kt_energy_change c[8];
    kt_energy_span s;
    kt_err err;
    size_t n = 0;
    (void)state;

    c[n++] = (kt_energy_change){0.010, 0.010, 1000000};
    for (size_t k = 0; k < 7; ++k) {
        double t = 0.050 + 0.100 * (double)k + wander[k];
        c[n++] = (kt_energy_change){t, t - 0.0002, 1000000 + 50000 * (k + 1)};
    }
    assert_int_equal(kt_energy_span_of(c, n, 0.2, &s, &err), KT_S_OK);
    /* Window from the update at 152 ms to the one at 651 ms. */
    assert_float_equal(s.t0_s, 0.152, 1e-9);
    assert_float_equal(s.t1_s, 0.651, 1e-9);
    assert_int_equal(s.mj, 5 * 50000);
    assert_float_equal(s.step_s, 0.100, 0.0025);
    /* The gaps 102, 97, 104, 97, 98, 103 ms about their median 100 ms. */
    assert_float_equal(s.jitter_s, 0.004, 1e-6);
    assert_float_equal(kt_energy_resolution(&s),
                       (0.0002 + 0.004) / 0.499 + 2.0 / 250000, 1e-9);
    assert_true(kt_energy_resolution(&s) < 0.05);
}

/* A update the counter skipped (a 200 ms gap in a 100 ms counter) merges
 * two steps, loses no energy and is no jitter. */
static void a_skipped_update_is_no_jitter(void **state)
{
    kt_energy_change c[] = {
        {0.00, 0.00, 0},      {0.05, 0.05, 10000},  {0.15, 0.15, 60000},
        {0.25, 0.25, 110000}, {0.45, 0.45, 210000}, {0.55, 0.55, 260000},
    };
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_span_of(c, 6, 0.2, &s, &err), KT_S_OK);
    assert_float_equal(s.step_s, 0.100, 1e-9);
    assert_true(s.jitter_s < 1e-9);
    assert_float_equal(s.power_w, 500, 1e-6);
}

/* Power that the kernel's start leaves low in the first step (the idle
 * device before it ran): the window starts at the second update, so only
 * the kernel's steady power is in it. */
static void the_step_the_kernel_started_in_is_left_out(void **state)
{
    kt_energy_change c[] = {
        {0.000, 0.000, 0},       {0.060, 0.0599, 4000},
        {0.160, 0.1599, 54000},  {0.260, 0.2599, 104000},
        {0.360, 0.3599, 154000},
    };
    kt_energy_span s;
    kt_err err;
    (void)state;

    assert_int_equal(kt_energy_span_of(c, 5, 0.1, &s, &err), KT_S_OK);
    assert_float_equal(s.t0_s, 0.160, 1e-12);
    assert_int_equal(s.mj, 100000);
    assert_float_equal(s.power_w, 500, 1e-6);
    assert_int_equal(s.step_mj, 50000);
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

/* The device's measured best energy per byte and per flop (the
 * calibration's copy and FMA kernel) survive the calibration record, and a
 * point's energy per work is stated against them. */
static void energy_per_work_is_stated_against_the_devices_best(void **state)
{
    kt_calibration c, back;
    kt_energy e;
    kt_work w = {sizeof w, 0, 3e9, 1e9, 1e9};
    char text[256];
    json_t *j;
    kt_err err;
    (void)state;

    memset(&c, 0, sizeof c);
    snprintf(c.uuid, sizeof c.uuid, "GPU-0");
    c.copy_j_per_byte = 8e-12;
    c.fma_j_per_flop = 0.5e-12;
    j = kt_calib_to_json(&c);
    assert_int_equal(kt_calib_from_json(j, &back, &err), KT_S_OK);
    assert_float_equal(
        json_number_value(json_object_get(j, "copy_pj_per_byte")), 8, 1e-9);
    json_decref(j);
    assert_float_equal(back.copy_j_per_byte, 8e-12, 1e-21);
    assert_float_equal(back.fma_j_per_flop, 0.5e-12, 1e-21);
    /* 0.1 J per launch over 4e9 bytes is 25 pJ/byte, 3.125x the copy's 8;
     * over 1e9 flops 100 pJ/flop, 200x the FMA kernel's 0.5. */
    memset(&e, 0, sizeof e);
    e.measured = 1;
    e.joules.median = 0.1;
    kt_energy_best_text(&e, &w, back.copy_j_per_byte, back.fma_j_per_flop, text,
                        sizeof text);
    assert_string_equal(text, "3.12x the copy's 8 pJ/byte, 200x the FMA "
                              "kernel's 0.5 pJ/flop");
    kt_energy_best_text(&e, &w, 0, 0, text, sizeof text);
    assert_string_equal(text, "");
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
        cmocka_unit_test(the_counters_jitter_enters_the_resolution),
        cmocka_unit_test(a_skipped_update_is_no_jitter),
        cmocka_unit_test(the_step_the_kernel_started_in_is_left_out),
        cmocka_unit_test(rounds_give_energy_per_launch_with_an_interval),
        cmocka_unit_test(more_rounds_than_the_record_holds_are_refused),
        cmocka_unit_test(the_json_form_reads_back_the_same),
        cmocka_unit_test(energy_per_work_is_stated_against_the_devices_best),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
