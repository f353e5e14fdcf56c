// SPDX-License-Identifier: Apache-2.0
/* The registry of strategies: one row per file in tuner/strategies/. The
 * first row is the default. Included with KT_STRATEGY(name) defined. */
KT_STRATEGY(auto)
KT_STRATEGY(one_at_a_time)
KT_STRATEGY(exhaustive)
KT_STRATEGY(random)
KT_STRATEGY(annealing)
KT_STRATEGY(genetic)
KT_STRATEGY(coordinate)
KT_STRATEGY(tpe)
