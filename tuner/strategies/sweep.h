// SPDX-License-Identifier: Apache-2.0
/*
 * What coordinate and guided share: where the walk starts (the default
 * configuration, or a random feasible point drawn with the run's seed) and
 * the candidate for one value of one dimension. Not a strategy itself.
 */
#ifndef KT_SWEEP_H
#define KT_SWEEP_H

#include "tuner/tune.h"

/* The first incumbent that runs: with random_start, a random host-feasible
 * point drawn from the run's generator (a few draws at most); else, or when
 * those do not run, the default configuration, else the space in order.
 * *found = 0 when nothing runs within the budget. */
kt_status kt_sweep_first(kt_tune *t, int random_start, kt_point *inc,
                         int *found, kt_err *err);

/* The candidate for value k of dimension dim: a new variant keeps the
 * parameters it shares with inc, or starts at its own start point when
 * that cannot run. */
void kt_sweep_candidate(kt_tune *t, const kt_point *inc, size_t dim, size_t k,
                        kt_point *cand);

#endif
