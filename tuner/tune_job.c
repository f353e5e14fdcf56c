// SPDX-License-Identifier: Apache-2.0
#include "tuner/tune_job.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/msg.h"
#include "core/outfile.h"
#include "core/runctx.h"
#include "records/objective.h"
#include "tuner/export.h"

void kt_tune_config_from_job(const kt_job *job, const kt_tune_setup *s,
                             kt_tune_config *cfg)
{
    const kt_calibration *c = s->calib;

    memset(cfg, 0, sizeof *cfg);
    cfg->op = job->op;
    cfg->space = &job->space;
    cfg->ev = s->ev;
    cfg->workers = s->workers;
    cfg->num_workers = s->num_workers;
    cfg->worker_envs = s->worker_envs;
    cfg->strategy = job->strategy;
    memcpy(cfg->options, job->options, sizeof cfg->options);
    cfg->seed = job->seed;
    cfg->max_evals = job->max_evals;
    cfg->max_seconds = job->max_seconds;
    cfg->budget_origin = s->started;
    cfg->finalists = job->finalists;
    cfg->min_gain = job->min_gain;
    cfg->objective = job->objective;
    cfg->protocol = job->protocol;
    cfg->journal = s->journal;
    cfg->resume = s->resume;
    cfg->progress = s->progress;
    cfg->profiling = &job->metrics;
    cfg->counters_unavailable = s->counters_unavailable;
    kt_diag_facts_init(&cfg->diag, s->ev->ops->device(s->ev), NULL);
    kt_diag_facts_ceilings(
        &cfg->diag, c ? c->copy_gbs : 0, c ? c->peak_bw_gbs : 0,
        c ? c->fp32_gflops : 0,
        json_number_value(json_object_get(
            json_object_get(s->environment, "device"), "sm_clock_mhz")));
    cfg->diag.access_bytes = job->metrics.access_bytes;
    cfg->notes = kt_stderr();
}

void kt_tune_facts_from_job(const kt_job *job, const kt_tune_setup *s,
                            const kt_tune_config *cfg, kt_tune_facts *f)
{
    memset(f, 0, sizeof *f);
    f->spec = job->spec;
    f->plugin = job->plugin;
    f->op = job->op;
    f->space = &job->space;
    f->sizes = job->sizes;
    f->cfg = cfg;
    f->strategy_alias = job->strategy_alias ? job->strategy_alias->name : NULL;
    f->device_name = s->ev->ops->device(s->ev)->name;
    f->work = s->ev->ops->work(s->ev);
    f->copy_gbs = s->calib ? s->calib->copy_gbs : 0;
    f->peak_gbs = s->calib ? s->calib->peak_bw_gbs : 0;
    f->environment = s->environment;
    f->journal = cfg->journal ? job->journal : NULL;
}

/* --markdown: the file, or "-" for stdout. */
static kt_status write_markdown(const char *path, const kt_tune_facts *f,
                                const kt_tune_result *r, size_t top,
                                kt_err *err)
{
    FILE *out = kt_out_open(path);

    if (!out)
        return kt_err_set(err, KT_S_IO, "--markdown %s: cannot write: %s", path,
                          strerror(errno));
    kt_summary_markdown(out, f, r, top);
    if (kt_out_close(out) != 0)
        return kt_err_set(err, KT_S_IO, "--markdown %s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}

kt_status kt_tune_write_outputs(const kt_job *job, const kt_tune_facts *f,
                                const kt_tune_result *r, const char *markdown,
                                kt_err *err)
{
    kt_status rc = KT_S_OK;
    /* A replay of another tool's recording keeps no journal (refused):
     * its summary lists every point measured, so that ktune report can
     * draw all of them, not only the top few. */
    if (job->json[0])
        rc = kt_export_json(job->json, f, r,
                            f->replay_note ? INT_MAX : job->top, err);
    if (!rc && job->csv[0])
        rc = kt_export_csv(job->csv, f, r, err);
    if (!rc && job->t4[0])
        rc = kt_export_t4(job->t4, f, r, err);
    if (!rc && markdown)
        rc = write_markdown(markdown, f, r, job->top, err);
    return rc;
}

void kt_tune_journal_run(kt_journal *journal, const kt_tune_result *r,
                         int quiet)
{
    json_t *run;
    kt_err jerr;

    if (!journal)
        return;
    run = json_pack("{s:o,s:I,s:I,s:s}", "phases", kt_export_phases(r),
                    "evaluations", (json_int_t)r->evaluations, "measured",
                    (json_int_t)r->measured, "stop_reason",
                    r->stop_reason ? r->stop_reason : "");
    if (kt_journal_record(journal, "run", run, &jerr) && !quiet)
        kt_msg("warning: %s\n", jerr.msg);
}

kt_status kt_tune_check_energy(const kt_job *job, json_t *environment,
                               kt_err *err)
{
    json_t *e = json_object_get(environment, "energy");
    const char *note = json_string_value(json_object_get(e, "note"));

    if (!kt_objective_needs_energy(job->objective) ||
        json_is_true(json_object_get(e, "available")))
        return KT_S_OK;
    return kt_err_set(
        err, KT_S_INPUT,
        "[strategy] objective = %s needs energy measurements, and "
        "there are none here: %s",
        kt_objective_name(job->objective),
        note && note[0] ? note
                        : "this evaluator measures no energy (a "
                          "replay of a recording made without it)");
}

void kt_tune_wisdom_answer(const kt_job *job, const kt_device *dev,
                           const kt_sweep_row *row, char *device_name,
                           size_t device_size, kt_wisdom_answer *out)
{
    snprintf(device_name, device_size, "%s", dev->name ? dev->name : "?");
    memset(out, 0, sizeof *out);
    out->spec = job->spec;
    out->plugin = job->plugin;
    out->op = job->op;
    out->device_name = device_name;
    out->cc_major = dev->cc_major;
    out->cc_minor = dev->cc_minor;
    out->sizes = row->sizes;
    out->point = row->best;
    out->time_us = row->stats.median;
    out->ci_lo_us = row->stats.ci_lo;
    out->ci_hi_us = row->stats.ci_hi;
}
