// SPDX-License-Identifier: Apache-2.0
/*
 * annealing: simulated annealing over the neighbourhood of kt_space.
 *
 * From the start (the declared default, else a drawn point: kt_tune_start),
 * each step changes one dimension: a step
 * to the next or previous value, or (with probability `jump`, and always for
 * `variant`) any other value. A faster neighbour is taken; a slower one with
 * probability exp(-(t_new / t_cur - 1) / T). T starts at `temperature` and
 * is multiplied by `cooling` every step; when it falls below 1% of its start
 * the walk goes back to the best point seen and T starts again. When the
 * neighbourhood holds nothing new (every proposal already measured for a
 * while), the walk restarts at a random point not yet measured. Points that
 * cannot run are never moved to. With several workers each step measures
 * one neighbour per worker at once and moves to the first accepted.
 */
#include <math.h>
#include <stdlib.h>

#include "tuner/strategy.h"
#include "tuner/tune.h"

enum { OPT_TEMPERATURE, OPT_COOLING, OPT_JUMP };

static const kt_strategy_option options[] = {
    {"temperature",
     "start temperature: a move that is this much slower (relative) is "
     "taken with probability 1/e",
     0.1, 1e-6, 10, 0},
    {"cooling", "temperature factor per step", 0.95, 0.5, 0.9999, 0},
    {"jump", "probability of jumping to any value instead of a step", 0.2, 0, 1,
     0},
};

/* A neighbour of cur along one random dimension; 0 when the space has no
 * other point. */
static int neighbour(kt_tune *t, const kt_point *cur, double jump,
                     kt_point *out)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    size_t dims = kt_space_dims(space, cur), movable = 0;

    for (size_t d = 0; d < dims; ++d)
        movable += kt_space_dim_count(space, cur, d) > 1;
    if (!movable)
        return 0;
    for (;;) {
        size_t d = (size_t)kt_rng_below(rng, dims);
        size_t count = kt_space_dim_count(space, cur, d);
        size_t pos = kt_space_dim_pos(space, cur, d), k;
        int is_variant = space->num_slots > 1 && d == 0;
        if (count < 2)
            continue;
        if (is_variant || kt_rng_unit(rng) < jump) {
            k = (size_t)kt_rng_below(rng, count - 1);
            k += k >= pos;
        } else if (pos == 0) {
            k = 1;
        } else if (pos + 1 == count) {
            k = pos - 1;
        } else {
            k = kt_rng_below(rng, 2) ? pos + 1 : pos - 1;
        }
        kt_space_dim_set(space, cur, d, k, out);
        return 1;
    }
}

/* Points hinted at once, at most. */
#define HINT_MAX 256

/* The neighbours the next proposals are drawn from, hinted (kt_tune_hint)
 * when the walk moves, so their kernels compile at once: the steps to
 * the next and previous value of every dimension first (1 - jump of the
 * proposals), then every other value (the jumps). Which one the generator
 * draws is not known ahead; the draws themselves are not disturbed. */
static void hint_neighbours(kt_tune *t, const kt_point *cur)
{
    const kt_space *space = kt_tune_space(t);
    size_t dims = kt_space_dims(space, cur), n = 0;
    kt_point *pts = malloc(HINT_MAX * sizeof *pts);

    for (int pass = 0; pts && pass < 2; ++pass)
        for (size_t d = 0; d < dims; ++d) {
            size_t count = kt_space_dim_count(space, cur, d);
            size_t pos = kt_space_dim_pos(space, cur, d);
            for (size_t k = 0; k < count && n < HINT_MAX; ++k) {
                int step = k + 1 == pos || k == pos + 1;
                if (k != pos && step == !pass)
                    kt_space_dim_set(space, cur, d, k, &pts[n++]);
            }
        }
    if (pts)
        kt_tune_hint(t, pts, n);
    free(pts);
}

/* The start: the declared default or a drawn point (kt_tune_start), else
 * random points until one runs. */
static kt_status start(kt_tune *t, kt_point *cur, double *cur_us, int *found,
                       kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_tune_obs obs;
    kt_status rc;

    *found = 0;
    kt_tune_start(t, cur);
    while (!kt_tune_stop(t)) {
        if ((rc = kt_tune_measure(t, cur, &obs, err)))
            return rc;
        if (obs.known && obs.status == KT_EVAL_OK) {
            *cur_us = obs.median_us;
            *found = 1;
            return KT_S_OK;
        }
        kt_space_point(space, kt_rng_below(kt_tune_rng(t), space->size), cur);
    }
    return KT_S_OK;
}

