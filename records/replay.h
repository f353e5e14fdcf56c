// SPDX-License-Identifier: Apache-2.0
/*
 * The replay evaluator: a kt_evaluator that answers from a recorded journal
 * instead of a GPU, so strategies can be run, compared and tested anywhere.
 *
 * A recorded point gets its recorded result, raw samples included (the first
 * single-point measurement when the journal has several); any other point
 * gets KT_EVAL_ERROR "not in the recording". The device, the problem sizes,
 * the input seed and the calibration are the recording's. Protocols are
 * ignored: the recording fixed them.
 *
 * profile() serves the recording's profile records (journal format 2): the
 * kernel facts and whichever requested counters the point's latest record
 * holds; a point without one, or a counter it lacks, is "not recorded"
 * (KT_S_UNSUPPORTED, or NaN with a note), never made up.
 */
#ifndef KT_REPLAY_H
#define KT_REPLAY_H

#include "core/evaluator.h"
#include "core/loader.h"
#include "records/objective.h"
#include "records/space.h"

typedef struct kt_replay_options {
    /* Sleep this long in every evaluate() call, so that a test can stop a
     * replayed run in the middle. 0: no delay. */
    double delay_s;
    /* > 0: every evaluate() also sleeps the recorded duration of its points
     * times this factor, so N simulated workers show the wall time N GPUs
     * would take (1: real time). A point's duration is its recorded call's
     * share of the run's clock: verification and measurement. */
    double simulate;
} kt_replay_options;

/* Reads the journal at path for operator op of plugin (which must be the
 * plugin and operator that recorded it). opt may be NULL. The evaluator
 * owns everything it read; ev->ops->close() frees it. */
kt_status kt_replay_open(const char *path, const kt_loaded_plugin *plugin,
                         const kt_operator *op, const kt_replay_options *opt,
                         kt_evaluator **out, kt_err *err);

/* 1 when ev came from kt_replay_open(). */
int kt_replay_is(const kt_evaluator *ev);

/* The recording's problem sizes (op->num_sizes of them) and input seed. */
const int64_t *kt_replay_sizes(const kt_evaluator *ev);
uint64_t kt_replay_seed(const kt_evaluator *ev);

/* The recorded result of pt, or NULL. Valid until close. */
const kt_eval_result *kt_replay_lookup(const kt_evaluator *ev,
                                       const kt_point *pt);

/* The recorded duration of pt's evaluation in seconds (0 when it is not
 * recorded). */
double kt_replay_duration(const kt_evaluator *ev, const kt_point *pt);

/* The fastest recorded point of space that runs (feasible on the host and
 * recorded valid): its point and statistics. KT_S_INPUT when no point of it
 * is recorded valid. Walks the recorded points, whatever the space's size. */
kt_status kt_replay_optimum(const kt_evaluator *ev, const kt_space *space,
                            kt_point *pt, kt_stats *stats, kt_err *err);
/* The same under objective o (records/objective.h): the recorded point of the
 * lowest cost, each with its own work where it recorded one; *cost
 * receives that cost. */
kt_status kt_replay_optimum_by(const kt_evaluator *ev, const kt_space *space,
                               kt_objective o, kt_point *pt, kt_stats *stats,
                               double *cost, kt_err *err);

#endif
