// SPDX-License-Identifier: Apache-2.0
/*
 * An evaluator for tests that forwards to a replay of a recorded journal
 * and counts what it is asked: evaluate() calls and points (the first
 * 4096 kept), profile() calls and those that asked for counters, and the
 * points hinted through prefetch() (the first 4096, each with the event
 * number of its hint, as evaluated points have theirs). It can
 * act like a GPU whose counters are off limits, or whose profiling fails.
 * Include after tests/kt_test.h.
 */
#ifndef KT_TEST_COUNTING_EVAL_H
#define KT_TEST_COUNTING_EVAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/evaluator.h"
#include "records/replay.h"

typedef struct kt_counting_eval {
    kt_evaluator base;
    kt_evaluator *inner; /* the replay; closed with this one */
    size_t calls, points;
    size_t small_calls; /* of one or two points: not closing rounds */
    kt_point seen[4096];
    size_t seen_at[4096]; /* event number of each seen point's call */
    kt_point hinted[4096];
    size_t hinted_at[4096];
    size_t num_hinted, hint_calls;
    size_t events; /* evaluate() and prefetch() calls so far */
    /* Per evaluate() call (the first 4096): its points and the protocol's
     * min_samples and warm-ups, as the tuner set them for that call. */
    size_t call_points[4096], call_min_samples[4096];
    int call_warmups[4096];
    /* ... and its racing bars: in time, and per unit of work with what
     * the work is (core/protocol.h). */
    double call_bar_us[4096], call_bar_per_work[4096];
    int call_bar_work[4096];
    size_t profiles;
    size_t asked_counters; /* profile() calls that asked for counters */
    /* Every request for counters is refused, as CUPTI refuses it without
     * privileges. */
    int no_privileges;
    kt_status fail_with; /* non-OK: every profile() fails with it */
    /* slow_every > 0: every slow_every-th evaluate() call sleeps slow_s
     * first; slow_call > 0: call number slow_call (from 1) does; as a call
     * that waits on a long compile does. */
    size_t slow_every, slow_call;
    double slow_s;
} kt_counting_eval;

static kt_status kt_counting_evaluate(kt_evaluator *ev, const kt_point *pts,
                                      size_t n, const kt_protocol *p,
                                      kt_eval_result *out, kt_err *err)
{
    kt_counting_eval *c = (kt_counting_eval *)ev;
    if (c->calls < 4096) {
        c->call_points[c->calls] = n;
        c->call_min_samples[c->calls] = p->min_samples;
        c->call_warmups[c->calls] = p->warmups;
        c->call_bar_us[c->calls] = p->race_bar_us;
        c->call_bar_per_work[c->calls] = p->race_bar_us_per_work;
        c->call_bar_work[c->calls] = p->race_bar_work;
    }
    ++c->calls;
    ++c->events;
    c->small_calls += n <= 2;
    if ((c->slow_every && c->calls % c->slow_every == 0) ||
        (c->slow_call && c->calls == c->slow_call)) {
        kt_clock_sleep(c->slow_s);
    }
    for (size_t i = 0; i < n; ++i)
        if (c->points < 4096) {
            c->seen_at[c->points] = c->events;
            c->seen[c->points++] = pts[i];
        }
    return c->inner->ops->evaluate(c->inner, pts, n, p, out, err);
}

static const kt_device *kt_counting_device(kt_evaluator *ev)
{
    kt_evaluator *in = ((kt_counting_eval *)ev)->inner;
    return in->ops->device(in);
}

static const kt_work *kt_counting_work(kt_evaluator *ev)
{
    kt_evaluator *in = ((kt_counting_eval *)ev)->inner;
    return in->ops->work(in);
}

static json_t *kt_counting_environment(kt_evaluator *ev)
{
    kt_evaluator *in = ((kt_counting_eval *)ev)->inner;
    return in->ops->environment(in);
}

static kt_status kt_counting_profile(kt_evaluator *ev, const kt_point *pt,
                                     const kt_profile_request *req,
                                     kt_profile_result *out, kt_err *err)
{
    kt_counting_eval *c = (kt_counting_eval *)ev;
    kt_status rc;
    ++c->profiles;
    c->asked_counters += req->num_metrics > 0;
    if (c->fail_with) {
        memset(out, 0, sizeof *out);
        return kt_err_set(err, c->fail_with,
                          "cuptiRangeProfilerSetConfig failed (simulated)");
    }
    rc = c->inner->ops->profile(c->inner, pt, req, out, err);
    if (!rc && c->no_privileges && req->num_metrics) {
        kt_profile_result_free(out);
        out->counters = KT_S_UNSUPPORTED;
        snprintf(out->note, sizeof out->note,
                 "profiling needs privileges (CUPTI_ERROR_INSUFFICIENT_"
                 "PRIVILEGES)");
    }
    return rc;
}

static void kt_counting_prefetch(kt_evaluator *ev, const kt_point *pts,
                                 size_t n)
{
    kt_counting_eval *c = (kt_counting_eval *)ev;
    ++c->hint_calls;
    ++c->events;
    for (size_t i = 0; i < n && c->num_hinted < 4096; ++i) {
        c->hinted_at[c->num_hinted] = c->events;
        c->hinted[c->num_hinted++] = pts[i];
    }
}

static void kt_counting_close(kt_evaluator *ev)
{
    kt_counting_eval *c = (kt_counting_eval *)ev;
    c->inner->ops->close(c->inner);
    free(c);
}

/* Kind "replay": the tune session treats it as the replay it forwards to
 * (a recording may hold counters for other points). */
static const kt_evaluator_ops kt_counting_ops = {
    .kind = "replay",
    .evaluate = kt_counting_evaluate,
    .device = kt_counting_device,
    .environment = kt_counting_environment,
    .work = kt_counting_work,
    .close = kt_counting_close,
    .profile = kt_counting_profile,
    .prefetch = kt_counting_prefetch,
};

/* Opens the replay of recording for plugin's op behind a counting
 * evaluator; fails the test when it cannot. Close with base.ops->close. */
static inline kt_counting_eval *kt_counting_open(const char *recording,
                                                 const kt_loaded_plugin *plugin,
                                                 const kt_operator *op)
{
    kt_counting_eval *c = (kt_counting_eval *)calloc(1, sizeof *c);
    kt_err err;
    assert_non_null(c);
    c->base.ops = &kt_counting_ops;
    if (kt_replay_open(recording, plugin, op, NULL, &c->inner, &err))
        fail_msg("%s", err.msg);
    return c;
}

#endif
