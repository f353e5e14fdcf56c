// SPDX-License-Identifier: Apache-2.0
/*
 * random: points drawn uniformly without repeats until a budget is spent or
 * the space is exhausted. The draw is a Fisher-Yates shuffle of the point
 * indices done lazily (only swapped positions are stored), so it costs
 * memory in proportion to the points visited, not to the space. With
 * several workers the draws go out in batches of a few per worker, in the
 * same order. Draws the constraints refuse are skipped unrecorded.
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

/* The draws, made KT_TUNE_HINT_AHEAD ahead of their use so the points
 * coming can be hinted (kt_tune_hint) while a batch is measured; the same
 * sequence whenever they are drawn. */
typedef struct draws {
    kt_u64map swapped;
    uint64_t drawn;                    /* positions of the shuffle drawn */
    uint64_t ring[KT_TUNE_HINT_AHEAD]; /* drawn, not used yet */
    size_t head, count;
    /* Draws not hinted yet, over calls: counted per call, a refill of one
     * draw never reached the threshold and nothing after the first
     * window was hinted (the hub convolution compiled one at a time). */
    size_t unhinted;
} draws;

static kt_status draw_ahead(kt_tune *t, draws *d, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_status rc = KT_S_OK;

    while (!rc && d->count < KT_TUNE_HINT_AHEAD && d->drawn < space->size) {
        uint64_t i = d->drawn++;
        uint64_t j = i + kt_rng_below(kt_tune_rng(t), space->size - i);
        uint64_t pick = at(&d->swapped, j);
        rc = kt_u64map_put(&d->swapped, j, at(&d->swapped, i), err);
        d->ring[(d->head + d->count++) % KT_TUNE_HINT_AHEAD] = pick;
        ++d->unhinted;
    }
    /* Hinted once half the window is new: the whole window, soonest
     * first. */
    if (!rc && (d->unhinted >= KT_TUNE_HINT_AHEAD / 2 ||
                (d->unhinted && d->drawn == space->size))) {
        d->unhinted = 0;
        kt_tune_hint_ring(t, d->ring, d->head, d->count);
    }
    return rc;
}

/* Whether a draw is worth a measurement: new to the session and not
 * refused by the constraints. A draw they refuse is passed over without an
 * entry: the draws are a permutation of the whole Cartesian space, and on
 * the hub hotspot's (1.9% of it feasible) recording each refusal filled
 * a 701-point recording's journal and summary with 56 MB of them. A draw
 * the host fails on otherwise (a plugin's check() that faulted) goes
 * through kt_tune_known, which records it and notes the failure. */
static int worth_measuring(kt_tune *t, const kt_point *pt)
{
    kt_tune_obs known;
    kt_status st;
    if (kt_tune_seen(t, pt))
        return 0;
    st = kt_space_feasible(kt_tune_space(t), pt, NULL);
    if (st == KT_S_OK || st == KT_S_INVALID)
        return st == KT_S_OK;
    return !kt_tune_known(t, pt, &known);
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    /* Several points per worker: the pool hands them out as workers come
     * free, so one slow point does not leave the others idle. */
    size_t width = kt_tune_width(t) > 1 ? 4 * kt_tune_width(t) : 1;
    kt_point *pts = calloc(width, sizeof *pts);
    kt_tune_obs *obs = calloc(width, sizeof *obs);
    draws *d = calloc(1, sizeof *d);
    kt_status rc = KT_S_OK;

    (void)opt;
    if (!pts || !obs || !d)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    else
        kt_u64map_init(&d->swapped);
    /* The draws in order, a batch at a time: the next ones the
     * host does not refuse. */
    while (!rc && (d->count || d->drawn < space->size) && !kt_tune_stop(t)) {
        size_t k = 0;
        while (!rc && k < width && (d->count || d->drawn < space->size)) {
            if (!d->count && (rc = draw_ahead(t, d, err)))
                break;
            kt_space_point(space, d->ring[d->head], &pts[k]);
            d->head = (d->head + 1) % KT_TUNE_HINT_AHEAD;
            --d->count;
            if (worth_measuring(t, &pts[k]))
                ++k;
        }
        if (!rc)
            rc = draw_ahead(t, d, err);
        if (!rc && k)
            rc = kt_tune_measure_batch(t, pts, k, obs, err);
    }
    if (d)
        kt_u64map_free(&d->swapped);
    free(d);
    free(pts);
    free(obs);
    return rc;
}

const kt_strategy kt_strategy_random = {
    .name = "random",
    .summary = "uniform draws without repeats",
    .run = run,
};
