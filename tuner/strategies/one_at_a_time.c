// SPDX-License-Identifier: Apache-2.0
/*
 * one_at_a_time: change one thing, re-measure under identical conditions,
 * keep the change only when it is faster beyond the noise — within each
 * variant, and the variants compared at their tuned best.
 *
 * A variant is a subspace with parameters of its own, so the walk never
 * compares variants at their defaults and stops: that says nothing about
 * their tuned best (a library reference with no parameters would win and
 * end the search). Instead:
 *
 *  1. survey: every variant's start point (its declared defaults) is
 *     measured, then a few random points of each large variant (log2 of
 *     its feasible points - 4, at most `samples`): its best so far is where
 *     its walk starts. Reference variants (KT_VARIANT_REFERENCE: cuBLAS,
 *     CUB, cudaMemcpy) are measured and held as the yardstick, never
 *     walked;
 *  2. the leader first (leader_first): the variant with the fastest start
 *     is walked to the end and its pairs scanned before any other's walk,
 *     so a short budget goes where the answer most likely is;
 *  3. quick pass: each other variant gets one pass of one-change-at-a-time
 *     over its parameters, fastest start first, except those whose start
 *     is more than `hopeless` times slower than the best so far;
 *  4. deep passes: the promising variants — tuned best within `promising`
 *     of the leader — are walked until a full pass changes nothing;
 *  5. pairs: around each promising variant's best, every pair of
 *     parameters moved one value at once, all four ways (a ridge no single
 *     change crosses); a pair that wins is adopted and 4 runs again;
 *  6. restarts: for the variants within `close` of the leader, a walk from
 *     a perturbation of the best (`perturb` parameters changed at random,
 *     the seed's draw), until `restarts` of them in a row end no faster or
 *     the variant's walks evaluated `cover` of its feasible points. A
 *     restart that ends faster (paired) replaces that variant's best. When
 *     the variant's walk began at a random survey point, the first restart
 *     walks from its declared defaults (restart_start): on gemv:ax a random
 *     start can sit in a basin (block 32) its walk cannot leave.
 *
 * On the H200 recordings the tops of the spaces are flat and random search
 * is strong late in a budget, so the restarts go on (32 in a row) rather
 * than stopping at the first local optimum; bench/strategies.py measured
 * each of these choices (docs/results/2026-12-01-strategies-replay-h200.md).
 *
 * One pass over a parameter is a line search from the incumbent's value
 * outwards in both directions, stopping a direction after `patience`
 * values in a row that are not faster (0: every value). Each candidate is
 * measured; one whose own median is slower than the incumbent's (by more
 * than `screen`) is rejected without a pair, the others are measured
 * together with the incumbent in interleaved rounds and adopted only when
 * the paired ratio says faster by more than min_gain with 95% confidence.
 * Points known from earlier are not measured again.
 *
 * The run ends when the budget is spent or nothing is left to gain: every
 * promising variant is at a point no single change nor pair of neighbouring
 * changes improves, and the close ones' restarts found nothing faster; the
 * stop reason says which. The order spends a short budget where it pays:
 * every variant's quick pass before any variant's deep walk, the leader
 * before the others at each stage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tuner/strategies/walk.h"
#include "tuner/strategy.h"
#include "tuner/tune.h"

enum {
    OPT_MAX_PASSES,
    OPT_RANDOM_START,
    OPT_SCREEN,
    OPT_PATIENCE,
    OPT_PROMISING,
    OPT_RESTARTS,
    OPT_PERTURB,
    OPT_PAIRS,
    OPT_HOPELESS,
    OPT_COVER,
    OPT_CLOSE,
    OPT_SAMPLES,
    OPT_LEADER_FIRST,
    OPT_RESTART_START
};

static const kt_strategy_option options[] = {
    {"max_passes", "passes over a variant's parameters per walk at most", 10, 1,
     1000, 1},
    {"random_start",
     "1: each variant starts at a random feasible point drawn with the seed, "
     "not at its defaults",
     0, 0, 1, 1},
    {"screen",
     "a candidate is paired with the incumbent only when its own median is "
     "at most this fraction slower than the incumbent's (1: nearly always)",
     0, 0, 1, 0},
    {"patience",
     "values in a row not faster after which a line search stops in that "
     "direction (0: every value)",
     2, 0, 1000, 1},
    {"promising",
     "variants whose tuned best is within this fraction of the leader's are "
     "walked to the end and get the pair scan",
     0.10, 0, 10, 0},
    {"restarts",
     "restarts in a row that end no faster before a variant counts as done "
     "(0: none)",
     32, 0, 1000, 1},
    {"perturb", "parameters a restart changes at random", 2, 1, 16, 1},
    {"pairs",
     "1: before restarts, every pair of parameters is moved one value at "
     "once around a promising variant's best (ridges no single change "
     "crosses)",
     1, 0, 1, 1},
    {"hopeless",
     "after the fastest start's first pass, a variant whose start is slower "
     "than this many times the best so far is measured but not walked",
     3, 1, 1000, 0},
    {"cover",
     "restarts in a variant stop once its walks evaluated this fraction of "
     "its feasible points",
     0.15, 0, 1, 0},
    {"close",
     "variants whose tuned best is within this fraction of the leader's get "
     "restarts",
     0.02, 0, 10, 0},
    {"samples",
     "random points a large variant gets in the survey at most (log2 of its "
     "feasible points - 4 of them)",
     8, 0, 1000, 1},
    {"leader_first",
     "1: the fastest start is walked to the end before the other variants' "
     "quick passes; 2: its pairs too",
     2, 0, 2, 1},
    {"restart_start",
     "1: when a variant's walk began at a random point of the survey, its "
     "first restart walks from its declared defaults",
     1, 0, 1, 1},
};

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    kt_walk w;
    kt_status rc;

    kt_walk_init(&w, t);
    w.max_passes = (int)opt[OPT_MAX_PASSES];
    w.random_start = opt[OPT_RANDOM_START] != 0;
    w.screen = opt[OPT_SCREEN];
    w.patience = (size_t)opt[OPT_PATIENCE];
    w.promising = opt[OPT_PROMISING];
    w.restarts = (size_t)opt[OPT_RESTARTS];
    w.perturb = (size_t)opt[OPT_PERTURB];
    w.use_pairs = opt[OPT_PAIRS] != 0;
    w.hopeless = opt[OPT_HOPELESS];
    w.cover = opt[OPT_COVER];
    w.close = opt[OPT_CLOSE];
    w.samples = (size_t)opt[OPT_SAMPLES];
    w.leader_first = (int)opt[OPT_LEADER_FIRST];
    w.restart_start = opt[OPT_RESTART_START] != 0;
    rc = kt_walk_run(&w, err);
    kt_walk_free(&w);
    return rc;
}

const kt_strategy kt_strategy_one_at_a_time = {
    .name = "one_at_a_time",
    .summary = "every variant tuned one change at a time (paired, "
               "interleaved, adopted only beyond the noise), deeper walks "
               "and restarts on the promising ones, references measured",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
};
