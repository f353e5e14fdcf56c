// SPDX-License-Identifier: Apache-2.0
/*
 * A tuning run's journal: named, created or continued. A journal named by
 * the job file (not by --journal) that exists already belongs to an
 * earlier run: a new run writes the next free name
 * (vector_add.journal.2.jsonl, ...) and says so, so that running the same
 * job twice works and loses nothing; a journal named on the command line
 * is the user's explicit choice, and there an existing file is refused.
 */
#ifndef KT_TUNER_TUNE_JOURNAL_H
#define KT_TUNER_TUNE_JOURNAL_H

#include <jansson.h>

#include "records/journal.h"
#include "tuner/job.h"

/* job->journal, or its next free numbered name when it exists (said on
 * stderr). */
void kt_job_next_free_journal(kt_job *job);

/* Creates job->journal with the job's header and environment (borrowed;
 * copied), or with resume continues it after checking it was written
 * under the same conditions: then *log holds what it recorded and
 * *have_log is 1 (kt_journal_log_free). A journal a run left empty is
 * written afresh. */
kt_status kt_tune_journal_open(int resume, const kt_job *job,
                               json_t *environment, kt_journal *journal,
                               kt_journal_log *log, int *have_log, kt_err *err);

#endif
