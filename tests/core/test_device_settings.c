// SPDX-License-Identifier: Apache-2.0
/* Device settings as job parameters (nvml_gr_clock, nvml_mem_clock,
 * nvml_pwr_limit; core/nvml_set.h) through the worker evaluator, against
 * the fake worker and the simulated NVML (never a real GPU): a setting is
 * in force while a call is measured and restored after; a refusal stops
 * the job at open, or the call, with the exact NVML call and its error; a
 * worker killed with SIGKILL while the settings are in force has them
 * restored by its parent; what a killed run left is restored by the next;
 * and without settings nothing is ever set. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/envrec.h"
#include "core/nvml_set.h"
#include "isolation/worker.h"

static kt_registry reg;
static const kt_operator *op;
static const kt_loaded_plugin *plugin;
static char state_path[256], restore_path[256];

static int load(void **state)
{
    kt_err err;
    (void)state;
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_TEST_PLUGIN_DIR "/good_plugin.so",
                              &err) ||
        kt_registry_resolve(&reg, "good:scale", &plugin, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(state_path, sizeof state_path, "%s/settings_state.%d", KT_TEST_TMP,
             (int)getpid());
    snprintf(restore_path, sizeof restore_path, "%s/settings_restore.%d",
             KT_TEST_TMP, (int)getpid());
    setenv("KTUNE_NVML_LIBRARY", KT_FAKE_NVML, 1);
    setenv("KT_FAKE_NVML_STATE", state_path, 1);
    setenv("KTUNE_NVML_RESTORE", restore_path, 1);
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static int fresh(void **state)
{
    (void)state;
    unlink(state_path);
    unlink(restore_path);
    unsetenv("KT_FAKE_NVML_REFUSE");
    unsetenv("KT_FAKE_MODE");
    return 0;
}

/* The simulated device's settings: locked SM and memory clocks (0: not
 * locked) and the limit in mW; the defaults when nothing was ever set. */
static void device_state(unsigned v[5])
{
    FILE *f = fopen(state_path, "r");
    v[0] = v[1] = v[2] = v[3] = 0;
    v[4] = 700000;
    if (!f)
        return;
    assert_int_equal(
        fscanf(f, "%u %u %u %u %u", &v[0], &v[1], &v[2], &v[3], &v[4]), 5);
    fclose(f);
}

static void assert_device_as_it_was(void)
{
    unsigned v[5];
    device_state(v);
    assert_int_equal(v[0] + v[1] + v[2] + v[3], 0);
    assert_int_equal(v[4], 700000);
    assert_int_not_equal(access(restore_path, F_OK), 0);
}

static kt_evaluator *open_fake(const kt_nvml_setting *s, kt_status want,
                               kt_err *err)
{
    kt_eval_spec spec;
    kt_worker_options opt = {KT_FAKE_WORKER, 5.0, 1.0};
    kt_evaluator *ev = NULL;
    memset(&spec, 0, sizeof spec);
    spec.plugin = plugin;
    spec.op = op;
    spec.sizes[0] = 1024;
    if (s)
        spec.nvml = *s;
    kt_err_clear(err);
    assert_int_equal(kt_worker_open(&spec, &opt, &ev, err), want);
    return ev;
}

static kt_point plain(int64_t block)
{
    kt_point pt;
    kt_point_default(op, 1, &pt); /* "plain" */
    pt.values[0] = block;
    return pt;
}

static kt_protocol with(const kt_nvml_setting *s)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.max_time_s = 0.5;
    if (s)
        p.nvml = *s;
    return p;
}

static void a_setting_is_in_force_while_measuring_and_restored_after(void **st)
{
    kt_nvml_setting s = {1410, 0, 450};
    kt_protocol p = with(&s);
    kt_point pt = plain(256);
    kt_eval_result r;
    kt_err err;
    kt_evaluator *ev = open_fake(&s, KT_S_OK, &err);
    (void)st;

    /* The check at open set and restored at once. */
    assert_device_as_it_was();
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    /* The fake worker read the SM clock while measuring: the locked one. */
    assert_float_equal(r.timing.median_clock_mhz, 1410, 0);
    kt_eval_result_free(&r);
    assert_device_as_it_was();
    ev->ops->close(ev);
    assert_device_as_it_was();
}

static void a_refused_setting_stops_the_job_at_open_naming_the_call(void **st)
{
    kt_nvml_setting s = {0, 2619, 0};
    kt_err err;
    (void)st;

    setenv("KT_FAKE_NVML_REFUSE", "nvmlDeviceSetMemoryLockedClocks", 1);
    assert_null(open_fake(&s, KT_S_INPUT, &err));
    assert_string_equal(err.msg,
                        "nvmlDeviceSetMemoryLockedClocks(2619, 2619) on GPU "
                        "0000:19:00.0 was refused: Insufficient Permissions "
                        "(NVML error 4); the device does not let this user "
                        "change it");
    assert_device_as_it_was();
}

