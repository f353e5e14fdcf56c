// SPDX-License-Identifier: Apache-2.0
/* The worker side of worker processes: a loop that serves one evaluator
 * session over a socket. It owns the CUDA context; when a kernel faults the
 * context is lost, so it says so and exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/envrec.h"
#include "core/msg.h"
#include "core/result_json.h"
#include "core/settings.h"
#include "core/version.h"
#include "core/wire.h"
#include "isolation/worker.h"

typedef struct session {
    kt_registry reg;
    const kt_operator *op;
    kt_evaluator *ev;
    const kt_counter_source *counters; /* offered by the process */
    double age_at_open, open_started;  /* when 'open' came */
    /* The worker's record: its environment at its start, then its
     * parent's from the open message (install_settings). */
    kt_settings settings;
} session;

static kt_status send_error(int fd, const kt_err *e)
{
    json_t *msg = kt_wire_message("error");
    kt_status rc;
    json_object_set_new(msg, "status", json_integer(e->status));
    json_object_set_new(msg, "message", json_string(e->msg));
    rc = kt_wire_send(fd, msg, NULL);
    json_decref(msg);
    return rc;
}

/* The parent's settings record (its open message's "settings") made this
 * process's, so every library here reads what the parent read, not this
 * process's environment (core/settings.h). A message without one (a
 * parent of before) leaves the environment's. */
static kt_status install_settings(session *s, const json_t *settings,
                                  kt_err *err)
{
    kt_status rc;

    if (!settings)
        return KT_S_OK;
    if ((rc = kt_settings_install(settings, err)))
        return kt_err_prefix(err, "worker 'open': ");
    kt_settings_read(&s->settings);
    s->reg.settings = s->settings;
    return KT_S_OK;
}

static kt_status handle_open(session *s, const json_t *req, json_t **reply,
                             kt_err *err)
{
    const char *plugin = NULL, *op_id = NULL, *verify = "device";
    json_t *sizes = NULL;
    json_int_t seed = 0;
    int device = 0, boundaries = 1, log_level = KT_LOG_WARN, counters = 0,
        threads = 0;
    const kt_loaded_plugin *lp = NULL;
    kt_eval_spec spec;
    json_error_t jerr;
    char spec_text[512];
    kt_status rc;

    if (s->ev)
        return kt_err_set(err, KT_S_INPUT, "worker: a session is open already");
    if (json_unpack_ex((json_t *)req, &jerr, 0,
                       "{s:s,s:s,s:o,s:I,s:i,s:b,s:i,s?b,s?s,s?i}", "plugin",
                       &plugin, "operator", &op_id, "sizes", &sizes, "seed",
                       &seed, "device", &device, "check_boundaries",
                       &boundaries, "log_level", &log_level, "counters",
                       &counters, "verify", &verify, "compile_threads",
                       &threads))
        return kt_err_set(err, KT_S_IO, "worker 'open': %s", jerr.text);
    if ((rc = install_settings(s, json_object_get(req, "settings"), err)) ||
        (rc = kt_registry_load_file(&s->reg, plugin, err)))
        return rc;
    lp = s->reg.plugins[s->reg.count - 1];
    snprintf(spec_text, sizeof spec_text, "%s:%s", lp->desc.name, op_id);
    if ((rc = kt_registry_resolve(&s->reg, spec_text, &lp, &s->op, err)))
        return rc;
    if (json_array_size(sizes) != s->op->num_sizes)
        return kt_err_set(err, KT_S_IO,
                          "worker 'open': %zu sizes for an "
                          "operator with %u",
                          json_array_size(sizes), s->op->num_sizes);
    memset(&spec, 0, sizeof spec);
    spec.plugin = lp;
    spec.op = s->op;
    for (uint32_t i = 0; i < s->op->num_sizes; ++i)
        spec.sizes[i] = json_integer_value(json_array_get(sizes, i));
    spec.seed = (uint64_t)seed;
    spec.device = device;
    spec.check_boundaries = boundaries;
    spec.log_level = log_level;
    spec.counters = counters ? s->counters : NULL;
    spec.verify_host = strcmp(verify, "host") == 0;
    spec.compile_threads = threads;
    spec.settings = &s->settings;
    if ((rc = kt_env_nvml_choices_from(json_object_get(req, "nvml"), &spec.nvml,
                                       err)) ||
        (rc = kt_local_open(&spec, &s->ev, err)))
        return rc;
    {
        const kt_work *w = s->ev->ops->work(s->ev);
        json_t *env = s->ev->ops->environment(s->ev);
        /* How long this process took to get here (exec, loading, the
         * handshake) and to open: the parent's start phase, explained. */
        json_t *start = json_object_get(env, "start");
        if (start) {
            json_object_set_new(start, "worker_age_s",
                                json_real(s->age_at_open));
            json_object_set_new(
                start, "open_s",
                json_real(kt_clock_seconds() - s->open_started));
            json_object_set_new(
                start, "cuda_device_max_connections",
                json_string(s->settings.cuda_device_max_connections));
        }
        *reply = kt_wire_message("opened");
        json_object_set(*reply, "device", json_object_get(env, "device"));
        json_object_set_new(*reply, "environment", env);
        json_object_set_new(*reply, "work",
                            json_pack("{s:f,s:f,s:f}", "bytes_read",
                                      w->bytes_read, "bytes_written",
                                      w->bytes_written, "flops", w->flops));
    }
    return KT_S_OK;
}

