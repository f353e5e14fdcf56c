// SPDX-License-Identifier: Apache-2.0
#include "tuner/strategies/sweep.h"

/* Random starts: draws until a host-feasible point, and points that fail
 * at run time, before falling back to the default start. */
#define RANDOM_DRAWS 1000
#define RANDOM_FAILURES 3

static kt_status random_first(kt_tune *t, kt_point *inc, int *found,
                              kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_rng *rng = kt_tune_rng(t);
    int failures = 0;
    kt_status rc;

    for (int d = 0;
         d < RANDOM_DRAWS && failures < RANDOM_FAILURES && !kt_tune_stop(t);
         ++d) {
        kt_tune_obs obs;
        kt_space_point(space, kt_rng_below(rng, space->size), inc);
        if (kt_space_feasible(space, inc, NULL) != KT_S_OK)
            continue;
        if ((rc = kt_tune_measure(t, inc, &obs, err)))
            return rc;
        if (obs.known && obs.status == KT_EVAL_OK) {
            *found = 1;
            return KT_S_OK;
        }
        ++failures;
    }
    return KT_S_OK;
}

kt_status kt_sweep_first(kt_tune *t, int random_start, kt_point *inc,
                         int *found, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    kt_tune_obs obs;
    kt_status rc;

    *found = 0;
    if (random_start && ((rc = random_first(t, inc, found, err)) || *found))
        return rc;
    kt_space_start(space, inc);
    if ((rc = kt_tune_measure(t, inc, &obs, err)))
        return rc;
    if (obs.known && obs.status == KT_EVAL_OK) {
        *found = 1;
        return KT_S_OK;
    }
    for (uint64_t i = 0; i < space->size && !kt_tune_stop(t); ++i) {
        kt_space_point(space, i, inc);
        if ((rc = kt_tune_measure(t, inc, &obs, err)))
            return rc;
        if (obs.known && obs.status == KT_EVAL_OK) {
            *found = 1;
            return KT_S_OK;
        }
    }
    return KT_S_OK;
}

void kt_sweep_candidate(kt_tune *t, const kt_point *inc, size_t dim, size_t k,
                        kt_point *cand)
{
    const kt_space *space = kt_tune_space(t);
    kt_space_dim_set(space, inc, dim, k, cand);
    if (dim == 0 && space->num_slots > 1 &&
        kt_space_feasible(space, cand, NULL) != KT_S_OK)
        kt_space_slot_start(space, k, cand);
}
