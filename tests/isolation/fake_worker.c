// SPDX-License-Identifier: Apache-2.0
/* A stand-in for `ktune worker` that needs no GPU: it speaks the worker
 * protocol (core/wire.h) and misbehaves on cue, so the parent's supervision
 * (crash, hang, fault, bad handshake) is tested in CI.
 *
 * Cue by point (the good plugin's "scale" operator, variant "plain"):
 *   block 64   crash with SIGSEGV      block 128  hang
 *   block 256  answer normally          block 512  report a lost context
 * Variant "tiled" always answers normally. Cue at start-up by KT_FAKE_MODE:
 *   "no-device" open fails like a machine without a GPU
 *   "old"       hello with another protocol version
 *   "die-on-open" exit(5) when asked to open
 *   "slow-exit" takes 0.3 s to exit after "close" (a CUDA context's
 *               teardown) and appends "start T" and "exit T" lines
 *               (CLOCK_MONOTONIC seconds) to $KT_FAKE_LOG
 *   "die-compiling" block 256 dies as a compile pool's compiler would:
 *               a marker KEY.compiling.PID left in $KTUNE_CACHE_DIR/nvrtc,
 *               then SIGSEGV; a worker that finds a dead one's marker
 *               removes it and answers the point invalid instead
 *               (engine/compile_pool.h)
 *   "sigkill-measuring" dies of SIGKILL once a point's device setting is
 *               in force (nothing of its own can restore it)
 *   "sigkill-between" dies of SIGKILL after a call's first group of
 *               points, once the next group's different setting is set
 *   "show-start" writes its arguments after the program's name, one per
 *               line, and then "CUDA_DEVICE_MAX_CONNECTIONS=V" to
 *               $KT_FAKE_LOG (what ktune gave the worker to start with)
 *   "show-settings" appends, after each open, "KTUNE_CACHE_DIR=V" and
 *               "cache root V" as its libraries read them (the parent's
 *               record from the open message, installed as the real
 *               worker installs it) to $KT_FAKE_LOG
 *   "slow-death" ignores SIGTERM, and its death reaches the parent
 *               KT_FAKE_DEATH_S seconds (default 2) after it happens, as a
 *               worker's whose CUDA context, a kernel still running, the
 *               driver takes seconds to tear down: a child traces it
 *               (ptrace), and a traced process that dies is reaped by its
 *               parent only after its tracer lets it go. Appends "traced"
 *               or "untraced" (ptrace refused here) and "dead T" to
 *               $KT_FAKE_LOG
 * Device settings (open's nvml lists, each point's nvml) go through the
 * simulated NVML that KTUNE_NVML_LIBRARY names, as the local evaluator
 * does (core/nvml_set.h): every listed value checked at open, each
 * point's setting put in force before its "measurement" only when it
 * differs from the one in force (points grouped by setting), the device's
 * own back at close; the SM clock seen while measuring is each result's
 * median_clock_mhz. At most 64 points a call. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/envrec.h"
#include "core/loader.h"
#include "core/nvml_set.h"
#include "core/result_json.h"
#include "core/settings.h"
#include "core/wire.h"
#include "tests/support/fake_device.h"

static const kt_operator *op;
static int device; /* open's */

#define FAKE_PCI "0000:19:00.0"

/* "slow-exit": one line "WHAT T" to $KT_FAKE_LOG. */
static void log_event(const char *what)
{
    const char *path = getenv("KT_FAKE_LOG");
    struct timespec ts;
    FILE *f;

    if (!path || !(f = fopen(path, "a")))
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(f, "%s %.6f\n", what, (double)ts.tv_sec + 1e-9 * ts.tv_nsec);
    fclose(f);
}

/* "slow-death", the tracer's side: seizes pid when told to (go), says
 * whether it could (ack), lets every signal through, and holds pid's death
 * for the delay before letting it go. */
static void hold_death(pid_t pid, int go, int ack)
{
    const char *env = getenv("KT_FAKE_DEATH_S");
    double delay = env ? atof(env) : 2.0;
    siginfo_t si;
    int ok, st;
    char c;

    if (read(go, &c, 1) != 1)
        return;
    ok = ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0;
    if (write(ack, ok ? "y" : "n", 1) != 1 || !ok)
        return;
    for (;;) {
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si,
                   WEXITED | WSTOPPED | WNOWAIT | __WALL))
            return;
        if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
            si.si_code == CLD_DUMPED) {
            log_event("dead");
            usleep((useconds_t)(delay * 1e6));
            return; /* the tracer's exit lets the dead one go */
        }
        if (waitpid(pid, &st, __WALL) != pid)
            return;
        ptrace(PTRACE_CONT, pid, NULL,
               (void *)(long)(WIFSTOPPED(st) ? WSTOPSIG(st) : 0));
    }
}

