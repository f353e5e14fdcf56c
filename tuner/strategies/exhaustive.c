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

/* The points hinted and not reached yet (indices, in order) and the
 * index the scan for more goes on from. Counted in points the host does
 * not refuse, not in indices: where require cuts most of a stretch of
 * the space, a window of indices held a few points, the sweep passed
 * them at once and the next kernels compiled one at a time. */
typedef struct hints {
    uint64_t queue[KT_TUNE_HINT_AHEAD];
    size_t head, count;
    uint64_t to;
} hints;

/* Indices scanned for runnable points per hint, at most. */
#define KT_EXHAUSTIVE_SCAN (64 * KT_TUNE_HINT_AHEAD)

/* Once fewer than half a window of hinted points lies ahead of i, hints
 * the next points the host does not refuse, up to a window, soonest
 * first. */
static void hint_ahead(kt_tune *t, uint64_t i, hints *h)
{
    const kt_space *space = kt_tune_space(t);
    uint64_t end;

    /* Nothing compiles (a replay): the host's checks of the points ahead
     * would be made for nothing, 8% of a 1e5-point replay's CPU. */
    if (!kt_tune_hints_wanted(t))
        return;
    while (h->count && h->queue[h->head] < i)
        h->head = (h->head + 1) % KT_TUNE_HINT_AHEAD, --h->count;
    if (h->to < i)
        h->to = i;
    if (h->count >= KT_TUNE_HINT_AHEAD / 2 || h->to >= space->size)
        return;
    end = h->to + KT_EXHAUSTIVE_SCAN < space->size ? h->to + KT_EXHAUSTIVE_SCAN
                                                   : space->size;
    for (; h->to < end && h->count < KT_TUNE_HINT_AHEAD; ++h->to) {
        kt_point pt;
        kt_err why;
        kt_space_point(space, h->to, &pt);
        if (kt_space_feasible(space, &pt, &why) == KT_S_OK)
            h->queue[(h->head + h->count++) % KT_TUNE_HINT_AHEAD] = h->to;
    }
    kt_tune_hint_ring(t, h->queue, h->head, h->count);
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    hints *h = calloc(1, sizeof *h);
    const kt_space *space = kt_tune_space(t);
    /* Several points per worker: the pool hands them out as workers come
     * free, so one slow point does not leave the others idle. */
    size_t width = kt_tune_width(t) > 1 ? 4 * kt_tune_width(t) : 1;
    kt_point *pts = calloc(width, sizeof *pts);
    kt_tune_obs *obs = calloc(width, sizeof *obs);
    kt_status rc = KT_S_OK;

    (void)opt;
    if (!pts || !obs || !h)
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
        hint_ahead(t, i, h);
        if (k)
            rc = kt_tune_measure_batch(t, pts, k, obs, err);
    }
    free(h);
    free(pts);
    free(obs);
    return rc;
}

const kt_strategy kt_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every point of the space, in order",
    .run = run,
};
