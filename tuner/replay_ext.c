// SPDX-License-Identifier: Apache-2.0
#include "tuner/replay_ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

typedef struct ext_eval {
    kt_evaluator base;
    const kt_extrec *rec;
    unsigned char *visited; /* per record: evaluated once already */
    double charged_s;       /* recorded seconds charged so far */
    kt_device device;
    kt_work work;
} ext_eval;

static const kt_evaluator_ops ext_ops;

static ext_eval *self(const kt_evaluator *ev)
{
    return (ext_eval *)ev;
}

const char *kt_replay_ext_invalidity(kt_extrec_verdict v)
{
    static const char *const names[] = {"correct", "constraints", "compile",
                                        "runtime", "correctness", "timeout"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "runtime";
}

static kt_eval_status status_of(kt_extrec_verdict v)
{
    switch (v) {
    case KT_EXTREC_CORRECT: return KT_EVAL_OK;
    case KT_EXTREC_CORRECTNESS: return KT_EVAL_MISMATCH;
    case KT_EXTREC_TIMEOUT: return KT_EVAL_TIMEOUT;
    default: return KT_EVAL_INVALID;
    }
}

/* "recorded as CompilationFailedConfig: it did not compile". */
static void reason_of(const kt_extrec_record *r, char *out, size_t size)
{
    static const char *const what[] = {
        "",
        "refused before it ran (a restriction or a device limit)",
        "it did not compile",
        "it failed at run time",
        "its output was wrong",
        "it timed out"};
    const char *name = json_string_value(r->objective);
    snprintf(out, size, "recorded as %s: %s",
             name ? name : kt_replay_ext_invalidity(r->verdict),
             (unsigned)r->verdict < sizeof what / sizeof *what
                 ? what[r->verdict]
                 : "");
}

/* One sample, the recorded objective: the strategies see the file's own
 * ranking. */
static kt_status recorded_timing(const kt_extrec_record *r, kt_timing *t,
                                 kt_err *err)
{
    memset(t, 0, sizeof *t);
    if (!(t->samples_us = malloc(sizeof *t->samples_us)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    t->samples_us[0] = r->time_ms * 1e3;
    t->num_rounds = 1;
    kt_stats_compute(t->samples_us, 1, &t->kernel);
    t->stop_reason = "recorded";
    t->gpu_time_s = r->time_ms / 1e3;
    t->wall_time_s = r->bench_ms / 1e3;
    return KT_S_OK;
}

static kt_status ext_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                              const kt_protocol *p, kt_eval_result *out,
                              kt_err *err)
{
    ext_eval *x = self(ev);
    kt_status rc = KT_S_OK;

    (void)p;
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n && !rc; ++i) {
        const kt_extrec_record *r = kt_extrec_find(x->rec, &pts[i]);
        size_t at;
        if (!r) {
            out[i].status = KT_EVAL_INVALID;
            snprintf(out[i].reason, sizeof out[i].reason,
                     "not in the recording %s", x->rec->path);
            continue;
        }
        at = (size_t)(r - x->rec->records);
        /* Kernel Tuner's simulation charges a configuration's first
         * evaluation only. */
        if (!x->visited[at]) {
            x->visited[at] = 1;
            x->charged_s += (r->compile_ms + r->verify_ms + r->bench_ms) / 1e3;
        }
        out[i].status = status_of(r->verdict);
        if (out[i].status == KT_EVAL_OK)
            rc = recorded_timing(r, &out[i].timing, err);
        else
            reason_of(r, out[i].reason, sizeof out[i].reason);
    }
    if (rc)
        for (size_t i = 0; i < n; ++i)
            kt_eval_result_free(&out[i]);
    return rc;
}

static const kt_device *ext_device(kt_evaluator *ev)
{
    return &self(ev)->device;
}

static kt_status ext_calibration(kt_evaluator *ev, int refresh,
                                 kt_calibration *out, kt_err *err)
{
    (void)refresh;
    (void)out;
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "the recording %s holds no calibration",
                      self(ev)->rec->path);
}

