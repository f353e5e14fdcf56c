// SPDX-License-Identifier: Apache-2.0
/* Device settings as dimensions of the search (nvml_gr_clock,
 * nvml_mem_clock, nvml_pwr_limit; core/nvml_set.h) through the worker
 * evaluator, against the fake worker and the simulated NVML (never a real
 * GPU): each point is measured under its own setting, set only when it
 * differs from the one in force (the simulated library logs every set
 * call in order), and the device's own settings come back at close; every
 * listed value is checked at open, and a refused or unsupported one stops
 * the job naming the value and the call; a worker killed with SIGKILL
 * between two points of different settings has them restored by its
 * parent; what a killed run left is restored by the next; and without
 * settings nothing is ever set. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/envrec.h"
#include "core/nvml_set.h"
#include "core/result_json.h"
#include "isolation/worker.h"

static kt_registry reg;
static const kt_operator *op;
static const kt_loaded_plugin *plugin;
static char state_path[256], restore_path[256], log_path[256];

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
    snprintf(log_path, sizeof log_path, "%s/settings_log.%d", KT_TEST_TMP,
             (int)getpid());
    setenv("KT_FAKE_NVML_LOG", log_path, 1);
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
    unlink(log_path);
    unsetenv("KT_FAKE_NVML_REFUSE");
    unsetenv("KT_FAKE_NVML_REFUSE_VALUE");
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

/* The set and reset calls the simulated library saw, one "FN ARG" line
 * each, joined by "; " (short names: "SetGpuLockedClocks 1410"), and the
 * log emptied. */
static void calls(char *out, size_t size)
{
    char line[256];
    FILE *f = fopen(log_path, "r");
    size_t used = 0;

    out[0] = '\0';
    while (f && fgets(line, sizeof line, f) && used < size) {
        line[strcspn(line, "\n")] = '\0';
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 used ? "; " : "", line + strlen("nvmlDevice"));
    }
    if (f)
        fclose(f);
    unlink(log_path);
}

/* The lists of values of each setting. */
static kt_nvml_choices choices(const unsigned *gr, size_t ngr,
                               const unsigned *mem, size_t nmem,
                               const unsigned *lim, size_t nlim)
{
    kt_nvml_choices c;
    memset(&c, 0, sizeof c);
    c.count[0] = (uint32_t)ngr;
    c.count[1] = (uint32_t)nmem;
    c.count[2] = (uint32_t)nlim;
    if (ngr)
        memcpy(c.values[0], gr, ngr * sizeof *gr);
    if (nmem)
        memcpy(c.values[1], mem, nmem * sizeof *mem);
    if (nlim)
        memcpy(c.values[2], lim, nlim * sizeof *lim);
    return c;
}

