// SPDX-License-Identifier: Apache-2.0
/*
 * exhaustive: every point of the space, in index order (variants in
 * declaration order, the last parameter varying fastest). Points that
 * cannot run cost nothing; budgets cut the sweep short. With several
 * workers the points go out in batches of a few per worker, in
 * the same order. The points after each batch are hinted (kt_tune_hint)
 * so that their kernels compile while the batch is measured.
 */
#include <stdlib.h>

#include "tuner/strategy.h"
#include "tuner/tune.h"

/* Hints the points from index *to up to i + KT_TUNE_HINT_AHEAD, once
 * half the window is used. */
static void hint_ahead(kt_tune *t, uint64_t i, uint64_t *to, kt_point *ahead)
{
    const kt_space *space = kt_tune_space(t);
    uint64_t end = i + KT_TUNE_HINT_AHEAD;
    size_t k = 0;

    if (*to < i)
        *to = i;
    if (*to >= i + KT_TUNE_HINT_AHEAD / 2)
        return;
    end = end < space->size ? end : space->size;
    for (; *to < end; ++*to)
        kt_space_point(space, *to, &ahead[k++]);
    kt_tune_hint(t, ahead, k);
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    kt_point ahead[KT_TUNE_HINT_AHEAD];
    uint64_t hinted = 0;
    const kt_space *space = kt_tune_space(t);
    /* Several points per worker: the pool hands them out as workers come
     * free, so one slow point does not leave the others idle. */
    size_t width = kt_tune_width(t) > 1 ? 4 * kt_tune_width(t) : 1;
    kt_point *pts = calloc(width, sizeof *pts);
    kt_tune_obs *obs = calloc(width, sizeof *obs);
    kt_status rc = KT_S_OK;

    (void)opt;
    if (!pts || !obs)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    /* A batch at a time: the next points the host does not
     * refuse, so every worker gets one. */
    for (uint64_t i = 0; !rc && i < space->size && !kt_tune_stop(t);) {
        size_t k = 0;
        for (; k < width && i < space->size; ++i) {
            kt_tune_obs known;
            kt_space_point(space, i, &pts[k]);
            if (!kt_tune_known(t, &pts[k], &known))
                ++k;
        }
        hint_ahead(t, i, &hinted, ahead);
        if (k)
            rc = kt_tune_measure_batch(t, pts, k, obs, err);
    }
    free(pts);
    free(obs);
    return rc;
}

const kt_strategy kt_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every point of the space, in order",
    .run = run,
};
