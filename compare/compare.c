// SPDX-License-Identifier: Apache-2.0
#include "compare/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/envrec.h"
#include "core/feasible.h"
#include "core/sizes.h"

kt_status kt_compare_init(kt_compare *c, size_t num_rows, kt_err *err)
{
    memset(c, 0, sizeof *c);
    c->rows = calloc(num_rows ? num_rows : 1, sizeof *c->rows);
    if (!c->rows)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    c->num_rows = num_rows;
    for (size_t i = 0; i < num_rows; ++i) {
        c->rows[i].pick.recorded_us = NAN;
        c->rows[i].counters = KT_S_UNSUPPORTED;
        for (int m = 0; m < KT_M_COUNT; ++m)
            c->rows[i].metrics[m] = NAN;
    }
    return KT_S_OK;
}

void kt_compare_free(kt_compare *c)
{
    for (size_t i = 0; i < c->num_rows; ++i) {
        kt_eval_result_free(&c->rows[i].result);
        kt_profile_result_free(&c->rows[i].prof);
    }
    free(c->rows);
    json_decref(c->environment);
    memset(c, 0, sizeof *c);
}

void kt_compare_note(kt_compare *c, const char *fmt, ...)
{
    va_list ap;
    if (c->num_notes >= KT_COMPARE_MAX_NOTES)
        return;
    va_start(ap, fmt);
    vsnprintf(c->notes[c->num_notes], sizeof c->notes[0], fmt, ap);
    va_end(ap);
    ++c->num_notes;
}

void kt_compare_params_text(const kt_operator *op, const kt_point *pt,
                            char *out, size_t out_size)
{
    char text[512];
    const char *space;

    kt_point_format(op, pt, text, sizeof text);
    space = strchr(text, ' ');
    snprintf(out, out_size, "%s", space ? space + 1 : "(no parameters)");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Host-side feasibility of every row at the compared size. */
static kt_status check_rows(kt_compare *c, const kt_device *dev, kt_err *err)
{
    kt_problem problem;

    memset(&problem, 0, sizeof problem);
    problem.struct_size = sizeof problem;
    problem.num_sizes = c->op->num_sizes;
    problem.sizes = c->sizes;
    problem.seed = c->seed;
    problem.device = dev;
    for (size_t i = 0; i < c->num_rows; ++i) {
        kt_compare_row *r = &c->rows[i];
        kt_err why;
        kt_status rc;

        kt_err_clear(&why);
        rc = kt_point_feasible(c->plugin, c->op, &problem, &r->pick.point,
                               &r->result.shape, &why);
        if (rc == KT_S_OK)
            continue;
        if (rc != KT_S_INVALID)
            return kt_err_set(err, rc, "%s: %s", c->spec, why.msg);
        if (r->pick.kind == KT_PICK_CONFIG) {
            char sizes[256], text[512];
            kt_format_sizes(c->op, c->sizes, sizes, sizeof sizes);
            kt_point_format(c->op, &r->pick.point, text, sizeof text);
            return kt_err_set(
                err, KT_S_INPUT, "--config %s cannot run at %s on %s: %s", text,
                sizes, dev->name ? dev->name : "this device", why.msg);
        }
        r->host_invalid = 1;
        r->result.status = KT_EVAL_INVALID;
        snprintf(r->result.reason, sizeof r->result.reason, "%s", why.msg);
    }
    return KT_S_OK;
}

/* One evaluate() call for every row that can run. */
static kt_status measure(kt_compare *c, kt_evaluator *ev, kt_err *err)
{
    kt_point *pts = calloc(c->num_rows, sizeof *pts);
    kt_eval_result *out = calloc(c->num_rows, sizeof *out);
    size_t *idx = calloc(c->num_rows, sizeof *idx), n = 0;
    double t0;
    kt_status rc = KT_S_OK;

    if (!pts || !out || !idx) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->num_rows; ++i)
        if (!c->rows[i].host_invalid) {
            pts[n] = c->rows[i].pick.point;
            idx[n++] = i;
        }
    if (n == 0)
        goto done;
    t0 = now_s();
    rc = ev->ops->evaluate(ev, pts, n, &c->protocol, out, err);
    c->wall_s = now_s() - t0;
    if (rc)
        goto done;
    for (size_t k = 0; k < n; ++k) {
        c->rows[idx[k]].result = out[k]; /* takes the samples */
        memset(&out[k], 0, sizeof out[k]);
        if (c->rows[idx[k]].result.timing.num_rounds > c->rounds)
            c->rounds = c->rows[idx[k]].result.timing.num_rounds;
    }
done:
    if (out)
        for (size_t k = 0; k < n; ++k)
            kt_eval_result_free(&out[k]);
    free(out);
    free(pts);
    free(idx);
    return rc;
}

