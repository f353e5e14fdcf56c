// SPDX-License-Identifier: Apache-2.0
/* The stopping rule (core/stop_rule.h): never before the minimum samples
 * and GPU time; then on the noise target, on noise that stopped improving,
 * or at the caps; racing stops clear losers. First its decisions alone,
 * then the object the measurement loop asks, sample by sample. */
#include "tests/kt_test.h"

#include <math.h>

#include "core/envrec.h"
#include "core/stop_rule.h"

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
    assert_null(kt_stop_reason(&p, &s, 1.0, 1.0, 9, NULL, 0));
    s.n = 10;
    assert_null(kt_stop_reason(&p, &s, 0.4, 1.0, 10, NULL, 0));
    assert_string_equal(kt_stop_reason(&p, &s, 0.5, 1.0, 10, NULL, 0),
                        "noise target");
}

static void noisy_samples_continue_until_noise_stabilises(void **state)
{
    kt_protocol p = defaults();
    kt_stats s = with_noise(200, 0.03);
    const double improving[] = {0.08, 0.06, 0.045, 0.03};
    const double flat[] = {0.05, 0.0301, 0.0302, 0.0299, 0.03};
    (void)state;
    assert_null(kt_stop_reason(&p, &s, 1.0, 2.0, 200, improving, 4));
    assert_string_equal(kt_stop_reason(&p, &s, 1.0, 2.0, 200, flat, 5),
                        "noise stable");
}

static void caps_stop_regardless_of_noise(void **state)
{
    kt_protocol p = defaults();
    kt_stats s = with_noise(3, 0.5);
    (void)state;
    p.max_samples = 3;
    assert_string_equal(kt_stop_reason(&p, &s, 0.0, 0.1, 3, NULL, 0),
                        "max samples");
    p.max_samples = 1000;
    assert_string_equal(kt_stop_reason(&p, &s, 0.0, 15.0, 3, NULL, 0),
                        "time cap");
}

static void racing_stops_only_clear_losers_after_min_samples(void **state)
{
    kt_protocol p;
    double kept[80];
    (void)state;
    kt_protocol_defaults(&p);
    p.min_samples = 10;
    p.race = 0.005;
    p.race_bar_us = 100.0;
    for (int i = 0; i < 80; ++i)
        kept[i] = 101.0 + 0.01 * (i % 7);
    /* Even the fastest of ten samples is 1% slower than the best: stop. */
    assert_non_null(kt_stop_race(&p, kept, 10));
    /* Not before min_samples kept samples, nor between looks. */
    assert_null(kt_stop_race(&p, kept, 9));
    assert_null(kt_stop_race(&p, kept, 11));
    /* One fast sample keeps it going at the first look; at the second
     * (40 samples) the 10th fastest decides. */
    kept[3] = 99.0;
    assert_null(kt_stop_race(&p, kept, 10));
    assert_non_null(kt_stop_race(&p, kept, 40));
    /* Within the margin: go on. */
    for (int i = 0; i < 80; ++i)
        kept[i] = 100.4;
    assert_null(kt_stop_race(&p, kept, 10));
    assert_null(kt_stop_race(&p, kept, 80));
    /* No bar (the first point of a run) or racing off: never. */
    for (int i = 0; i < 80; ++i)
        kept[i] = 1e9;
    p.race_bar_us = 0;
    assert_null(kt_stop_race(&p, kept, 10));
    p.race_bar_us = 100.0;
    p.race = 0;
    assert_null(kt_stop_race(&p, kept, 10));
}

/* A screened call (screen_samples > 1) looks at a point's first sample as
 * well: one far over the bar (KT_SCREEN_FIRST_RATIO) stops it there; one
 * nearer waits for the look at min_samples. A call that does not screen,
 * or has no bar, never stops at one sample. */
