// SPDX-License-Identifier: Apache-2.0
/*
 * An evaluator for CPU tests and benches of the compile-ahead path: the
 * local evaluator's use of the compile pool (engine/local_eval.c) without a
 * GPU. A declared operator's points are hinted to a real kt_cpool exactly
 * as the local evaluator hints them (engine/compile_hints.h at the
 * session's sizes: each point's keys kept), and each point's first evaluation
 * takes its kernel from the pool as its verification would, waiting when
 * the kernel is not compiled yet; then it "measures" for measure_s and
 * answers a made-up time (a fixed function of the point). The pool's
 * compile is the caller's (a sleep in tests, NVRTC in a bench).
 *
 * What it counts: the takes that found their kernel compiled ahead, the
 * time the "GPU" waited on compiles (its idle time), and, as the local
 * evaluator reports them, each point's compile costs in its first
 * evaluation only.
 * Include after tests/kt_test.h (or stdio/stdlib in a bench).
 */
#ifndef KT_TEST_COMPILE_EVAL_H
#define KT_TEST_COMPILE_EVAL_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/evaluator.h"
#include "core/stats.h"
#include "engine/compile_hints.h"
#include "engine/compile_pool.h"
#include "engine/declared_run.h"

typedef struct kt_compile_eval {
    kt_evaluator base;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    kt_device dev;
    kt_work work;
    char arch[32];
    kt_cpool *pool;
    kt_chints hints;
    double measure_s; /* "GPU" time per evaluated point */
    /* Points verified (each once). */
    kt_point *verified;
    size_t num_verified, cap_verified;
    size_t calls, takes, hint_calls;
    double gpu_wait_s; /* time takes waited for a compile */
    double measured_s; /* time spent "measuring" */
    double busy_reported, work_reported;
    /* As the local evaluator did before it reported costs once: every
     * result of a point repeats its verification's wait and CPU time. */
    int repeat_costs;
    double *waits; /* per verified point, for repeat_costs */
} kt_compile_eval;

static long kt_ce_find(const kt_point *set, size_t n, const kt_point *pt)
{
    for (size_t i = 0; i < n; ++i)
        if (kt_point_equal(&set[i], pt))
            return (long)i;
    return -1;
}

static int kt_ce_known(const kt_point *set, size_t n, const kt_point *pt)
{
    return kt_ce_find(set, n, pt) >= 0;
}

static int kt_ce_add(kt_point **set, size_t *n, size_t *cap, const kt_point *pt)
{
    if (*n == *cap) {
        size_t grown = *cap ? 2 * *cap : 64;
        kt_point *p = (kt_point *)realloc(*set, grown * sizeof *p);
        if (!p)
            return -1;
        *set = p;
        *cap = grown;
    }
    (*set)[(*n)++] = *pt;
    return 0;
}

/* As local_eval's hint_points: the points no verification covers, in
 * order; a point hinted again moves forward in the pool's queue. */
static void kt_ce_prefetch(kt_evaluator *ev, const kt_point *pts, size_t n)
{
    kt_compile_eval *c = (kt_compile_eval *)ev;
    kt_point *open = (kt_point *)malloc((n ? n : 1) * sizeof *open);
    size_t m = 0;

    ++c->hint_calls;
    for (size_t i = 0; open && i < n; ++i)
        if (!kt_ce_known(c->verified, c->num_verified, &pts[i]))
            open[m++] = pts[i];
    kt_chints_give(&c->hints, c->pool, open, m);
    free(open);
}

/* A made-up median in microseconds: fixed per point, 10..1010. */
static double kt_ce_time_us(const kt_point *pt)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < pt->count; ++i)
        h = (h ^ (uint64_t)pt->values[i]) * 1099511628211ull;
    return 10.0 + (double)(h % 1000);
}

static kt_status kt_ce_timing(const kt_point *pt, kt_timing *t, kt_err *err)
{
    double us = kt_ce_time_us(pt);
    memset(t, 0, sizeof *t);
    t->num_rounds = 5;
    t->samples_us = (double *)malloc(t->num_rounds * sizeof *t->samples_us);
    if (!t->samples_us)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t r = 0; r < t->num_rounds; ++r)
        t->samples_us[r] = us * (1.0 + 1e-3 * (double)r);
    kt_stats_compute(t->samples_us, t->num_rounds, &t->kernel);
    t->gpu_time_s = 1e-6 * us * (double)t->num_rounds;
    t->stop_reason = "made up";
    return KT_S_OK;
}

