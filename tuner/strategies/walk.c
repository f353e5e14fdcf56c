// SPDX-License-Identifier: Apache-2.0
#include "tuner/strategies/walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Draws for a random feasible point of a slot, and for a perturbation no
 * point of which was visited, before giving up. */
#define DRAWS 256
/* Slots up to this size get their feasible points counted. */
#define FEASIBLE_WALK (UINT64_C(1) << 18)

/* What one candidate came to. */
enum { TRY_SLOWER, TRY_ADOPTED, TRY_CANNOT, TRY_STOP };

void kt_walk_init(kt_walk *w, kt_tune *t)
{
    memset(w, 0, sizeof *w);
    w->t = t;
    w->space = kt_tune_space(t);
    w->max_passes = 10;
    w->screen = 0;
    w->samples = 8;
    w->patience = 2;
    w->promising = 0.10;
    w->close = 0.02;
    w->hopeless = 3;
    w->cover = 0.15;
    w->restarts = 32;
    w->leader_first = 2;
    w->restart_start = 1;
    w->perturb = 2;
    w->use_pairs = 1;
}

void kt_walk_free(kt_walk *w)
{
    free(w->slots);
    w->slots = NULL;
}

static size_t first_param_dim(const kt_walk *w)
{
    return w->space->num_slots > 1 ? 1 : 0;
}

/* The fastest slot that is not a reference, or -1. */
static long leader(const kt_walk *w)
{
    long best = -1;
    for (size_t s = 0; s < w->space->num_slots; ++s) {
        const kt_walk_slot *x = &w->slots[s];
        if (x->alive && !x->reference &&
            (best < 0 || x->best_us < w->slots[best].best_us))
            best = (long)s;
    }
    return best;
}

/* Slot s is within `margin` of the leader (and walked). */
static int within(const kt_walk *w, size_t s, double margin)
{
    long l = leader(w);
    const kt_walk_slot *x = &w->slots[s];
    return l >= 0 && x->alive && !x->reference &&
           x->best_us <= w->slots[l].best_us * (1 + margin);
}

/* Worth walking to the end. */
static int promising(const kt_walk *w, size_t s)
{
    return within(w, s, w->promising);
}

/* Worth its pairs and restarts: close enough that they could make it the
 * answer. */
static int close_enough(const kt_walk *w, size_t s)
{
    return within(w, s, w->close);
}

static void name_incumbent(kt_walk *w)
{
    long l = leader(w);
    if (l >= 0)
        kt_tune_set_incumbent(w->t, &w->slots[l].best);
}

/* Candidate cand against the incumbent *inc (own median *inc_us): adopted
 * only when the paired comparison says faster beyond min_gain. */
static kt_status try_move(kt_walk *w, kt_point *inc, double *inc_us,
                          const kt_point *cand, size_t dim, int path, int *out,
                          kt_err *err)
{
    kt_tune_obs obs;
    kt_tune_cmp cmp;
    kt_status rc;

    *out = TRY_SLOWER;
    if (kt_point_equal(cand, inc))
        return KT_S_OK;
    if (kt_tune_known(w->t, cand, &obs)) {
        if (obs.status != KT_EVAL_OK)
            *out = TRY_CANNOT;
        /* Measured before and not faster on its own: no pair needed. */
        if (obs.status != KT_EVAL_OK || obs.median_us >= *inc_us)
            return KT_S_OK;
    } else {
        if ((rc = kt_tune_measure(w->t, cand, &obs, err)))
            return rc;
        if (!obs.known)
            *out = TRY_STOP;
        else if (obs.status != KT_EVAL_OK)
            *out = TRY_CANNOT;
        if (!obs.known || obs.status != KT_EVAL_OK ||
            obs.median_us > *inc_us * (1 + w->screen))
            return KT_S_OK;
    }
    if ((rc = kt_tune_compare(w->t, inc, cand, &cmp, err)))
        return rc;
    if (!cmp.known) {
        *out = TRY_STOP;
        return KT_S_OK;
    }
    if (cmp.status != KT_EVAL_OK || cmp.verdict >= 0) {
        *out = cmp.status == KT_EVAL_OK ? TRY_SLOWER : TRY_CANNOT;
        return KT_S_OK;
    }
    w->last_ratio = cmp.ratio;
    if (path && (rc = kt_tune_path_add(w->t, inc, cand, dim, &cmp.ratio, err)))
        return rc;
    *inc = *cand;
    kt_tune_known(w->t, inc, &obs);
    *inc_us = obs.median_us;
    *out = TRY_ADOPTED;
    return KT_S_OK;
}

