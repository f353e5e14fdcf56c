// SPDX-License-Identifier: Apache-2.0
/* NVML loaded at run time, against the simulated library of fake_nvml.c
 * (never a real GPU): reads, the counter's stairs measured into a power,
 * settings set and restored, a refusal naming the exact call, and the
 * settings of a process killed with SIGKILL restored by its parent. */
#include "tests/kt_test.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/energy.h"
#include "core/nvml.h"
#include "core/nvml_set.h"

static char state_path[256], restore_path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(state_path, sizeof state_path, "%s/fake_nvml_state.%d",
             KT_TEST_TMP, (int)getpid());
    snprintf(restore_path, sizeof restore_path, "%s/restore.%d", KT_TEST_TMP,
             (int)getpid());
    unlink(state_path);
    unlink(restore_path);
    setenv("KTUNE_NVML_LIBRARY", KT_FAKE_NVML, 1);
    setenv("KT_FAKE_NVML_STATE", state_path, 1);
    setenv("KT_FAKE_NVML_POWER_W", "300", 1);
    setenv("KT_FAKE_NVML_STEP_MS", "10", 1);
    unsetenv("KT_FAKE_NVML_REFUSE");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(state_path);
    unlink(restore_path);
    return 0;
}

static void open_fake(kt_nvml *n)
{
    kt_err err;
    kt_err_clear(&err);
    if (kt_nvml_open("0000:19:00.0", n, &err))
        fail_msg("kt_nvml_open: %s", err.msg);
}

/* The fake's state file: locked clocks and the limit. */
static void read_state(unsigned v[5])
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

static void reads_come_from_the_library_ktune_nvml_library_names(void **s)
{
    kt_nvml n;
    double w, limit, sm, mem, temp;
    kt_err err;
    (void)s;

    open_fake(&n);
    assert_int_equal(kt_nvml_power_w(&n, &w, &err), KT_S_OK);
    assert_float_equal(w, 300, 1e-9);
    assert_int_equal(kt_nvml_power_limit_w(&n, &limit, &err), KT_S_OK);
    assert_float_equal(limit, 700, 1e-9);
    assert_int_equal(kt_nvml_clock_mhz(&n, KT_NVML_CLOCK_SM, &sm, &err), 0);
    assert_int_equal(kt_nvml_clock_mhz(&n, KT_NVML_CLOCK_MEM, &mem, &err), 0);
    assert_int_equal(kt_nvml_temp_c(&n, &temp, &err), KT_S_OK);
    assert_float_equal(sm, 1980, 0);
    assert_float_equal(mem, 3201, 0);
    assert_float_equal(temp, 41, 0);
    setenv("KT_FAKE_NVML_REFUSE", "nvmlDeviceGetPowerUsage", 1);
    assert_int_equal(kt_nvml_power_w(&n, &w, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg, "nvmlDeviceGetPowerUsage failed: Not Supported");
}

/* Polls the fake's counter as the energy meter does, for until seconds. */
static size_t poll_counter(const kt_nvml *n, double until, kt_energy_change *c,
                           size_t cap)
{
    double t0 = kt_clock_seconds(), prev = t0;
    uint64_t last = 0;
    size_t k = 0;
    kt_err err;

    while (k < cap) {
        double t = kt_clock_seconds();
        uint64_t mj;
        assert_int_equal(kt_nvml_energy_mj(n, &mj, &err), KT_S_OK);
        if (k == 0 || mj != last)
            c[k++] = (kt_energy_change){t, k ? prev : t, mj};
        last = mj;
        prev = t;
        if (t - t0 > until)
            break;
    }
    return k;
}

static void the_counter_stairs_measure_the_power_they_were_made_of(void **s)
{
    kt_energy_change c[4096];
    kt_energy_span span;
    kt_nvml n;
    size_t k;
    double bound;
    kt_err err;
    (void)s;

    setenv("KT_FAKE_NVML_STEP_MS", "20", 1);
    open_fake(&n);
    k = poll_counter(&n, 0.4, c, 4096);
    assert_int_equal(kt_energy_span_of(c, k, 0.25, &span, &err), KT_S_OK);
    /* Whole steps of 6000 mJ, however many a loaded CPU's polls missed. */
    assert_int_equal(span.mj % 6000, 0);
    assert_int_equal(span.step_mj % 6000, 0);
    assert_true(span.step_s >= 0.019);
    /* The power is right to within the resolution the edges state: each
     * edge seen within its poll gap (plus a millisecond of the fake's own
     * clock against the poller's). */
    bound = (2 * span.edge_s + 0.002) / (span.t1_s - span.t0_s);
    if (fabs(span.power_w / 300 - 1) > bound)
        fail_msg("power %.2f W, 300 W expected within %.2f%%", span.power_w,
                 100 * bound);
}

static void settings_are_set_recorded_and_restored(void **s)
{
    kt_nvml_setting want = {1410, 2619, 500};
    unsigned v[5];
    char text[2048];
    FILE *f;
    size_t got;
    kt_nvml n;
    kt_err err;
    (void)s;

    open_fake(&n);
    assert_int_equal(kt_nvml_set(&n, &want, restore_path, &err), KT_S_OK);
    read_state(v);
    assert_int_equal(v[0], 1410);
    assert_int_equal(v[2], 2619);
    assert_int_equal(v[4], 500000);
    /* The restore file says how to reset by hand. */
    assert_non_null(f = fopen(restore_path, "r"));
    got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    assert_contains(text, "nvidia-smi -i 0000:19:00.0 --reset-gpu-clocks");
    assert_contains(text, "--power-limit 700");
    /* A second set keeps the original limit to restore. */
    want.limit_w = 400;
    assert_int_equal(kt_nvml_set(&n, &want, restore_path, &err), KT_S_OK);
    assert_int_equal(kt_nvml_restore(&n, restore_path, &err), KT_S_OK);
    read_state(v);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[2], 0);
    assert_int_equal(v[4], 700000);
    assert_int_equal(access(restore_path, F_OK), -1);
    /* Nothing to restore is no error. */
    assert_int_equal(kt_nvml_restore(&n, restore_path, &err), KT_S_OK);
}

