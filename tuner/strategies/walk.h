// SPDX-License-Identifier: Apache-2.0
/*
 * kt_walk: the search one_at_a_time runs (tuner/strategies/one_at_a_time.c
 * describes it): each variant a subspace walked one change at a time,
 * deeper walks and restarts on the promising variants, references measured
 * and held as the yardstick. Not a strategy itself: the options are the
 * strategy's, set by its run().
 */
#ifndef KT_WALK_H
#define KT_WALK_H

#include "tuner/tune.h"

/* What the walk knows of one variant of the space (a slot). */
typedef struct kt_walk_slot {
    int reference;  /* measured only */
    int alive;      /* a point of it ran */
    kt_point best;  /* its incumbent */
    kt_point start; /* its declared defaults (its survey's first point) */
    int from_start; /* a walk began at start */
    double best_us;
    int settled;     /* a full pass from best changed nothing */
    int deep;        /* walked to the end (or max_passes) once */
    int paired;      /* no pair of neighbouring changes improves best */
    size_t fails;    /* restarts in a row that ended no faster */
    int done;        /* settled and out of restarts (or nothing to restart) */
    int covered;     /* its restarts ended on `cover` (or no perturbation) */
    int hopeless;    /* its start was too slow to be worth a walk */
    size_t spent;    /* evaluations its walks cost */
    size_t feasible; /* its points that pass the host's checks (capped) */
} kt_walk_slot;

typedef struct kt_walk {
    kt_tune *t;
    const kt_space *space;
    /* Options (one_at_a_time.c documents them). */
    int max_passes, random_start;
    double screen, promising, close, hopeless, cover;
    size_t patience, restarts, perturb, samples;
    int use_pairs, leader_first, restart_start;
    /* State. */
    kt_walk_slot *slots; /* one per slot of the space; owned */
    int stopped;         /* the session said stop */
    size_t restarts_run, restarts_won;
    kt_ratio last_ratio; /* of the last adopted move */
} kt_walk;

/* Sets the defaults of the options; frees nothing. */
void kt_walk_init(kt_walk *w, kt_tune *t);

/* Runs the whole search; non-OK only when the session cannot go on. */
kt_status kt_walk_run(kt_walk *w, kt_err *err);

void kt_walk_free(kt_walk *w);

#endif