static void a_screened_point_far_over_the_bar_stops_at_one_sample(void **state)
{
    kt_protocol p;
    double bar, far[1], near[3];
    (void)state;
    kt_protocol_defaults(&p);
    p.min_samples = p.screen_samples = 3;
    p.race = 0.005;
    p.race_bar_us = 100.0;
    bar = p.race_bar_us * (1.0 + p.race);
    far[0] = KT_SCREEN_FIRST_RATIO * bar * 1.01;
    near[0] = near[1] = near[2] = KT_SCREEN_FIRST_RATIO * bar * 0.99;
    assert_string_equal(kt_stop_race(&p, far, 1),
                        "race: one sample far slower than the best");
    assert_null(kt_stop_race(&p, near, 1));
    assert_null(kt_stop_race(&p, near, 2));
    assert_string_equal(kt_stop_race(&p, near, 3),
                        "race: slower than the best");
    /* The first round is waited for, so the look can stop the next. */
    assert_true(kt_stop_round_may_stop(&p, 0, 0, 1));
    assert_false(kt_stop_round_may_stop(&p, 1, 1, 2));
    /* Not screening (the full protocol), or no bar: no look at one. */
    p.screen_samples = 0;
    assert_null(kt_stop_race(&p, far, 1));
    assert_false(kt_stop_round_may_stop(&p, 0, 0, 1));
    p.screen_samples = 3;
    p.race_bar_us = 0;
    assert_null(kt_stop_race(&p, far, 1));
}

static void racing_looks_bound_the_median_with_small_risk(void **state)
{
    (void)state;
    assert_int_equal(kt_stop_race_rank(10, 10), 1);
    assert_int_equal(kt_stop_race_rank(10, 40), 10);
    assert_int_equal(kt_stop_race_rank(10, 80), 25);
    assert_int_equal(kt_stop_race_rank(10, 20), 0);
    assert_int_equal(kt_stop_race_rank(10, 81), 0);
}

static void racing_fields_travel_and_old_protocols_race_nothing(void **state)
{
    kt_protocol p, back;
    kt_err err;
    json_t *j;
    (void)state;
    kt_protocol_defaults(&p);
    j = kt_env_protocol(&p);
    /* Off: not written, so a record made before racing reads the same. */
    assert_null(json_object_get(j, "race"));
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_true(back.race == 0 && back.race_bar_us == 0 && !back.race_pairs);
    json_decref(j);
    p.race = 0.005;
    p.race_bar_us = 731.5;
    p.race_pairs = 1;
    j = kt_env_protocol(&p);
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_true(back.race == 0.005 && back.race_bar_us == 731.5 &&
                back.race_pairs == 1);
    json_decref(j);
    p.race = 1.5;
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "race");
}

/* Only rounds whose results could stop a target are waited for before
 * the next is enqueued: race looks, looks of the own rule once
 * min_samples are in, max_samples. Between them the GPU is kept fed. */
static void only_rounds_that_may_stop_a_target_are_waited_for(void **state)
{
    kt_protocol p;
    (void)state;
    kt_protocol_defaults(&p);
    p.min_samples = 10;
    p.max_samples = 300;
    /* Below min_samples, nothing but the caps stops a target. */
    assert_false(kt_stop_round_may_stop(&p, 3, 3, 4));
    assert_false(kt_stop_round_may_stop(&p, 8, 8, 9));
    /* The own rule looks every round up to 16 rounds once min_samples are
     * reached, then every rounds/16 rounds. */
    assert_true(kt_stop_round_may_stop(&p, 9, 9, 10));
    assert_true(kt_stop_round_may_stop(&p, 12, 12, 13));
    assert_false(kt_stop_round_may_stop(&p, 160, 160, 161));
    assert_true(kt_stop_round_may_stop(&p, 169, 160, 170));
    /* A throttled sample kept nothing: the look comes later, by rounds. */
    assert_false(kt_stop_round_may_stop(&p, 150, 160, 161));
    /* max_samples always decides. */
    assert_true(kt_stop_round_may_stop(&p, 200, 299, 300));
    /* Racing looks at 10, 40 and 80 kept samples. */
    p.race = 0.005;
    p.race_bar_us = 100.0;
    assert_true(kt_stop_round_may_stop(&p, 39, 39, 40));
    assert_false(kt_stop_round_may_stop(&p, 38, 39, 40));
    assert_true(kt_stop_round_may_stop(&p, 79, 80, 82));
    /* Without a bar there is nothing to race against. */
    p.race_bar_us = 0;
    assert_false(kt_stop_round_may_stop(&p, 39, 39, 40));
}

/* ------------------------------------------------- the object itself */

