// SPDX-License-Identifier: Apache-2.0
/*
 * auto (the default): picks the search by the shape of the space, as
 * measured.
 *
 *  - one tunable variant and no reference (a single kernel with many
 *    parameters: the benchmark_hub's spaces replayed from other tools'
 *    recordings, or a declaration of one kernel): tpe, the model-guided
 *    search. On the hub's tuning set (A100, A4000; convolution and
 *    dedispersion) it found the optimum within 10% of the space in every
 *    seed tried and within the methodology's budget in the median; its
 *    aggregate performance score there, 0.726, is the highest of ktune's
 *    strategies (annealing 0.568, one_at_a_time 0.360; 20 repeats,
 *    docs/results/2026-12-02-methodology-tuning-ktune.md): the committed
 *    rule's choice (bench/methodology/report.py, default_rule). On the
 *    evaluation set its score (0.59) is above every Kernel Tuner 1.5.0
 *    strategy measured (0.32 at best) though below ktune's annealing
 *    (0.77), seen there and so not used to choose
 *    (docs/results/2026-12-02-methodology-evaluation.md). tpe's branch
 *    floor (default 1, chosen on the tuning set: P 0.737) then brought
 *    the median at 10% of the space within 2% on all twelve files
 *    (convolution/W6600 1.196 -> 1.000) and the evaluation-set P to 0.655
 *    (docs/results/2026-12-02-tpe-branch-floor.md);
 *  - several variants or a reference (ktune's own operators: gemv, reduce,
 *    vector_add, ... with cuBLAS/CUB yardsticks): one_at_a_time, which
 *    tunes each variant and compares them at their tuned best; it meets
 *    the search targets on ktune's H200 recordings (tests/tuner search
 *    tests) and live on the H200.
 *
 * Either way the chosen strategy runs with its own default options (name it
 * in [strategy] name to set them), and the session's closing round
 * re-measures the finalists together in interleaved rounds, one change at a
 * time under identical conditions, before anything is reported.
 */
#include "tuner/strategy.h"
#include "tuner/tune.h"

extern const kt_strategy kt_strategy_tpe, kt_strategy_one_at_a_time;

/* The strategy auto runs on t's space. */
static const kt_strategy *choose(const kt_tune *t)
{
    const kt_space *space = kt_tune_space(t);

    if (space->num_slots == 1 && !kt_tune_slot_is_reference(t, 0))
        return &kt_strategy_tpe;
    return &kt_strategy_one_at_a_time;
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_strategy *s = choose(t);
    double defaults[KT_STRATEGY_MAX_OPTIONS];

    (void)opt;
    for (size_t i = 0; i < s->num_options; ++i)
        defaults[i] = s->options[i].default_value;
    return s->run(t, defaults, err);
}

const kt_strategy kt_strategy_auto = {
    .name = "auto",
    .summary = "the default: tpe on a space of one variant without a "
               "reference, one_at_a_time on several variants or with a "
               "reference (measured: docs/search-methodology.md)",
    .options = NULL,
    .num_options = 0,
    .run = run,
};