/* Appends to cands (up to width) the values of dimension d from position
 * k on in direction dir that need the evaluator — not seen yet, or seen
 * faster on their own than inc_us (a pair to measure) — at most `take` of
 * them (0: all), as the line search would try them. */
static size_t gather(kt_walk *w, const kt_point *inc, double inc_us, size_t d,
                     long k, int dir, size_t take, kt_point *cands, size_t n,
                     size_t width)
{
    long count = (long)kt_space_dim_count(w->space, inc, d);
    size_t got = 0;

    for (; k >= 0 && k < count && n < width && (!take || got < take);
         k += dir) {
        kt_tune_obs seen;
        kt_space_dim_set(w->space, inc, d, (size_t)k, &cands[n]);
        if (!kt_tune_known(w->t, &cands[n], &seen) ||
            (seen.status == KT_EVAL_OK && seen.median_us < inc_us &&
             !kt_point_equal(&cands[n], inc)))
            ++n, ++got;
    }
    return n;
}

/* As gather, for hints: every value, asking the session nothing (a
 * point refused on the host would be recorded by kt_tune_known; a hint
 * records nothing, and kt_tune_hint drops what is known or refused). */
static size_t every(kt_walk *w, const kt_point *inc, size_t d, long k, int dir,
                    size_t take, kt_point *cands, size_t n, size_t width)
{
    long count = (long)kt_space_dim_count(w->space, inc, d);
    for (size_t got = 0;
         k >= 0 && k < count && n < width && (!take || got < take);
         k += dir, ++got)
        kt_space_dim_set(w->space, inc, d, (size_t)k, &cands[n++]);
    return n;
}

/* Points hinted at once, at most: every single change of a point on the
 * hub's spaces (convolution: 56). */
#define HINT_MAX 256

/* Appends to cands the single changes of inc the walk tries from here, in
 * its order: dimension dim from position `from` in direction dir (and
 * down from inc, after up), then each later parameter's values outwards,
 * up first; with `wrap`, then the earlier parameters' (the next pass).
 * Each direction gets `take` new values at most (0: all); inc_us < 0:
 * every value, new or not, for a hint (every). */
static size_t line_order(kt_walk *w, const kt_point *inc, double inc_us,
                         size_t dim, long from, int dir, size_t take, int wrap,
                         kt_point *cands, size_t n, size_t width)
{
    size_t dims = kt_space_dims(w->space, inc), first = first_param_dim(w);
    size_t end = wrap ? dims + dim - first : dims;

    for (size_t i = dim; i < end && n < width; ++i) {
        size_t d = i < dims ? i : i - dims + first;
        long pos = (long)kt_space_dim_pos(w->space, inc, d);
        int up = d != dim || dir > 0;
        n = inc_us >= 0 ? gather(w, inc, inc_us, d, d == dim ? from : pos + 1,
                                 up ? 1 : -1, take, cands, n, width)
                        : every(w, inc, d, d == dim ? from : pos + 1,
                                up ? 1 : -1, take, cands, n, width);
        if (up)
            n = inc_us >= 0
                    ? gather(w, inc, inc_us, d, pos - 1, -1, take, cands, n,
                             width)
                    : every(w, inc, d, pos - 1, -1, take, cands, n, width);
    }
    return n;
}

/* Every single change of *pt the walk may try before its incumbent moves
 * hinted (kt_tune_hint), soonest first: the next `patience` values of
 * each direction ahead of the rest of the lines, then the whole
 * neighbourhood of the next pass. Their kernels compile at once, on every
 * compile thread, while the walk measures them one at a time; a hint
 * decides nothing, so the walk's order and answer are what they were. */
static void hint_around(kt_walk *w, const kt_point *pt, size_t dim, long from,
                        int dir)
{
    kt_point *cands = malloc(HINT_MAX * sizeof *cands);
    size_t n = 0;

    if (!cands)
        return;
    if (w->patience)
        n = line_order(w, pt, -1, dim, from, dir, w->patience, 0, cands, n,
                       HINT_MAX);
    n = line_order(w, pt, -1, dim, from, dir, 0, 1, cands, n, HINT_MAX);
    kt_tune_hint(w->t, cands, n);
    free(cands);
}

/* With several workers, what the walk tries next if the incumbent holds —
 * the rest of this direction, the way down, then the next parameters'
 * lines, each direction up to `patience` new values — measured at once,
 * one per worker, and those faster on their own compared with the
 * incumbent at once (tuner/tune.h, kt_tune_lookahead). The search below
 * then answers from the record; a guess that an adopted change makes moot
 * costs evaluations, not time. On any number of workers the incumbent's
 * whole neighbourhood is hinted first (hint_around): compiled ahead,
 * never measured ahead. */
