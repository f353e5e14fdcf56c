// SPDX-License-Identifier: Apache-2.0
/*
 * genetic: a small generational genetic algorithm.
 *
 * The population starts with the start (kt_tune_start: the declared default,
 * else a drawn point) and random points
 * that run. Each generation keeps the best individual (elitism) and breeds
 * the rest: parents by binary tournament on the median time, a child takes
 * one parent's variant and, parameter by parameter, either parent's value
 * where both variants have it, then each dimension mutates with probability
 * `mutation`. Children that cannot run are discarded and bred again. The
 * search ends after `stall` generations without a new best (or a budget).
 * With several workers the children of a generation (and the random
 * points of the first) are measured in batches of one per worker.
 */
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy.h"
#include "tuner/tune.h"

enum { OPT_POPULATION, OPT_MUTATION, OPT_STALL };

#define MAX_POPULATION 256

static const kt_strategy_option options[] = {
    {"population", "individuals per generation", 12, 2, MAX_POPULATION, 1},
    {"mutation", "probability that a dimension of a child mutates", 0.2, 0, 1,
     0},
    {"stall", "generations without a new best before stopping", 8, 1, 10000, 1},
};

typedef struct individual {
    kt_point point;
    double us;
} individual;

/* Measures pt; 1 when it runs (its time in *us). */
static int fitness(kt_tune *t, const kt_point *pt, double *us, kt_status *rc,
                   kt_err *err)
{
    kt_tune_obs obs;
    *rc = kt_tune_measure(t, pt, &obs, err);
    if (*rc || !obs.known || obs.status != KT_EVAL_OK)
        return 0;
    *us = obs.median_us;
    return 1;
}

/* Measures cands[0..k) at once (one per worker) and appends those that
 * run to pop[*n..want), in order. */
static kt_status fill(kt_tune *t, const kt_point *cands, size_t k,
                      individual *pop, size_t *n, size_t want, kt_err *err)
{
    kt_tune_obs obs[MAX_POPULATION];
    kt_status rc = kt_tune_measure_batch(t, cands, k, obs, err);

    for (size_t i = 0; !rc && i < k && *n < want; ++i) {
        if (!obs[i].known || obs[i].status != KT_EVAL_OK)
            continue;
        pop[*n].point = cands[i];
        pop[(*n)++].us = obs[i].median_us;
    }
    return rc;
}

/* Workers at once, at most a generation's worth. */
static size_t batch_of(kt_tune *t)
{
    size_t w = kt_tune_width(t);
    return w < MAX_POPULATION ? w : MAX_POPULATION;
}

static const individual *tournament(kt_tune *t, const individual *pop, size_t n)
{
    kt_rng *rng = kt_tune_rng(t);
    const individual *a = &pop[kt_rng_below(rng, n)];
    const individual *b = &pop[kt_rng_below(rng, n)];
    return a->us <= b->us ? a : b;
}

static void breed(kt_tune *t, const individual *x, const individual *y,
                  double mutation, kt_point *child)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    const individual *base = kt_rng_below(rng, 2) ? x : y;
    const individual *other = base == x ? y : x;
    kt_point mixed;

    /* The other parent's values, moved into the base's variant: shared
     * parameters carry over, then each is taken with probability 1/2. */
    kt_space_switch(space, &other->point,
                    (size_t)kt_space_slot_of(space, base->point.variant),
                    &mixed);
    *child = base->point;
    for (uint32_t i = 0; i < child->count; ++i)
        if (kt_rng_below(rng, 2))
            child->values[i] = mixed.values[i];
    for (size_t d = 0; d < kt_space_dims(space, child); ++d) {
        size_t count = kt_space_dim_count(space, child, d);
        if (count > 1 && kt_rng_unit(rng) < mutation) {
            kt_point m;
            kt_space_dim_set(space, child, d, (size_t)kt_rng_below(rng, count),
                             &m);
            *child = m;
        }
    }
}

/* The rest of a generation, hinted (kt_tune_hint) before its first child
 * is measured, so the kernels of all of them compile at once: the `count`
 * children it breeds from pop[0..n) when every one runs, bred ahead and
 * the generator rewound, so the same draws are made again. */
