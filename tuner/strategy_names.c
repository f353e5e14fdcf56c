// SPDX-License-Identifier: Apache-2.0
#include "tuner/strategy_names.h"

#include <ctype.h>
#include <stdlib.h>

#include "core/suggest.h"

/* Kernel Tuner 1.5's strategy_map, in its order. Every ktune strategy
 * named here exists (tests/tuner/test_strategy_names.c checks), so the
 * table cannot point at a strategy that was renamed. */
static const kt_strategy_alias aliases[] = {
    {"brute_force", "exhaustive", 1, "every point of the space"},
    {"random_sample", "random", 1,
     "uniform draws without repeats; Kernel Tuner's fraction is "
     "strategy.max_evals = fraction x the space"},
    {"minimize", "one_at_a_time", 0,
     "Kernel Tuner runs scipy.optimize.minimize on the parameters as "
     "continuous values, snapped to the grid; ktune walks the grid itself, "
     "one parameter at a time, a change kept only beyond the noise"},
    {"basinhopping", "annealing", 0,
     "Kernel Tuner runs scipy's basinhopping (random jumps, each followed by "
     "a local minimisation); ktune's annealing takes worse moves with a "
     "falling probability and restarts from the best"},
    {"diff_evo", "genetic", 0,
     "ktune has no differential evolution; its genetic algorithm is the "
     "population method closest: uniform crossover and mutation where "
     "differential evolution adds scaled differences of members"},
    {"genetic_algorithm", "genetic", 1,
     "generational genetic algorithm: selection, crossover, mutation"},
    {"greedy_mls", "one_at_a_time", 0,
     "both change one parameter at a time and keep an improvement; Kernel "
     "Tuner restarts from random points (multi-start), ktune starts at the "
     "default and goes deeper from the best"},
    {"ordered_greedy_mls", "one_at_a_time", 0,
     "as greedy_mls, neighbours in the parameters' order, which is ktune's "
     "order too"},
    {"greedy_ils", "one_at_a_time", 0,
     "Kernel Tuner perturbs the local optimum at random and climbs again "
     "(iterated local search); ktune walks deeper from the best instead"},
    {"dual_annealing", "annealing", 0,
     "Kernel Tuner runs scipy's dual_annealing (generalised annealing with a "
     "local search on continuous values); ktune anneals on the grid"},
    {"mls", "one_at_a_time", 0,
     "multi-start local search taking the best neighbour; ktune starts at "
     "the default, keeps a change only beyond the noise"},
    {"pso", "genetic", 0,
     "ktune has no particle swarm; its genetic algorithm is the population "
     "method closest"},
    {"simulated_annealing", "annealing", 1,
     "simulated annealing: worse moves taken with a falling probability"},
    {"skopt", "tpe", 0,
     "Kernel Tuner calls scikit-optimize (a Gaussian process or forest "
     "model); ktune's model is a tree-structured Parzen estimator"},
    {"firefly_algorithm", "genetic", 0,
     "ktune has no firefly algorithm; its genetic algorithm is the "
     "population method closest"},
    {"bayes_opt", "tpe", 0,
     "both are model-guided: Kernel Tuner fits a Gaussian process with an "
     "acquisition function, ktune a tree-structured Parzen estimator"},
    {"pyatf_strategies", "annealing", 0,
     "Kernel Tuner runs one of pyATF's search techniques (simulated "
     "annealing by default); ktune's annealing is that default"},
    {"hybrid_vndx", "one_at_a_time", 0,
     "Kernel Tuner's hybrid variable-neighbourhood descent changes one or "
     "more parameters per move; ktune's walk changes one at a time"},
    {"adaptive_tabu_greywolf", "genetic", 0,
     "ktune has no grey-wolf or tabu search; its genetic algorithm is the "
     "population method closest"},
    {"nsga2", "genetic", 0,
     "Kernel Tuner's NSGA-II (pymoo) searches several objectives at once; "
     "ktune's genetic algorithm optimises the one [strategy] objective"},
    {"nsga3", "genetic", 0,
     "as nsga2 (NSGA-III): ktune optimises the one [strategy] objective"},
};

size_t kt_strategy_alias_count(void)
{
    return sizeof aliases / sizeof aliases[0];
}

const kt_strategy_alias *kt_strategy_alias_at(size_t index)
{
    return index < kt_strategy_alias_count() ? &aliases[index] : NULL;
}

/* As kt_strategy_find compares: '-' and '_' alike; any case here too, since
 * Python users write names as they please. */
static int same_name(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        int x = *a == '-' ? '_' : tolower((unsigned char)*a);
        int y = *b == '-' ? '_' : tolower((unsigned char)*b);
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const kt_strategy_alias *kt_strategy_alias_find(const char *name)
{
    for (size_t i = 0; i < kt_strategy_alias_count(); ++i)
        if (same_name(aliases[i].name, name))
            return &aliases[i];
    return NULL;
}

/* "unknown strategy" with the close names of both lists; both lists are
 * in every message without a close one, so nothing is hidden. */
static kt_status unknown(const char *name, kt_err *err)
{
    size_t nk = kt_strategy_count(), n = nk + kt_strategy_alias_count();
    const char **names = malloc(n * sizeof *names);
    char hint[4096];

    if (!names)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < nk; ++i)
        names[i] = kt_strategy_at(i)->name;
    for (size_t i = nk; i < n; ++i)
        names[i] = aliases[i - nk].name;
    kt_suggest(name, names, n, hint, sizeof hint);
    free(names);
    return kt_err_set(err, KT_S_INPUT, "unknown strategy '%s'%s", name, hint);
}

kt_status kt_strategy_resolve(const char *name, const kt_strategy **out,
                              const kt_strategy_alias **alias, kt_err *err)
{
    const kt_strategy_alias *a = NULL;
    const kt_strategy *s = kt_strategy_find(name);

    if (!s && (a = kt_strategy_alias_find(name)))
        s = kt_strategy_find(a->ktune);
    *alias = s ? a : NULL;
    *out = s;
    return s ? KT_S_OK : unknown(name, err);
}
