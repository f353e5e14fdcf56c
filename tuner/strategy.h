// SPDX-License-Identifier: Apache-2.0
/*
 * kt_strategy: one search method behind one small interface.
 *
 * A strategy proposes points through the tuning session (tuner/tune.h) and
 * reads back what they measured; the session owns the evaluator, the
 * budgets, the journal and the record of every point, so a strategy is only
 * the order in which points are tried. It must be deterministic for the
 * session's seed (all randomness from kt_tune_rng()), return once
 * kt_tune_stop() says so, and may propose any point of the space: points
 * that cannot run are recorded by the session and never become the answer.
 *
 * Adding a strategy is one file in tuner/strategies/ that defines
 * `const kt_strategy kt_strategy_<name>` and one row in
 * tuner/strategies/list.h.
 */
#ifndef KT_STRATEGY_H
#define KT_STRATEGY_H

#include <stddef.h>

#include "core/error.h"

#define KT_STRATEGY_MAX_OPTIONS 16

typedef struct kt_tune kt_tune;

/* A numeric option, set in the job's [strategy] section. */
typedef struct kt_strategy_option {
    const char *name;
    const char *help;
    double default_value;
    double min, max; /* inclusive */
    int integer;     /* must be a whole number */
} kt_strategy_option;

typedef struct kt_strategy {
    const char *name; /* as written in [strategy] name */
    const char *summary;
    const kt_strategy_option *options;
    size_t num_options; /* <= KT_STRATEGY_MAX_OPTIONS */
    /* Runs the search; options[i] is the value of options[i] above.
     * Returns non-OK only when the session reports a failure it cannot go
     * on from (the evaluator lost its device, the journal cannot be
     * written); budgets running out is a normal return. */
    kt_status (*run)(kt_tune *t, const double *options, kt_err *err);
} kt_strategy;

/* The strategy called name ('-' and '_' alike), or NULL. */
const kt_strategy *kt_strategy_find(const char *name);

size_t kt_strategy_count(void);
const kt_strategy *kt_strategy_at(size_t index);

/* KT_S_INPUT naming the known strategies, with close matches. */
kt_status kt_strategy_unknown(const char *name, kt_err *err);

#endif