/* Speed-ups against the reference and the derived figures. */
static void derive_rows(kt_compare *c)
{
    const kt_compare_row *ref = &c->rows[c->reference];
    const kt_timing *rt = &ref->result.timing;

    for (size_t i = 0; i < c->num_rows; ++i) {
        kt_compare_row *r = &c->rows[i];
        const kt_timing *t = &r->result.timing;
        if (r->result.status != KT_EVAL_OK)
            continue;
        kt_derive(&c->work, t->kernel.median,
                  c->have_calib ? c->calib.copy_gbs : 0,
                  c->have_calib ? c->calib.peak_bw_gbs : 0, &r->derived);
        if (ref->result.status != KT_EVAL_OK || !t->samples_us ||
            !rt->samples_us)
            continue;
        /* b / a per round with a = this row, b = the reference: the
         * reference's time over this row's, > 1 when this row is faster. */
        kt_stats_paired_ratio(t->samples_us, rt->samples_us,
                              t->num_rounds < rt->num_rounds ? t->num_rounds
                                                             : rt->num_rounds,
                              &r->speedup);
        r->verdict = kt_stats_verdict(&r->speedup, 0.0);
    }
}

static double sm_clock_mhz(const json_t *env)
{
    return json_number_value(
        json_object_get(json_object_get(env, "device"), "sm_clock_mhz"));
}

/* Kernel facts for every verified row, counters when wanted. */
/* The counter names checked against the device before any row is
 * profiled: *num_raw becomes 0, with c->counters_note saying why, when
 * counters cannot be had. */
static kt_status check_counter_names(kt_compare *c, kt_evaluator *ev,
                                     const char **raw, size_t *num_raw,
                                     kt_err *err)
{
    kt_profile_request check = {raw, *num_raw, 1};
    kt_profile_result res;
    kt_status rc;

    if (!*num_raw) {
        if (!c->counters)
            snprintf(c->counters_note, sizeof c->counters_note,
                     "--no-counters");
        return KT_S_OK;
    }
    if ((rc = ev->ops->profile(ev, NULL, &check, &res, err)))
        return rc;
    if (res.counters != KT_S_OK) {
        snprintf(c->counters_note, sizeof c->counters_note, "%s",
                 res.note[0] ? res.note : "counters unavailable");
        if (res.counters != KT_S_UNSUPPORTED)
            kt_compare_note(c, "checking the counter names failed: %s",
                            c->counters_note);
        *num_raw = 0;
    }
    kt_profile_result_free(&res);
    return KT_S_OK;
}