/* A noisy sample k: ten levels 0.1 s .. 0.118 s in turn (about 7% noise,
 * and a spread that no longer changes as samples come). */
static double noisy(size_t k)
{
    return 1e5 * (1.0 + 0.02 * (double)(k % 10));
}

/* Hands the rule n samples of value us (the k-th at wall time k * dt_s);
 * returns the reason after the last. */
static const char *feed(kt_stop_rule *r, size_t n, double us, double dt_s)
{
    kt_err err;
    for (size_t k = 0; k < n; ++k)
        assert_int_equal(
            kt_stop_rule_add(r, us, (double)(r->rounds + 1) * dt_s, &err),
            KT_S_OK);
    return kt_stop_rule_reason(r);
}

static void rule_stops_at_min_samples_when_quiet(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    (void)state;
    kt_stop_rule_init(&r, &p);
    /* 0.1 s samples: min_time_s (0.5 s) is in by the fifth. */
    assert_null(feed(&r, 9, 1e5, 0.1));
    assert_true(kt_stop_rule_may_stop(&r));
    assert_string_equal(feed(&r, 1, 1e5, 0.1), "noise target");
    assert_int_equal(r.num_kept, 10);
    assert_int_equal(r.rounds, 10);
    assert_true(r.gpu_time_s > 0.999 && r.gpu_time_s < 1.001);
    /* Decided: nothing more can stop it, and the reason stays while the
     * loop samples on (its interleaved partners are not done). */
    assert_false(kt_stop_rule_may_stop(&r));
    assert_string_equal(feed(&r, 5, 3e5, 0.1), "noise target");
    assert_int_equal(r.num_kept, 15);
    kt_stop_rule_free(&r);
}

static void rule_waits_for_min_time_when_quiet(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    (void)state;
    kt_stop_rule_init(&r, &p);
    /* 0.04 s samples: ten are 0.4 s of GPU time, thirteen are 0.52 s. */
    assert_null(feed(&r, 12, 4e4, 0.05));
    assert_string_equal(feed(&r, 1, 4e4, 0.05), "noise target");
    assert_int_equal(r.rounds, 13);
    kt_stop_rule_free(&r);
}

static void rule_keeps_going_when_noisy(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    kt_err err;
    size_t k;
    (void)state;
    kt_stop_rule_init(&r, &p);
    /* Far above 0.5% noise: min_samples and min_time_s are in at ten, yet
     * it goes on. */
    for (k = 0; k < 12; ++k)
        assert_int_equal(kt_stop_rule_add(&r, noisy(k), 0.01 * (double)k, &err),
                         KT_S_OK);
    assert_null(kt_stop_rule_reason(&r));
    assert_true(r.gpu_time_s >= p.min_time_s);
    /* A checkpoint at every round so far, the noise recorded from
     * min_samples on. */
    assert_int_equal(r.last_check, 12);
    assert_int_equal(r.history_len, 3);
    assert_true(r.history[2] > p.target_noise);
    /* ... until the noise stops improving, long before the caps. */
    for (; k < 5000 && !kt_stop_rule_reason(&r); ++k)
        assert_int_equal(
            kt_stop_rule_add(&r, noisy(k), 0.001 * (double)k, &err), KT_S_OK);
    assert_string_equal(kt_stop_rule_reason(&r), "noise stable");
    assert_true(k < 5000);
    kt_stop_rule_free(&r);
}

static void rule_stops_at_the_caps_with_their_reason(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    kt_err err;
    (void)state;
    /* Wall time: even before min_samples. */
    kt_stop_rule_init(&r, &p);
    assert_null(feed(&r, 3, 50.0, 1.0));
    assert_int_equal(kt_stop_rule_add(&r, 50.0, 15.0, &err), KT_S_OK);
    assert_string_equal(kt_stop_rule_reason(&r), "time cap");
    kt_stop_rule_free(&r);
    /* Rounds: between checkpoints too (every 16th of the rounds); the
     * GPU time asked for never comes. */
    p.max_samples = 100;
    p.min_time_s = 1e9;
    kt_stop_rule_init(&r, &p);
    for (size_t k = 0; k < 99; ++k)
        assert_int_equal(kt_stop_rule_add(&r, noisy(k), 0.0, &err), KT_S_OK);
    assert_null(kt_stop_rule_reason(&r));
    assert_true(kt_stop_rule_may_stop(&r));
    assert_int_equal(kt_stop_rule_add(&r, noisy(99), 0.0, &err), KT_S_OK);
    assert_string_equal(kt_stop_rule_reason(&r), "max samples");
    kt_stop_rule_free(&r);
}

