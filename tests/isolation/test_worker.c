// SPDX-License-Identifier: Apache-2.0
/* Worker supervision without a GPU, against a fake worker that crashes,
 * hangs, loses its context or fails its handshake on cue: every failure
 * costs one point, is named, and the evaluator goes on with a new worker. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/msg.h"
#include "core/settings.h"
#include "isolation/worker.h"

static kt_registry reg;
static const kt_operator *op;
static const kt_loaded_plugin *plugin;

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
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static kt_evaluator *open_fake(kt_status want, kt_err *err)
{
    kt_eval_spec spec;
    kt_worker_options opt = {KT_FAKE_WORKER, 5.0, 1.0};
    kt_evaluator *ev = NULL;
    memset(&spec, 0, sizeof spec);
    spec.plugin = plugin;
    spec.op = op;
    spec.sizes[0] = 1024;
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

static kt_protocol quick(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.max_time_s = 0.5;
    return p;
}

static void healthy_points_come_back_measured(void **state)
{
    kt_err err;
    kt_evaluator *ev = open_fake(KT_S_OK, &err);
    kt_point pt = plain(256);
    kt_protocol p = quick();
    kt_eval_result r;
    (void)state;
    assert_string_equal(ev->ops->device(ev)->name, "Fake H200");
    assert_int_equal(ev->ops->device(ev)->sm_count, 132);
    assert_float_equal(ev->ops->work(ev)->bytes_read, 4096.0, 0);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    assert_int_equal(r.timing.num_rounds, 20);
    assert_float_equal(r.timing.kernel.median, 25.61, 0.011);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
}

static void a_crash_costs_one_point_and_is_named(void **state)
{
    kt_err err;
    kt_evaluator *ev = open_fake(KT_S_OK, &err);
    kt_point crash = plain(64), fine = plain(256);
    kt_protocol p = quick();
    kt_eval_result r;
    double t0;
    (void)state;
    assert_int_equal(ev->ops->evaluate(ev, &crash, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_CRASH);
    assert_contains(r.reason, "killed by signal 11");
    /* A new worker serves the next point. */
    assert_int_equal(ev->ops->evaluate(ev, &fine, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    kt_eval_result_free(&r);
    /* The crashed point is remembered, not sent again. */
    t0 = now();
    assert_int_equal(ev->ops->evaluate(ev, &crash, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_CRASH);
    assert_true(now() - t0 < 0.2);
    ev->ops->close(ev);
}

/* A worker that dies while compiling (its compile markers left) may have
 * died of another point's kernel, compiled ahead: the point in flight is
 * tried once more, in a fresh worker, and gets that worker's answer. */
static void a_death_while_compiling_is_retried_once(void **state)
{
    char cache[128], cmd[200];
    kt_err err;
    kt_evaluator *ev;
    kt_point pt = plain(256);
    kt_protocol p = quick();
    kt_eval_result r;
    (void)state;
    snprintf(cache, sizeof cache, "/tmp/ktune-test-die-compiling-%ld",
             (long)getpid());
    setenv("KTUNE_CACHE_DIR", cache, 1);
    setenv("KT_FAKE_MODE", "die-compiling", 1);
    ev = open_fake(KT_S_OK, &err);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_INVALID);
    assert_contains(r.reason, "the compiler died on this kernel");
    kt_eval_result_free(&r);
    ev->ops->close(ev);
    unsetenv("KT_FAKE_MODE");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    assert_int_equal(system(cmd), 0);
}

static void a_hang_is_killed_and_its_neighbour_still_measured(void **state)
{
    kt_err err;
    kt_evaluator *ev = open_fake(KT_S_OK, &err);
    kt_point pts[2] = {plain(256), plain(128)};
    kt_protocol p = quick();
    kt_eval_result r[2];
    (void)state;
    assert_int_equal(ev->ops->evaluate(ev, pts, 2, &p, r, &err), KT_S_OK);
    assert_int_equal(r[0].status, KT_EVAL_OK);
    assert_int_equal(r[1].status, KT_EVAL_TIMEOUT);
    assert_contains(r[1].reason, "no result within");
    kt_eval_result_free(&r[0]);
    ev->ops->close(ev);
}

static void a_lost_context_marks_the_faulting_point(void **state)
{
    kt_err err;
    kt_evaluator *ev = open_fake(KT_S_OK, &err);
    kt_point pts[2] = {plain(512), plain(256)};
    kt_protocol p = quick();
    kt_eval_result r[2];
    (void)state;
    assert_int_equal(ev->ops->evaluate(ev, pts, 2, &p, r, &err), KT_S_OK);
    assert_int_equal(r[0].status, KT_EVAL_EXEC);
    assert_contains(r[0].reason, "illegal memory access");
    assert_int_equal(r[1].status, KT_EVAL_OK);
    kt_eval_result_free(&r[1]);
    ev->ops->close(ev);
}

static void profiles_travel_through_the_worker(void **state)
{
    kt_err err;
    kt_evaluator *ev = open_fake(KT_S_OK, &err);
    const char *names[] = {"dram__bytes_read.sum", "sm__throughput.avg"};
    kt_profile_request req = {names, 2, 0};
    kt_profile_result r;
    kt_point fine = plain(256), crash = plain(64);
    (void)state;
    assert_non_null(ev->ops->profile);
    assert_int_equal(ev->ops->profile(ev, &fine, &req, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    assert_int_equal(r.counters, KT_S_OK);
    assert_int_equal(r.num_values, 2);
    assert_float_equal(r.values[1], 2.0, 0);
    assert_int_equal(r.kernel.num_regs, 12);
    assert_int_equal(r.stats.passes, 3);
    assert_int_equal(r.stats.launches, 0);
    kt_profile_result_free(&r);
    /* Launches per pass reach the worker and their count comes back; an
     * explicit 1 too (not the default's 0, which is the worker's 3). */
    req.launches = 5;
    assert_int_equal(ev->ops->profile(ev, &fine, &req, &r, &err), KT_S_OK);
    assert_int_equal(r.stats.launches, 5);
    kt_profile_result_free(&r);
    req.launches = 1;
    assert_int_equal(ev->ops->profile(ev, &fine, &req, &r, &err), KT_S_OK);
    assert_int_equal(r.stats.launches, 1);
    kt_profile_result_free(&r);
    req.launches = 0;
    /* A crash while profiling costs the point, not the session. */
    assert_int_equal(ev->ops->profile(ev, &crash, &req, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_CRASH);
    assert_contains(r.reason, "profiling: the worker killed by signal 11");
    assert_int_equal(ev->ops->profile(ev, &fine, &req, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    kt_profile_result_free(&r);
    /* A name check needs no point. */
    req.check_only = 1;
    assert_int_equal(ev->ops->profile(ev, NULL, &req, &r, &err), KT_S_OK);
    kt_profile_result_free(&r);
    ev->ops->close(ev);
}

static void open_failures_are_reported_with_their_status(void **state)
{
    kt_err err;
    (void)state;
    setenv("KT_FAKE_MODE", "no-device", 1);
    open_fake(KT_S_NO_DEVICE, &err);
    assert_contains(err.msg, "no CUDA device found");
    setenv("KT_FAKE_MODE", "old", 1);
    open_fake(KT_S_IO, &err);
    assert_contains(err.msg, "worker message version 99, expected 1");
    setenv("KT_FAKE_MODE", "die-on-open", 1);
    open_fake(KT_S_CRASHED, &err);
    assert_contains(err.msg, "exited with status 5");
    unsetenv("KT_FAKE_MODE");
}

static void a_missing_executable_is_named(void **state)
{
    kt_eval_spec spec;
    kt_worker_options opt = {"/nonexistent/ktune", 5.0, 1.0};
    kt_evaluator *ev = NULL;
    kt_err err;
    (void)state;
    memset(&spec, 0, sizeof spec);
    spec.plugin = plugin;
    spec.op = op;
    spec.sizes[0] = 1024;
    assert_int_not_equal(kt_worker_open(&spec, &opt, &ev, &err), KT_S_OK);
    assert_contains(err.msg, "exited with status 127");
}

/* The worker's exit (a CUDA context's teardown) is not waited for when the
 * evaluator lets go of the device, but a worker started after it waits
 * until it has exited: two never hold one GPU at once. */
/* ktune's own environment is never changed to start a worker: the worker
 * is told the command in its arguments and gets its hardware queues in
 * its environment, unless the user chose them. */
static void a_worker_is_started_with_its_command_and_queues(void **state)
{
    const char *log = "show_start.log";
    char text[512];
    kt_err err;
    kt_evaluator *ev;
    size_t n;
    FILE *f;
    (void)state;

    remove(log);
    setenv("KT_FAKE_MODE", "show-start", 1);
    setenv("KT_FAKE_LOG", log, 1);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    kt_msg_set_command("tune");
    ev = open_fake(KT_S_OK, &err);
    ev->ops->close(ev);
    assert_null(getenv("CUDA_DEVICE_MAX_CONNECTIONS"));
    assert_non_null(f = fopen(log, "r"));
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_string_equal(
        text, "worker\n--fd\n3\n--command\ntune\n"
              "CUDA_DEVICE_MAX_CONNECTIONS=" KT_WORKER_CONNECTIONS "\n");
    /* The user's own choice is kept. */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8", 1);
    ev = open_fake(KT_S_OK, &err);
    ev->ops->close(ev);
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    unsetenv("KT_FAKE_MODE");
    unsetenv("KT_FAKE_LOG");
    kt_msg_set_command(NULL);
    assert_non_null(f = fopen(log, "r"));
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_non_null(strstr(text, "CUDA_DEVICE_MAX_CONNECTIONS=8\n"));
}

/* The worker reads its parent's settings record, from the open message,
 * not its own environment: a setting of the record that the environment
 * does not hold reaches the worker's libraries (the cache folder here). */
static void a_setting_of_the_parents_record_reaches_the_worker(void **state)
{
    const char *log = "show_settings.log";
    kt_worker_options opt = {KT_FAKE_WORKER, 5.0, 1.0};
    kt_evaluator *ev = NULL;
    kt_eval_spec spec;
    kt_settings rec;
    char text[1024];
    kt_err err;
    size_t n;
    FILE *f;
    (void)state;

    char *cache = getenv("KTUNE_CACHE_DIR");

    cache = cache ? strdup(cache) : NULL;
    remove(log);
    setenv("KT_FAKE_MODE", "show-settings", 1);
    setenv("KT_FAKE_LOG", log, 1);
    unsetenv("KTUNE_CACHE_DIR");
    kt_settings_read(&rec);
    rec.ktune_cache_dir = "/the/parents/record";
    memset(&spec, 0, sizeof spec);
    spec.plugin = plugin;
    spec.op = op;
    spec.sizes[0] = 1024;
    spec.settings = &rec;
    assert_int_equal(kt_worker_open(&spec, &opt, &ev, &err), KT_S_OK);
    ev->ops->close(ev);
    unsetenv("KT_FAKE_MODE");
    unsetenv("KT_FAKE_LOG");
    assert_null(getenv("KTUNE_CACHE_DIR"));
    if (cache)
        setenv("KTUNE_CACHE_DIR", cache, 1);
    free(cache);
    assert_non_null(f = fopen(log, "r"));
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_string_equal(text, "KTUNE_CACHE_DIR=/the/parents/record\n"
                              "cache root /the/parents/record\n");
}

static void
a_closing_worker_exits_in_the_background_before_the_next(void **state)
{
    const char *log = "slow_exit.log";
    kt_err err;
    kt_evaluator *ev;
    kt_point pt = plain(256);
    kt_protocol p = quick();
    kt_eval_result r;
    double t0, released_s, start1 = 0, exit1 = 0, start2 = 0;
    char what[16];
    double when;
    FILE *f;
    (void)state;

    remove(log);
    setenv("KT_FAKE_MODE", "slow-exit", 1);
    setenv("KT_FAKE_LOG", log, 1);
    ev = open_fake(KT_S_OK, &err);
    t0 = now();
    ev->ops->release(ev);
    released_s = now() - t0;
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    assert_int_equal(r.status, KT_EVAL_OK);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
    unsetenv("KT_FAKE_MODE");
    unsetenv("KT_FAKE_LOG");
    /* The first worker took 0.3 s to exit; letting go took far less. */
    assert_true(released_s < 0.2);
    assert_non_null(f = fopen(log, "r"));
    while (fscanf(f, "%15s %lf", what, &when) == 2) {
        if (strcmp(what, "start") == 0)
            *(start1 == 0 ? &start1 : &start2) = when;
        else if (strcmp(what, "exit") == 0 && exit1 == 0)
            exit1 = when;
    }
    fclose(f);
    assert_true(start1 > 0 && exit1 > start1 && start2 > 0);
    assert_true(start2 >= exit1);
}

/* The "stated timeout" of a point is its whole cost to the parent: from
 * when the point is sent until evaluate() returns with it "timeout", even
 * when the worker ignores SIGTERM and its death takes seconds to reach the
 * parent (the driver tearing down a context whose kernel still runs). The
 * next worker still waits for it: two never hold one GPU at once. */
static void
a_hang_costs_its_stated_limit_though_the_worker_dies_slowly(void **state)
{
    const char *log = "slow_death.log";
    kt_err err;
    kt_evaluator *ev;
    kt_point hang = plain(128), fine = plain(256);
    kt_protocol p = quick(); /* max_time 0.5 s; timeout 1 s: limit 1.5 s */
    kt_eval_result r;
    double t0, cost, next_s, when = 0;
    char what[16], line[64];
    int traced = 0;
    FILE *f;
    (void)state;

    remove(log);
    setenv("KT_FAKE_MODE", "slow-death", 1);
    setenv("KT_FAKE_DEATH_S", "2", 1);
    setenv("KT_FAKE_LOG", log, 1);
    ev = open_fake(KT_S_OK, &err);
    assert_non_null(f = fopen(log, "r"));
    while (fgets(line, sizeof line, f))
        traced |= strncmp(line, "traced", 6) == 0;
    fclose(f);
    if (!traced) {
        ev->ops->close(ev);
        unsetenv("KT_FAKE_MODE");
        skip(); /* ptrace refused here: no slow death to simulate */
    }
    t0 = now();
    assert_int_equal(ev->ops->evaluate(ev, &hang, 1, &p, &r, &err), KT_S_OK);
    cost = now() - t0;
    printf("the hung point cost %.3f s (stated limit 1.5 s)\n", cost);
    assert_true(cost >= 1.2);
    assert_true(cost <= 1.5 + 0.1);
    assert_int_equal(r.status, KT_EVAL_TIMEOUT);
    assert_contains(r.reason, "no result within its limit of 1.5 s");
    /* The cost ktune states for the point is within the limit it states. */
    assert_non_null(strstr(r.reason, "the point cost "));
    assert_true(strtod(strstr(r.reason, "the point cost ") + 15, NULL) <=
                1.5 + 0.1); /* the same slack for a loaded machine as above */
    /* The next point's worker starts after the killed one is gone. */
    t0 = now();
    assert_int_equal(ev->ops->evaluate(ev, &fine, 1, &p, &r, &err), KT_S_OK);
    next_s = now() - t0;
    assert_int_equal(r.status, KT_EVAL_OK);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
    unsetenv("KT_FAKE_MODE");
    unsetenv("KT_FAKE_DEATH_S");
    unsetenv("KT_FAKE_LOG");
    assert_non_null(f = fopen(log, "r"));
    while (fscanf(f, "%15s", what) == 1)
        if (strcmp(what, "dead") == 0 && fscanf(f, "%lf", &when) == 1)
            break;
    fclose(f);
    assert_true(when > 0);
    assert_true(next_s >= 2.0 - (1.5 - 1.2) - 0.1);
    remove(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_points_come_back_measured),
        cmocka_unit_test(a_crash_costs_one_point_and_is_named),
        cmocka_unit_test(a_death_while_compiling_is_retried_once),
        cmocka_unit_test(a_hang_is_killed_and_its_neighbour_still_measured),
        cmocka_unit_test(
            a_hang_costs_its_stated_limit_though_the_worker_dies_slowly),
        cmocka_unit_test(a_lost_context_marks_the_faulting_point),
        cmocka_unit_test(profiles_travel_through_the_worker),
        cmocka_unit_test(
            a_closing_worker_exits_in_the_background_before_the_next),
        cmocka_unit_test(open_failures_are_reported_with_their_status),
        cmocka_unit_test(a_missing_executable_is_named),
        cmocka_unit_test(a_worker_is_started_with_its_command_and_queues),
        cmocka_unit_test(a_setting_of_the_parents_record_reaches_the_worker),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