/* The first verification of pt: its kernel from the pool. */
static kt_status kt_ce_verify(kt_compile_eval *c, const kt_point *pt,
                              kt_eval_result *out, kt_err *err)
{
    kt_decl_request b;
    kt_nvrtc_request req;
    kt_nvrtc_output o;
    kt_cpool_stats before, after;
    double wait = 0;
    kt_status rc = KT_S_OK;

    double *grown;
    size_t at = c->num_verified;

    if (kt_ce_add(&c->verified, &c->num_verified, &c->cap_verified, pt) ||
        !(grown = (double *)realloc(c->waits, c->cap_verified * sizeof *grown)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    c->waits = grown;
    c->waits[at] = 0;
    if (!kt_declared_compile_request(c->plugin, pt->variant, c->sizes,
                                     pt->values, c->arch, 0, &b, &req))
        return KT_S_OK;
    ++c->takes;
    kt_cpool_stats_get(c->pool, &before);
    rc = kt_cpool_compile(c->pool, &req, &o, &wait, err);
    kt_cpool_stats_get(c->pool, &after);
    out->compile_taken = (uint32_t)(after.taken - before.taken);
    out->compile_took_queued =
        (uint32_t)(after.took_queued - before.took_queued);
    out->compile_unhinted = (uint32_t)(after.unhinted - before.unhinted);
    free(b.src);
    if (rc)
        return rc;
    out->compiled = 1;
    out->compile_s = o.seconds;
    out->compile_cpu_s = o.cpu_seconds;
    out->compile_wait_s = c->waits[at] = wait;
    c->gpu_wait_s += wait;
    if (!o.compiled) {
        out->status = KT_EVAL_INVALID;
        snprintf(out->reason, sizeof out->reason, "%s", KT_COMPILE_FAILED);
    }
    kt_nvrtc_output_free(&o);
    return KT_S_OK;
}

static kt_status kt_ce_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                                const kt_protocol *p, kt_eval_result *out,
                                kt_err *err)
{
    kt_compile_eval *c = (kt_compile_eval *)ev;
    kt_cpool_stats st;
    kt_status rc = KT_S_OK;

    (void)p;
    memset(out, 0, n * sizeof *out);
    ++c->calls;
    kt_ce_prefetch(ev, pts, n); /* the call's kernels at once */
    for (size_t i = 0; i < n && !rc; ++i) {
        long seen = kt_ce_find(c->verified, c->num_verified, &pts[i]);
        if (seen < 0)
            rc = kt_ce_verify(c, &pts[i], &out[i], err);
        else if (c->repeat_costs)
            out[i].compile_wait_s = c->waits[seen];
        if (!rc && out[i].status == KT_EVAL_OK) {
            kt_clock_sleep(c->measure_s);
            c->measured_s += c->measure_s;
            rc = kt_ce_timing(&pts[i], &out[i].timing, err);
        }
    }
    kt_cpool_stats_get(c->pool, &st);
    if (n) { /* since the last call, as local_eval's pool_since_last */
        out[0].compile_busy_s = st.busy_s - c->busy_reported;
        out[0].compile_work_s = st.compile_s - c->work_reported;
        out[0].compile_peak = (uint32_t)st.peak_running;
    }
    c->busy_reported = st.busy_s;
    c->work_reported = st.compile_s;
    return rc;
}

static const kt_device *kt_ce_device(kt_evaluator *ev)
{
    return &((kt_compile_eval *)ev)->dev;
}

static const kt_work *kt_ce_work(kt_evaluator *ev)
{
    return &((kt_compile_eval *)ev)->work;
}

/* The local evaluator's compile record (engine/local_eval.c): the pool's
 * threads, and kernels that compile at run time, as a declaration's do. */
static json_t *kt_ce_environment(kt_evaluator *ev)
{
    kt_compile_eval *c = (kt_compile_eval *)ev;
    kt_cpool_stats st;
    kt_cpool_stats_get(c->pool, &st);
    return json_pack("{s:{s:i,s:b}}", "compile", "threads", st.threads,
                     "run_time", 1);
}

static kt_status kt_ce_calibration(kt_evaluator *ev, int refresh,
                                   kt_calibration *out, kt_err *err)
{
    (void)ev;
    (void)refresh;
    (void)out;
    return kt_err_set(err, KT_S_UNSUPPORTED, "a made-up GPU");
}

static void kt_ce_close(kt_evaluator *ev)
{
    kt_compile_eval *c = (kt_compile_eval *)ev;
    if (!c)
        return;
    kt_cpool_close(c->pool);
    kt_chints_free(&c->hints);
    free(c->verified);
    free(c->waits);
    free(c);
}

static const kt_evaluator_ops kt_compile_eval_ops = {
    .kind = "replay", /* answers made up, as a replay's are */
    .evaluate = kt_ce_evaluate,
    .device = kt_ce_device,
    .calibration = kt_ce_calibration,
    .environment = kt_ce_environment,
    .work = kt_ce_work,
    .close = kt_ce_close,
    .prefetch = kt_ce_prefetch,
};

/* An evaluator of declared operator op (of plugin) at sizes on dev (arch sm_XY
 * of it), its pool opened with opt; NULL when it cannot open. Close with
 * base.ops->close. */
static inline kt_compile_eval *
kt_compile_eval_open(const kt_loaded_plugin *plugin, const kt_operator *op,
                     const int64_t *sizes, const kt_device *dev,
                     const kt_cpool_options *opt, double measure_s)
{
    kt_compile_eval *c = (kt_compile_eval *)calloc(1, sizeof *c);
    kt_err err;

    if (!c)
        return NULL;
    c->base.ops = &kt_compile_eval_ops;
    c->plugin = plugin;
    c->op = op;
    memcpy(c->sizes, sizes, sizeof c->sizes);
    c->dev = *dev;
    c->work.struct_size = sizeof c->work;
    c->measure_s = measure_s;
    kt_nvrtc_arch(dev->cc_major, dev->cc_minor, c->arch, sizeof c->arch);
    if (kt_cpool_open(opt, &c->pool, &err)) {
        free(c);
        return NULL;
    }
    kt_chints_init(&c->hints, plugin, c->sizes, c->arch);
    return c;
}

#endif
