// SPDX-License-Identifier: Apache-2.0
/* The parent side of worker processes: a kt_evaluator that forwards every
 * call to a child and survives the child's death. */
#include "isolation/worker.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/childenv.h"
#include "core/clock.h"
#include "core/envrec.h"
#include "core/msg.h"
#include "core/nvml_set.h"
#include "core/proc.h"
#include "core/result_json.h"
#include "core/settings.h"
#include "core/wire.h"
#include "engine/compile_pool.h"

#define HELLO_TIMEOUT_MS 10000
#define DEFAULT_OPEN_TIMEOUT_S 300.0
#define DEFAULT_EVAL_TIMEOUT_S 60.0
/* How long a killed worker is waited for before ktune goes on without it.
 * The driver tears down a context whose kernel is still running before the
 * process can be reaped, which took seconds on the H200; the point's limit
 * includes this grace (point_wait_ms), and a worker still exiting after it
 * is reaped later (retire). */
#define KILL_GRACE_S 0.25

/* A point that crashed or timed out: never sent to a worker again. */
typedef struct casualty {
    kt_point point;
    kt_eval_status status;
    char reason[1024];
} casualty;

typedef struct worker_eval {
    kt_evaluator base;
    kt_eval_spec spec;
    kt_worker_options opt;
    char exe[4096];
    pid_t pid;
    int fd;
    kt_device device;
    char device_name[256];
    kt_work work;
    json_t *environment;
    casualty *casualties;
    size_t num_casualties;
    unsigned restarts;
    double grace_s; /* a killed worker's: KILL_GRACE_S, less for a short
                     * limit (point_wait_ms) */
    int retrying;   /* a point tried again after its worker died compiling */
    double sent_s;  /* when the points in flight were sent (kt_clock_seconds):
                     * a killed point's cost is counted from here */
} worker_eval;

static worker_eval *self(kt_evaluator *ev)
{
    return (worker_eval *)ev;
}

/* Workers told to close whose exit has not been seen yet. Their exit
 * tears their CUDA context down (about 0.1 s on an H200 holding a few GiB),
 * and nothing the parent does next depends on it, so it overlaps the
 * parent's work: the summary is written and the process ends without
 * waiting. A new worker first waits for these, so two never hold one GPU's
 * memory at once; at the parent's exit the death signal (spawn) ends any
 * still exiting and the driver frees what they held. The registry is
 * shared by the pool's threads. */
#define MAX_RETIRING 64
/* Mutable and process-wide: the pool's threads retire workers into it. */
static struct {
    pthread_mutex_t lock;
    pid_t pid[MAX_RETIRING];
    size_t n;
} retiring = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static void reap_blocking(pid_t pid, int *status)
{
    kt_proc_reap(pid, status, 0);
}

/* Reaps the retiring workers that have exited (lock held). */
static void sweep_retired(void)
{
    int status = 0;
    size_t kept = 0;

    for (size_t i = 0; i < retiring.n; ++i) {
        pid_t r = kt_proc_reap(retiring.pid[i], &status, 1);
        if (r == 0)
            retiring.pid[kept++] = retiring.pid[i];
    }
    retiring.n = kept;
}

/* Lets pid finish exiting in the background; a full registry waits. */
static void retire(pid_t pid)
{
    int status = 0, kept = 0;

    if (kt_proc_reap(pid, &status, 1) == pid)
        return;
    pthread_mutex_lock(&retiring.lock);
    sweep_retired();
    if (retiring.n < MAX_RETIRING) {
        retiring.pid[retiring.n++] = pid;
        kept = 1;
    }
    pthread_mutex_unlock(&retiring.lock);
    if (!kept)
        reap_blocking(pid, &status);
}

/* Waits until every retiring worker has exited. */
static void await_retired(void)
{
    int status = 0;

    pthread_mutex_lock(&retiring.lock);
    for (size_t i = 0; i < retiring.n; ++i)
        reap_blocking(retiring.pid[i], &status);
    retiring.n = 0;
    pthread_mutex_unlock(&retiring.lock);
}

/* Waits at most grace_s for pid to be reaped: 1 (and *status) when it
 * was, 0 when it is still exiting. */