static void hint_children(kt_tune *t, const individual *pop, size_t n,
                          size_t count, double mutation)
{
    kt_rng saved = *kt_tune_rng(t);
    kt_point kids[MAX_POPULATION];

    for (size_t k = 0; k < count && k < MAX_POPULATION; ++k)
        breed(t, tournament(t, pop, n), tournament(t, pop, n), mutation,
              &kids[k]);
    *kt_tune_rng(t) = saved;
    kt_tune_hint(t, kids, count < MAX_POPULATION ? count : MAX_POPULATION);
}

/* A random point of the first generation into pts[k], none of pop[0..n)
 * nor pts[0..k); 0 for a duplicate. */
static int draw_random(kt_tune *t, const individual *pop, size_t n,
                       kt_point *pts, size_t k)
{
    const kt_space *space = kt_tune_space(t);
    int dup = 0;
    kt_space_point(space, kt_rng_below(kt_tune_rng(t), space->size), &pts[k]);
    for (size_t i = 0; i < n; ++i)
        dup |= kt_point_equal(&pts[k], &pop[i].point);
    for (size_t i = 0; i < k; ++i)
        dup |= kt_point_equal(&pts[k], &pts[i]);
    return !dup;
}

/* The first generation's random points still to come (want - n when
 * they all run, within the tries left), drawn ahead and the generator
 * rewound, hinted as hint_children does. */
static void hint_randoms(kt_tune *t, const individual *pop, size_t n,
                         size_t want, size_t tries)
{
    kt_rng saved = *kt_tune_rng(t);
    kt_point pts[MAX_POPULATION];
    size_t k = 0;

    for (; k < want - n && tries < 20 * want; ++tries)
        k += draw_random(t, pop, n, pts, k);
    *kt_tune_rng(t) = saved;
    kt_tune_hint(t, pts, k);
}

static int compare_us(const void *a, const void *b)
{
    const individual *x = a, *y = b;
    return (x->us > y->us) - (x->us < y->us);
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    size_t want = (size_t)opt[OPT_POPULATION], n = 0, tries;
    size_t stall = 0, max_stall = (size_t)opt[OPT_STALL];
    individual *pop = calloc(want, sizeof *pop), *next = NULL;
    double best_us = 0;
    kt_status rc = KT_S_OK;

    next = calloc(want, sizeof *next);
    if (!pop || !next) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    /* The first generation: the start (the declared default, else a drawn
     * point), then random points that run. */
    kt_tune_start(t, &pop[0].point);
    if (fitness(t, &pop[0].point, &pop[0].us, &rc, err))
        n = 1;
    for (tries = 0; !rc && n < want && tries < 20 * want && !kt_tune_stop(t);) {
        kt_point pts[MAX_POPULATION];
        size_t k = 0;
        hint_randoms(t, pop, n, want, tries);
        for (; k < batch_of(t) && k < want - n && tries < 20 * want; ++tries)
            k += draw_random(t, pop, n, pts, k);
        if (k)
            rc = fill(t, pts, k, pop, &n, want, err);
    }
    if (rc || n == 0)
        goto done;
    qsort(pop, n, sizeof *pop, compare_us);
    best_us = pop[0].us;
    kt_tune_set_incumbent(t, &pop[0].point);
    while (!kt_tune_stop(t) && stall < max_stall) {
        size_t m = 1;
        next[0] = pop[0]; /* elitism */
        for (tries = 0; m < want && tries < 20 * want && !kt_tune_stop(t);) {
            kt_point kids[MAX_POPULATION];
            size_t k = 0;
            hint_children(t, pop, n, want - m, opt[OPT_MUTATION]);
            for (; k < batch_of(t) && k < want - m && tries < 20 * want;
                 ++tries)
                breed(t, tournament(t, pop, n), tournament(t, pop, n),
                      opt[OPT_MUTATION], &kids[k++]);
            if ((rc = fill(t, kids, k, next, &m, want, err)))
                goto done;
        }
        memcpy(pop, next, m * sizeof *pop);
        n = m;
        qsort(pop, n, sizeof *pop, compare_us);
        if (pop[0].us < best_us) {
            best_us = pop[0].us;
            stall = 0;
            kt_tune_set_incumbent(t, &pop[0].point);
        } else {
            ++stall;
        }
    }
done:
    free(pop);
    free(next);
    return rc;
}

const kt_strategy kt_strategy_genetic = {
    .name = "genetic",
    .summary = "generational genetic algorithm: tournament selection, "
               "uniform crossover by parameter name, mutation, elitism",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
};