static kt_status look_ahead(kt_walk *w, const kt_point *inc, double inc_us,
                            size_t dim, long from, int dir, kt_err *err)
{
    size_t width = kt_tune_width(w->t), n;
    kt_point cands[64];

    hint_around(w, inc, dim, from, dir);
    if (width < 2)
        return KT_S_OK;
    width = width < 64 ? width : 64;
    n = line_order(w, inc, inc_us, dim, from, dir, w->patience, 0, cands, 0,
                   width);
    return kt_tune_lookahead(w->t, inc, inc_us, cands, n, err);
}

/* One parameter: from the incumbent's value outwards, up first; a
 * direction ends after `patience` values in a row that were not faster.
 * Down is tried only when up moved nothing. */
static kt_status line_search(kt_walk *w, kt_point *inc, double *inc_us,
                             size_t dim, int path, int *changed, kt_err *err)
{
    const kt_space *space = w->space;
    size_t count = kt_space_dim_count(space, inc, dim);
    long pos = (long)kt_space_dim_pos(space, inc, dim);
    kt_status rc;

    for (int dir = 1; dir >= -1 && !w->stopped; dir -= 2) {
        size_t misses = 0;
        int moved = 0;
        for (long k = pos + dir; k >= 0 && k < (long)count; k += dir) {
            kt_point cand;
            kt_tune_obs seen;
            int res;
            kt_space_dim_set(space, inc, dim, (size_t)k, &cand);
            if ((!kt_tune_known(w->t, &cand, &seen) ||
                 (seen.status == KT_EVAL_OK && seen.median_us < *inc_us)) &&
                (rc = look_ahead(w, inc, *inc_us, dim, k, dir, err)))
                return rc;
            if ((rc = try_move(w, inc, inc_us, &cand, dim, path, &res, err)))
                return rc;
            if (res == TRY_STOP) {
                w->stopped = 1;
                return KT_S_OK;
            }
            if (res == TRY_ADOPTED) {
                moved = *changed = 1;
                misses = 0;
                name_incumbent(w);
            } else if (res == TRY_SLOWER && w->patience &&
                       ++misses >= w->patience) {
                break;
            }
        }
        if (moved)
            break;
    }
    return KT_S_OK;
}

/* Passes over every parameter of *inc until one changes nothing (then
 * *settled = 1) or max_passes (max < 0: max_passes). */
static kt_status descend(kt_walk *w, kt_point *inc, double *inc_us, int path,
                         int max, int *settled, kt_err *err)
{
    kt_status rc;
    int passes = max < 0 ? w->max_passes : max;

    *settled = 0;
    for (int p = 0; p < passes && !w->stopped; ++p) {
        int changed = 0;
        for (size_t d = first_param_dim(w);
             d < kt_space_dims(w->space, inc) && !w->stopped; ++d)
            if ((rc = line_search(w, inc, inc_us, d, path, &changed, err)))
                return rc;
        if (!changed && !w->stopped) {
            *settled = 1;
            break;
        }
    }
    return KT_S_OK;
}

/* A random point of slot s that passes the host's checks; 0 when DRAWS
 * draws found none. */
static int random_point_of(kt_walk *w, kt_rng *rng, size_t s, kt_point *pt)
{
    const kt_space_variant *sv = &w->space->slots[s];

    for (int d = 0; d < DRAWS; ++d) {
        kt_space_point(w->space, sv->offset + kt_rng_below(rng, sv->size), pt);
        if (kt_space_feasible(w->space, pt, NULL) == KT_S_OK)
            return 1;
    }
    return 0;
}

static int random_point(kt_walk *w, size_t s, kt_point *pt)
{
    return random_point_of(w, kt_tune_rng(w->t), s, pt);
}

/* A random point of slot s drawn with rng into pts[k] that the session
 * has not seen and pts[0..k) does not hold; 0 when DRAWS draws found
 * none. */
static int fresh_point(kt_walk *w, kt_rng *rng, size_t s, kt_point *pts,
                       size_t k)
{
    kt_tune_obs seen;
    int fresh = 0;
    for (int d = 0; d < DRAWS && !fresh; ++d) {
        fresh = random_point_of(w, rng, s, &pts[k]) &&
                !kt_tune_known(w->t, &pts[k], &seen);
        for (size_t j = 0; fresh && j < k; ++j)
            fresh = !kt_point_equal(&pts[j], &pts[k]);
    }
    return fresh;
}

/* Measures a first point of slot s: its start (or a random one), then
 * random points when that cannot run (three failures at most). */
