// SPDX-License-Identifier: Apache-2.0
/* Points: defaults, setting by name, formatting, JSON round trips, and the
 * GPU-free feasibility check (constraints and device limits). */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/feasible.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/result_json.h"
#include "core/stats.h"
#include "core/stop_rule.h"
#include "tests/support/fake_device.h"

static kt_registry reg;
static const kt_operator *op;

static int load(void **state)
{
    const kt_loaded_plugin *lp;
    kt_err err;
    (void)state;
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_TEST_PLUGIN_DIR "/good_plugin.so",
                              &err) ||
        kt_registry_resolve(&reg, "good:scale", &lp, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static void defaults_set_and_format(void **state)
{
    kt_point pt;
    kt_err err;
    char text[128];
    (void)state;
    kt_point_default(op, 0, &pt);
    kt_point_format(op, &pt, text, sizeof text);
    assert_string_equal(text, "tiled block=128 unroll=2 pad=0 layout=cols");
    assert_int_equal(kt_point_set(op, &pt, "layout", "rows", &err), KT_S_OK);
    assert_int_equal(kt_point_set(op, &pt, "block", "64", &err), KT_S_OK);
    kt_point_format(op, &pt, text, sizeof text);
    assert_string_equal(text, "tiled block=64 unroll=2 pad=0 layout=rows");
    assert_int_equal(kt_point_set(op, &pt, "blok", "64", &err), KT_S_INPUT);
    assert_contains(err.msg, "no parameter 'blok'; did you mean 'block'?");
}

static void json_round_trip_keeps_labels(void **state)
{
    kt_point pt, back;
    kt_err err;
    json_t *j;
    (void)state;
    kt_point_default(op, 0, &pt);
    pt.values[3] = 0;
    j = kt_point_to_json(op, &pt);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(j, "params"), "layout")),
                        "rows");
    assert_int_equal(kt_point_from_json(op, j, &back, &err), KT_S_OK);
    assert_true(kt_point_equal(&pt, &back));
    json_decref(j);
    j = json_pack("{s:s,s:{s:i}}", "variant", "tiled", "params", "block", 100);
    assert_int_equal(kt_point_from_json(op, j, &back, &err), KT_S_INPUT);
    assert_contains(err.msg, "100 is not one of");
    json_decref(j);
}

static void feasibility_applies_constraints_and_limits(void **state)
{
    kt_device dev = kt_test_h200();
    int64_t n = 1 << 20;
    kt_problem p = {sizeof p, 1, &n, 1, &dev};
    kt_point pt;
    kt_shape shape;
    kt_err err;
    (void)state;
    kt_point_default(op, 0, &pt);
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, &shape, &err),
                     KT_S_OK);
    assert_int_equal(shape.grid[0], (1 << 20) / 128);
    /* The variant's own constraint: block x unroll > 2048. */
    pt.values[0] = 1024;
    pt.values[1] = 4;
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "constraint: block x unroll > 2048");
    /* The core's device limit. */
    dev.max_threads_per_block = 512;
    pt.values[1] = 1;
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "block of 1024 threads > device limit 512");
}

static void shape_limits_cover_every_dimension(void **state)
{
    kt_device dev = kt_test_h200();
    kt_shape s = {sizeof s, 0, {1, 1, 1}, {32, 32, 2}, NULL};
    kt_err err;
    (void)state;
    assert_int_equal(kt_shape_within_limits(&s, &dev, &err), KT_S_INVALID);
    assert_contains(err.msg, "block of 2048 threads");
    s.block[2] = 1;
    s.grid[1] = 70000;
    assert_int_equal(kt_shape_within_limits(&s, &dev, &err), KT_S_INVALID);
    assert_contains(err.msg, "grid.y = 70000 > device limit 65535");
    s.grid[1] = 1;
    s.dynamic_smem_bytes = 300000;
    assert_int_equal(kt_shape_within_limits(&s, &dev, &err), KT_S_INVALID);
    assert_contains(err.msg, "dynamic shared memory");
    s.dynamic_smem_bytes = 0;
    s.block[0] = 0;
    assert_int_equal(kt_shape_within_limits(&s, &dev, &err), KT_S_INVALID);
    assert_contains(err.msg, "zero dimension");
}

/* A sample discarded for a throttled clock (NaN) goes over the wire as
 * null and comes back as NaN; the result is not rejected. Other
 * non-times still are. */
static void discarded_samples_survive_the_wire(void **state)
{
    double samples[] = {10.0, NAN, 12.0};
    kt_timing t = {0}, back = {0}, bad = {0};
    json_t *j;
    kt_err err;
    (void)state;

    t.kernel = (kt_stats){.n = 2,
                          .median = 11,
                          .min = 10,
                          .max = 12,
                          .mean = 11,
                          .q1 = 10.5,
                          .q3 = 11.5,
                          .ci_lo = 10,
                          .ci_hi = 12};
    t.samples_us = samples;
    t.num_rounds = 3;
    t.discarded = 1;
    j = kt_timing_to_json(&t, 1);
    assert_true(
        json_is_null(json_array_get(json_object_get(j, "samples_us"), 1)));
    assert_int_equal(kt_timing_from_json(j, &back, &err), KT_S_OK);
    assert_int_equal(back.num_rounds, 3);
    assert_true(isnan(back.samples_us[1]));
    assert_true(back.samples_us[2] == 12.0);
    json_array_set_new(json_object_get(j, "samples_us"), 1, json_real(0.0));
    assert_int_equal(kt_timing_from_json(j, &bad, &err), KT_S_INPUT);
    assert_non_null(strstr(err.msg, "samples_us[1]"));
    kt_timing_free(&back);
    kt_timing_free(&bad);
    json_decref(j);
}

/* Every reason the stopping rule gives comes back from the wire as the
 * same text (a replayed or resumed timing reads as the live one did). */
static void stop_reasons_survive_the_wire(void **state)
{
    static const char *const reasons[] = {
        "noise target",      "noise stable", "max samples",
        "time cap",          "pairs done",   "race: slower than the best",
        KT_STOP_SCREEN_FIRST};
    double samples[] = {10.0};
    kt_err err;
    (void)state;

    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; ++i) {
        kt_timing t = {0}, back = {0};
        json_t *j;
        kt_stats_compute(samples, 1, &t.kernel);
        t.samples_us = samples;
        t.num_rounds = 1;
        t.stop_reason = reasons[i];
        j = kt_timing_to_json(&t, 1);
        assert_int_equal(kt_timing_from_json(j, &back, &err), KT_S_OK);
        assert_string_equal(back.stop_reason, reasons[i]);
        kt_timing_free(&back);
        json_decref(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_set_and_format),
        cmocka_unit_test(json_round_trip_keeps_labels),
        cmocka_unit_test(discarded_samples_survive_the_wire),
        cmocka_unit_test(stop_reasons_survive_the_wire),
        cmocka_unit_test(feasibility_applies_constraints_and_limits),
        cmocka_unit_test(shape_limits_cover_every_dimension),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
