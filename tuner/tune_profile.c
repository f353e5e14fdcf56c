// SPDX-License-Identifier: Apache-2.0
/* The tuning session's counters ([metrics]): tuner/tune_impl.h. */
#include "tuner/tune_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"

/* ----------------------------------------------------------- profiling */

/* One line, once per run, when counters cannot be had (or some of them:
 * partial); the run goes on. */
static void note_unavailable(kt_tune *t, const kt_tune_entry *e,
                             const char *why, int partial)
{
    char cfg[256];
    kt_point pt;
    if (t->noted || !t->num_raw)
        return;
    t->noted = 1;
    pt = kt_tune_entry_point(t->res, e);
    kt_point_format(t->cfg->op, &pt, cfg, sizeof cfg);
    snprintf(t->res->counters_note, sizeof t->res->counters_note, "%s (%s)",
             why, cfg);
    if (t->cfg->notes)
        kt_fmsg(t->cfg->notes,
                "%s hardware counters for %s: %s; continuing without "
                "them\n",
                partial ? "missing" : "no", cfg, why);
}

/* Profiles entry `at` (verified and timed) once: from the resumed journal
 * when it holds every counter asked for, else through the evaluator, and
 * journals what it got. Only running out of memory, an unknown counter
 * name or an unwritable journal stop the run. */
