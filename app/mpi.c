// SPDX-License-Identifier: Apache-2.0
#include "app/mpi.h"
#include "core/msg.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/envrec.h"
#include "core/result_json.h"
#include "core/wire.h"

enum { TAG_REQUEST = 71, TAG_REPLY = 72 };

/* Without MPI_THREAD_MULTIPLE, the pool's threads take turns in MPI. */
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static int serialise = 1;

static void lock(void)
{
    if (serialise)
        pthread_mutex_lock(&mpi_lock);
}

static void unlock(void)
{
    if (serialise)
        pthread_mutex_unlock(&mpi_lock);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static kt_status module_init(int *rank, int *size, int *local_rank, kt_err *err)
{
    int provided = 0;
    MPI_Comm local;

    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) !=
        MPI_SUCCESS)
        return kt_err_set(err, KT_S_IO, "--mpi: MPI_Init_thread failed");
    if (provided < MPI_THREAD_SERIALIZED) {
        MPI_Finalize();
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "--mpi: this MPI offers no thread support beyond "
                          "level %d; ktune needs MPI_THREAD_SERIALIZED",
                          provided);
    }
    serialise = provided < MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    /* The rank's place among the ranks of its host picks its GPU. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank,
                        MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, local_rank);
    MPI_Comm_free(&local);
    return KT_S_OK;
}

static void module_finish(int abandoned, int exit_code)
{
    if (abandoned) {
        /* The abort signals this process too: no "stopped" hint then. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, exit_code);
    }
    MPI_Finalize();
}

static kt_status send_json(int to, int tag, const json_t *msg, kt_err *err)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    MPI_Request req;
    int done = 0;

    if (!text)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    lock();
    MPI_Isend(text, (int)strlen(text), MPI_CHAR, to, tag, MPI_COMM_WORLD, &req);
    unlock();
    while (!done) {
        lock();
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        unlock();
        if (!done)
            pause_ms(1);
    }
    free(text);
    return KT_S_OK;
}

/* The next message from rank `from` with tag, within timeout_s (<= 0: no
 * limit): KT_S_TIMEOUT when none came. */
