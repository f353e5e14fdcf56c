// SPDX-License-Identifier: Apache-2.0
/*
 * random: points drawn uniformly without repeats until a budget is spent or
 * the space is exhausted. The draw is a Fisher-Yates shuffle of the point
 * indices done lazily (only swapped positions are stored), so it costs
 * memory in proportion to the points visited, not to the space. With
 * several workers the draws go out in batches of a few per worker, in the
 * same order.
 */
#include <stdlib.h>

#include "core/u64map.h"
#include "tuner/strategy.h"
#include "tuner/tune.h"

static uint64_t at(const kt_u64map *swapped, uint64_t i)
{
    uint64_t v;
    return kt_u64map_get(swapped, i, &v) ? v : i;
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    /* Several points per worker: the pool hands them out as workers come
     * free, so one slow point does not leave the others idle. */
    size_t width = kt_tune_width(t) > 1 ? 4 * kt_tune_width(t) : 1;
    kt_point *pts = calloc(width, sizeof *pts);
    kt_tune_obs *obs = calloc(width, sizeof *obs);
    kt_u64map swapped;
    kt_status rc = KT_S_OK;

    (void)opt;
    kt_u64map_init(&swapped);
    if (!pts || !obs)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    /* The draws in order, a batch at a time: the next ones the
     * host does not refuse. */
    for (uint64_t i = 0; !rc && i < space->size && !kt_tune_stop(t);) {
        size_t k = 0;
        for (; !rc && k < width && i < space->size; ++i) {
            uint64_t j = i + kt_rng_below(rng, space->size - i);
            uint64_t pick = at(&swapped, j);
            kt_tune_obs known;
            if ((rc = kt_u64map_put(&swapped, j, at(&swapped, i), err)))
                break;
            kt_space_point(space, pick, &pts[k]);
            if (!kt_tune_known(t, &pts[k], &known))
                ++k;
        }
        if (!rc && k)
            rc = kt_tune_measure_batch(t, pts, k, obs, err);
    }
    kt_u64map_free(&swapped);
    free(pts);
    free(obs);
    return rc;
}

const kt_strategy kt_strategy_random = {
    .name = "random",
    .summary = "uniform draws without repeats",
    .run = run,
};