/* A random point the run has not visited, found in a few draws; 0 when
 * none turns up (the space is nearly exhausted). */
static int unvisited(kt_tune *t, kt_point *out)
{
    const kt_space *space = kt_tune_space(t);
    for (int tries = 0; tries < 64; ++tries) {
        kt_tune_obs obs;
        kt_space_point(space, kt_rng_below(kt_tune_rng(t), space->size), out);
        if (!kt_tune_known(t, out, &obs))
            return 1;
    }
    return 0;
}

/* One move: next, and with several workers more neighbours of *cur drawn
 * at once, all measured together; the acceptance rule then goes through
 * them in order and the first it takes is the move (the others stay in
 * the record). The temperature falls once per neighbour judged. */
static kt_status step(kt_tune *t, const double *opt, kt_point *cur,
                      double *cur_us, const kt_point *next, double *temp,
                      kt_err *err)
{
    size_t width = kt_tune_width(t), k = 1;
    kt_point *pts = calloc(width, sizeof *pts);
    kt_tune_obs *obs = calloc(width, sizeof *obs);
    kt_status rc = KT_S_OK;

    if (!pts || !obs) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    pts[0] = *next;
    while (k < width && neighbour(t, cur, opt[OPT_JUMP], &pts[k]))
        ++k;
    if ((rc = kt_tune_measure_batch(t, pts, k, obs, err)))
        goto done;
    for (size_t i = 0; i < k; ++i) {
        int take = obs[i].known && obs[i].status == KT_EVAL_OK &&
                   (obs[i].median_us <= *cur_us ||
                    kt_rng_unit(kt_tune_rng(t)) <
                        exp(-(obs[i].median_us / *cur_us - 1) / *temp));
        *temp *= opt[OPT_COOLING];
        if (take) {
            *cur = pts[i];
            *cur_us = obs[i].median_us;
            break;
        }
    }
done:
    free(pts);
    free(obs);
    return rc;
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    double t0 = opt[OPT_TEMPERATURE], temp = t0, cur_us = 0, best_us;
    kt_point cur, best, hinted;
    size_t stale = 0;
    int found;
    kt_status rc;

    if ((rc = start(t, &cur, &cur_us, &found, err)) || !found)
        return rc;
    best = cur;
    best_us = cur_us;
    hinted = cur;
    hint_neighbours(t, &cur);
    while (!kt_tune_stop(t)) {
        kt_point next;
        kt_tune_obs obs;
        if (!kt_point_equal(&cur, &hinted)) {
            hinted = cur;
            hint_neighbours(t, &cur);
        }
        if (!neighbour(t, &cur, opt[OPT_JUMP], &next))
            break;
        stale = kt_tune_known(t, &next, &obs) ? stale + 1 : 0;
        if (stale > 8 * kt_space_dims(kt_tune_space(t), &cur)) {
            /* Nothing new around here: restart somewhere unvisited. */
            if (!unvisited(t, &next))
                break;
            stale = 0;
            temp = t0;
            if ((rc = kt_tune_measure(t, &next, &obs, err)))
                return rc;
            if (obs.known && obs.status == KT_EVAL_OK) {
                cur = next;
                cur_us = obs.median_us;
                if (cur_us < best_us) {
                    best = cur;
                    best_us = cur_us;
                }
            }
            continue;
        }
        if ((rc = step(t, opt, &cur, &cur_us, &next, &temp, err)))
            return rc;
        if (cur_us < best_us) {
            best = cur;
            best_us = cur_us;
        }
        if (temp < 0.01 * t0) {
            /* Reheat from the best point. */
            temp = t0;
            cur = best;
            cur_us = best_us;
        }
    }
    kt_tune_set_incumbent(t, &best);
    return KT_S_OK;
}

const kt_strategy kt_strategy_annealing = {
    .name = "annealing",
    .summary = "simulated annealing: one-dimension moves, worse moves taken "
               "with a falling probability, restarts from the best",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
};