static void rule_counts_a_discarded_sample_as_a_round_only(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    kt_err err;
    (void)state;
    p.max_samples = 3;
    kt_stop_rule_init(&r, &p);
    assert_int_equal(kt_stop_rule_add(&r, 100.0, 0.0, &err), KT_S_OK);
    assert_int_equal(kt_stop_rule_add(&r, NAN, 0.0, &err), KT_S_OK);
    assert_int_equal(r.rounds, 2);
    assert_int_equal(r.num_kept, 1);
    assert_true(r.gpu_time_s == 100.0 * 1e-6);
    /* max_samples counts rounds, discarded ones too. */
    assert_int_equal(kt_stop_rule_add(&r, NAN, 0.0, &err), KT_S_OK);
    assert_string_equal(kt_stop_rule_reason(&r), "max samples");
    kt_stop_rule_free(&r);
}

static void rule_races_first_and_the_caller_may_stop_it(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    (void)state;
    p.race = 0.005;
    p.race_bar_us = 100.0;
    kt_stop_rule_init(&r, &p);
    /* Quiet and 0.2 s each: the noise target is met at ten samples as
     * well, but the race is looked at first. */
    assert_null(feed(&r, 9, 2e5, 0.1));
    assert_string_equal(feed(&r, 1, 2e5, 0.1), "race: slower than the best");
    kt_stop_rule_stop(&r, "pairs done");
    assert_string_equal(kt_stop_rule_reason(&r), "race: slower than the best");
    kt_stop_rule_free(&r);
    /* Within the margin of the bar: no race; stopped by the caller. */
    kt_stop_rule_init(&r, &p);
    assert_null(feed(&r, 10, 100.2, 0.1));
    kt_stop_rule_stop(&r, "pairs done");
    assert_string_equal(kt_stop_rule_reason(&r), "pairs done");
    kt_stop_rule_free(&r);
}

/* may_stop is the pure rule's pipelining answer about the next round. */
static void rule_may_stop_is_the_next_rounds_answer(void **state)
{
    kt_protocol p = defaults();
    kt_stop_rule r;
    kt_err err;
    (void)state;
    p.max_samples = 300;
    kt_stop_rule_init(&r, &p);
    for (size_t k = 0; k < 200; ++k) {
        assert_int_equal(
            kt_stop_rule_may_stop(&r),
            kt_stop_round_may_stop(&p, r.num_kept, r.last_check, r.rounds + 1));
        assert_int_equal(kt_stop_rule_add(&r, noisy(k), 0.0, &err), KT_S_OK);
        if (kt_stop_rule_reason(&r))
            break;
    }
    kt_stop_rule_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quiet_samples_stop_once_minimums_are_met),
        cmocka_unit_test(only_rounds_that_may_stop_a_target_are_waited_for),
        cmocka_unit_test(noisy_samples_continue_until_noise_stabilises),
        cmocka_unit_test(caps_stop_regardless_of_noise),
        cmocka_unit_test(racing_stops_only_clear_losers_after_min_samples),
        cmocka_unit_test(racing_looks_bound_the_median_with_small_risk),
        cmocka_unit_test(a_screened_point_far_over_the_bar_stops_at_one_sample),
        cmocka_unit_test(racing_fields_travel_and_old_protocols_race_nothing),
        cmocka_unit_test(rule_stops_at_min_samples_when_quiet),
        cmocka_unit_test(rule_waits_for_min_time_when_quiet),
        cmocka_unit_test(rule_keeps_going_when_noisy),
        cmocka_unit_test(rule_stops_at_the_caps_with_their_reason),
        cmocka_unit_test(rule_counts_a_discarded_sample_as_a_round_only),
        cmocka_unit_test(rule_races_first_and_the_caller_may_stop_it),
        cmocka_unit_test(rule_may_stop_is_the_next_rounds_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