static int reap_within(pid_t pid, double grace_s, int *status)
{
    double end = kt_clock_seconds() + grace_s;

    for (;;) {
        pid_t r = kt_proc_reap(pid, status, 1);
        if (r == pid || r < 0)
            return 1;
        if (kt_clock_seconds() >= end)
            return 0;
        usleep(2000);
    }
}

/* SIGKILL, then the grace: a worker not reaped within it is retired, to
 * be reaped later (before the next worker starts, so two never hold one
 * GPU). 1 with *status when it was reaped. */
static int kill_worker(pid_t pid, double grace_s, int *status)
{
    kill(pid, SIGKILL);
    if (reap_within(pid, grace_s, status))
        return 1;
    retire(pid);
    return 0;
}

/* A worker that died (or was killed) while the job's device settings were
 * in force cannot put them back: the parent does, from its restore file
 * (core/nvml_set.h). Nothing without a file: the default never sets. */
static void recover_settings(const worker_eval *we)
{
    char path[4096];

    kt_nvml_restore_path(we->spec.device, path, sizeof path);
    kt_nvml_recover(path, "the worker that ended");
}

/* Ends the worker: politely when it is healthy (its exit then finishes in
 * the background, retire, unless the job lists device settings), with
 * SIGKILL otherwise. Writes how a killed
 * worker ended into how (may be NULL). */
static void stop_worker(worker_eval *we, int force, char *how, size_t how_size)
{
    int status = 0;

    if (we->pid <= 0)
        return;
    if (!force) {
        json_t *bye = kt_wire_message("close");
        kt_wire_send(we->fd, bye, NULL);
        json_decref(bye);
    }
    close(we->fd);
    we->fd = -1;
    if (force) {
        if (kill_worker(we->pid, we->grace_s, &status) && how)
            kt_describe_exit(status, how, how_size);
        else if (how)
            snprintf(how, how_size, "was killed (still exiting)");
        recover_settings(we);
    } else if (kt_nvml_choices_any(&we->spec.nvml)) {
        /* It puts the device's own settings back as it closes: wait for
         * that, so that nothing is left set once close returns (and the
         * parent's exit cannot kill it half-way). */
        reap_blocking(we->pid, &status);
        recover_settings(we);
    } else
        retire(we->pid);
    we->pid = -1;
}

/* After the connection broke: reaps the worker and says how it died. */
static void reap_dead_worker(worker_eval *we, char *how, size_t how_size)
{
    int status = 0;
    pid_t r;

    close(we->fd);
    we->fd = -1;
    /* It closed the connection; give it a moment to finish dying before
     * forcing it. */
    for (int i = 0; i < 200; ++i) {
        r = kt_proc_reap(we->pid, &status, 1);
        if (r == we->pid)
            break;
        usleep(10000);
    }
    if (r != we->pid && !kill_worker(we->pid, we->grace_s, &status))
        snprintf(how, how_size,
                 "closed its connection and did not exit: killed");
    else
        kt_describe_exit(status, how, how_size);
    we->pid = -1;
    recover_settings(we);
}

/* The settings record the worker runs under: the spec's (else this
 * process's), with CUDA_DEVICE_MAX_CONNECTIONS as the worker gets it
 * (KT_WORKER_CONNECTIONS unless the record sets it: the driver reads it
 * when it makes the context). Its environment and its open message both
 * say this. */
static void worker_settings(const worker_eval *we, kt_settings *set)
{
    if (we->spec.settings)
        *set = *we->spec.settings;
    else
        kt_settings_read(set);
    if (!set->cuda_device_max_connections)
        set->cuda_device_max_connections = KT_WORKER_CONNECTIONS;
}

/* The worker's argv and environment, built before fork: it names the
 * command the user typed (its messages read like that command's) and
 * holds CUDA_DEVICE_MAX_CONNECTIONS of its record (worker_settings). */
typedef struct worker_exec {
    char *argv[7];
    char *changes[2];
    char connections[128];
    char **envp;
} worker_exec;

