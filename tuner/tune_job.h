// SPDX-License-Identifier: Apache-2.0
/*
 * The tune use case around one search (tuner/tune.h): a loaded job and
 * what the command opened for it (evaluators, journal, calibration,
 * environment record) become the search's configuration; after the
 * search, its facts for the summary and the outputs, the journal's "run"
 * record, the sweep row and the answer for a wisdom file. GPU-free: the
 * evaluators are opened by the command (app/tune_open.c) and passed in.
 */
#ifndef KT_TUNER_TUNE_JOB_H
#define KT_TUNER_TUNE_JOB_H

#include <jansson.h>

#include "core/calibration.h"
#include "records/journal.h"
#include "records/wisdom.h"
#include "tuner/job.h"
#include "tuner/summary.h"
#include "tuner/sweep.h"
#include "tuner/tune.h"

/* What a run of a job brings besides the job. Everything is borrowed. */
typedef struct kt_tune_setup {
    kt_evaluator *ev;       /* the run's own evaluator */
    kt_evaluator **workers; /* workers[0] = ev; num_workers of them */
    size_t num_workers;
    const int *worker_envs;           /* the journal's record of each worker */
    kt_journal *journal;              /* NULL: none */
    const kt_journal_log *resume;     /* NULL: a fresh run */
    const kt_calibration *calib;      /* NULL: not calibrated */
    json_t *environment;              /* the run's environment record */
    const char *counters_unavailable; /* why not, or NULL */
    int progress;                     /* progress lines on stderr */
    /* The command's start (kt_tune_monotonic's clock), where max_seconds
     * counts from; 0: the search's own start. */
    double started;
} kt_tune_setup;

/* The search's configuration (tuner/tune.h) from the job and the setup;
 * cfg borrows from both. */
void kt_tune_config_from_job(const kt_job *job, const kt_tune_setup *s,
                             kt_tune_config *cfg);

/* The summary's facts of a measured (not replayed) run; the caller adds
 * the replay's. f borrows from job, s and cfg. */
void kt_tune_facts_from_job(const kt_job *job, const kt_tune_setup *s,
                            const kt_tune_config *cfg, kt_tune_facts *f);

/* The job's --json, --csv and --t4 files, and markdown (NULL: none; "-":
 * stdout) as Markdown. */
kt_status kt_tune_write_outputs(const kt_job *job, const kt_tune_facts *f,
                                const kt_tune_result *r, const char *markdown,
                                kt_err *err);

/* Where the session's time went, after its evaluations, as the journal's
 * "run" record. quiet: the run failed and says why itself (a journal that
 * cannot be written then fails here too: one message, not two). */
void kt_tune_journal_run(kt_journal *journal, const kt_tune_result *r,
                         int quiet);

/* An objective that needs energy where none is measured (NVML absent, a
 * replay of a recording without energy) is the job's mistake, found
 * before anything is measured: KT_S_INPUT saying why. */
kt_status kt_tune_check_energy(const kt_job *job, json_t *environment,
                               kt_err *err);

/* The wisdom answer of a sweep row that has a best, on device dev (its
 * name copied to device_name, device_size bytes: the evaluator closes
 * after each size). */
void kt_tune_wisdom_answer(const kt_job *job, const kt_device *dev,
                           const kt_sweep_row *row, char *device_name,
                           size_t device_size, kt_wisdom_answer *out);

#endif