static kt_status survey_slot(kt_walk *w, size_t s, kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    int failures = 0, random = w->random_start && !x->reference;
    kt_status rc;

    kt_tune_slot_start(w->t, s, &x->best);
    x->start = x->best;
    while (!w->stopped && failures < 4) {
        kt_tune_obs obs;
        if (random && !random_point(w, s, &x->best))
            break;
        if ((rc = kt_tune_measure(w->t, &x->best, &obs, err)))
            return rc;
        if (!obs.known) {
            w->stopped = 1;
        } else if (obs.status == KT_EVAL_OK) {
            x->alive = 1;
            x->best_us = obs.median_us;
            return KT_S_OK;
        }
        ++failures;
        random = 1;
    }
    return KT_S_OK;
}

/* Random points worth drawing in slot s: none in a small subspace (its
 * walk covers much of it), log2(feasible points) - 4 in a larger one, at
 * most `samples`. */
static size_t samples_for(const kt_walk *w, size_t s)
{
    size_t f = w->slots[s].feasible, n = 0;
    for (; f >= 32; f >>= 1)
        ++n;
    return n < w->samples ? n : w->samples;
}

/* Measures random points of slot s, each on its own; the fastest becomes
 * its best when faster than its start. On the H200's gemv and reduce
 * spaces a few random points land within 1-2% of the optimum, where the
 * walk from the defaults can take dozens of changes to get. */
static kt_status sample_slot(kt_walk *w, size_t s, kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    size_t n = samples_for(w, s), before = kt_tune_evaluations(w->t);
    kt_status rc = KT_S_OK;

    /* With several workers, the draws go out a batch at a time. */
    for (size_t i = 0; i < n && !w->stopped && !rc;) {
        size_t width = kt_tune_width(w->t), k = 0;
        kt_point pts[64];
        kt_tune_obs obs[64];
        width = width < 64 ? width : 64;
        for (; k < width && i + k < n; ++k)
            if (!fresh_point(w, kt_tune_rng(w->t), s, pts, k))
                break;
        if (!k || (rc = kt_tune_measure_batch(w->t, pts, k, obs, err)))
            break;
        for (size_t j = 0; j < k; ++j)
            if (!obs[j].known)
                w->stopped = 1;
            else if (obs[j].status == KT_EVAL_OK &&
                     obs[j].median_us < x->best_us) {
                x->best = pts[j];
                x->best_us = obs[j].median_us;
            }
        i += k;
        if (k < width && i < n)
            break; /* no fresh point left to draw */
    }
    x->spent += kt_tune_evaluations(w->t) - before;
    return rc;
}

/* Every variant's start point: with several workers measured at once
 * (survey_slot then answers from the record); on one hinted, the default
 * configuration's first, so their kernels compile while the first is
 * measured. */
static kt_status survey_ahead(kt_walk *w, kt_err *err)
{
    size_t n = w->space->num_slots, width = kt_tune_width(w->t);
    kt_point *starts, first;
    kt_tune_obs *obs;
    kt_status rc = KT_S_OK;

    /* Without declared defaults each start is a draw survey_slot makes. */
    if (w->random_start || !n || !kt_tune_start_declared(w->t))
        return KT_S_OK;
    starts = calloc(n, sizeof *starts);
    obs = calloc(n, sizeof *obs);
    if (!starts || !obs)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t s = 0; !rc && s < n; ++s)
        kt_space_slot_start(w->space, s, &starts[s]);
    if (!rc && (width < 2 || n < 2)) {
        long f;
        kt_space_start(w->space, &first);
        f = kt_space_slot_of(w->space, first.variant);
        if (f > 0) { /* survey order: the default's slot, then the rest */
            memmove(&starts[1], &starts[0], (size_t)f * sizeof *starts);
            kt_space_slot_start(w->space, (size_t)f, &starts[0]);
        }
        kt_tune_hint(w->t, starts, n);
    } else if (!rc) {
        rc = kt_tune_measure_batch(w->t, starts, n, obs, err);
    }
    free(starts);
    free(obs);
    return rc;
}

/* The random points sample_slot will draw in each walked slot, drawn
 * ahead on a copy of the session's generator (the same draws, since only
 * the strategy draws) and hinted in sampling order. */
static void hint_samples(kt_walk *w)
{
    kt_rng sim = *kt_tune_rng(w->t);
    kt_point *pts = malloc(HINT_MAX * sizeof *pts);
    size_t n = 0;

    for (size_t s = 0; pts && s < w->space->num_slots; ++s) {
        size_t want = samples_for(w, s), at = n;
        if (!w->slots[s].alive || w->slots[s].reference)
            continue;
        for (size_t i = 0; i < want && n < HINT_MAX; ++i)
            if (fresh_point(w, &sim, s, &pts[at], n - at))
                ++n;
            else
                break;
    }
    if (pts)
        kt_tune_hint(w->t, pts, n);
    free(pts);
}