static kt_status worker_exec_build(worker_exec *x, const worker_eval *we,
                                   kt_err *err)
{
    const char *cmd = kt_msg_command();
    size_t n = 0;
    kt_settings set;

    memset(x, 0, sizeof *x);
    x->argv[n++] = (char *)we->exe;
    x->argv[n++] = "worker";
    x->argv[n++] = "--fd";
    x->argv[n++] = "3";
    if (cmd && *cmd) {
        x->argv[n++] = "--command";
        x->argv[n++] = (char *)cmd;
    }
    worker_settings(we, &set);
    if ((size_t)snprintf(x->connections, sizeof x->connections,
                         "CUDA_DEVICE_MAX_CONNECTIONS=%s",
                         set.cuda_device_max_connections) >=
        sizeof x->connections)
        return kt_err_set(err, KT_S_INPUT,
                          "CUDA_DEVICE_MAX_CONNECTIONS: expected a number, "
                          "found %zu characters",
                          strlen(set.cuda_device_max_connections));
    x->changes[0] = x->connections;
    return kt_childenv_build((const char *const *)x->changes, &x->envp, err);
}

static kt_status spawn(worker_eval *we, kt_err *err)
{
    worker_exec x;
    int sv[2];
    pid_t pid;
    kt_status s;

    if ((s = worker_exec_build(&x, we, err)))
        return s;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        free(x.envp);
        return kt_err_set(err, KT_S_IO, "socketpair for a worker: %s",
                          strerror(errno));
    }
    await_retired();
    if ((s = kt_proc_fork("a worker", &pid, err))) {
        close(sv[0]);
        close(sv[1]);
        free(x.envp);
        return s;
    }
    if (pid == 0) {
        /* The worker must not outlive a parent killed with SIGKILL: it
         * would hold the GPU. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (dup2(sv[1], 3) < 0 || dup2(2, 1) < 0)
            _exit(126);
        /* Stray printf from plugins lands on stderr, never in the
         * protocol: the protocol has its own descriptor. */
        kt_proc_exec(we->exe, x.argv, x.envp);
        kt_msg("cannot start worker %s: %s\n", we->exe, strerror(errno));
        _exit(127);
    }
    free(x.envp);
    close(sv[1]);
    we->pid = pid;
    we->fd = sv[0];
    return KT_S_OK;
}

static kt_status expect(worker_eval *we, const char *want, int timeout_ms,
                        json_t **reply, kt_err *err)
{
    const char *type;
    kt_status rc = kt_wire_recv(we->fd, timeout_ms, reply, err);

    if (rc)
        return rc;
    type = kt_wire_type(*reply, err);
    if (!type)
        rc = KT_S_IO;
    else if (strcmp(type, "error") == 0) {
        int status = (int)json_integer_value(json_object_get(*reply, "status"));
        rc = kt_err_set(
            err, status > 0 && status <= KT_S_CRASHED ? status : KT_S_PLUGIN,
            "%s", json_string_value(json_object_get(*reply, "message")));
    } else if (strcmp(type, want) != 0)
        rc = kt_err_set(err, KT_S_IO, "worker answered '%s', expected '%s'",
                        type, want);
    if (rc) {
        json_decref(*reply);
        *reply = NULL;
    }
    return rc;
}