static kt_status recv_json(int from, int tag, double timeout_s, json_t **out,
                           kt_err *err)
{
    double start = now_s();
    MPI_Status st;
    json_error_t jerr;
    char *text;
    int flag = 0, len = 0;

    *out = NULL;
    for (;;) {
        lock();
        MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &st);
        unlock();
        if (flag)
            break;
        if (timeout_s > 0 && now_s() - start > timeout_s)
            return kt_err_set(err, KT_S_TIMEOUT,
                              "rank %d sent nothing within %.0f s", from,
                              timeout_s);
        pause_ms(1);
    }
    MPI_Get_count(&st, MPI_CHAR, &len);
    if (!(text = malloc((size_t)len + 1)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    lock();
    MPI_Recv(text, len, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unlock();
    *out = json_loadb(text, (size_t)len, 0, &jerr);
    free(text);
    if (!*out)
        return kt_err_set(err, KT_S_IO,
                          "rank %d sent a message that is not "
                          "JSON: %s",
                          from, jerr.text);
    return KT_S_OK;
}

/* ---------------------------------------------------------- rank 0 */

typedef struct remote_eval {
    kt_evaluator base;
    int rank;
    const kt_operator *op;
    double eval_timeout_s;
    kt_device device;
    char device_name[256];
    kt_work work;
    json_t *environment;
    int gone; /* stopped answering: nothing more is sent */
} remote_eval;

static remote_eval *self(kt_evaluator *ev)
{
    return (remote_eval *)ev;
}

static json_t *evaluate_message(const remote_eval *re, const kt_point *pts,
                                size_t n, const kt_protocol *p)
{
    json_t *msg = kt_wire_message("evaluate"), *points = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(points, kt_point_to_json(re->op, &pts[i]));
    json_object_set_new(msg, "points", points);
    json_object_set_new(msg, "protocol", kt_env_protocol(p));
    return msg;
}

static kt_status read_results(const remote_eval *re, const json_t *reply,
                              const kt_point *pts, size_t n,
                              kt_eval_result *out, kt_err *err)
{
    const json_t *results = json_object_get(reply, "results");
    const char *type = json_string_value(json_object_get(reply, "type"));

    if (!type || strcmp(type, "results") != 0)
        return kt_err_set(err, KT_S_IO, "rank %d answered '%s': %s", re->rank,
                          type ? type : "?",
                          json_string_value(json_object_get(reply, "message")));
    if (json_array_size(results) != n)
        return kt_err_set(err, KT_S_IO,
                          "rank %d sent %zu results for %zu "
                          "points",
                          re->rank, json_array_size(results), n);
    for (size_t i = 0; i < n; ++i) {
        kt_point back;
        kt_status rc = kt_eval_result_from_json(
            re->op, json_array_get(results, i), &back, &out[i], err);
        if (rc)
            return kt_err_prefix(err, "rank %d, result %zu: ", re->rank, i);
        if (!kt_point_equal(&back, &pts[i]))
            return kt_err_set(err, KT_S_IO,
                              "rank %d answered for another point", re->rank);
    }
    return KT_S_OK;
}

static kt_status remote_evaluate(kt_evaluator *ev, const kt_point *pts,
                                 size_t n, const kt_protocol *p,
                                 kt_eval_result *out, kt_err *err)
{
    remote_eval *re = self(ev);
    double limit = re->eval_timeout_s * (double)n + p->max_time_s;
    json_t *msg, *reply = NULL;
    kt_status rc;

    memset(out, 0, n * sizeof *out);
    if (re->gone)
        return kt_err_set(err, KT_S_CRASHED, "rank %d stopped answering",
                          re->rank);
    msg = evaluate_message(re, pts, n, p);
    rc = send_json(re->rank, TAG_REQUEST, msg, err);
    json_decref(msg);
    if (!rc)
        rc = recv_json(re->rank, TAG_REPLY, limit, &reply, err);
    if (rc == KT_S_TIMEOUT)
        kt_err_set(err, KT_S_TIMEOUT,
                   "rank %d stopped answering: no result within %.0f s",
                   re->rank, limit);
    if (!rc)
        rc = read_results(re, reply, pts, n, out, err);
    json_decref(reply);
    if (rc) {
        re->gone = 1;
        for (size_t i = 0; i < n; ++i)
            kt_eval_result_free(&out[i]);
    }
    return rc;
}

static const kt_device *remote_device(kt_evaluator *ev)
{
    return &self(ev)->device;
}

static kt_status remote_calibration(kt_evaluator *ev, int refresh,
                                    kt_calibration *out, kt_err *err)
{
    (void)refresh;
    (void)out;
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "rank %d calibrated itself: its environment record "
                      "holds the calibration",
                      self(ev)->rank);
}

static json_t *remote_environment(kt_evaluator *ev)
{
    return json_deep_copy(self(ev)->environment);
}

static const kt_work *remote_work(kt_evaluator *ev)
{
    return &self(ev)->work;
}

static void remote_close(kt_evaluator *ev)
{
    remote_eval *re = self(ev);
    if (!re->gone) {
        json_t *msg = kt_wire_message("close");
        kt_err err;
        send_json(re->rank, TAG_REQUEST, msg, &err);
        json_decref(msg);
    }
    json_decref(re->environment);
    free(re);
}

static const kt_evaluator_ops remote_ops = {
    .kind = "mpi",
    .evaluate = remote_evaluate,
    .device = remote_device,
    .calibration = remote_calibration,
    .environment = remote_environment,
    .work = remote_work,
    .close = remote_close,
};

static kt_status read_opened(remote_eval *re, const json_t *reply, kt_err *err)
{
    const char *type = json_string_value(json_object_get(reply, "type"));
    json_error_t jerr;

    if (!type || strcmp(type, "opened") != 0)
        return kt_err_set(err, KT_S_IO, "rank %d could not open: %s", re->rank,
                          json_string_value(json_object_get(reply, "message")));
    if (kt_env_device_from_json(json_object_get(reply, "device"), &re->device,
                                re->device_name, sizeof re->device_name, err))
        return kt_err_prefix(err, "rank %d: ", re->rank);
    re->work.struct_size = sizeof re->work;
    if (json_unpack_ex((json_t *)json_object_get(reply, "work"), &jerr, 0,
                       "{s:F,s:F,s:F}", "bytes_read", &re->work.bytes_read,
                       "bytes_written", &re->work.bytes_written, "flops",
                       &re->work.flops))
        return kt_err_set(err, KT_S_IO, "rank %d 'opened': work: %s", re->rank,
                          jerr.text);
    re->environment = json_incref(json_object_get(reply, "environment"));
    return KT_S_OK;
}

static kt_status module_remote_open(int rank, const kt_operator *op,
                                    double open_timeout_s,
                                    double eval_timeout_s, kt_evaluator **out,
                                    json_t **environment, kt_err *err)
{
    remote_eval *re = calloc(1, sizeof *re);
    json_t *reply = NULL;
    kt_status rc;

    *out = NULL;
    *environment = NULL;
    if (!re)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    re->base.ops = &remote_ops;
    re->rank = rank;
    re->op = op;
    re->eval_timeout_s = eval_timeout_s;
    if (!(rc = recv_json(rank, TAG_REPLY, open_timeout_s, &reply, err)))
        rc = read_opened(re, reply, err);
    json_decref(reply);
    if (rc) {
        re->gone = 1;
        remote_close(&re->base);
        return rc;
    }
    *environment = json_deep_copy(re->environment);
    *out = &re->base;
    return KT_S_OK;
}

/* ---------------------------------------------------------- ranks > 0 */

static json_t *opened_message(kt_evaluator *ev, json_t *env, const char *why)
{
    json_t *msg;
    const kt_work *w;

    if (!ev) {
        msg = kt_wire_message("error");
        json_object_set_new(msg, "message", json_string(why ? why : "?"));
        json_decref(env);
        return msg;
    }
    w = ev->ops->work(ev);
    msg = kt_wire_message("opened");
    json_object_set_new(msg, "device",
                        json_deep_copy(json_object_get(env, "device")));
    json_object_set_new(msg, "environment", env);
    json_object_set_new(msg, "work",
                        json_pack("{s:f,s:f,s:f}", "bytes_read", w->bytes_read,
                                  "bytes_written", w->bytes_written, "flops",
                                  w->flops));
    return msg;
}

/* One request answered: results, or an error the rank goes on after. */
static json_t *answer(kt_evaluator *ev, const kt_operator *op,
                      const json_t *req)
{
    const json_t *points = json_object_get(req, "points");
    size_t n = json_array_size(points);
    kt_point *pts = calloc(n ? n : 1, sizeof *pts);
    kt_eval_result *out = calloc(n ? n : 1, sizeof *out);
    json_t *reply = NULL, *results;
    kt_protocol p;
    kt_err err;
    kt_status rc =
        pts && out ? KT_S_OK : kt_err_set(&err, KT_S_NOMEM, "out of memory");

    if (!rc)
        rc = kt_protocol_from_json(json_object_get(req, "protocol"), &p, &err);
    for (size_t i = 0; !rc && i < n; ++i)
        rc = kt_point_from_json(op, json_array_get(points, i), &pts[i], &err);
    if (!rc)
        rc = ev->ops->evaluate(ev, pts, n, &p, out, &err);
    if (rc) {
        reply = kt_wire_message("error");
        json_object_set_new(reply, "message", json_string(err.msg));
    } else {
        results = json_array();
        for (size_t i = 0; i < n; ++i)
            json_array_append_new(
                results, kt_eval_result_to_json(op, &pts[i], &out[i], 1));
        reply = kt_wire_message("results");
        json_object_set_new(reply, "results", results);
    }
    for (size_t i = 0; out && i < n; ++i)
        kt_eval_result_free(&out[i]);
    free(pts);
    free(out);
    return reply;
}

static int module_serve(kt_evaluator *ev, const kt_operator *op, json_t *env,
                        const char *why)
{
    json_t *msg = opened_message(ev, env, why);
    kt_err err;
    int code = 0;

    if (send_json(0, TAG_REPLY, msg, &err))
        code = 1;
    json_decref(msg);
    while (ev && !code) {
        json_t *req = NULL, *reply;
        const char *type;
        if (recv_json(0, TAG_REQUEST, 0, &req, &err)) {
            kt_msg("rank: %s\n", err.msg);
            code = 1;
            break;
        }
        type = json_string_value(json_object_get(req, "type"));
        if (type && strcmp(type, "close") == 0) {
            json_decref(req);
            break;
        }
        reply = answer(ev, op, req);
        json_decref(req);
        code = send_json(0, TAG_REPLY, reply, &err) ? 1 : 0;
        json_decref(reply);
    }
    return ev ? code : 1;
}

/* The module's one exported symbol (ktune dlopens ktune_mpi.so for --mpi
 * only, app/mpi_load.c): the four entry points as a table, so that no
 * name of this file can interpose on one of the binary's. */
static const kt_mpi_api module_api = {.init = module_init,
                                      .finish = module_finish,
                                      .remote_open = module_remote_open,
                                      .serve = module_serve};

__attribute__((visibility("default"))) const kt_mpi_api *ktune_mpi_module(void)
{
    return &module_api;
}
