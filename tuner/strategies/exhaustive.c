// SPDX-License-Identifier: Apache-2.0
/*
 * exhaustive: every point of the space, in index order (variants in
 * declaration order, the last parameter varying fastest). Points that
 * cannot run cost nothing; budgets cut the sweep short.
 */
#include "tuner/strategy.h"
#include "tuner/tune.h"

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    (void)opt;
    for (uint64_t i = 0; i < space->size && !kt_tune_stop(t); ++i) {
        kt_point pt;
        kt_tune_obs obs;
        kt_status rc;
        kt_space_point(space, i, &pt);
        if ((rc = kt_tune_measure(t, &pt, &obs, err)))
            return rc;
    }
    return KT_S_OK;
}

const kt_strategy kt_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every point of the space, in order",
    .run = run,
};