/* "slow-death": a child of this process becomes its tracer. */
static void die_slowly(void)
{
    int go[2], ack[2];
    pid_t me = getpid(), tracer;
    char c = 'n';

    signal(SIGTERM, SIG_IGN);
    if (pipe(go) || pipe(ack))
        return;
    tracer = fork();
    if (tracer == 0) {
        close(go[1]);
        close(ack[0]);
        hold_death(me, go[0], ack[1]);
        _exit(0);
    }
    prctl(PR_SET_PTRACER, (unsigned long)tracer); /* Yama: this tracer */
    close(go[0]);
    close(ack[1]);
    if (tracer < 0 || write(go[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
        c = 'n';
    log_event(c == 'y' ? "traced" : "untraced");
    close(go[1]);
    close(ack[0]);
}

static json_t *fake_device(void)
{
    kt_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.name, sizeof gpu.name, "Fake H200");
    snprintf(gpu.uuid, sizeof gpu.uuid, "00000000-0000-0000-0000-000000000000");
    gpu.dev = kt_test_h200();
    gpu.dev.name = gpu.name;
    return kt_env_device(&gpu);
}

static void reply_opened(int fd)
{
    json_t *msg = kt_wire_message("opened"), *dev = fake_device();
    json_object_set_new(
        msg, "environment",
        json_pack("{s:O,s:{s:s}}", "device", dev, "plugin", "name", "good"));
    json_object_set_new(msg, "device", dev);
    json_object_set_new(msg, "work",
                        json_pack("{s:f,s:f,s:f}", "bytes_read", 4096.0,
                                  "bytes_written", 4096.0, "flops", 1024.0));
    kt_wire_send(fd, msg, NULL);
    json_decref(msg);
}

static void fake_result(const kt_point *pt, kt_eval_result *r)
{
    static double samples[20];
    memset(r, 0, sizeof *r);
    r->status = KT_EVAL_OK;
    for (int i = 0; i < 20; ++i)
        samples[i] = (double)pt->values[0] / 10.0 + 0.01 * (i % 3);
    r->timing.samples_us = samples;
    r->timing.num_rounds = 20;
    r->timing.stop_reason = "max samples";
    kt_stats_compute(samples, 20, &r->timing.kernel);
}

#define FAKE_KEY "0123456789abcdef0123456789abcdef"

/* "die-compiling": 1 when a dead worker's marker was found (and removed);
 * else leaves this process's marker and dies. */
static int die_compiling(void)
{
    const char *cache = getenv("KTUNE_CACHE_DIR");
    char dir[4096], path[4200], cmd[4300];
    FILE *f;

    snprintf(dir, sizeof dir, "%s/nvrtc", cache ? cache : "/tmp");
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -q '%s.compiling.'",
             dir, FAKE_KEY);
    if (system(cmd) == 0) {
        snprintf(cmd, sizeof cmd, "rm -f '%s/%s'.compiling.*", dir, FAKE_KEY);
        return system(cmd) == 0;
    }
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/%s.compiling.%ld", dir, FAKE_KEY,
             (long)getpid());
    if ((f = fopen(path, "w")))
        fclose(f);
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return 0;
}

static void send_error(int fd, const kt_err *e)
{
    json_t *msg = kt_wire_message("error");
    json_object_set_new(msg, "status", json_integer(e->status));
    json_object_set_new(msg, "message", json_string(e->msg));
    kt_wire_send(fd, msg, NULL);
    json_decref(msg);
}

/* The device settings of the job (open's nvml) and the one in force, as
 * the local evaluator keeps them (core/nvml_set.h). */
static kt_nvml nvml;
static kt_nvml_keeper keeper;
static int nvml_open;

static int cue(const char *mode)
{
    return getenv("KT_FAKE_MODE") && strcmp(getenv("KT_FAKE_MODE"), mode) == 0;
}

/* A cued point's misbehaviour; returns only for a point answered
 * normally. */