static json_t *open_message(const worker_eval *we)
{
    const kt_eval_spec *s = &we->spec;
    json_t *sizes = json_array(), *msg = kt_wire_message("open");
    kt_settings set;

    for (uint32_t i = 0; i < s->op->num_sizes; ++i)
        json_array_append_new(sizes, json_integer(s->sizes[i]));
    json_object_set_new(msg, "plugin", json_string(s->plugin->path));
    json_object_set_new(msg, "operator", json_string(s->op->id));
    json_object_set_new(msg, "sizes", sizes);
    json_object_set_new(msg, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(msg, "device", json_integer(s->device));
    json_object_set_new(msg, "check_boundaries",
                        json_boolean(s->check_boundaries));
    json_object_set_new(msg, "log_level", json_integer(s->log_level));
    /* The counter source lives in the worker's process; ask for it. */
    json_object_set_new(msg, "counters", json_boolean(s->counters != NULL));
    if (s->verify_host)
        json_object_set_new(msg, "verify", json_string("host"));
    json_object_set_new(msg, "compile_threads",
                        json_integer(s->compile_threads));
    if (kt_nvml_choices_any(&s->nvml))
        json_object_set_new(msg, "nvml", kt_env_nvml_choices(&s->nvml));
    /* The worker reads this record, not its environment. */
    worker_settings(we, &set);
    json_object_set_new(msg, "settings", kt_settings_to_json(&set));
    return msg;
}

static kt_status read_opened(worker_eval *we, json_t *reply, kt_err *err)
{
    json_t *device = json_object_get(reply, "device");
    json_t *env = json_object_get(reply, "environment");
    json_error_t jerr;
    kt_status rc;

    if ((rc = kt_env_device_from_json(device, &we->device, we->device_name,
                                      sizeof we->device_name, err)))
        return rc;
    we->work.struct_size = sizeof we->work;
    if (json_unpack_ex(json_object_get(reply, "work"), &jerr, 0,
                       "{s:F,s:F,s:F}", "bytes_read", &we->work.bytes_read,
                       "bytes_written", &we->work.bytes_written, "flops",
                       &we->work.flops))
        return kt_err_set(err, KT_S_IO, "worker 'opened': work: %s", jerr.text);
    json_decref(we->environment);
    we->environment = json_incref(env);
    return KT_S_OK;
}

/* A healthy worker with the session open, starting one if needed. */
static kt_status ensure_worker(worker_eval *we, kt_err *err)
{
    json_t *msg = NULL, *reply = NULL;
    char how[256];
    kt_status rc;

    if (we->pid > 0)
        return KT_S_OK;
    if ((rc = spawn(we, err)))
        return rc;
    if ((rc = expect(we, "hello", HELLO_TIMEOUT_MS, &reply, err)))
        goto fail;
    json_decref(reply);
    reply = NULL;
    msg = open_message(we);
    if ((rc = kt_wire_send(we->fd, msg, err)) ||
        (rc = expect(we, "opened", (int)(we->opt.open_timeout_s * 1e3), &reply,
                     err)) ||
        (rc = read_opened(we, reply, err)))
        goto fail;
    json_decref(msg);
    json_decref(reply);
    return KT_S_OK;
fail:
    json_decref(msg);
    json_decref(reply);
    if (rc == KT_S_CRASHED) {
        reap_dead_worker(we, how, sizeof how);
        kt_err_prefix(err, "worker %s while starting: ", how);
    } else {
        stop_worker(we, 1, NULL, 0);
    }
    return rc;
}

static casualty *find_casualty(worker_eval *we, const kt_point *pt)
{
    for (size_t i = 0; i < we->num_casualties; ++i)
        if (kt_point_equal(&we->casualties[i].point, pt))
            return &we->casualties[i];
    return NULL;
}

/* Remembers a point that crashed, timed out or faulted, and fills its
 * result. */
static void record_casualty(worker_eval *we, const kt_point *pt,
                            kt_eval_status status, const char *reason,
                            kt_eval_result *out)
{
    casualty *grown =
        realloc(we->casualties, (we->num_casualties + 1) * sizeof *grown);
    if (out) {
        memset(out, 0, sizeof *out);
        out->status = status;
        snprintf(out->reason, sizeof out->reason, "%s", reason);
    }
    if (!grown)
        return;
    we->casualties = grown;
    grown[we->num_casualties].point = *pt;
    grown[we->num_casualties].status = status;
    snprintf(grown[we->num_casualties].reason, sizeof grown->reason, "%s",
             reason);
    ++we->num_casualties;
}

static kt_status read_results(worker_eval *we, json_t *reply,
                              const kt_point *pts, const size_t *idx, size_t n,
                              kt_eval_result *out, kt_err *err)
{
    json_t *results = json_object_get(reply, "results");
    kt_status rc;

    if (json_array_size(results) != n)
        return kt_err_set(err, KT_S_IO,
                          "worker sent %zu results for %zu "
                          "points",
                          json_array_size(results), n);
    for (size_t k = 0; k < n; ++k) {
        kt_point back;
        if ((rc = kt_eval_result_from_json(we->spec.op,
                                           json_array_get(results, k), &back,
                                           &out[idx[k]], err)))
            return kt_err_prefix(err, "worker result %zu: ", k);
        if (!kt_point_equal(&back, &pts[idx[k]]))
            return kt_err_set(err, KT_S_IO,
                              "worker result %zu is for another "
                              "point",
                              k);
        if (out[idx[k]].status == KT_EVAL_EXEC)
            record_casualty(we, &pts[idx[k]], KT_EVAL_EXEC, out[idx[k]].reason,
                            NULL);
    }
    return KT_S_OK;
}

static kt_status attempt(worker_eval *we, const kt_point *pts,
                         const size_t *idx, size_t n, const kt_protocol *p,
                         kt_eval_result *out, kt_err *err);

/* How long the parent waits for the answer to points sent with this
 * limit: the limit less the grace a killed worker is given (a quarter of
 * the limit at most), so that a point that never ends costs the parent no
 * more than its limit, counted from when it was sent; the worker's start
 * and the problem's set-up come before and have their own limit. */
static int point_wait_ms(worker_eval *we, double limit_s)
{
    double ms;

    we->grace_s = KILL_GRACE_S < limit_s / 4 ? KILL_GRACE_S : limit_s / 4;
    ms = (limit_s - we->grace_s) * 1e3;
    return ms < (double)INT_MAX ? (int)ms : INT_MAX;
}

/* After a crash or timeout with several points in flight, nobody knows
 * which one did it: try each alone in a fresh worker. */
static kt_status attempt_each(worker_eval *we, const kt_point *pts,
                              const size_t *idx, size_t n, const kt_protocol *p,
                              kt_eval_result *out, kt_err *err)
{
    for (size_t k = 0; k < n; ++k) {
        kt_status rc = attempt(we, pts, &idx[k], 1, p, out, err);
        if (rc)
            return rc;
    }
    return KT_S_OK;
}

/* The worker died or hung with points idx[0..n) in flight. Several: each
 * again alone. One: a casualty, unless the worker was compiling when it
 * went (its compile markers are left, engine/compile_pool.h): the kernel
 * that killed it may be another point's, compiled ahead, so the point is
 * tried once more in a fresh worker, which answers the marked kernels as
 * not compiling instead of compiling them again. */
static kt_status worker_died(worker_eval *we, const kt_point *pts,
                             const size_t *idx, size_t n, const kt_protocol *p,
                             kt_eval_result *out, int timed_out, double limit_s,
                             kt_err *err)
{
    char how[256] = "", reason[1024];
    long pid = (long)we->pid;
    kt_status rc;

    if (timed_out)
        stop_worker(we, 1, NULL, 0);
    else
        reap_dead_worker(we, how, sizeof how);
    ++we->restarts;
    if (n > 1)
        return attempt_each(we, pts, idx, n, p, out, err);
    if (!we->retrying && kt_cpool_markers_of(NULL, pid)) {
        we->retrying = 1;
        rc = attempt(we, pts, idx, 1, p, out, err);
        we->retrying = 0;
        return rc;
    }
    if (timed_out)
        snprintf(reason, sizeof reason,
                 "no result within its limit of %g s (timeout %g s + "
                 "max_time %g s, from when it was sent): the worker was "
                 "killed, the point cost %.2f s",
                 limit_s, we->opt.eval_timeout_s, p->max_time_s,
                 kt_clock_seconds() - we->sent_s);
    else
        snprintf(reason, sizeof reason, "the worker %s", how);
    record_casualty(we, &pts[idx[0]],
                    timed_out ? KT_EVAL_TIMEOUT : KT_EVAL_CRASH, reason,
                    &out[idx[0]]);
    return KT_S_OK;
}

/* The worker refused a call as a whole (a device setting refused): its
 * own status, so that bad input stays exit 2. Takes reply. */
static kt_status refused_call(json_t *reply, kt_err *err)
{
    int st = (int)json_integer_value(json_object_get(reply, "status"));
    const char *why = json_string_value(json_object_get(reply, "message"));
    kt_status rc = kt_err_set(err, st > 0 && st <= KT_S_CRASHED ? st : KT_S_IO,
                              "%s", why ? why : "the worker refused the call");

    json_decref(reply);
    return rc;
}

/* Sends points idx[0..n) to the worker and fills their results; handles
 * the worker's death and time limit. Returns non-OK only when no worker
 * can serve at all. */
static kt_status attempt(worker_eval *we, const kt_point *pts,
                         const size_t *idx, size_t n, const kt_protocol *p,
                         kt_eval_result *out, kt_err *err)
{
    json_t *msg = NULL, *reply = NULL, *points = json_array();
    double limit_s = we->opt.eval_timeout_s * (double)n + p->max_time_s;
    const char *type;
    kt_err werr;
    kt_status rc;

    if ((rc = ensure_worker(we, err))) {
        json_decref(points);
        return rc;
    }
    for (size_t k = 0; k < n; ++k)
        json_array_append_new(points,
                              kt_point_to_json(we->spec.op, &pts[idx[k]]));
    msg = kt_wire_message("evaluate");
    json_object_set_new(msg, "points", points);
    json_object_set_new(msg, "protocol", kt_env_protocol(p));
    kt_err_clear(&werr);
    we->sent_s = kt_clock_seconds();
    rc = kt_wire_send(we->fd, msg, &werr);
    if (!rc)
        rc = kt_wire_recv(we->fd, point_wait_ms(we, limit_s), &reply, &werr);
    json_decref(msg);
    if (rc == KT_S_TIMEOUT || rc == KT_S_CRASHED)
        return worker_died(we, pts, idx, n, p, out, rc == KT_S_TIMEOUT, limit_s,
                           err);
    if (rc) {
        stop_worker(we, 1, NULL, 0);
        return kt_err_set(err, rc, "%s", werr.msg);
    }
    type = kt_wire_type(reply, &werr);
    if (type && strcmp(type, "lost") == 0) {
        /* A kernel faulted: the worker's context is gone. The faulting point
         * is known; the others go to a fresh worker. */
        long at = (long)json_integer_value(json_object_get(reply, "index"));
        const char *why = json_string_value(json_object_get(reply, "message"));
        size_t *rest, m = 0;
        stop_worker(we, 1, NULL, 0);
        ++we->restarts;
        if (at < 0 || (size_t)at >= n) {
            json_decref(reply);
            return attempt_each(we, pts, idx, n, p, out, err);
        }
        record_casualty(we, &pts[idx[at]], KT_EVAL_EXEC, why ? why : "fault",
                        &out[idx[at]]);
        json_decref(reply);
        rest = malloc(n * sizeof *rest);
        if (!rest)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        for (size_t k = 0; k < n; ++k)
            if ((long)k != at)
                rest[m++] = idx[k];
        rc = m ? attempt(we, pts, rest, m, p, out, err) : KT_S_OK;
        free(rest);
        return rc;
    }
    if (type && strcmp(type, "error") == 0)
        return refused_call(reply, err);
    if (!type || strcmp(type, "results") != 0) {
        rc = kt_err_set(
            err, KT_S_IO, "worker answered '%s' to 'evaluate': %s",
            type ? type : "?",
            type ? json_string_value(json_object_get(reply, "message"))
                 : werr.msg);
        json_decref(reply);
        stop_worker(we, 1, NULL, 0);
        return rc;
    }
    rc = read_results(we, reply, pts, idx, n, out, err);
    if (json_is_true(json_object_get(reply, "lost")))
        stop_worker(we, 1, NULL, 0);
    json_decref(reply);
    return rc;
}

static kt_status worker_evaluate(kt_evaluator *ev, const kt_point *pts,
                                 size_t n, const kt_protocol *p,
                                 kt_eval_result *out, kt_err *err)
{
    worker_eval *we = self(ev);
    size_t *idx = calloc(n ? n : 1, sizeof *idx), m = 0;
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    if (!idx)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        casualty *c = find_casualty(we, &pts[i]);
        if (c) {
            out[i].status = c->status;
            snprintf(out[i].reason, sizeof out[i].reason, "%s", c->reason);
        } else {
            idx[m++] = i;
        }
    }
    if (m)
        rc = attempt(we, pts, idx, m, p, out, err);
    free(idx);
    return rc;
}