static kt_evaluator *open_fake(const kt_nvml_choices *s, kt_status want,
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

/* A point under setting s: "plain" for the cue blocks (256 answers
 * normally), "tiled" (which always answers normally) for the others. */
static kt_point plain_at(int64_t block, kt_nvml_setting s)
{
    kt_point pt = plain(block);
    if (block != 256) {
        kt_point_default(op, 0, &pt); /* "tiled" */
        pt.values[0] = block;
    }
    pt.nvml = s;
    return pt;
}

static kt_protocol quick(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.max_time_s = 0.5;
    return p;
}

static void
each_point_is_measured_under_its_own_setting_set_on_change(void **st)
{
    const unsigned gr[] = {1410, 1755};
    kt_nvml_choices c = choices(gr, 2, NULL, 0, NULL, 0);
    kt_protocol p = quick();
    kt_point pts[3] = {plain_at(256, (kt_nvml_setting){1755, 0, 0}),
                       plain_at(1024, (kt_nvml_setting){1410, 0, 0}),
                       plain_at(32, (kt_nvml_setting){1755, 0, 0})};
    kt_eval_result r[3];
    char log[2048];
    kt_err err;
    kt_evaluator *ev = open_fake(&c, KT_S_OK, &err);
    (void)st;

    /* The check at open: every value set and restored at once. */
    calls(log, sizeof log);
    assert_string_equal(log, "SetGpuLockedClocks 1410; ResetGpuLockedClocks 0; "
                             "SetGpuLockedClocks 1755; ResetGpuLockedClocks 0");
    assert_device_as_it_was();
    /* The points under 1755 together, one set call per change. */
    assert_int_equal(ev->ops->evaluate(ev, pts, 3, &p, r, &err), KT_S_OK);
    for (int i = 0; i < 3; ++i)
        assert_int_equal(r[i].status, KT_EVAL_OK);
    assert_float_equal(r[0].timing.median_clock_mhz, 1755, 0);
    assert_float_equal(r[1].timing.median_clock_mhz, 1410, 0);
    assert_float_equal(r[2].timing.median_clock_mhz, 1755, 0);
    calls(log, sizeof log);
    assert_string_equal(log,
                        "SetGpuLockedClocks 1755; SetGpuLockedClocks 1410");
    for (int i = 0; i < 3; ++i)
        kt_eval_result_free(&r[i]);
    /* The setting in force stays between calls: no call for 1410 again. */
    assert_int_equal(ev->ops->evaluate(ev, &pts[1], 1, &p, r, &err), KT_S_OK);
    assert_float_equal(r[0].timing.median_clock_mhz, 1410, 0);
    kt_eval_result_free(&r[0]);
    calls(log, sizeof log);
    assert_string_equal(log, "");
    /* The device's own settings back at the end. */
    ev->ops->close(ev);
    calls(log, sizeof log);
    assert_string_equal(log, "ResetGpuLockedClocks 0");
    assert_device_as_it_was();
}

static void a_setting_left_out_is_the_devices_own_put_back(void **st)
{
    const unsigned lim[] = {450, 500};
    kt_nvml_choices c = choices(NULL, 0, NULL, 0, lim, 2);
    kt_protocol p = quick();
    kt_point pts[2] = {plain_at(256, (kt_nvml_setting){0, 0, 450}),
                       plain_at(1024, (kt_nvml_setting){0, 0, 0})};
    kt_eval_result r[2];
    unsigned v[5];
    char log[2048];
    kt_err err;
    kt_evaluator *ev = open_fake(&c, KT_S_OK, &err);
    (void)st;

    calls(log, sizeof log);
    assert_int_equal(ev->ops->evaluate(ev, &pts[0], 1, &p, r, &err), KT_S_OK);
    kt_eval_result_free(&r[0]);
    device_state(v);
    assert_int_equal(v[4], 450000);
    /* A point without a setting is measured under the device's own. */
    assert_int_equal(ev->ops->evaluate(ev, &pts[1], 1, &p, r, &err), KT_S_OK);
    kt_eval_result_free(&r[0]);
    device_state(v);
    assert_int_equal(v[4], 700000);
    calls(log, sizeof log);
    assert_string_equal(log, "SetPowerManagementLimit 450000; "
                             "SetPowerManagementLimit 700000");
    ev->ops->close(ev);
    assert_device_as_it_was();
}

/* Opening with c is refused at once, bad input, naming the setting and
 * its value (what), then the call and its arguments (call). */
static void expect_refused_at_open(const kt_nvml_choices *c, const char *what,
                                   const char *call)
{
    char want[512];
    kt_err err;

    assert_null(open_fake(c, KT_S_INPUT, &err));
    snprintf(want, sizeof want,
             "%s: %s on GPU 0000:19:00.0 was refused: Insufficient "
             "Permissions (NVML error 4); the device does not let this user "
             "change it",
             what, call);
    assert_string_equal(err.msg, want);
}

static void a_refused_setting_stops_the_job_at_open_naming_the_call(void **st)
{
    const unsigned mem[] = {2619};
    kt_nvml_choices c = choices(NULL, 0, mem, 1, NULL, 0);
    (void)st;

    setenv("KT_FAKE_NVML_REFUSE", "nvmlDeviceSetMemoryLockedClocks", 1);
    expect_refused_at_open(&c, "nvml_mem_clock = 2619",
                           "nvmlDeviceSetMemoryLockedClocks(2619, 2619)");
    assert_device_as_it_was();
}

static void
one_refused_value_of_a_list_is_named_before_any_measurement(void **st)
{
    const unsigned gr[] = {1410, 1755, 1980};
    kt_nvml_choices c = choices(gr, 3, NULL, 0, NULL, 0);
    char log[2048];
    (void)st;

    setenv("KT_FAKE_NVML_REFUSE_VALUE", "1755", 1);
    expect_refused_at_open(&c, "nvml_gr_clock = 1755",
                           "nvmlDeviceSetGpuLockedClocks(1755, 1755)");
    /* 1410 was tried and put back; 1980 never tried. */
    calls(log, sizeof log);
    assert_string_equal(log, "SetGpuLockedClocks 1410; ResetGpuLockedClocks 0; "
                             "SetGpuLockedClocks 1755");
    assert_device_as_it_was();
}

static void an_unsupported_value_is_named_with_the_supported_ones(void **st)
{
    const unsigned gr[] = {1410, 1985}, mem[] = {2619, 3000}, lim[] = {150};
    kt_nvml_choices c = choices(gr, 2, NULL, 0, NULL, 0);
    char log[2048];
    kt_err err;
    (void)st;

    assert_null(open_fake(&c, KT_S_INPUT, &err));
    assert_string_equal(err.msg,
                        "nvml_gr_clock = 1985: GPU 0000:19:00.0 does not "
                        "support it: nvmlDeviceGetSupportedGraphicsClocks at "
                        "memory clock 3201 MHz gives 119 clocks (210 to 1980 "
                        "MHz), not this one");
    c = choices(NULL, 0, mem, 2, NULL, 0);
    assert_null(open_fake(&c, KT_S_INPUT, &err));
    assert_contains(err.msg, "nvml_mem_clock = 3000: GPU 0000:19:00.0 does not "
                             "support it: nvmlDeviceGetSupportedMemoryClocks "
                             "gives 3 clocks (1593 to 3201 MHz)");
    c = choices(NULL, 0, NULL, 0, lim, 1);
    assert_null(open_fake(&c, KT_S_INPUT, &err));
    assert_string_equal(err.msg, "nvml_pwr_limit = 150: GPU 0000:19:00.0 does "
                                 "not allow it: "
                                 "nvmlDeviceGetPowerManagementLimitConstraints "
                                 "gives 200 to 700 W");
    /* Found before anything was set. */
    calls(log, sizeof log);
    assert_string_equal(log, "");
    assert_device_as_it_was();
}

/* Only what the job lists, and so was checked at open, is ever set: a
 * point that asks for another setting (a journal of another job given to
 * compare) is bad input before any sample, and nothing is called. */
static void a_setting_the_job_does_not_list_is_never_set(void **st)
{
    const unsigned lim[] = {500};
    kt_nvml_choices c = choices(NULL, 0, NULL, 0, lim, 1);
    kt_protocol p = quick();
    kt_point pt = plain_at(256, (kt_nvml_setting){0, 0, 450});
    kt_eval_result r;
    char log[2048];
    kt_err err;
    kt_evaluator *ev;
    (void)st;

    ev = open_fake(&c, KT_S_OK, &err);
    calls(log, sizeof log);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_INPUT);
    assert_string_equal(err.msg, "a point asks for nvml_pwr_limit=450, which "
                                 "is not among the device settings the job "
                                 "lists (only those are checked and set)");
    assert_int_equal(r.timing.num_rounds, 0);
    kt_eval_result_free(&r);
    calls(log, sizeof log);
    assert_string_equal(log, "");
    ev->ops->close(ev);
    assert_device_as_it_was();
}