static json_t *ext_environment(kt_evaluator *ev)
{
    const kt_extrec *rec = self(ev)->rec;
    return json_pack("{s:{s:s},s:{s:s,s:s,s:s}}", "device", "name", rec->device,
                     "replay", "recording", rec->path, "format",
                     kt_extrec_format_name(rec->format), "kernel", rec->kernel);
}

static const kt_work *ext_work(kt_evaluator *ev)
{
    return &self(ev)->work;
}

static void ext_close(kt_evaluator *ev)
{
    ext_eval *x = self(ev);
    if (!x)
        return;
    free(x->visited);
    free(x);
}

/* A recording of another tool holds no counters and no kernel facts. */
static kt_status ext_profile(kt_evaluator *ev, const kt_point *pt,
                             const kt_profile_request *req,
                             kt_profile_result *out, kt_err *err)
{
    const ext_eval *x = self(ev);
    const kt_extrec_record *r = pt ? kt_extrec_find(x->rec, pt) : NULL;

    (void)err;
    memset(out, 0, sizeof *out);
    out->counters = KT_S_UNSUPPORTED;
    snprintf(out->note, sizeof out->note,
             "not recorded: the %s %s holds no counters",
             kt_extrec_format_name(x->rec->format), x->rec->path);
    if (req->check_only)
        return KT_S_OK;
    if (!r) {
        out->status = KT_EVAL_ERROR;
        snprintf(out->reason, sizeof out->reason, "not in the recording %s",
                 x->rec->path);
        return KT_S_OK;
    }
    out->status = status_of(r->verdict);
    if (out->status != KT_EVAL_OK)
        reason_of(r, out->reason, sizeof out->reason);
    return KT_S_OK;
}

static double ext_simulated_s(kt_evaluator *ev)
{
    return self(ev)->charged_s;
}

static const kt_evaluator_ops ext_ops = {
    .kind = "replay",
    .evaluate = ext_evaluate,
    .device = ext_device,
    .calibration = ext_calibration,
    .environment = ext_environment,
    .work = ext_work,
    .close = ext_close,
    .profile = ext_profile,
    .simulated_s = ext_simulated_s,
};

kt_status kt_replay_ext_open(const kt_extrec *rec, kt_evaluator **out,
                             kt_err *err)
{
    ext_eval *x = calloc(1, sizeof *x);

    *out = NULL;
    if (!x || !(x->visited = calloc(rec->num_records ? rec->num_records : 1,
                                    sizeof *x->visited))) {
        free(x);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    x->base.ops = &ext_ops;
    x->rec = rec;
    x->device.struct_size = sizeof x->device;
    x->device.name = rec->device;
    x->work.struct_size = sizeof x->work;
    *out = &x->base;
    return KT_S_OK;
}

int kt_replay_ext_is(const kt_evaluator *ev)
{
    return ev && ev->ops == &ext_ops;
}

const kt_extrec *kt_replay_ext_recording(const kt_evaluator *ev)
{
    return self(ev)->rec;
}

int kt_replay_ext_optimum(const kt_evaluator *ev, kt_point *pt, kt_stats *stats)
{
    const kt_extrec_record *best = kt_extrec_optimum(self(ev)->rec);
    double us;

    if (!best)
        return 0;
    us = best->time_ms * 1e3;
    *pt = best->point;
    kt_stats_compute(&us, 1, stats);
    return 1;
}

void kt_replay_ext_note(const kt_evaluator *ev, char *out, size_t size)
{
    const kt_extrec *rec = self(ev)->rec;
    snprintf(out, size,
             "replays another tool's recording, a %s of %s on %s (%zu "
             "configurations recorded of %llu declared): no GPU, no plugin; "
             "each point is what the file records, its time the recorded "
             "objective. The clock is Kernel Tuner's simulation mode's: a "
             "point's first evaluation adds its recorded compile, "
             "verification and benchmark times%s to the run's own time, so "
             "max_seconds is simulated time; points the file does not hold "
             "are outside the space.",
             kt_extrec_format_name(rec->format), rec->kernel, rec->device,
             rec->num_records, (unsigned long long)rec->space_size,
             rec->bench_from_runtimes
                 ? " (the file records no benchmark time: the sum of its "
                   "runtimes stands for it)"
                 : "");
}
