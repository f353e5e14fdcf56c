// SPDX-License-Identifier: Apache-2.0
/*
 * The workers of one tuning run (tuner/pool.h), as the CLI sets them up:
 * one per GPU (--devices, [job] devices), simulated ones answering from a
 * recording (--replay with --workers), or one per MPI rank (app/mpi.h).
 *
 * Every GPU gets its own worker process, calibration and environment
 * record in the journal; measurements of one comparison are never split
 * across GPUs (the pool sends each call to one worker). GPUs of different
 * models in one run are refused (docs/multigpu.md says why).
 */
#ifndef KT_CLI_WORKERS_H
#define KT_CLI_WORKERS_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "records/journal.h"

typedef struct kt_cli_workers {
    kt_evaluator **evs; /* evs[0]: the run's own evaluator */
    int *owned;         /* evs[i] is closed by kt_cli_workers_free */
    json_t **records;   /* environment records to journal (NULL: none) */
    int *envs;          /* the journal's record of each worker */
    size_t n;
} kt_cli_workers;

/* Room for n workers, evs[0] = primary (not owned). KT_S_NOMEM. */
kt_status kt_cli_workers_init(kt_cli_workers *w, kt_evaluator *primary,
                              size_t n, kt_err *err);

/* The GPUs of this host, counted in a child process (the tuning process
 * itself never initialises CUDA). KT_S_NO_DEVICE when there is none. */
kt_status kt_cli_gpu_count(int *count, kt_err *err);

/* KT_S_INPUT unless every worker's GPU is the model of evs[0]'s (name,
 * compute capability, SMs, L2): times from different models do not rank
 * together. labels[i] names worker i in the message ("GPU 1", "rank 2"). */
kt_status kt_cli_workers_same_model(const kt_cli_workers *w,
                                    const char *const *labels, kt_err *err);

/* Journals the records of workers 1.. (their own environment) and sets
 * envs; workers without one share the journal's. j may be NULL. */
kt_status kt_cli_workers_journal(kt_cli_workers *w, kt_journal *j, kt_err *err);

/* Closes the owned evaluators and frees w (evs[0] stays open). */
void kt_cli_workers_free(kt_cli_workers *w);

#endif
