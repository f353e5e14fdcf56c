// SPDX-License-Identifier: Apache-2.0
#include "records/replay_ext.h"

#include <math.h>
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

/* The recorded runs of r in us, at most max of them (those > 0); 0 when
 * it records none. */
static size_t recorded_runs(const kt_extrec_record *r, double *out, size_t max)
{
    size_t n = 0;
    for (uint32_t k = 0; k < r->num_runs && n < max; ++k)
        if (r->runs_ms[k] > 0 && isfinite(r->runs_ms[k]))
            out[n++] = r->runs_ms[k] * 1e3;
    return n;
}

/* A point's statistics from its recorded runs (median, interval, noise),
 * as a live measurement's come from its samples; the runs of two points
 * were not interleaved, so their ratios are unpaired. A file that holds
 * one number (no runs, or one) gives that one sample. */
static kt_status recorded_timing(const kt_extrec *rec,
                                 const kt_extrec_record *r, kt_timing *t,
                                 kt_err *err)
{
    size_t runs = r->num_runs;

    (void)rec;
    memset(t, 0, sizeof *t);
    if (!(t->samples_us = malloc((runs ? runs : 1) * sizeof *t->samples_us)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    t->num_rounds = recorded_runs(r, t->samples_us, runs);
    t->unpaired = t->num_rounds > 1;
    if (t->num_rounds < 2) {
        t->samples_us[0] = r->time_ms * 1e3;
        t->num_rounds = 1;
    }
    kt_stats_compute(t->samples_us, t->num_rounds, &t->kernel);
    t->stop_reason = t->unpaired ? "recorded runs" : "recorded (one number)";
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
            rc = recorded_timing(x->rec, r, &out[i].timing, err);
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
    kt_timing t;
    kt_err err;

    /* The file's own optimum (by its objective), with the statistics a
     * replay gives it, so that the answer compares on equal terms. */
    if (!best || recorded_timing(self(ev)->rec, best, &t, &err))
        return 0;
    kt_extrec_point(self(ev)->rec, best, pt);
    *stats = t.kernel;
    kt_timing_free(&t);
    return 1;
}

/* What a point's statistics come from: its recorded runs, or the one
 * number the file holds (said, since its interval is then a point). */
static void stats_note(const kt_extrec *rec, char *out, size_t size)
{
    size_t correct = 0, with_runs = 0, runs = 0;
    for (size_t i = 0; i < rec->num_records; ++i) {
        const kt_extrec_record *r = &rec->records[i];
        size_t n = r->num_runs;
        if (r->verdict != KT_EXTREC_CORRECT)
            continue;
        ++correct;
        with_runs += n > 1;
        runs += n > 1 ? n : 0;
    }
    if (with_runs == correct && correct)
        snprintf(out, size,
                 "each point's median, 95%% interval and noise come from its "
                 "recorded runtimes (%.0f runs a point on average), and "
                 "points are compared on their runs unpaired (they were not "
                 "interleaved), so ties and finalists are decided as live",
                 (double)runs / (double)with_runs);
    else if (with_runs)
        snprintf(out, size,
                 "%zu of %zu correct points have their recorded runtimes, "
                 "whose median, 95%% interval and noise they get (compared "
                 "unpaired); the file holds one number for the other %zu, "
                 "its recorded objective, with a point interval",
                 with_runs, correct, correct - with_runs);
    else
        snprintf(out, size,
                 "the file holds one number per point (no recorded "
                 "runtimes): its time is the recorded objective, its "
                 "interval a point, its noise 0");
}

void kt_replay_ext_note(const kt_evaluator *ev, char *out, size_t size)
{
    const kt_extrec *rec = self(ev)->rec;
    char stats[400];

    stats_note(rec, stats, sizeof stats);
    snprintf(out, size,
             "replays another tool's recording, a %s of %s on %s (%zu "
             "configurations recorded of %llu declared): no GPU, no plugin; "
             "each point is what the file records; %s. The clock is Kernel "
             "Tuner's simulation mode's: a "
             "point's first evaluation adds its recorded compile, "
             "verification and benchmark times%s to the run's own time, so "
             "max_seconds is simulated time; points the file does not hold "
             "are outside the space.",
             kt_extrec_format_name(rec->format), rec->kernel, rec->device,
             rec->num_records, (unsigned long long)rec->space_size, stats,
             rec->bench_from_runtimes
                 ? " (the file records no benchmark time: the sum of its "
                   "runtimes stands for it)"
                 : "");
}