/* The default configuration's slot first, so the run starts where the
 * operator says; then the others in declared order; then random points of
 * the large ones. */
static kt_status survey(kt_walk *w, kt_err *err)
{
    kt_point start;
    long first;
    kt_status rc;

    if ((rc = survey_ahead(w, err)))
        return rc;
    kt_space_start(w->space, &start);
    first = kt_space_slot_of(w->space, start.variant);
    if (first >= 0 && (rc = survey_slot(w, (size_t)first, err)))
        return rc;
    for (size_t s = 0; s < w->space->num_slots && !w->stopped; ++s)
        if ((long)s != first && (rc = survey_slot(w, s, err)))
            return rc;
    hint_samples(w);
    for (size_t s = 0; s < w->space->num_slots && !w->stopped; ++s)
        if (w->slots[s].alive && !w->slots[s].reference &&
            (rc = sample_slot(w, s, err)))
            return rc;
    for (size_t s = 0; s < w->space->num_slots; ++s)
        w->slots[s].from_start =
            kt_point_equal(&w->slots[s].best, &w->slots[s].start);
    name_incumbent(w);
    return KT_S_OK;
}

static int by_best(const kt_walk *w, size_t a, size_t b)
{
    return w->slots[a].best_us < w->slots[b].best_us;
}

/* Slots that are walked (alive, not references), fastest first. */
static size_t walked_order(const kt_walk *w, size_t *order)
{
    size_t n = 0;
    for (size_t s = 0; s < w->space->num_slots; ++s) {
        size_t i;
        if (!w->slots[s].alive || w->slots[s].reference)
            continue;
        for (i = n; i > 0 && by_best(w, s, order[i - 1]); --i)
            order[i] = order[i - 1];
        order[i] = s;
        ++n;
    }
    return n;
}

static kt_status walk_slot(kt_walk *w, size_t s, int max, kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    size_t before = kt_tune_evaluations(w->t);
    kt_status rc = descend(w, &x->best, &x->best_us, 1, max, &x->settled, err);
    x->spent += kt_tune_evaluations(w->t) - before;
    return rc;
}

/* The promising variants not walked to the end yet, walked to the end;
 * again whenever that changes the leader. */
static kt_status passes_deep(kt_walk *w, size_t *order, kt_err *err)
{
    size_t n;
    kt_status rc;
    int again = 1;

    while (again && !w->stopped) {
        again = 0;
        n = walked_order(w, order);
        for (size_t i = 0; i < n && !w->stopped; ++i) {
            kt_walk_slot *x = &w->slots[order[i]];
            if (x->deep || x->settled || !promising(w, order[i]))
                continue;
            if ((rc = walk_slot(w, order[i], -1, err)))
                return rc;
            x->deep = again = 1;
        }
    }
    return KT_S_OK;
}

static kt_status pairs(kt_walk *w, size_t s, kt_err *err);

/* One pass over every walked variant, fastest start first, then the
 * promising ones to the end. */
static kt_status passes(kt_walk *w, size_t *order, kt_err *err)
{
    size_t n = walked_order(w, order);
    kt_status rc;

    if (w->leader_first && n && !w->stopped) {
        /* The fastest start walked to the end (and its pairs) before the
         * others' quick passes. */
        kt_walk_slot *x = &w->slots[order[0]];
        if ((rc = walk_slot(w, order[0], -1, err)))
            return rc;
        x->deep = 1;
        if (w->leader_first > 1 && w->use_pairs && !w->stopped &&
            (rc = pairs(w, order[0], err)))
            return rc;
    }
    for (size_t i = w->leader_first ? 1 : 0; i < n && !w->stopped; ++i) {
        long l = leader(w);
        kt_walk_slot *x = &w->slots[order[i]];
        /* After the fastest start's pass: a start this much slower than
         * the best so far would need its parameters to win it back. */
        if (i > 0 && l >= 0 && x->best_us > w->hopeless * w->slots[l].best_us) {
            x->hopeless = x->done = 1;
            continue;
        }
        if ((rc = walk_slot(w, order[i], 1, err)))
            return rc;
    }
    return passes_deep(w, order, err);
}

/* The value of parameter p of pt moved by `step` positions, in place; 0
 * when that leaves the declared values. */