static void misbehave(int fd, const kt_point *pt, size_t i)
{
    json_t *msg;

    if (strcmp(op->variants[pt->variant].id, "plain") != 0)
        return;
    if (pt->values[0] == 64) {
        /* Die of the signal even under a sanitizer's handler. */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (pt->values[0] == 128)
        for (;;)
            pause();
    if (pt->values[0] == 512) {
        msg = kt_wire_message("lost");
        json_object_set_new(msg, "index", json_integer((json_int_t)i));
        json_object_set_new(msg, "message",
                            json_string("an illegal memory access was "
                                        "encountered"));
        kt_wire_send(fd, msg, NULL);
        _exit(3);
    }
}

/* One point's "measurement" under what is in force: the SM clock read
 * now is its median_clock_mhz. */
static json_t *measure_one(const kt_point *pt)
{
    kt_eval_result r;
    kt_err err;
    double sm = 0;

    if (nvml_open && kt_nvml_clock_mhz(&nvml, KT_NVML_CLOCK_SM, &sm, &err))
        sm = -1;
    fake_result(pt, &r);
    r.timing.median_clock_mhz = sm;
    if (cue("die-compiling") && pt->values[0] == 256 && die_compiling()) {
        r.timing.num_rounds = 0; /* its samples are static */
        r.status = KT_EVAL_INVALID;
        snprintf(r.reason, sizeof r.reason,
                 "does not compile: the compiler died on this kernel");
    }
    return kt_eval_result_to_json(op, pt, &r, 1);
}

/* Puts a group's setting in force; 0, or -1 after an error reply. Cued
 * "sigkill-measuring" dies once any setting is in force, "sigkill-between"
 * once a second one is (between two points of different settings). */
static int setting_on(int fd, const kt_nvml_setting *want, size_t group)
{
    kt_err err;

    kt_err_clear(&err);
    /* NVML opens with the worker, as the local evaluator's energy meter
     * opens it, whether or not open listed any setting. */
    if (!kt_nvml_setting_equal(want, &keeper.in_force) &&
        ((!nvml_open && !(nvml_open = !kt_nvml_open(FAKE_PCI, &nvml, &err))) ||
         kt_nvml_apply(&keeper, want, &err))) {
        send_error(fd, &err);
        return -1;
    }
    if ((cue("sigkill-measuring") && kt_nvml_setting_any(want)) ||
        (cue("sigkill-between") && group > 0))
        raise(SIGKILL);
    return 0;
}

static void evaluate(int fd, const json_t *req)
{
    json_t *points = json_object_get(req, "points"), *msg, *results;
    size_t n = json_array_size(points), groups;
    kt_point pts[64];
    size_t idx[64], ends[64];
    json_t *out[64] = {0};

    for (size_t i = 0; i < n && i < 64; ++i) {
        kt_point_from_json(op, json_array_get(points, i), &pts[i], NULL);
        idx[i] = i;
    }
    n = n < 64 ? n : 64;
    groups = kt_nvml_group(pts, idx, n, &keeper.in_force, ends);
    for (size_t g = 0, at = 0; g < groups; at = ends[g++]) {
        if (setting_on(fd, &pts[idx[at]].nvml, g) < 0) {
            for (size_t i = 0; i < n; ++i)
                json_decref(out[i]);
            return;
        }
        for (size_t k = at; k < ends[g]; ++k) {
            misbehave(fd, &pts[idx[k]], idx[k]);
            out[idx[k]] = measure_one(&pts[idx[k]]);
        }
    }
    results = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(results, out[i]);
    msg = kt_wire_message("results");
    json_object_set_new(msg, "results", results);
    json_object_set_new(msg, "lost", json_false());
    kt_wire_send(fd, msg, NULL);
    json_decref(msg);
}

/* open's settings checked as the local evaluator checks them (every
 * listed value); 0 when they can be (or there are none). */
static int settings_check(int fd, const json_t *req)
{
    kt_nvml_choices listed;
    char path[4096];
    kt_err err;

    kt_err_clear(&err);
    device = (int)json_integer_value(json_object_get(req, "device"));
    kt_nvml_restore_path(device, path, sizeof path);
    kt_nvml_recover(path, "an earlier ktune run (killed)");
    if (kt_env_nvml_choices_from(json_object_get(req, "nvml"), &listed, &err) ||
        (kt_nvml_choices_any(&listed) &&
         ((nvml_open = !kt_nvml_open(FAKE_PCI, &nvml, &err)) == 0 ||
          kt_nvml_check_choices(&nvml, &listed, path, &err)))) {
        send_error(fd, &err);
        return -1;
    }
    kt_nvml_keeper_init(&keeper, &nvml, &listed, path);
    return 0;
}

/* Answers a profile request with one value per metric (1, 2, ...), or
 * crashes on the crash cue. */
static void profile(int fd, const json_t *req)
{
    json_t *names = json_object_get(req, "metrics"), *msg;
    kt_profile_result r;
    kt_point pt;
    double values[16];

    if (json_object_get(req, "point"))
        kt_point_from_json(op, json_object_get(req, "point"), &pt, NULL);
    else
        kt_point_default(op, 0, &pt); /* a name check carries no point */
    if (strcmp(op->variants[pt.variant].id, "plain") == 0 &&
        pt.values[0] == 64) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    memset(&r, 0, sizeof r);
    r.status = KT_EVAL_OK;
    r.kernel.available = 1;
    r.kernel.num_regs = 12;
    r.num_values = json_array_size(names) < 16 ? json_array_size(names) : 16;
    for (size_t i = 0; i < r.num_values; ++i)
        values[i] = (double)(i + 1);
    r.values = values;
    r.counters = KT_S_OK;
    r.stats.passes = 3;
    /* Echoes the launches per pass asked for (0 when not asked: the
     * worker's default). */
    r.stats.launches =
        json_object_get(req, "launches")
            ? (size_t)json_integer_value(json_object_get(req, "launches"))
            : 0;
    msg = kt_wire_message("profiled");
    json_object_set_new(msg, "result", kt_profile_result_to_json(&r));
    kt_wire_send(fd, msg, NULL);
    json_decref(msg);
}

static void show_start(int argc, char **argv)
{
    const char *path = getenv("KT_FAKE_LOG");
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    FILE *f;

    if (!path || !(f = fopen(path, "w")))
        return;
    for (int i = 1; i < argc; ++i)
        fprintf(f, "%s\n", argv[i]);
    fprintf(f, "CUDA_DEVICE_MAX_CONNECTIONS=%s\n", conn ? conn : "(unset)");
    fclose(f);
}

/* The parent's settings record of the open message made this process's,
 * as the real worker does (isolation/worker_serve.c); "show-settings"
 * logs what the libraries then read. */
static void install_settings(const json_t *req)
{
    const char *path = getenv("KT_FAKE_LOG");
    char root[4096];
    kt_settings set;
    FILE *f;

    if (kt_settings_install(json_object_get(req, "settings"), NULL) ||
        !cue("show-settings") || !path || !(f = fopen(path, "a")))
        return;
    kt_settings_read(&set);
    if (kt_cache_root(root, sizeof root, NULL))
        snprintf(root, sizeof root, "(none)");
    fprintf(f, "KTUNE_CACHE_DIR=%s\ncache root %s\n",
            set.ktune_cache_dir ? set.ktune_cache_dir : "(unset)", root);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *mode = getenv("KT_FAKE_MODE");
    const kt_loaded_plugin *lp;
    kt_registry reg;
    json_t *hello;
    int fd = 3;

    if (mode && strcmp(mode, "show-start") == 0)
        show_start(argc, argv);
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_TEST_PLUGIN_DIR "/good_plugin.so",
                              NULL) ||
        kt_registry_resolve(&reg, "good:scale", &lp, &op, NULL))
        return 9;
    if (mode && strcmp(mode, "slow-exit") == 0)
        log_event("start");
    if (mode && strcmp(mode, "slow-death") == 0)
        die_slowly();
    hello = kt_wire_message("hello");
    if (mode && strcmp(mode, "old") == 0)
        json_object_set_new(hello, "v", json_integer(99));
    kt_wire_send(fd, hello, NULL);
    json_decref(hello);
    for (;;) {
        json_t *req = NULL;
        const char *type;
        if (kt_wire_recv(fd, -1, &req, NULL)) {
            kt_nvml_keeper_end(&keeper, NULL); /* the parent went away */
            break;
        }
        type = kt_wire_type(req, NULL);
        if (type && strcmp(type, "open") == 0) {
            if (mode && strcmp(mode, "die-on-open") == 0)
                _exit(5);
            install_settings(req);
            if (mode && strcmp(mode, "no-device") == 0) {
                json_t *e = kt_wire_message("error");
                json_object_set_new(e, "status", json_integer(KT_S_NO_DEVICE));
                json_object_set_new(e, "message",
                                    json_string("no CUDA device found"));
                kt_wire_send(fd, e, NULL);
                json_decref(e);
            } else if (settings_check(fd, req) == 0) {
                reply_opened(fd);
            }
        } else if (type && strcmp(type, "profile") == 0) {
            profile(fd, req);
        } else if (type && strcmp(type, "evaluate") == 0) {
            evaluate(fd, req);
        } else if (type && strcmp(type, "close") == 0) {
            json_decref(req);
            kt_nvml_keeper_end(&keeper, NULL);
            if (mode && strcmp(mode, "slow-exit") == 0) {
                usleep(300000);
                log_event("exit");
            }
            break;
        }
        json_decref(req);
    }
    kt_registry_free(&reg);
    /* A traced process cannot be traced again: the leak check that a
     * sanitizer build runs at exit would fail to stop its threads. */
    if (mode && strcmp(mode, "slow-death") == 0)
        _exit(0);
    return 0;
}