/* The "profile" request for pt (NULL: a name check) as req asks. */
static json_t *profile_message(const worker_eval *we, const kt_point *pt,
                               const kt_profile_request *req)
{
    json_t *msg = kt_wire_message("profile"), *names = json_array();

    for (size_t i = 0; i < req->num_metrics; ++i)
        json_array_append_new(names, json_string(req->metrics[i]));
    if (pt)
        json_object_set_new(msg, "point", kt_point_to_json(we->spec.op, pt));
    json_object_set_new(msg, "metrics", names);
    json_object_set_new(msg, "check_only", json_boolean(req->check_only));
    if (req->launches > 0)
        json_object_set_new(msg, "launches", json_integer(req->launches));
    if (req->sweep_flush)
        json_object_set_new(msg, "sweep_flush", json_true());
    return msg;
}

static kt_status worker_profile(kt_evaluator *ev, const kt_point *pt,
                                const kt_profile_request *req,
                                kt_profile_result *out, kt_err *err)
{
    worker_eval *we = self(ev);
    json_t *msg, *reply = NULL;
    /* A name check (check_only) needs no point. */
    casualty *c = pt ? find_casualty(we, pt) : NULL;
    double limit_s = 2 * we->opt.eval_timeout_s + 60.0;
    const char *type = NULL;
    char how[256];
    kt_err werr;
    kt_status rc;

    memset(out, 0, sizeof *out);
    out->counters = KT_S_UNSUPPORTED;
    if (c && !req->check_only) {
        out->status = c->status;
        snprintf(out->reason, sizeof out->reason, "%s", c->reason);
        return KT_S_OK;
    }
    if ((rc = ensure_worker(we, err)))
        return rc;
    msg = profile_message(we, pt, req);
    kt_err_clear(&werr);
    we->sent_s = kt_clock_seconds();
    rc = kt_wire_send(we->fd, msg, &werr);
    json_decref(msg);
    if (!rc)
        rc = kt_wire_recv(we->fd, point_wait_ms(we, limit_s), &reply, &werr);
    if (rc == KT_S_TIMEOUT || rc == KT_S_CRASHED) {
        char reason[1024];
        if (rc == KT_S_TIMEOUT) {
            stop_worker(we, 1, NULL, 0);
            snprintf(reason, sizeof reason,
                     "profiling: no result within %.0f "
                     "s: the worker was killed",
                     limit_s);
        } else {
            reap_dead_worker(we, how, sizeof how);
            snprintf(reason, sizeof reason, "profiling: the worker %s", how);
        }
        ++we->restarts;
        out->status = rc == KT_S_TIMEOUT ? KT_EVAL_TIMEOUT : KT_EVAL_CRASH;
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        if (pt)
            record_casualty(we, pt, out->status, reason, NULL);
        return KT_S_OK;
    }
    if (!rc)
        type = kt_wire_type(reply, &werr);
    if (!rc && type && strcmp(type, "profiled") == 0) {
        rc = kt_profile_result_from_json(json_object_get(reply, "result"), out,
                                         err);
    } else if (!rc && type && strcmp(type, "lost") == 0) {
        const char *why = json_string_value(json_object_get(reply, "message"));
        stop_worker(we, 1, NULL, 0);
        ++we->restarts;
        if (pt)
            record_casualty(we, pt, KT_EVAL_EXEC, why ? why : "fault", NULL);
        rc = kt_err_set(err, KT_S_EXEC, "%s", why ? why : "fault");
    } else if (!rc && type && strcmp(type, "error") == 0) {
        int st = (int)json_integer_value(json_object_get(reply, "status"));
        rc = kt_err_set(err, st > 0 && st <= KT_S_CRASHED ? st : KT_S_PLUGIN,
                        "%s",
                        json_string_value(json_object_get(reply, "message")));
    } else {
        rc = kt_err_set(err, rc ? rc : KT_S_IO,
                        "worker answered '%s' to "
                        "'profile': %s",
                        type ? type : "?", werr.msg);
        stop_worker(we, 1, NULL, 0);
    }
    json_decref(reply);
    return rc;
}