static int nudge(const kt_space_variant *sv, kt_point *pt, size_t p, int step)
{
    long pos = -1;
    for (uint32_t k = 0; k < sv->count[p]; ++k)
        if (sv->values[p][k] == pt->values[p])
            pos = (long)k;
    pos += step;
    if (pos < 0 || pos >= (long)sv->count[p])
        return 0;
    pt->values[p] = sv->values[p][pos];
    return 1;
}

static const int pair_steps[4][2] = {{1, 1}, {-1, -1}, {1, -1}, {-1, 1}};

/* The pair candidate (i, j, d) around best, when it exists and the host
 * accepts it. */
static int pair_candidate(const kt_walk *w, const kt_space_variant *sv,
                          const kt_point *best, size_t i, size_t j, int d,
                          kt_point *cand)
{
    *cand = *best;
    return nudge(sv, cand, i, pair_steps[d][0]) &&
           nudge(sv, cand, j, pair_steps[d][1]) &&
           kt_space_feasible(w->space, cand, NULL) == KT_S_OK;
}

/* The pair scan's next candidates from (i, j, d) on around slot s's best,
 * in scan order, up to width of them. */
static size_t pair_order(const kt_walk *w, size_t s, size_t i, size_t j, int d,
                         kt_point *cands, size_t width)
{
    const kt_space_variant *sv = &w->space->slots[s];
    size_t n = 0;

    for (; i < sv->num_params && n < width; ++i, j = i + 1)
        for (; j < sv->num_params && n < width; ++j, d = 0)
            for (; d < 4 && n < width; ++d)
                n += pair_candidate(w, sv, &w->slots[s].best, i, j, d,
                                    &cands[n]);
    return n;
}

/* The pair scan's next candidates from (i, j, d) on: all of them hinted
 * (compiled ahead on every compile thread), and with several workers one
 * per worker measured at once (as look_ahead does for a line). */
static kt_status pairs_ahead(kt_walk *w, size_t s, size_t i, size_t j, int d,
                             kt_err *err)
{
    const kt_walk_slot *x = &w->slots[s];
    size_t width = kt_tune_width(w->t), n;
    kt_point *cands = malloc(HINT_MAX * sizeof *cands);
    kt_status rc = KT_S_OK;

    if (!cands)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    n = pair_order(w, s, i, j, d, cands, HINT_MAX);
    kt_tune_hint(w->t, cands, n);
    /* As before hints: 16 when one worker of a pool is left. */
    width = width < 2 ? 16 : width < 64 ? width : 64;
    rc = kt_tune_lookahead(w->t, &x->best, x->best_us, cands,
                           n < width ? n : width, err);
    free(cands);
    return rc;
}

/* One scan of the pairs around slot s's best: both parameters moved one
 * value at once, all four ways, for every pair. The first pair that is
 * faster beyond the noise is adopted (*won = 1): such ridges are what no
 * single change can cross. */
static kt_status pair_scan(kt_walk *w, size_t s, int *won, kt_err *err)
{
    const kt_space_variant *sv = &w->space->slots[s];
    kt_walk_slot *x = &w->slots[s];
    kt_status rc;

    *won = 0;
    for (size_t i = 0; i < sv->num_params; ++i)
        for (size_t j = i + 1; j < sv->num_params; ++j)
            for (int d = 0; d < 4; ++d) {
                kt_point from = x->best, cand;
                kt_tune_obs seen;
                int res;
                if (!pair_candidate(w, sv, &x->best, i, j, d, &cand))
                    continue;
                if (!kt_tune_known(w->t, &cand, &seen) &&
                    (rc = pairs_ahead(w, s, i, j, d, err)))
                    return rc;
                if ((rc = try_move(w, &x->best, &x->best_us, &cand, 0, 0, &res,
                                   err)))
                    return rc;
                if (res == TRY_STOP) {
                    w->stopped = 1;
                    return KT_S_OK;
                }
                if (res != TRY_ADOPTED)
                    continue;
                *won = 1;
                name_incumbent(w);
                return kt_tune_path_jump(w->t, &from, &x->best, "pair",
                                         &w->last_ratio, err);
            }
    return KT_S_OK;
}

/* Pairs, then single changes again after each pair that won, until a scan
 * of the pairs finds nothing. */
static kt_status pairs(kt_walk *w, size_t s, kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    kt_status rc;
    int won = 1;

    while (won && !w->stopped) {
        if ((rc = pair_scan(w, s, &won, err)))
            return rc;
        if (won && (rc = walk_slot(w, s, -1, err)))
            return rc;
    }
    x->paired = !w->stopped;
    return KT_S_OK;
}

/* Parameters of slot s with more than one value. */
static size_t movable(const kt_walk *w, size_t s)
{
    const kt_space_variant *sv = &w->space->slots[s];
    size_t n = 0;
    for (uint32_t i = 0; i < sv->num_params; ++i)
        n += sv->count[i] > 1;
    return n;
}