static void
a_refused_setting_names_the_call_and_leaves_nothing_changed(void **s)
{
    kt_nvml_setting want = {0, 2619, 0};
    unsigned v[5];
    kt_nvml n;
    kt_err err;
    (void)s;

    open_fake(&n);
    want.gr_mhz = 1410;
    setenv("KT_FAKE_NVML_REFUSE", "nvmlDeviceSetMemoryLockedClocks", 1);
    assert_int_equal(kt_nvml_check_settable(&n, &want, restore_path, &err),
                     KT_S_INPUT);
    assert_contains(err.msg,
                    "nvmlDeviceSetMemoryLockedClocks(2619, 2619) on GPU "
                    "0000:19:00.0 was refused: Insufficient Permissions");
    /* The SM clock it had locked before the refusal is unlocked again. */
    read_state(v);
    assert_int_equal(v[0], 0);
    assert_int_equal(access(restore_path, F_OK), -1);
    unsetenv("KT_FAKE_NVML_REFUSE");
    assert_int_equal(kt_nvml_check_settable(&n, &want, restore_path, &err),
                     KT_S_OK);
    read_state(v);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[2], 0);
}

static void a_killed_process_settings_are_restored_by_its_parent(void **s)
{
    int fds[2];
    unsigned v[5];
    char ok = 0;
    pid_t pid;
    int status;
    kt_err err;
    (void)s;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        kt_nvml_setting want = {1200, 0, 450};
        kt_nvml n;
        close(fds[0]);
        if (kt_nvml_open("0000:19:00.0", &n, &err) ||
            kt_nvml_set(&n, &want, restore_path, &err))
            _exit(3);
        if (write(fds[1], "s", 1) != 1)
            _exit(4);
        for (;;)
            pause(); /* the worker, busy measuring, until killed */
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &ok, 1), 1);
    close(fds[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    read_state(v);
    assert_int_equal(v[0], 1200);
    assert_int_equal(v[4], 450000);
    /* The parent knows only the file. */
    assert_int_equal(kt_nvml_restore(NULL, restore_path, &err), KT_S_OK);
    read_state(v);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[4], 700000);
    assert_int_equal(access(restore_path, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            reads_come_from_the_library_ktune_nvml_library_names, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            the_counter_stairs_measure_the_power_they_were_made_of, setup,
            teardown),
        cmocka_unit_test_setup_teardown(settings_are_set_recorded_and_restored,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_refused_setting_names_the_call_and_leaves_nothing_changed, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            a_killed_process_settings_are_restored_by_its_parent, setup,
            teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
