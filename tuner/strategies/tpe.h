// SPDX-License-Identifier: Apache-2.0
/*
 * kt_tpe: a tree-structured Parzen estimator over a discrete space
 * (Bergstra et al., NeurIPS 2011), the model behind the `tpe` strategy and
 * the guided survey of one_at_a_time (tuner/strategies/tpe.c describes it).
 *
 * The model is fitted on every point observed so far: the fastest
 * `gamma` of those that ran are "good", the rest and every point that
 * could not run are "bad"; each parameter's value (and the variant) gets a
 * smoothed frequency among the good and among the bad, and a point's score
 * is the sum over its parameters of log(good frequency / bad frequency).
 * The next point is the unvisited feasible point of the candidate range
 * with the highest score (ties drawn with the session's generator), after
 * `init` random ones. Deterministic for the session's seed.
 */
#ifndef KT_TPE_H
#define KT_TPE_H

#include <stdint.h>

#include "core/u64map.h"
#include "tuner/tune.h"

/* Candidate ranges at most this large are scored whole; larger ones by
 * KT_TPE_DRAWS random draws per proposal. */
#define KT_TPE_ENUMERATE 262144u
#define KT_TPE_DRAWS 4096u
#define KT_TPE_DRAWN_FEASIBLE 1u
#define KT_TPE_DRAWN_REFUSED 2u
#define KT_TPE_DRAWN_MAX (UINT64_C(1) << 28)

/* A finite observation in the ranking the whole-space fit is kept by. */
typedef struct kt_tpe_ranked {
    double us;
    uint64_t index;
} kt_tpe_ranked;

typedef struct kt_tpe {
    kt_tune *t;
    const kt_space *space;
    uint64_t lo, hi; /* candidates: point indices [lo, hi) */
    double gamma;    /* share of the valid points that are good */
    double prior;    /* pseudo-count of every value among good and bad */
    size_t init;     /* random proposals before the model is used */
    /* Every local_every-th proposal once the model is used (0: none) is
     * the best-scored unvisited feasible neighbour of the fastest point so
     * far (one parameter moved one value), when it has one: the model
     * scores each parameter on its own, and a neighbourhood step finds
     * what only a combination of values gives. Set after kt_tpe_init. */
    size_t local_every;
    /* Each random proposal before the model (spread above 1) is the one
     * of `spread` uniform draws farthest from every point visited or
     * queued (best-candidate maximin: each parameter's value position
     * over its count, the values sorted, so the design does not depend
     * on how the space lists them): a space-filling start. 0 or 1:
     * uniform. Set after kt_tpe_init. */
    size_t spread;
    int design; /* spread's criterion: 0 maximin, 1 maximum projection */
    /* While a branch of a two-valued parameter (the points with one of
     * its values) holds fewer than branch_floor times its share of the
     * feasible points among the points visited, once the model is used,
     * the proposal is that branch's own (the most neglected first): the
     * best-scored open neighbour of the branch's fastest point, else its
     * best-scored open point, by the model fitted on that branch alone.
     * The whole-space model scores each parameter on its own: when one
     * value of a switch is fast only together with values that are slow
     * under the other, the good group teaches it away from all of them;
     * fitted inside the branch, the model learns the branch's own fast
     * values (a tree-structured model split on each switch). 0: off. Set
     * after kt_tpe_init. */
    double branch_floor;
    double *branch_share; /* per branch, its share of the feasible points */
    size_t num_branches;
    size_t proposals; /* model proposals made so far */
    /* While looking ahead for hints (tpe.c, coming_drawn): the candidates
     * picked so far, which later look-ahead picks skip; NULL otherwise. */
    uint64_t *ahead;
    size_t num_ahead;
    /* The proposals made and not measured yet (tpe.c's pipeline), which
     * proposals on a drawn range skip; NULL when none. */
    const uint64_t *queued;
    size_t num_queued;
    /* Observations, in order: index and median (INFINITY: did not run). */
    uint64_t *idx;
    double *us;
    size_t n, cap, valid;
    /* Per index of [lo, hi) when enumerated: 0 unknown, 1 visited or
     * proposed, 2 refused on the host. NULL for a drawn range. */
    uint8_t *state;
    /* A drawn range's feasibility memo, two bits per index of [lo, hi)
     * (KT_TPE_DRAWN_FEASIBLE, KT_TPE_DRAWN_REFUSED; 0 unknown), for ranges
     * of up to KT_TPE_DRAWN_MAX indices (NULL otherwise, and when
     * enumerated). The look-ahead for hints draws what the next proposals
     * will draw again, and most draws of a constrained space are refused:
     * the memo makes a draw met before a look-up in a table that stays in
     * the caches (166 KB for the hub gemm's 663,552 points) where it was a
     * decode and the constraints' evaluation. */
    uint8_t *drawn;
    /* The whole-space fit's counts, kept up to date observation by
     * observation (tpe.c), where a refit over every observation at every
     * proposal made tpe's cost per proposal grow with the observations
     * (issue 54). seen: the observed indices (value 1); ranked: the finite
     * observations by median, ties in observing order; the first
     * num_good of them are counted good. all, good: per value position
     * (as lr), the observations and the good ones among them; all_slot,
     * good_slot the same per slot; bad is all - good. Counts are whole
     * numbers, so the fit is the refit's to the last bit. branch_obs:
     * per branch, the observations in it (num_branches of them). */
    kt_u64map seen;
    kt_tpe_ranked *ranked;
    size_t num_ranked, ranked_cap, num_good;
    double *all, *good, *all_slot, *good_slot;
    size_t *branch_obs;
    /* Log-ratio tables: per slot, per parameter, per value position. */
    double *lr, *lr_slot;
    size_t *base; /* per slot: its first entry in lr */
    size_t table;
} kt_tpe;

/* A model over the candidates [lo, hi) (one slot's range, or the whole
 * space); gamma, prior and init as above. Owns its memory (kt_tpe_free). */
kt_status kt_tpe_init(kt_tpe *m, kt_tune *t, uint64_t lo, uint64_t hi,
                      double gamma, double prior, size_t init, kt_err *err);

void kt_tpe_free(kt_tpe *m);

/* Records what the session measured of pt (any point of the space: points
 * outside the candidates still teach the model). */
kt_status kt_tpe_observe(kt_tpe *m, const kt_point *pt, const kt_tune_obs *obs,
                         kt_err *err);

/* The next point to measure: 1 and *pt, or 0 when no unvisited feasible
 * candidate is left (a drawn range: none found in KT_TPE_DRAWS draws).
 * Points the session already knows are observed on the way, not
 * proposed. */
int kt_tpe_next(kt_tpe *m, kt_point *pt, kt_status *rc, kt_err *err);

#endif
