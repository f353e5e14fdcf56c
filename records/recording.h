// SPDX-License-Identifier: Apache-2.0
/*
 * kt_recording: one interface over the two replay evaluators, whichever
 * format the recording is in — a ktune journal (records/replay.h) or
 * another tool's recording, a Kernel Tuner cache file or T4 results
 * (records/replay_ext.h). The app and the writers ask it what the
 * recording says (its optimum, the summary's note, its problem sizes and
 * input seed) without knowing which evaluator answers, so no caller
 * chooses between the two by hand or downcasts an evaluator.
 *
 * Every function takes any evaluator: one that does not replay a
 * recording (a GPU's, a worker's) has no optimum, note, sizes or seed.
 * Nothing is owned or kept; thread safety is the evaluator's.
 */
#ifndef KT_RECORDING_H
#define KT_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "core/evaluator.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/stats.h"
#include "records/extrec.h"
#include "records/objective.h"
#include "records/replay.h"
#include "records/space.h"

/* Opens the replay evaluator of the recording at path for op of plugin:
 * another tool's recording when op is one (kt_extrec_of: its plugin and
 * operator were made from the file, which kt_ktcache_load read once; path
 * and opt are then not read), else the journal at path, which must be
 * plugin's and op's (kt_replay_open, with opt). */
kt_status kt_recording_open(const char *path, const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_replay_options *opt,
                            kt_evaluator **out, kt_err *err);

/* 1 when ev answers from a recording of either format. */
int kt_recording_is(const kt_evaluator *ev);

/* The recording's optimum: the fastest (under objective o, over space's
 * feasible points) point it records valid, with its statistics and *cost
 * (left as it is where the recording has no cost of its own: another
 * tool's, whose optimum is its own objective's). 0 when it records no such
 * point, or ev replays nothing. */
int kt_recording_optimum(const kt_evaluator *ev, const kt_space *space,
                         kt_objective o, kt_point *pt, kt_stats *stats,
                         double *cost);

/* One paragraph for the summary on what was replayed and what its times
 * mean, into out[size]; 1 when the recording has one to say (another
 * tool's), else 0 with out "". */
int kt_recording_note(const kt_evaluator *ev, char *out, size_t size);

/* The problem sizes the recording was made at (the operator's num_sizes of
 * them) and its input seed; NULL and 0 when it fixes none (another tool's
 * recording is its own operator at its own problem) or ev replays
 * nothing. Valid until ev closes. */
const int64_t *kt_recording_sizes(const kt_evaluator *ev);
uint64_t kt_recording_seed(const kt_evaluator *ev);

/* Another tool's recording that ev answers from, or NULL (a journal's
 * replay, or no replay). */
const kt_extrec *kt_recording_external(const kt_evaluator *ev);

#endif
