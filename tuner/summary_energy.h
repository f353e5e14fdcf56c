// SPDX-License-Identifier: Apache-2.0
/*
 * The energy part of a tuning run's summary: the objective, each
 * finalist's joules per launch with its interval, average power against
 * the limit and energy per byte or flop (from the closing
 * re-measurement), and whether the energy-best finalist differs from the
 * time-best one, by how much in both measures, each with its paired
 * interval.
 */
#ifndef KT_SUMMARY_ENERGY_H
#define KT_SUMMARY_ENERGY_H

#include <stdio.h>

#include "tuner/summary.h"

/* 1 where the run measures energy: the objective needs it, or the user
 * asked for the finalists' ([measure] energy, --energy); cfg may be NULL
 * (0). */
int kt_summary_energy_asked(const kt_tune_config *cfg);

/* Prints nothing when the run has no answer. */
void kt_summary_energy(FILE *out, const kt_tune_facts *f,
                       const kt_tune_result *r);

/* Markdown form: a table of the finalists' energy and the sentence on
 * the time-best and energy-best. */
void kt_summary_energy_markdown(FILE *out, const kt_tune_facts *f,
                                const kt_tune_result *r);

#endif