static kt_status profile_entry(kt_tune *t, size_t at, kt_err *err)
{
    const kt_tune_config *cfg = t->cfg;
    kt_tune_entry *e = &t->res->entries[at];
    const kt_point pt = kt_tune_entry_point(t->res, e);
    const kt_journal_profile *jp = NULL;
    kt_profile_request req = {.sweep_flush = cfg->protocol.profile_flush_sweep};
    kt_profile_result res;
    kt_profiling_point *p;
    json_t *rec;
    kt_err perr;
    double start;
    kt_status rc = KT_S_OK;

    if (e->profile || e->status != KT_EVAL_OK || e->host_checked ||
        !t->profiling)
        return KT_S_OK;
    if (!(p = calloc(1, sizeof *p)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    memset(&res, 0, sizeof res);
    req.metrics = t->raw;
    req.num_metrics = t->counters_off ? 0 : t->num_raw;
    if (cfg->resume)
        jp = kt_journal_find_profile(cfg->resume, &pt);
    if (jp && kt_profiling_covers(jp->record, req.metrics, req.num_metrics)) {
        rc = kt_profiling_result(jp->record, req.metrics, req.num_metrics, &res,
                                 err);
        if (rc) {
            free(p);
            return kt_err_prefix(
                err, "%s: ", cfg->journal ? cfg->journal->path : "journal");
        }
        ++t->res->profiled_from_journal;
    } else if (!cfg->ev->ops->profile) {
        res.status = KT_EVAL_OK;
        res.counters = KT_S_UNSUPPORTED;
        snprintf(res.note, sizeof res.note, "the %s evaluator cannot profile",
                 cfg->ev->ops->kind);
        jp = NULL;
    } else {
        jp = NULL;
        kt_err_clear(&perr);
        start = kt_tune_monotonic();
        kt_tune_progress_call(t, "profile", &pt, 1);
        rc = cfg->ev->ops->profile(cfg->ev, &pt, &req, &res, &perr);
        t->res->profile_s += kt_tune_monotonic() - start;
        if (rc == KT_S_NOMEM || rc == KT_S_INPUT) {
            free(p);
            kt_profile_result_free(&res);
            *err = perr;
            return kt_tune_fail(t, rc, &perr);
        }
        if (rc) {
            /* The point ran and was timed; its profile failing costs the
             * profile, not the point. A lost context stops the run at the
             * next evaluation. */
            kt_profile_result_free(&res);
            memset(&res, 0, sizeof res);
            res.status = KT_EVAL_OK;
            res.counters = rc;
            snprintf(res.note, sizeof res.note, "profiling failed: %s",
                     perr.msg);
            rc = KT_S_OK;
        }
        if (!rc && res.status != KT_EVAL_OK) {
            /* It ran when timed; profiling it crashed, timed out or failed
             * to verify (a worker restarts). The profile is lost, not the
             * point, and counters stay on for the others. */
            char why[sizeof res.note];
            snprintf(why, sizeof why, "profiling: %s: %s",
                     kt_eval_status_name(res.status), res.reason);
            free(res.values);
            res.values = NULL;
            res.num_values = 0;
            res.counters =
                res.status == KT_EVAL_CRASH || res.status == KT_EVAL_TIMEOUT
                    ? KT_S_CRASHED
                    : KT_S_PLUGIN;
            snprintf(res.note, sizeof res.note, "%s", why);
        }
        t->res->profile_passes += res.stats.passes;
    }
    kt_profiling_from_result(&t->prof.set, req.num_metrics, &res, p);
    p->from_journal = jp != NULL;
    e->profile = p;
    ++t->res->profiled;
    if (req.num_metrics && p->counters != KT_S_OK) {
        note_unavailable(t, e, p->note, 0);
        /* A machine without counters stays without them; a recording may
         * hold them for other points. */
        if (p->counters == KT_S_UNSUPPORTED &&
            strcmp(cfg->ev->ops->kind, "replay") != 0)
            t->counters_off = 1;
    } else if (req.num_metrics && p->note[0]) {
        note_unavailable(t, e, p->note, 1);
    }
    if (!jp && cfg->journal) {
        rec = kt_profiling_record(cfg->op, &pt, &t->prof.set, req.num_metrics,
                                  &cfg->space->device, &res);
        rc = rec ? kt_journal_profile_record(cfg->journal, rec,
                                             kt_tune_run_clock(t), err)
                 : kt_err_set(err, KT_S_NOMEM, "out of memory");
        json_decref(rec);
        if (rc)
            rc = kt_tune_fail(t, rc, err);
    }
    kt_profile_result_free(&res);
    return rc;
}

/* A point just evaluated: profiled now when [metrics] asks for every
 * point. */
kt_status kt_tune_profile_new(kt_tune *t, size_t at, kt_err *err)
{
    if (t->prof.points != KT_PROFILING_EVERY)
        return KT_S_OK;
    return profile_entry(t, at, err);
}

/* The profile of pt, which must have been evaluated (*out NULL when it
 * did not run or is unknown). */
static kt_status profile_point(kt_tune *t, const kt_point *pt,
                               const kt_profiling_point **out, kt_err *err)
{
    uint64_t index, pos;
    kt_status rc;

    *out = NULL;
    if (!kt_space_index(t->cfg->space, pt, &index) ||
        !kt_u64map_get(&t->by_index, index, &pos))
        return KT_S_OK;
    if ((rc = profile_entry(t, (size_t)pos, err)))
        return rc;
    *out = t->res->entries[pos].profile;
    return KT_S_OK;
}

/* [metrics] points = top: the best few by their own medians, and the
 * answer, after the closing round. */
kt_status kt_tune_profile_top(kt_tune *t, kt_err *err)
{
    kt_tune_result *res = t->res;
    const kt_tune_entry **ranked;
    size_t n;
    kt_status rc = KT_S_OK;

    if (t->prof.points != KT_PROFILING_TOP)
        return KT_S_OK;
    ranked = kt_tune_ranked(res, &n);
    if (!ranked)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    /* Each profile is a call of its own, after the finalists: none starts
     * that the budget has no room for. */
    for (size_t i = 0; i < n && i < t->prof.top && !rc; ++i)
        if (ranked[i]->profile ||
            kt_tune_budget_allows(t, "the top's profiles", 1))
            rc = profile_entry(t, (size_t)(ranked[i] - res->entries), err);
        else
            break;
    free(ranked);
    if (!rc && res->has_best) {
        const kt_profiling_point *p;
        rc = profile_point(t, &res->finals[0].point, &p, err);
    }
    return rc;
}

/* The spec in force (cfg's, none without one); names asked for. */
kt_status kt_tune_prepare_profiling(kt_tune *t, kt_err *err)
{
    const kt_tune_config *cfg = t->cfg;

    if (cfg->profiling)
        t->prof = *cfg->profiling;
    else
        memset(&t->prof, 0, sizeof t->prof);
    t->profiling = t->prof.points != KT_PROFILING_OFF;
    if (!t->profiling)
        return KT_S_OK;
    t->num_raw =
        t->prof.counters ? kt_metric_set_raw_names(&t->prof.set, t->raw) : 0;
    if (cfg->counters_unavailable && t->num_raw) {
        t->counters_off = 1;
        t->noted = 1;
        snprintf(t->res->counters_note, sizeof t->res->counters_note, "%s",
                 cfg->counters_unavailable);
    }
    t->res->profiling = malloc(sizeof *t->res->profiling);
    if (!t->res->profiling)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    *t->res->profiling = t->prof;
    return KT_S_OK;
}
