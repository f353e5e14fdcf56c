// SPDX-License-Identifier: Apache-2.0
/* The end of a tuning session: tuner/tune_impl.h. */
#include "tuner/tune_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"

/* ----------------------------------------------------------- the end */

static int compare_finals(const void *a, const void *b)
{
    const kt_tune_final *x = a, *y = b;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

/* Appends to pts the fastest measured point of each reference variant
 * that is not among them yet. */
static void add_references(const kt_tune *t, kt_point *pts, size_t *n)
{
    const kt_tune_result *r = t->res;

    for (size_t slot = 0; slot < t->cfg->space->num_slots; ++slot) {
        const kt_tune_entry *best = NULL;
        kt_point bp;
        int present = 0;
        if (!kt_tune_slot_is_reference(t, slot))
            continue;
        for (size_t i = 0; i < r->num_entries; ++i) {
            const kt_tune_entry *e = &r->entries[i];
            if (e->status != KT_EVAL_OK || e->host_checked ||
                kt_tune_entry_point(r, e).variant !=
                    t->cfg->space->slots[slot].variant)
                continue;
            if (!best || e->timing.kernel.median < best->timing.kernel.median)
                best = e;
        }
        if (!best)
            continue;
        bp = kt_tune_entry_point(r, best);
        for (size_t k = 0; k < *n; ++k)
            present |= kt_point_equal(&pts[k], &bp);
        if (!present)
            pts[(*n)++] = bp;
    }
}

/* The time-best and energy-best finalists of the closing call r[idx[0..m))
 * (of points pts) and their paired differences in both measures. */
static void tradeoff(const kt_tune *t, const kt_point *pts,
                     const kt_eval_result *r, const size_t *idx, size_t m,
                     kt_tune_tradeoff *out)
{
    kt_tune *mt = (kt_tune *)t;
    const kt_work *w = mt->cfg->ev && mt->cfg->ev->ops->work
                           ? mt->cfg->ev->ops->work(mt->cfg->ev)
                           : NULL;
    size_t tb = 0, eb = 0;

    memset(out, 0, sizeof *out);
    for (size_t a = 0; a < m; ++a) {
        const kt_eval_result *x = &r[idx[a]];
        if (!x->energy.measured)
            return;
        if (x->timing.kernel.median < r[idx[tb]].timing.kernel.median)
            tb = a;
        if (x->energy.joules.median < r[idx[eb]].energy.joules.median)
            eb = a;
    }
    {
        kt_objective_side st = {&r[idx[tb]].timing, &r[idx[tb]].energy, w},
                          se = {&r[idx[eb]].timing, &r[idx[eb]].energy, w};
        kt_objective_ratio(KT_OBJ_TIME, &st, &se, &out->time);
        kt_objective_ratio(KT_OBJ_ENERGY, &st, &se, &out->energy);
    }
    out->have = m > 0;
    out->time_best = pts[idx[tb]];
    out->energy_best = pts[idx[eb]];
}

/* The walk's incumbent, measured and not among the n best pts, takes the
 * last of their places in the closing round. */
static void keep_incumbent(const kt_tune *t, kt_point *pts, size_t n)
{
    uint64_t index;
    const kt_tune_entry *e;
    int present = 0;

    if (!t->has_incumbent)
        return;
    e = kt_space_index(t->cfg->space, &t->incumbent, &index)
            ? kt_tune_find_entry(t, index)
            : NULL;
    for (size_t k = 0; k < n; ++k)
        present |= kt_point_equal(&pts[k], &t->incumbent);
    if (e && e->status == KT_EVAL_OK && !present)
        pts[n - 1] = t->incumbent;
}

/* The answer without a closing call: pt (measured) as the search
 * measured it, the only finalist. */
static void answer_from_search(kt_tune *t, const kt_point *pt)
{
    kt_tune_final *f = &t->res->finals[0];
    const kt_tune_entry *e;
    uint64_t index;

    kt_space_index(t->cfg->space, pt, &index);
    e = kt_tune_find_entry(t, index);
    f->point = *pt;
    f->stats = e->timing.kernel;
    if (e->energy)
        f->energy = *e->energy;
    f->cost = e->cost;
    f->vs_winner.ratio = 1;
    t->res->num_finals = 1;
    t->res->has_best = 1;
}

/* The closing call's samples of a finalist, for those who write them out
 * (--kt-cache). */
static kt_status keep_samples(const kt_timing *from, kt_tune_final *f,
                              kt_err *err)
{
    if (!from->samples_us || !from->num_rounds)
        return KT_S_OK;
    if (!(f->samples_us = malloc(from->num_rounds * sizeof *f->samples_us)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    memcpy(f->samples_us, from->samples_us,
           from->num_rounds * sizeof *f->samples_us);
    f->num_samples = from->num_rounds;
    return KT_S_OK;
}

kt_status kt_tune_finish(kt_tune *t, kt_err *err)
{
    const kt_tune_config *cfg = t->cfg;
    kt_tune_result *res = t->res;
    size_t valid, want = cfg->finalists ? cfg->finalists : 1, n = 0;
    kt_point *pts = NULL;
    kt_eval_result *r = NULL;
    /* Best first under the objective, ties by evaluation order. */
    const kt_tune_entry **ranked = kt_tune_ranked(res, &valid);
    int answered;
    kt_status rc = KT_S_OK;

    if (!ranked || valid == 0) {
        rc = ranked ? KT_S_OK : kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    want = want < valid ? want : valid;
    /* Room for the measured references: each joins the closing round, so
     * the answer's speed-up against it has a paired interval. */
    want += cfg->space->num_slots;
    pts = calloc(want, sizeof *pts);
    r = calloc(want, sizeof *r);
    res->finals = calloc(want, sizeof *res->finals);
    if (!pts || !r || !res->finals) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < want - cfg->space->num_slots; ++k)
        pts[n++] = kt_tune_entry_point(res, ranked[k]);
    keep_incumbent(t, pts, n);
    add_references(t, pts, &n);
    /* One finalist, or no time left for their closing call: the answer is
     * the search's own measurement of its best. */
    if (n == 1 ||
        !kt_tune_budget_allows(t, "the finalists' re-measurement", n)) {
        answer_from_search(t, &pts[0]);
        goto done;
    }
    if ((rc = kt_tune_run_calls(t, "final", pts, n, 1, r, &answered, err)))
        goto done;
    res->final_measured = 1;
    {
        size_t m = 0, winner = 0, fewest = (size_t)-1;
        size_t idx[64];
        /* The winner is the finalist the fewest others beat in paired
         * comparisons; the lower median breaks a tie. */
        for (size_t k = 0; k < n && m < 64; ++k)
            if (r[k].status == KT_EVAL_OK)
                idx[m++] = k;
        if (m == 0) {
            snprintf(res->note, sizeof res->note,
                     "the closing re-measurement failed for every finalist "
                     "(%s); no answer",
                     r[0].reason);
            goto done;
        }
        for (size_t a = 0; a < m; ++a) {
            size_t beaten = 0;
            for (size_t b = 0; b < m; ++b) {
                kt_ratio q;
                if (a == b)
                    continue;
                kt_tune_paired(t, &r[idx[a]], &r[idx[b]], &q);
                beaten += kt_stats_verdict(&q, cfg->min_gain) < 0;
            }
            if (beaten < fewest ||
                (beaten == fewest &&
                 kt_tune_result_cost(t, &r[idx[a]]) <
                     kt_tune_result_cost(t, &r[idx[winner]]))) {
                fewest = beaten;
                winner = a;
            }
        }
        for (size_t a = 0; a < m; ++a) {
            kt_tune_final *f = &res->finals[res->num_finals++];
            f->point = pts[idx[a]];
            f->stats = r[idx[a]].timing.kernel;
            if ((rc = keep_samples(&r[idx[a]].timing, f, err)))
                goto done;
            f->energy = r[idx[a]].energy;
            f->cost = kt_tune_result_cost(t, &r[idx[a]]);
            if (a == winner) {
                f->vs_winner.ratio = f->vs_winner.lo = f->vs_winner.hi = 1;
                f->vs_winner.n = r[idx[a]].timing.num_rounds;
                f->tied = 0;
            } else {
                kt_tune_paired(t, &r[idx[winner]], &r[idx[a]], &f->vs_winner);
                f->tied = kt_stats_verdict(&f->vs_winner, cfg->min_gain) <= 0;
            }
        }
        tradeoff(t, pts, r, idx, m, &res->tradeoff);
        /* Winner first, the others by median. */
        if (winner != 0) {
            kt_tune_final w = res->finals[winner];
            memmove(&res->finals[1], &res->finals[0],
                    winner * sizeof res->finals[0]);
            res->finals[0] = w;
        }
        qsort(&res->finals[1], res->num_finals - 1, sizeof res->finals[0],
              compare_finals);
        res->has_best = 1;
    }
done:
    for (size_t k = 0; r && k < want; ++k)
        kt_eval_result_free(&r[k]);
    free(r);
    free(pts);
    free(ranked);
    return rc;
}
