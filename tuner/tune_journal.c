// SPDX-License-Identifier: Apache-2.0
#include "tuner/tune_journal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/msg.h"

void kt_job_next_free_journal(kt_job *job)
{
    char base[PATH_MAX], candidate[PATH_MAX + 16];
    const char *dot;
    size_t stem;

    if (access(job->journal, F_OK) != 0)
        return;
    snprintf(base, sizeof base, "%s", job->journal);
    dot = strrchr(base, '.');
    stem =
        dot && dot > strrchr(base, '/') ? (size_t)(dot - base) : strlen(base);
    for (int i = 2; i < 10000; ++i) {
        snprintf(candidate, sizeof candidate, "%.*s.%d%s", (int)stem, base, i,
                 base + stem);
        if (access(candidate, F_OK) != 0) {
            kt_msg("journal %s exists (an earlier run; "
                   "--resume continues it): this run writes %s\n",
                   job->journal, candidate);
            snprintf(job->journal, sizeof job->journal, "%s", candidate);
            return;
        }
    }
}

static json_t *strategy_json(const kt_job *job)
{
    json_t *opts = json_object();
    for (size_t i = 0; i < job->strategy->num_options; ++i)
        json_object_set_new(opts, job->strategy->options[i].name,
                            json_real(job->options[i]));
    return json_pack("{s:s,s:I,s:I,s:f,s:I,s:f,s:o}", "name",
                     job->strategy->name, "seed", (json_int_t)job->seed,
                     "max_evals", (json_int_t)job->max_evals, "max_seconds",
                     job->max_seconds, "finalists", (json_int_t)job->finalists,
                     "min_gain", job->min_gain, "options", opts);
}

kt_status kt_tune_journal_open(int resume, const kt_job *job,
                               json_t *environment, kt_journal *journal,
                               kt_journal_log *log, int *have_log, kt_err *err)
{
    const kt_profiling_spec *prof = &job->metrics;
    json_t *header =
        kt_journal_header(job->plugin, job->spec, job->op, job->sizes,
                          job->input_seed, &job->space, &job->protocol,
                          strategy_json(job), json_deep_copy(environment));
    json_t *recorded = NULL;
    char note[512];
    kt_status rc;

    *have_log = 0;
    if (prof->points != KT_PROFILING_OFF)
        kt_journal_header_metrics(header, kt_profiling_spec_json(prof));
    /* A journal a run left empty (stopped before its header) has nothing
     * to resume: it is written afresh. */
    if (resume && kt_journal_is_empty(job->journal))
        kt_msg("note: %s is empty (its run stopped before writing "
               "the header); starting afresh\n",
               job->journal);
    if (!resume || kt_journal_is_empty(job->journal)) {
        rc = kt_journal_create(journal, job->journal, header, err);
        json_decref(header);
        return rc;
    }
    /* The header decides first: a journal of another plugin is refused
     * for that, not for the first point it cannot read. */
    if ((rc = kt_journal_read_header(job->journal, &recorded, err))) {
        json_decref(header);
        return kt_err_prefix(err, "--resume: ");
    }
    rc = kt_journal_compatible(recorded, header, job->journal, note,
                               sizeof note, err);
    json_decref(recorded);
    json_decref(header);
    if (rc)
        return rc;
    if (note[0])
        kt_msg("note: %s\n", note);
    if ((rc = kt_journal_read(job->journal, job->op, log, err)))
        return rc;
    *have_log = 1;
    if (log->note[0])
        kt_msg("note: %s\n", log->note);
    return kt_journal_continue(journal, job->journal, log,
                               json_deep_copy(environment), err);
}