static const kt_device *worker_device(kt_evaluator *ev)
{
    return &self(ev)->device;
}

static kt_status worker_calibration(kt_evaluator *ev, int refresh,
                                    kt_calibration *out, kt_err *err)
{
    worker_eval *we = self(ev);
    json_t *msg, *reply = NULL;
    kt_status rc;

    if ((rc = ensure_worker(we, err)))
        return rc;
    msg = kt_wire_message("calibration");
    json_object_set_new(msg, "refresh", json_boolean(refresh));
    rc = kt_wire_send(we->fd, msg, err);
    json_decref(msg);
    if (!rc)
        rc = expect(we, "calibration", (int)(we->opt.open_timeout_s * 1e3),
                    &reply, err);
    if (!rc)
        rc =
            kt_calib_from_json(json_object_get(reply, "calibration"), out, err);
    json_decref(reply);
    if (rc == KT_S_TIMEOUT || rc == KT_S_CRASHED || rc == KT_S_IO)
        stop_worker(we, 1, NULL, 0);
    return rc;
}

static json_t *worker_environment(kt_evaluator *ev)
{
    worker_eval *we = self(ev);
    return we->environment ? json_deep_copy(we->environment) : json_object();
}

static const kt_work *worker_work(kt_evaluator *ev)
{
    return &self(ev)->work;
}