/* Returns 1 when the context was lost and the worker must exit. */
static int handle_evaluate(session *s, int fd, const json_t *req)
{
    json_t *points = json_object_get(req, "points"), *results, *reply;
    size_t n = json_array_size(points);
    kt_point *pts = calloc(n ? n : 1, sizeof *pts);
    kt_eval_result *out = calloc(n ? n : 1, sizeof *out);
    kt_protocol p;
    kt_err err;
    kt_status rc = KT_S_OK;
    int lost = 0;

    kt_err_clear(&err);
    if (!s->ev)
        rc = kt_err_set(&err, KT_S_INPUT, "worker: 'evaluate' before 'open'");
    else if (!pts || !out)
        rc = kt_err_set(&err, KT_S_NOMEM, "out of memory");
    else
        rc = kt_protocol_from_json(json_object_get(req, "protocol"), &p, &err);
    for (size_t i = 0; !rc && i < n; ++i)
        rc =
            kt_point_from_json(s->op, json_array_get(points, i), &pts[i], &err);
    if (rc) {
        send_error(fd, &err);
        goto done;
    }
    rc = s->ev->ops->evaluate(s->ev, pts, n, &p, out, &err);
    if (rc == KT_S_EXEC) {
        /* Which point faulted is known when it faulted in verification. */
        long at = -1;
        for (size_t i = 0; i < n; ++i)
            if (out[i].status == KT_EVAL_EXEC)
                at = at < 0 ? (long)i : -2;
        reply = kt_wire_message("lost");
        json_object_set_new(reply, "index", json_integer(at < 0 ? -1 : at));
        json_object_set_new(reply, "message", json_string(err.msg));
        kt_wire_send(fd, reply, NULL);
        json_decref(reply);
        lost = 1;
        goto done;
    }
    if (rc) {
        send_error(fd, &err);
        goto done;
    }
    results = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(
            results, kt_eval_result_to_json(s->op, &pts[i], &out[i], 1));
    reply = kt_wire_message("results");
    json_object_set_new(reply, "results", results);
    json_object_set_new(reply, "lost", json_false());
    kt_wire_send(fd, reply, NULL);
    json_decref(reply);
done:
    for (size_t i = 0; out && i < n; ++i)
        kt_eval_result_free(&out[i]);
    free(out);
    free(pts);
    return lost;
}

/* Returns 1 when the context was lost and the worker must exit. */
static int handle_profile(session *s, int fd, const json_t *req)
{
    json_t *names = json_object_get(req, "metrics"), *reply;
    size_t n = json_array_size(names);
    const char **list = calloc(n ? n : 1, sizeof *list);
    kt_profile_request pr = {list, n, 0};
    kt_profile_result out;
    kt_point pt;
    kt_err err;
    kt_status rc = KT_S_OK;
    int lost = 0;

    memset(&out, 0, sizeof out);
    kt_err_clear(&err);
    if (!s->ev || !s->ev->ops->profile)
        rc = kt_err_set(&err, KT_S_INPUT, "worker: 'profile' before 'open'");
    else if (!list)
        rc = kt_err_set(&err, KT_S_NOMEM, "out of memory");
    else if (json_object_get(req, "point"))
        rc =
            kt_point_from_json(s->op, json_object_get(req, "point"), &pt, &err);
    else if (!json_is_true(json_object_get(req, "check_only")))
        rc = kt_err_set(&err, KT_S_IO, "worker 'profile' without a point");
    else
        kt_point_default(s->op, 0, &pt); /* a name check launches nothing */
    for (size_t i = 0; !rc && i < n; ++i)
        if (!(list[i] = json_string_value(json_array_get(names, i))))
            rc = kt_err_set(&err, KT_S_IO,
                            "worker 'profile': metric %zu is "
                            "not a string",
                            i);
    pr.check_only = json_is_true(json_object_get(req, "check_only"));
    pr.launches = (int)json_integer_value(json_object_get(req, "launches"));
    pr.sweep_flush = json_is_true(json_object_get(req, "sweep_flush"));
    if (!rc)
        rc = s->ev->ops->profile(s->ev, &pt, &pr, &out, &err);
    if (rc == KT_S_EXEC) {
        reply = kt_wire_message("lost");
        json_object_set_new(reply, "index", json_integer(0));
        json_object_set_new(reply, "message", json_string(err.msg));
        lost = 1;
    } else if (rc) {
        reply = kt_wire_message("error");
        json_object_set_new(reply, "status", json_integer(rc));
        json_object_set_new(reply, "message", json_string(err.msg));
    } else {
        reply = kt_wire_message("profiled");
        json_object_set_new(reply, "result", kt_profile_result_to_json(&out));
    }
    kt_wire_send(fd, reply, NULL);
    json_decref(reply);
    kt_profile_result_free(&out);
    free(list);
    return lost;
}