/* A perturbation of slot s's best that passes the host's checks and was
 * not visited: `perturb` parameters (all, when it has fewer) moved to other
 * values drawn at random. 0 when DRAWS draws found none. */
static int perturbation(kt_walk *w, size_t s, kt_point *pt)
{
    const kt_space_variant *sv = &w->space->slots[s];
    kt_rng *rng = kt_tune_rng(w->t);
    size_t n = sv->num_params, m = movable(w, s);
    size_t k = w->perturb < m ? w->perturb : m;

    for (int d = 0; d < DRAWS && k; ++d) {
        kt_tune_obs obs;
        uint32_t moved = 0;
        *pt = w->slots[s].best;
        for (size_t i = 0; i < k;) {
            size_t p = (size_t)kt_rng_below(rng, n);
            if (moved & (1u << p) || sv->count[p] < 2)
                continue;
            moved |= 1u << p;
            ++i;
            for (;;) {
                int64_t v = sv->values[p][kt_rng_below(rng, sv->count[p])];
                if (v != pt->values[p]) {
                    pt->values[p] = v;
                    break;
                }
            }
        }
        if (kt_space_feasible(w->space, pt, NULL) == KT_S_OK &&
            !kt_tune_known(w->t, pt, &obs))
            return 1;
    }
    return 0;
}

/* One restart of slot s: walk from a perturbation of its best; the end
 * replaces the best when the pair says it is faster. */
static kt_status restart_walk(kt_walk *w, size_t s, kt_point *start,
                              kt_err *err);

static kt_status restart(kt_walk *w, size_t s, kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    kt_point local;
    size_t before;
    kt_status rc;

    if ((double)x->spent >= w->cover * (double)x->feasible ||
        !perturbation(w, s, &local)) {
        x->done = x->covered = 1; /* nothing left around it to restart */
        return KT_S_OK;
    }
    /* A walk that began at a random point of the survey has not seen the
     * basin of the declared defaults: the first restart walks from there. */
    if (w->restart_start && !x->from_start) {
        x->from_start = 1;
        if (!kt_point_equal(&x->start, &x->best))
            local = x->start;
    }
    ++w->restarts_run;
    before = kt_tune_evaluations(w->t);
    rc = restart_walk(w, s, &local, err);
    x->spent += kt_tune_evaluations(w->t) - before;
    return rc;
}

/* Measures the perturbation local and walks from it. */
static kt_status restart_walk(kt_walk *w, size_t s, kt_point *start,
                              kt_err *err)
{
    kt_walk_slot *x = &w->slots[s];
    kt_point local = *start;
    kt_tune_obs obs;
    kt_tune_cmp cmp;
    double local_us;
    int settled;
    kt_status rc;

    if ((rc = kt_tune_measure(w->t, &local, &obs, err)))
        return rc;
    if (!obs.known) {
        w->stopped = 1;
        return KT_S_OK;
    }
    ++x->fails;
    if (obs.status != KT_EVAL_OK)
        return KT_S_OK;
    local_us = obs.median_us;
    if ((rc = descend(w, &local, &local_us, 0, -1, &settled, err)) ||
        w->stopped || local_us >= x->best_us)
        return rc;
    if ((rc = kt_tune_compare(w->t, &x->best, &local, &cmp, err)))
        return rc;
    if (!cmp.known) {
        w->stopped = 1;
        return KT_S_OK;
    }
    if (cmp.status != KT_EVAL_OK || cmp.verdict >= 0)
        return KT_S_OK;
    if ((rc = kt_tune_path_jump(w->t, &x->best, &local, "restart", &cmp.ratio,
                                err)))
        return rc;
    x->best = local;
    x->best_us = local_us;
    x->settled = settled;
    x->paired = 0;
    x->fails = 0;
    ++w->restarts_won;
    name_incumbent(w);
    return KT_S_OK;
}

/* The fastest promising variant whose pairs were not scanned, or -1. */
static long next_pairs(const kt_walk *w)
{
    long pick = -1;
    for (size_t s = 0; s < w->space->num_slots; ++s)
        if (!w->slots[s].paired && promising(w, s) &&
            (pick < 0 || w->slots[s].best_us < w->slots[pick].best_us))
            pick = (long)s;
    return pick;
}

/* The promising variant with the fewest failed restarts (the faster on a
 * tie) that is not done, or -1. */