static kt_status profile_rows(kt_compare *c, kt_evaluator *ev, kt_err *err)
{
    const char *raw[KT_METRICS_RAW_MAX];
    size_t num_raw = c->counters ? kt_metric_set_raw_names(&c->set, raw) : 0;
    kt_profile_request req;
    kt_status rc;
    int lost = 0;

    if (!ev->ops->profile) {
        snprintf(c->counters_note, sizeof c->counters_note,
                 "the %s evaluator cannot profile", ev->ops->kind);
        return KT_S_OK;
    }
    if ((rc = check_counter_names(c, ev, raw, &num_raw, err)))
        return rc;
    memset(&req, 0, sizeof req);
    req.metrics = num_raw ? raw : NULL;
    req.num_metrics = num_raw;
    req.launches = c->profile_launches;
    req.sweep_flush = c->protocol.profile_flush_sweep;
    for (size_t i = 0; i < c->num_rows; ++i) {
        kt_compare_row *r = &c->rows[i];
        kt_err perr;

        if (r->result.status != KT_EVAL_OK)
            continue;
        if (lost) {
            snprintf(r->counters_note, sizeof r->counters_note,
                     "not collected: an earlier profile lost the GPU context");
            continue;
        }
        kt_err_clear(&perr);
        r->profiled = 1;
        rc = ev->ops->profile(ev, &r->pick.point, &req, &r->prof, &perr);
        if (rc) {
            r->counters = rc;
            snprintf(r->counters_note, sizeof r->counters_note, "%s", perr.msg);
            lost = rc == KT_S_EXEC;
            continue;
        }
        if (r->prof.status != KT_EVAL_OK) {
            r->counters = KT_S_MISMATCH;
            snprintf(r->counters_note, sizeof r->counters_note,
                     "profiling: %s: %s", kt_eval_status_name(r->prof.status),
                     r->prof.reason);
            continue;
        }
        if (!num_raw) {
            snprintf(r->counters_note, sizeof r->counters_note, "%s",
                     c->counters_note);
            continue;
        }
        r->counters = r->prof.counters;
        if (r->prof.counters == KT_S_OK && r->prof.values) {
            kt_metric_set_values(&c->set, r->prof.values, NULL, r->metrics);
            c->counters_collected = 1;
        } else {
            snprintf(r->counters_note, sizeof r->counters_note, "%s",
                     r->prof.note[0] ? r->prof.note : "no values");
        }
    }
    return KT_S_OK;
}

static void diagnose_rows(kt_compare *c)
{
    for (size_t i = 0; i < c->num_rows; ++i) {
        kt_compare_row *r = &c->rows[i];
        kt_diag_point pt;
        if (r->result.status != KT_EVAL_OK)
            continue;
        pt.median_us = r->result.timing.kernel.median;
        pt.kernel = r->profiled && r->prof.status == KT_EVAL_OK
                        ? &r->prof.kernel
                        : NULL;
        pt.by_id = r->counters == KT_S_OK ? r->metrics : NULL;
        r->have_occ =
            kt_diagnose_point(&c->facts, &pt, &r->diag, &r->occ, NULL);
        r->have_diag = 1;
    }
}

kt_status kt_compare_run(kt_compare *c, kt_evaluator *ev, kt_err *err)
{
    const kt_device *dev = ev->ops->device(ev);
    kt_err cerr;
    kt_status rc;

    c->evaluator = ev->ops->kind;
    snprintf(c->device, sizeof c->device, "%s",
             dev->name ? dev->name : "unknown device");
    c->work = *ev->ops->work(ev);
    kt_err_clear(&cerr);
    c->have_calib = ev->ops->calibration(ev, 0, &c->calib, &cerr) == KT_S_OK;
    if (!c->have_calib)
        kt_compare_note(c, "no calibration, so no %% of the copy ceiling: %s",
                        cerr.msg);
    json_decref(c->environment);
    c->environment = ev->ops->environment(ev);
    if (!c->environment)
        c->environment = json_object();
    json_object_set_new(c->environment, "protocol",
                        kt_env_protocol(&c->protocol));
    if (c->have_calib)
        json_object_set_new(c->environment, "calibration",
                            kt_calib_to_json(&c->calib));
    /* The measured FMA ceiling when calibration has one: the roofline and
     * the compute-bound verdict then stand on what this device does. */
    kt_diag_facts_init(&c->facts, dev, &c->work);
    kt_diag_facts_ceilings(&c->facts, c->have_calib ? c->calib.copy_gbs : 0,
                           c->have_calib ? c->calib.peak_bw_gbs : 0,
                           c->have_calib ? c->calib.fp32_gflops : 0,
                           sm_clock_mhz(c->environment));
    c->facts.access_bytes = c->access_bytes;
    if ((rc = check_rows(c, dev, err)) || (rc = measure(c, ev, err)))
        return rc;
    derive_rows(c);
    if ((rc = profile_rows(c, ev, err)))
        return rc;
    diagnose_rows(c);
    return KT_S_OK;
}

int kt_compare_failed(const kt_compare *c)
{
    if (c->rows[c->reference].result.status != KT_EVAL_OK)
        return 1;
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        if (r->result.status != KT_EVAL_OK &&
            r->result.status != KT_EVAL_INVALID)
            return 1;
        if (r->profiled && r->counters != KT_S_OK &&
            r->counters != KT_S_UNSUPPORTED)
            return 1;
    }
    return 0;
}
