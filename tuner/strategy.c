// SPDX-License-Identifier: Apache-2.0
#include "tuner/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "tuner/tune.h"

#define KT_STRATEGY(name) extern const kt_strategy kt_strategy_##name;
#include "tuner/strategies/list.h"
#undef KT_STRATEGY

static const kt_strategy *const registry[] = {
#define KT_STRATEGY(name) &kt_strategy_##name,
#include "tuner/strategies/list.h"
#undef KT_STRATEGY
};

size_t kt_strategy_count(void)
{
    return sizeof registry / sizeof registry[0];
}

const kt_strategy *kt_strategy_at(size_t index)
{
    return index < kt_strategy_count() ? registry[index] : NULL;
}

/* "one-at-a-time" and "one_at_a_time" name the same strategy. */
static int same_name(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const kt_strategy *kt_strategy_find(const char *name)
{
    for (size_t i = 0; i < kt_strategy_count(); ++i)
        if (same_name(registry[i]->name, name))
            return registry[i];
    return NULL;
}

kt_status kt_strategy_unknown(const char *name, kt_err *err)
{
    const char *names[sizeof registry / sizeof registry[0]];
    char hint[512];

    for (size_t i = 0; i < kt_strategy_count(); ++i)
        names[i] = registry[i]->name;
    kt_suggest(name, names, kt_strategy_count(), hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "unknown strategy '%s'%s", name, hint);
}

void kt_tune_hint_ring(kt_tune *t, const uint64_t *ring, size_t head,
                       size_t count)
{
    size_t n = count < KT_TUNE_HINT_AHEAD ? count : KT_TUNE_HINT_AHEAD;
    kt_point *ahead = n ? malloc(n * sizeof *ahead) : NULL;

    /* A hint decides nothing: without memory, none is given. */
    if (!ahead)
        return;
    for (size_t k = 0; k < n; ++k)
        kt_space_point(kt_tune_space(t), ring[(head + k) % KT_TUNE_HINT_AHEAD],
                       &ahead[k]);
    kt_tune_hint(t, ahead, n);
    free(ahead);
}
