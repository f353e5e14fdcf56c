// SPDX-License-Identifier: Apache-2.0
/*
 * coordinate: one change at a time with `variant` as one more coordinate —
 * the walk one_at_a_time made before it treated variants as subspaces. Kept
 * as a baseline of the strategy benchmark: it compares variants at their
 * defaults, so a parameterless reference that wins there ends it.
 *
 * Start at the start (kt_tune_start: the declared default, else a drawn point).
 * Sweep one dimension
 * (`variant` first, then the incumbent's parameters in declared order) with
 * everything else fixed: each value is measured together with the incumbent
 * in interleaved rounds, and adopted when the paired ratio says faster by
 * more than min_gain with 95% confidence. Then the next dimension. Full
 * passes repeat until one changes nothing (or max_passes). A new variant
 * keeps the parameters it shares with the incumbent; when that point cannot
 * run, the variant is tried at its start point instead. With random_start
 * the walk starts at a random feasible point drawn with the seed (for
 * benchmarks over many starts).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tuner/strategy.h"
#include "tuner/tune.h"

enum { OPT_MAX_PASSES, OPT_RANDOM_START };

static const kt_strategy_option options[] = {
    {"max_passes", "full passes over every dimension at most", 10, 1, 1000, 1},
    {"random_start",
     "1: start at a random feasible point drawn with the seed, not at the "
     "default configuration",
     0, 0, 1, 1},
};

/* Random starts: draws until a host-feasible point, and points that fail
 * at run time, before falling back to the default start. */
#define RANDOM_DRAWS 1000
#define RANDOM_FAILURES 3

/* Measures p; *runs = 1 when it verified and was timed. */
static kt_status try_point(kt_tune *t, const kt_point *p, int *runs,
                           kt_err *err)
{
    kt_tune_obs obs;
    kt_status rc = kt_tune_measure(t, p, &obs, err);
    *runs = !rc && obs.known && obs.status == KT_EVAL_OK;
    return rc;
}

static kt_status random_first(kt_tune *t, kt_point *inc, int *found,
                              kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    int failures = 0;
    kt_status rc = KT_S_OK;

    for (int d = 0; d < RANDOM_DRAWS && failures < RANDOM_FAILURES && !rc &&
                    !*found && !kt_tune_stop(t);
         ++d) {
        kt_space_point(space, kt_rng_below(rng, space->size), inc);
        if (kt_space_feasible(space, inc, NULL) != KT_S_OK)
            continue;
        rc = try_point(t, inc, found, err);
        failures += !*found;
    }
    return rc;
}

/* The first incumbent that runs: with random_start, a random host-feasible
 * point drawn from the run's generator (a few draws at most); else, or when
 * those do not run, the start (kt_tune_start), else the space in order.
 * *found = 0 when nothing runs within the budget. */
static kt_status first_point(kt_tune *t, int random_start, kt_point *inc,
                             int *found, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_status rc;

    *found = 0;
    if (random_start && ((rc = random_first(t, inc, found, err)) || *found))
        return rc;
    kt_tune_start(t, inc);
    rc = try_point(t, inc, found, err);
    for (uint64_t i = 0; !rc && !*found && i < space->size && !kt_tune_stop(t);
         ++i) {
        kt_space_point(space, i, inc);
        rc = try_point(t, inc, found, err);
    }
    return rc;
}

/* The candidate for value k of dimension dim: a new variant keeps the
 * parameters it shares with inc, or starts at its own start point when
 * that cannot run. */
static void candidate(kt_tune *t, const kt_point *inc, size_t dim, size_t k,
                      kt_point *cand)
{
    const kt_space *space = kt_tune_space(t);
    kt_space_dim_set(space, inc, dim, k, cand);
    if (dim == 0 && space->num_slots > 1 &&
        kt_space_feasible(space, cand, NULL) != KT_S_OK)
        kt_space_slot_start(space, k, cand);
}

/* Points hinted at once, at most. */
#define HINT_MAX 256

/* The candidates the walk tries from inc until it moves, in the order
 * tried: the rest of dimension dim from value k on, the later dimensions,
 * then the earlier ones (the next pass); hinted, so their kernels compile
 * while the first ones are compared (kt_tune_hint). */
static void hint_from(kt_tune *t, const kt_point *inc, size_t dim, size_t k)
{
    const kt_space *space = kt_tune_space(t);
    size_t dims = kt_space_dims(space, inc), n = 0;
    kt_point *ahead = malloc(HINT_MAX * sizeof *ahead);

    for (size_t i = 0; ahead && i < dims && n < HINT_MAX; ++i, k = 0) {
        size_t d = (dim + i) % dims, count = kt_space_dim_count(space, inc, d);
        for (; k < count && n < HINT_MAX; ++k)
            if (k != kt_space_dim_pos(space, inc, d))
                candidate(t, inc, d, k, &ahead[n++]);
    }
    if (ahead)
        kt_tune_hint(t, ahead, n);
    free(ahead);
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    int passes = (int)opt[OPT_MAX_PASSES], found;
    kt_point inc;
    kt_status rc;

    if ((rc = first_point(t, opt[OPT_RANDOM_START] != 0, &inc, &found, err)) ||
        !found)
        return rc;
    kt_tune_set_incumbent(t, &inc);
    for (int pass = 0; pass < passes; ++pass) {
        int changed = 0;
        /* Dimensions are re-read after each adoption: a new variant brings
         * its own parameters. */
        for (size_t dim = 0; dim < kt_space_dims(space, &inc); ++dim) {
            hint_from(t, &inc, dim, 0);
            for (size_t k = 0; k < kt_space_dim_count(space, &inc, dim); ++k) {
                kt_point cand;
                kt_tune_cmp cmp;
                if (k == kt_space_dim_pos(space, &inc, dim))
                    continue;
                candidate(t, &inc, dim, k, &cand);
                if (kt_point_equal(&cand, &inc))
                    continue;
                if (kt_tune_stop(t))
                    return KT_S_OK;
                if ((rc = kt_tune_compare(t, &inc, &cand, &cmp, err)))
                    return rc;
                if (!cmp.known)
                    return KT_S_OK;
                if (cmp.status != KT_EVAL_OK || cmp.verdict >= 0)
                    continue;
                if ((rc = kt_tune_path_add(t, &inc, &cand, dim, &cmp.ratio,
                                           err)))
                    return rc;
                inc = cand;
                kt_tune_set_incumbent(t, &inc);
                changed = 1;
                hint_from(t, &inc, dim, k + 1);
            }
        }
        if (!changed)
            break;
    }
    return KT_S_OK;
}

const kt_strategy kt_strategy_coordinate = {
    .name = "coordinate",
    .summary = "from the default, one dimension at a time with variant as "
               "a coordinate; keep a change only when it is faster beyond "
               "the noise (paired, interleaved)",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
};