/* Points the parent will evaluate next: their kernels start compiling.
 * No reply (a hint decides nothing); a malformed one is ignored. */
static void handle_prefetch(session *s, const json_t *req)
{
    json_t *points = json_object_get(req, "points");
    size_t n = json_array_size(points), m = 0;
    kt_point *pts;

    if (!s->ev || !s->ev->ops->prefetch || !n ||
        !(pts = calloc(n, sizeof *pts)))
        return;
    for (size_t i = 0; i < n; ++i)
        if (kt_point_from_json(s->op, json_array_get(points, i), &pts[m],
                               NULL) == KT_S_OK)
            ++m;
    s->ev->ops->prefetch(s->ev, pts, m);
    free(pts);
}

static void handle_calibration(session *s, int fd, const json_t *req)
{
    kt_calibration c;
    kt_err err;
    json_t *reply;

    if (!s->ev) {
        kt_err_set(&err, KT_S_INPUT, "worker: 'calibration' before 'open'");
        send_error(fd, &err);
        return;
    }
    if (s->ev->ops->calibration(
            s->ev, json_is_true(json_object_get(req, "refresh")), &c, &err)) {
        send_error(fd, &err);
        return;
    }
    reply = kt_wire_message("calibration");
    json_object_set_new(reply, "calibration", kt_calib_to_json(&c));
    kt_wire_send(fd, reply, NULL);
    json_decref(reply);
}

int kt_worker_serve(int fd, const kt_counter_source *counters)
{
    session s;
    json_t *hello;
    int code = 0;

    hello = kt_wire_message("hello");
    memset(&s, 0, sizeof s);
    kt_settings_read(&s.settings);
    kt_registry_init(&s.reg);
    /* The parent probed the plugin already; this process is the sandbox. */
    s.reg.probe_timeout_ms = 0;
    s.counters = counters;
    json_object_set_new(hello, "pid", json_integer(getpid()));
    json_object_set_new(hello, "ktune", json_string(KT_VERSION));
    if (kt_wire_send(fd, hello, NULL)) {
        json_decref(hello);
        return 1;
    }
    json_decref(hello);
    for (;;) {
        json_t *req = NULL, *reply = NULL;
        const char *type;
        kt_err err;
        kt_err_clear(&err);
        if (kt_wire_recv(fd, -1, &req, &err))
            break; /* the parent is gone or closed: nothing left to serve */
        type = kt_wire_type(req, &err);
        if (!type) {
            send_error(fd, &err);
        } else if (strcmp(type, "open") == 0) {
            s.age_at_open = kt_clock_process_age();
            s.open_started = kt_clock_seconds();
            if (handle_open(&s, req, &reply, &err))
                send_error(fd, &err);
            else
                kt_wire_send(fd, reply, NULL);
        } else if (strcmp(type, "evaluate") == 0) {
            if (handle_evaluate(&s, fd, req)) {
                json_decref(req);
                code = 3;
                break;
            }
        } else if (strcmp(type, "profile") == 0) {
            if (handle_profile(&s, fd, req)) {
                json_decref(req);
                code = 3;
                break;
            }
        } else if (strcmp(type, "prefetch") == 0) {
            handle_prefetch(&s, req);
        } else if (strcmp(type, "calibration") == 0) {
            handle_calibration(&s, fd, req);
        } else if (strcmp(type, "close") == 0) {
            json_decref(req);
            break;
        } else {
            kt_err_set(&err, KT_S_IO, "worker: unknown request '%s'", type);
            send_error(fd, &err);
        }
        json_decref(reply);
        json_decref(req);
    }
    /* After a fault the context is unusable: exit without touching it. */
    if (s.ev && code == 0) {
        double t0 = kt_clock_seconds();
        s.ev->ops->close(s.ev);
        if (s.settings.ktune_worker_times)
            kt_msg("worker: session closed in %.3f s\n",
                   kt_clock_seconds() - t0);
    }
    kt_registry_free(&s.reg);
    close(fd);
    return code;
}