static long next_restart(const kt_walk *w)
{
    long pick = -1;
    for (size_t s = 0; s < w->space->num_slots; ++s) {
        const kt_walk_slot *x = &w->slots[s];
        if (x->done || !close_enough(w, s))
            continue;
        if (x->fails >= w->restarts)
            continue;
        if (pick < 0 || x->fails < w->slots[pick].fails ||
            (x->fails == w->slots[pick].fails &&
             x->best_us < w->slots[pick].best_us))
            pick = (long)s;
    }
    return pick;
}

/* How the restarts ended, for the stop reason: by `restarts` in a row no
 * faster, by `cover` of the variant's points evaluated, or both. */
static void restarts_why(const kt_walk *w, char *out, size_t size)
{
    size_t fails = 0, covered = 0;
    for (size_t s = 0; s < w->space->num_slots; ++s)
        if (close_enough(w, s))
            covered += w->slots[s].covered, fails += !w->slots[s].covered;
    if (!covered)
        snprintf(out, size, "%zu restart(s) in a row found nothing faster",
                 w->restarts);
    else if (!fails)
        snprintf(out, size,
                 "the restarts evaluated %.0f%% of the variant's points",
                 100 * w->cover);
    else
        snprintf(out, size,
                 "%zu restart(s) in a row found nothing faster or the "
                 "restarts evaluated %.0f%% of the variant's points",
                 w->restarts, 100 * w->cover);
}

static void say_why(kt_walk *w)
{
    char why[640], slow[64] = "", restarts[160];
    size_t walked = 0, deep = 0, close = 0, hopeless = 0;
    for (size_t s = 0; s < w->space->num_slots; ++s) {
        walked += w->slots[s].alive && !w->slots[s].reference &&
                  !w->slots[s].hopeless;
        hopeless += w->slots[s].hopeless;
        deep += promising(w, s);
        close += close_enough(w, s);
    }
    if (leader(w) < 0) {
        /* Nothing to walk: only references, or no start point (nor three
         * random points) of any other variant ran. */
        kt_tune_finished(w->t, "nothing to tune: no variant but the "
                               "references ran (each tried at its start "
                               "and three random points)");
        return;
    }
    if (hopeless)
        snprintf(slow, sizeof slow, " (%zu too slow to walk)", hopeless);
    restarts_why(w, restarts, sizeof restarts);
    snprintf(why, sizeof why,
             "converged: %zu variant(s) walked%s, the %zu within %.0f%% of "
             "the best to a point no single change improves; around the %zu "
             "within %.0f%%, %s%s (%zu of %zu won)",
             walked, slow, deep, 100 * w->promising, close, 100 * w->close,
             w->use_pairs ? "no pair of neighbouring changes improves and "
                          : "",
             restarts, w->restarts_won, w->restarts_run);
    kt_tune_finished(w->t, why);
}

/* Points of slot s that pass the host's checks; slots larger than
 * FEASIBLE_WALK count as wholly feasible (the cap only bounds restarts). */
static size_t feasible_in(const kt_walk *w, size_t s)
{
    const kt_space_variant *sv = &w->space->slots[s];
    size_t n = 0;

    if (sv->size > FEASIBLE_WALK)
        return (size_t)sv->size;
    kt_space_prefetch(w->space, sv->offset, sv->size);
    for (uint64_t i = 0; i < sv->size; ++i) {
        kt_point pt;
        kt_space_point(w->space, sv->offset + i, &pt);
        n += kt_space_feasible(w->space, &pt, NULL) == KT_S_OK;
    }
    return n;
}

kt_status kt_walk_run(kt_walk *w, kt_err *err)
{
    size_t n = w->space->num_slots;
    size_t *order = NULL;
    kt_status rc = KT_S_OK;

    w->slots = calloc(n ? n : 1, sizeof *w->slots);
    order = calloc(n ? n : 1, sizeof *order);
    if (!w->slots || !order) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < n; ++s) {
        w->slots[s].reference = kt_tune_slot_is_reference(w->t, s);
        w->slots[s].feasible = feasible_in(w, s);
    }
    if ((rc = survey(w, err)))
        goto done;
    if ((rc = passes(w, order, err)))
        goto done;
    /* Pairs before restarts: they are the cheaper way past a ridge. After
     * either, a changed leader gets its deep walk first. */
    while (!w->stopped) {
        long s = w->use_pairs ? next_pairs(w) : -1;
        if (s >= 0)
            rc = pairs(w, (size_t)s, err);
        else if ((s = next_restart(w)) >= 0)
            rc = restart(w, (size_t)s, err);
        else
            break;
        if (rc || (rc = passes_deep(w, order, err)))
            goto done;
    }
    if (!w->stopped && !kt_tune_stop(w->t))
        say_why(w);
done:
    free(order);
    return rc;
}
