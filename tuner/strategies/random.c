// SPDX-License-Identifier: Apache-2.0
/*
 * random: points drawn uniformly without repeats until a budget is spent or
 * the space is exhausted. The draw is a Fisher-Yates shuffle of the point
 * indices done lazily (only swapped positions are stored), so it costs
 * memory in proportion to the points visited, not to the space.
 */
#include "tuner/strategy.h"
#include "tuner/tune.h"
#include "tuner/u64map.h"

static uint64_t at(const kt_u64map *swapped, uint64_t i)
{
    uint64_t v;
    return kt_u64map_get(swapped, i, &v) ? v : i;
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    kt_u64map swapped;
    kt_status rc = KT_S_OK;

    (void)opt;
    kt_u64map_init(&swapped);
    for (uint64_t i = 0; i < space->size && !kt_tune_stop(t); ++i) {
        uint64_t j = i + kt_rng_below(rng, space->size - i);
        uint64_t pick = at(&swapped, j);
        kt_point pt;
        kt_tune_obs obs;
        if ((rc = kt_u64map_put(&swapped, j, at(&swapped, i), err)))
            break;
        kt_space_point(space, pick, &pt);
        if ((rc = kt_tune_measure(t, &pt, &obs, err)))
            break;
    }
    kt_u64map_free(&swapped);
    return rc;
}

const kt_strategy kt_strategy_random = {
    .name = "random",
    .summary = "uniform draws without repeats",
    .run = run,
};