static void worker_release(kt_evaluator *ev)
{
    stop_worker(self(ev), 0, NULL, 0);
}

static void worker_close(kt_evaluator *ev)
{
    worker_eval *we = self(ev);
    if (!we)
        return;
    stop_worker(we, 0, NULL, 0);
    json_decref(we->environment);
    free(we->casualties);
    free(we);
}

/* A hint costs no reply: the worker queues the kernels and reads the next
 * message, so the evaluate() after it finds them compiling. Nothing is
 * sent without a live worker (a hint never starts one) nor for a point
 * that crashed or timed out. */
static void worker_prefetch(kt_evaluator *ev, const kt_point *pts, size_t n)
{
    worker_eval *we = self(ev);
    json_t *msg, *points;

    if (we->fd < 0 || we->pid <= 0 || n == 0)
        return;
    points = json_array();
    for (size_t i = 0; i < n; ++i)
        if (!find_casualty(we, &pts[i]))
            json_array_append_new(points,
                                  kt_point_to_json(we->spec.op, &pts[i]));
    msg = kt_wire_message("prefetch");
    json_object_set_new(msg, "points", points);
    if (json_array_size(points))
        (void)kt_wire_send(we->fd, msg, NULL); /* evaluate() sees a death */
    json_decref(msg);
}

