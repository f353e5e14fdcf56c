// SPDX-License-Identifier: Apache-2.0
/*
 * Kernel Tuner's strategy names (tune_kernel's `strategy=`, Kernel Tuner
 * 1.5) as ktune strategies, so a job or a --set written with Kernel Tuner's
 * words runs: `strategy.name = brute_force` runs exhaustive. Each name maps
 * to the ktune strategy that does the same thing, or, where ktune has none,
 * to the closest one; `note` says which (docs/kernel-tuner.md lists them).
 * The table is constant: nothing here is mutable, so any thread may read it.
 */
#ifndef KT_STRATEGY_NAMES_H
#define KT_STRATEGY_NAMES_H

#include <stddef.h>

#include "core/error.h"
#include "tuner/strategy.h"

typedef struct kt_strategy_alias {
    const char *name;  /* Kernel Tuner's, as tune_kernel takes it */
    const char *ktune; /* the ktune strategy that runs it */
    int same;          /* 1: the same method; 0: the closest one */
    const char *note;  /* what it is, and what differs where same is 0 */
} kt_strategy_alias;

size_t kt_strategy_alias_count(void);
const kt_strategy_alias *kt_strategy_alias_at(size_t index);

/* The alias called name ('-' and '_' alike, any case), or NULL. */
const kt_strategy_alias *kt_strategy_alias_find(const char *name);

/* Resolves a [strategy] name: a ktune strategy's own name, else a Kernel
 * Tuner name (then *alias is its row; NULL otherwise). An unknown name is
 * KT_S_INPUT "unknown strategy 'x'" with the closest names of both lists
 * (edit distance) or, with none close, ktune's. The result points into
 * static tables. */
kt_status kt_strategy_resolve(const char *name, const kt_strategy **out,
                              const kt_strategy_alias **alias, kt_err *err);

#endif