static void
a_worker_killed_between_two_settings_has_its_parent_restore(void **st)
{
    const unsigned gr[] = {1200, 1410}, mem[] = {2619};
    kt_point pts[2] = {plain_at(256, (kt_nvml_setting){1200, 2619, 0}),
                       plain_at(1024, (kt_nvml_setting){1410, 2619, 0})};
    kt_nvml_choices c = choices(gr, 2, mem, 1, NULL, 0);
    kt_protocol p = quick();
    kt_eval_result r[2];
    kt_evaluator *ev;
    kt_err err;
    char log[2048];
    unsigned v[5];
    (void)st;

    setenv("KT_FAKE_MODE", "sigkill-between", 1);
    ev = open_fake(&c, KT_S_OK, &err);
    calls(log, sizeof log);
    assert_int_equal(ev->ops->evaluate(ev, pts, 2, &p, r, &err), KT_S_OK);
    /* The worker died with 1410 and 2619 locked, the parent put both
     * back at once; each point, tried again alone in a fresh worker, was
     * measured under its own setting. */
    calls(log, sizeof log);
    assert_contains(log, "SetGpuLockedClocks 1200; "
                         "SetMemoryLockedClocks 2619; "
                         "SetGpuLockedClocks 1410; "
                         "ResetGpuLockedClocks 0; "
                         "ResetMemoryLockedClocks 0; ");
    for (int i = 0; i < 2; ++i) {
        assert_int_equal(r[i].status, KT_EVAL_OK);
        assert_float_equal(r[i].timing.median_clock_mhz, gr[i], 0);
        kt_eval_result_free(&r[i]);
    }
    ev->ops->close(ev);
    device_state(v);
    assert_int_equal(v[0] + v[1] + v[2] + v[3], 0);
    assert_device_as_it_was();
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
    kt_protocol p = quick();
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

static void a_point_carries_its_setting_in_its_record(void **st)
{
    kt_point pt = plain_at(256, (kt_nvml_setting){1410, 2619, 450}), back;
    json_t *j = kt_point_to_json(op, &pt);
    char text[256];
    kt_err err;
    (void)st;

    assert_int_equal(kt_point_from_json(op, j, &back, &err), KT_S_OK);
    json_decref(j);
    assert_true(kt_point_equal(&pt, &back));
    kt_point_format(op, &pt, text, sizeof text);
    assert_string_equal(text, "plain block=256 nvml_gr_clock=1410 "
                              "nvml_mem_clock=2619 nvml_pwr_limit=450");
    /* A point without one reads and prints as before. */
    pt = plain(256);
    j = kt_point_to_json(op, &pt);
    assert_null(json_object_get(j, "nvml"));
    json_decref(j);
    back.nvml.gr_mhz = 1;
    assert_false(kt_point_equal(&pt, &back));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(
            each_point_is_measured_under_its_own_setting_set_on_change, fresh),
        cmocka_unit_test_setup(a_setting_left_out_is_the_devices_own_put_back,
                               fresh),
        cmocka_unit_test_setup(
            a_refused_setting_stops_the_job_at_open_naming_the_call, fresh),
        cmocka_unit_test_setup(
            one_refused_value_of_a_list_is_named_before_any_measurement, fresh),
        cmocka_unit_test_setup(
            an_unsupported_value_is_named_with_the_supported_ones, fresh),
        cmocka_unit_test_setup(a_setting_the_job_does_not_list_is_never_set,
                               fresh),
        cmocka_unit_test_setup(
            a_worker_killed_between_two_settings_has_its_parent_restore, fresh),
        cmocka_unit_test_setup(what_a_killed_run_left_the_next_run_restores,
                               fresh),
        cmocka_unit_test_setup(without_settings_nothing_is_ever_set, fresh),
        cmocka_unit_test_setup(a_point_carries_its_setting_in_its_record,
                               fresh),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
