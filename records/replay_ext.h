// SPDX-License-Identifier: Apache-2.0
/*
 * The external replay evaluator: a kt_evaluator that answers from another
 * tool's recording (a Kernel Tuner cache file or T4 results, kt_extrec),
 * so every ktune strategy runs on spaces other tools brute-forced, without
 * a plugin or a GPU.
 *
 * A recorded point gets its recorded verdict and, when correct, one sample:
 * the file's objective ("time", in us here), so the strategies and the
 * closing round rank points exactly as the file does (its own optimum is
 * the fastest; no noise is made up). Invalid verdicts: InvalidConfig and
 * constraints, compile and run-time failures are KT_EVAL_INVALID,
 * wrong results KT_EVAL_MISMATCH, a timeout KT_EVAL_TIMEOUT, each with the
 * recorded name in its reason.
 *
 * Time is Kernel Tuner's simulation mode's (kernel_tuner/runners/
 * simulation.py of 1.5.0): a point's first evaluation charges its
 * recorded compile, verification and benchmark times; a point evaluated
 * again (a comparison, the closing round) charges nothing; what the
 * search itself takes is the run's own wall clock. The evaluator reports
 * the charged seconds through simulated_s, which the session adds to its
 * clock, so a max_seconds budget means what Kernel Tuner's time_limit
 * means in simulation mode.
 */
#ifndef KT_REPLAY_EXT_H
#define KT_REPLAY_EXT_H

#include "core/evaluator.h"
#include "records/extrec.h"

/* Opens the evaluator over rec, which must outlive it; close() frees what
 * the evaluator owns (not rec). */
kt_status kt_replay_ext_open(const kt_extrec *rec, kt_evaluator **out,
                             kt_err *err);

/* 1 when ev came from kt_replay_ext_open(). */
int kt_replay_ext_is(const kt_evaluator *ev);

/* The recording ev answers from. */
const kt_extrec *kt_replay_ext_recording(const kt_evaluator *ev);

/* The recording's own optimum (kt_extrec_optimum) as a point and its
 * statistics (one sample, the recorded time in us); 0 when no point is
 * recorded correct. */
int kt_replay_ext_optimum(const kt_evaluator *ev, kt_point *pt,
                          kt_stats *stats);

/* One paragraph for the summary: what was replayed and what its times
 * mean. */
void kt_replay_ext_note(const kt_evaluator *ev, char *out, size_t size);

/* How the recording's verdicts read, for messages and T4's invalidity:
 * "correct", "constraints", "compile", "runtime", "correctness",
 * "timeout". Static text. */
const char *kt_replay_ext_invalidity(kt_extrec_verdict v);

#endif
