// SPDX-License-Identifier: Apache-2.0
/* Protocol defaults are nvbench's stopping rule in the cold-cache mode,
 * out-of-range fields are named, and the host record keeps the whole
 * command line. */
#include "tests/kt_test.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/envrec.h"
#include "core/protocol.h"

static void defaults_follow_the_methodology(void **state)
{
    kt_protocol p;
    kt_err err;
    (void)state;
    kt_protocol_defaults(&p);
    assert_int_equal(p.min_samples, 10);
    assert_float_equal(p.min_time_s, 0.5, 0);
    assert_float_equal(p.target_noise, 0.005, 0);
    assert_float_equal(p.max_time_s, 15.0, 0);
    assert_int_equal(p.cache, KT_CACHE_COLD);
    assert_true(p.warmups > 0);
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_OK);
    assert_string_equal(kt_cache_mode_name(p.cache), "cold");
}

static void bad_fields_are_named(void **state)
{
    kt_protocol p;
    kt_err err;
    (void)state;
    kt_protocol_defaults(&p);
    p.max_samples = 5;
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "samples: min 10, max 5");
    kt_protocol_defaults(&p);
    p.target_noise = 1.5;
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "noise target");
    kt_protocol_defaults(&p);
    p.max_time_s = 0;
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "time:");
    kt_protocol_defaults(&p);
    p.race = 0.005;
    p.screen_samples = p.min_samples + 1; /* a screen looks first */
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "screen:");
    p.screen_samples = 3;
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_OK);
    p.race = 0; /* nothing would stop a screened point */
    assert_int_equal(kt_protocol_validate(&p, &err), KT_S_INPUT);
    assert_contains(err.msg, "race > 0");
}

/* A choice that changes what is measured is in the protocol record of the
 * result and travels to a worker with it; the defaults add nothing, so
 * records made before read the same. */
static void measurement_choices_are_recorded_and_read_back(void **state)
{
    kt_protocol p, back;
    json_t *j;
    kt_err err;
    (void)state;
    kt_protocol_defaults(&p);
    j = kt_env_protocol(&p);
    assert_null(json_object_get(j, "round_sync"));
    assert_null(json_object_get(j, "profile_flush"));
    json_decref(j);
    p.round_sync = 1;
    p.profile_flush_sweep = 1;
    j = kt_env_protocol(&p);
    assert_true(json_is_true(json_object_get(j, "round_sync")));
    assert_string_equal(json_string_value(json_object_get(j, "profile_flush")),
                        "sweep");
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_int_equal(back.round_sync, 1);
    assert_int_equal(back.profile_flush_sweep, 1);
    json_decref(j);
}

/* A bar per unit of work becomes each point's time bar by its own work,
 * travels to a worker with the call's protocol, and gives no bar where
 * the work is unknown or the bar is off. */
static void a_bar_per_unit_of_work_scales_with_the_points_work(void **state)
{
    kt_protocol p, back;
    json_t *j;
    kt_err err;
    (void)state;
    kt_protocol_defaults(&p);
    assert_true(kt_protocol_bar_of_work(&p, 1e9, 1e9) == 0);
    p.race_bar_us_per_work = 2e-7; /* 5,000 GFLOP/s */
    p.race_bar_work = KT_BAR_FLOPS;
    assert_true(fabs(kt_protocol_bar_of_work(&p, 1e9, 4e6) - 200.0) < 1e-9);
    assert_true(fabs(kt_protocol_bar_of_work(&p, 2e9, 4e6) - 400.0) < 1e-9);
    assert_true(kt_protocol_bar_of_work(&p, 0, 4e6) == 0);
    j = kt_env_protocol(&p);
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_true(back.race_bar_us_per_work == p.race_bar_us_per_work);
    assert_int_equal(back.race_bar_work, KT_BAR_FLOPS);
    json_decref(j);
    p.race_bar_work = KT_BAR_BYTES;
    assert_true(fabs(kt_protocol_bar_of_work(&p, 1e9, 4e6) - 0.8) < 1e-12);
    j = kt_env_protocol(&p);
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_int_equal(back.race_bar_work, KT_BAR_BYTES);
    /* A unit it does not know races nothing. */
    json_object_set_new(json_object_get(j, "race_bar_per_work"), "per",
                        json_string("furlong"));
    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    assert_int_equal(back.race_bar_work, KT_BAR_NONE);
    assert_true(kt_protocol_bar_of_work(&back, 1e9, 4e6) == 0);
    json_decref(j);
    p.race_bar_us_per_work = -1;
    assert_int_not_equal(kt_protocol_validate(&p, &err), KT_S_OK);
}

/* A record names the run it came from: a command line far longer than any
 * buffer a record might have had (here 20,000 characters) comes back whole,
 * with its date in ISO 8601 UTC. */
static void the_host_record_keeps_the_whole_command_line(void **state)
{
    enum { ARGS = 2000, LEN = 9 };
    char *argv[ARGS], *expected = malloc(ARGS * (LEN + 1));
    char *at = expected;
    json_t *host;
    const char *cmd, *date;

    (void)state;
    assert_non_null(expected);
    for (int i = 0; i < ARGS; ++i) {
        argv[i] = malloc(LEN + 1);
        assert_non_null(argv[i]);
        snprintf(argv[i], LEN + 1, "--arg%04d", i);
        at += sprintf(at, "%s%s", i ? " " : "", argv[i]);
    }
    host = kt_env_host(ARGS, argv);
    assert_non_null(host);
    cmd = json_string_value(json_object_get(host, "command_line"));
    date = json_string_value(json_object_get(host, "date"));
    assert_non_null(cmd);
    assert_int_equal(strlen(cmd), (size_t)(ARGS * (LEN + 1) - 1));
    assert_string_equal(cmd, expected);
    assert_non_null(date);
    assert_int_equal(strlen(date), 20);
    assert_true(date[4] == '-' && date[10] == 'T' && date[19] == 'Z');
    json_decref(host);
    for (int i = 0; i < ARGS; ++i)
        free(argv[i]);
    free(expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_follow_the_methodology),
        cmocka_unit_test(bad_fields_are_named),
        cmocka_unit_test(measurement_choices_are_recorded_and_read_back),
        cmocka_unit_test(a_bar_per_unit_of_work_scales_with_the_points_work),
        cmocka_unit_test(the_host_record_keeps_the_whole_command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