static const kt_evaluator_ops worker_ops = {
    .kind = "worker",
    .evaluate = worker_evaluate,
    .device = worker_device,
    .calibration = worker_calibration,
    .environment = worker_environment,
    .work = worker_work,
    .close = worker_close,
    .profile = worker_profile,
    .release = worker_release,
    .prefetch = worker_prefetch,
};

kt_status kt_worker_open(const kt_eval_spec *spec, const kt_worker_options *opt,
                         kt_evaluator **out, kt_err *err)
{
    worker_eval *we = calloc(1, sizeof *we);
    ssize_t len;
    kt_status rc;

    *out = NULL;
    if (!we)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    we->base.ops = &worker_ops;
    we->spec = *spec;
    we->pid = -1;
    we->fd = -1;
    we->grace_s = KILL_GRACE_S;
    if (opt)
        we->opt = *opt;
    if (we->opt.open_timeout_s <= 0)
        we->opt.open_timeout_s = DEFAULT_OPEN_TIMEOUT_S;
    if (we->opt.eval_timeout_s <= 0)
        we->opt.eval_timeout_s = DEFAULT_EVAL_TIMEOUT_S;
    if (we->opt.exe) {
        snprintf(we->exe, sizeof we->exe, "%s", we->opt.exe);
    } else {
        len = readlink("/proc/self/exe", we->exe, sizeof we->exe - 1);
        if (len <= 0) {
            free(we);
            return kt_err_set(err, KT_S_IO,
                              "cannot find this executable to "
                              "start a worker: %s",
                              strerror(errno));
        }
        we->exe[len] = '\0';
    }
    if ((rc = ensure_worker(we, err))) {
        free(we);
        return rc;
    }
    *out = &we->base;
    return KT_S_OK;
}