static void a_refusal_in_a_call_is_bad_input_before_any_sample(void **st)
{
    kt_nvml_setting s = {0, 0, 450};
    kt_protocol p = with(&s);
    kt_point pt = plain(256);
    kt_eval_result r;
    kt_err err;
    kt_evaluator *ev;
    (void)st;

    /* The worker reads its cues when it starts. */
    setenv("KT_FAKE_NVML_REFUSE", "nvmlDeviceSetPowerManagementLimit", 1);
    ev = open_fake(NULL, KT_S_OK, &err);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_INPUT);
    assert_contains(err.msg, "nvmlDeviceSetPowerManagementLimit(450000) on GPU "
                             "0000:19:00.0 was refused: Insufficient "
                             "Permissions (NVML error 4)");
    assert_int_equal(r.timing.num_rounds, 0);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
    assert_device_as_it_was();
}

static void a_worker_killed_while_set_has_its_parent_restore(void **st)
{
    kt_nvml_setting s = {1200, 2619, 500};
    kt_protocol p = with(&s);
    kt_point pt = plain(256);
    kt_eval_result r;
    kt_err err;
    kt_evaluator *ev;
    (void)st;

    setenv("KT_FAKE_MODE", "sigkill-measuring", 1);
    ev = open_fake(&s, KT_S_OK, &err);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_CRASH);
    assert_contains(r.reason, "killed by signal 9");
    kt_eval_result_free(&r);
    assert_device_as_it_was();
    ev->ops->close(ev);
}

/* A run killed outright (worker and all) leaves the restore file, which
 * holds the commands that reset by hand; the next run puts the settings
 * back before anything else. */
static void what_a_killed_run_left_the_next_run_restores(void **st)
{
    kt_nvml_setting s = {1410, 0, 450};
    kt_nvml n;
    unsigned v[5];
    char text[2048];
    size_t len;
    FILE *f;
    kt_err err;
    kt_evaluator *ev;
    (void)st;

    assert_int_equal(kt_nvml_open("0000:19:00.0", &n, &err), KT_S_OK);
    assert_int_equal(kt_nvml_set(&n, &s, restore_path, &err), KT_S_OK);
    device_state(v);
    assert_int_equal(v[1], 1410);
    assert_int_equal(v[4], 450000);
    assert_non_null(f = fopen(restore_path, "r"));
    len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    assert_contains(text, "nvidia-smi -i 0000:19:00.0 --reset-gpu-clocks");
    assert_contains(text, "nvidia-smi -i 0000:19:00.0 --power-limit 700");
    ev = open_fake(NULL, KT_S_OK, &err);
    assert_device_as_it_was();
    ev->ops->close(ev);
}

static void without_settings_nothing_is_ever_set(void **st)
{
    kt_protocol p = with(NULL);
    kt_point pt = plain(256);
    kt_eval_result r;
    kt_err err;
    kt_evaluator *ev;
    (void)st;

    /* Every set function refused: a call that tried one would fail. */
    setenv("KT_FAKE_NVML_REFUSE",
           "nvmlDeviceSetGpuLockedClocks nvmlDeviceSetMemoryLockedClocks "
           "nvmlDeviceSetPowerManagementLimit",
           1);
    ev = open_fake(NULL, KT_S_OK, &err);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
    /* The simulated device never saved a state: nothing was set. */
    assert_int_not_equal(access(state_path, F_OK), 0);
    assert_int_not_equal(access(restore_path, F_OK), 0);
}

static void the_protocol_record_carries_the_settings(void **st)
{
    kt_nvml_setting s = {1410, 2619, 450};
    kt_protocol p = with(&s), back;
    json_t *j = kt_env_protocol(&p);
    char text[128];
    kt_err err;
    (void)st;

    assert_int_equal(kt_protocol_from_json(j, &back, &err), KT_S_OK);
    json_decref(j);
    assert_int_equal(back.nvml.gr_mhz, 1410);
    assert_int_equal(back.nvml.mem_mhz, 2619);
    assert_int_equal(back.nvml.limit_w, 450);
    kt_nvml_setting_text(&s, text, sizeof text);
    assert_string_equal(text, "nvml_gr_clock=1410 nvml_mem_clock=2619 "
                              "nvml_pwr_limit=450");
    p = with(NULL);
    j = kt_env_protocol(&p);
    assert_null(json_object_get(j, "nvml"));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(
            a_setting_is_in_force_while_measuring_and_restored_after, fresh),
        cmocka_unit_test_setup(
            a_refused_setting_stops_the_job_at_open_naming_the_call, fresh),
        cmocka_unit_test_setup(
            a_refusal_in_a_call_is_bad_input_before_any_sample, fresh),
        cmocka_unit_test_setup(a_worker_killed_while_set_has_its_parent_restore,
                               fresh),
        cmocka_unit_test_setup(what_a_killed_run_left_the_next_run_restores,
                               fresh),
        cmocka_unit_test_setup(without_settings_nothing_is_ever_set, fresh),
        cmocka_unit_test_setup(the_protocol_record_carries_the_settings, fresh),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
