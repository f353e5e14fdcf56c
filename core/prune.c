// SPDX-License-Identifier: Apache-2.0
#include "core/prune.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64

typedef struct walk {
    const kt_prune_spec *s;
    size_t order[MAX_NAMES]; /* constrained dimensions first */
    size_t num_walked;       /* how many of them are constrained */
    size_t *first;           /* first[pos]..first[pos + 1]: ready there */
    size_t *ready;           /* constraint indices, by position */
    uint64_t free_product;   /* points below each walked leaf */
    uint64_t count;
    int64_t env[MAX_NAMES];
    kt_err *err;
} walk;

static int holds(const kt_expr *c, const int64_t *env)
{
    kt_expr_value v;
    if (kt_expr_eval_value(c, env, &v, NULL))
        return 0;
    return v.is_float ? v.f != 0 : v.i != 0;
}

/* The dimensions a constraint reads, as a mask over dimensions. */
static uint64_t dims_read(const kt_prune_spec *s, size_t c)
{
    return kt_expr_uses(s->constraints[c]) >> s->num_fixed;
}

/* How many constraints placing d completes (their other dimensions all
 * placed already). */
static size_t completes(const kt_prune_spec *s, uint64_t placed, size_t d)
{
    size_t n = 0;
    for (size_t c = 0; c < s->num_constraints; ++c) {
        uint64_t m = dims_read(s, c);
        n += (m >> d & 1) && (m & ~(placed | UINT64_C(1) << d)) == 0;
    }
    return n;
}

/* The constrained dimensions in walk order: single values first (they
 * cost nothing), then greedily the one that completes the most
 * constraints, the one with fewer values on a tie: constraints are checked
 * as high in the walk as they can be. Returns how many. */
static size_t order_walked(const kt_prune_spec *s, uint64_t used, size_t *order)
{
    uint64_t placed = 0;
    size_t n = 0;

    for (size_t d = 0; d < s->num_dims; ++d)
        if ((used >> d & 1) && s->dims[d].count == 1) {
            order[n++] = d;
            placed |= UINT64_C(1) << d;
        }
    while ((used & ~placed) != 0) {
        size_t best = SIZE_MAX, best_done = 0;
        for (size_t d = 0; d < s->num_dims; ++d) {
            size_t done;
            if (!(used >> d & 1) || (placed >> d & 1))
                continue;
            done = completes(s, placed, d);
            if (best == SIZE_MAX || done > best_done ||
                (done == best_done && s->dims[d].count < s->dims[best].count)) {
                best = d;
                best_done = done;
            }
        }
        order[n++] = best;
        placed |= UINT64_C(1) << best;
    }
    return n;
}

/* Orders the dimensions, and files each constraint under the position of
 * the last dimension it reads (constraints on fixed values alone under
 * position 0 of an extra slot: they are checked first). */
static kt_status plan(walk *w)
{
    const kt_prune_spec *s = w->s;
    uint64_t used = 0;
    size_t n = 0, *at, pos_of[MAX_NAMES];

    for (size_t c = 0; c < s->num_constraints; ++c)
        used |= dims_read(s, c);
    n = order_walked(s, used, w->order);
    w->num_walked = n;
    w->free_product = 1;
    for (size_t d = 0; d < s->num_dims; ++d)
        if (!(used >> d & 1)) {
            w->order[n++] = d;
            if (__builtin_mul_overflow(w->free_product, s->dims[d].count,
                                       &w->free_product))
                return kt_err_set(w->err, KT_S_INPUT,
                                  "more than 2^64 points to count");
        }
    for (size_t p = 0; p < s->num_dims; ++p)
        pos_of[w->order[p]] = p;
    w->first = calloc(w->num_walked + 2, sizeof *w->first);
    w->ready = calloc(s->num_constraints + 1, sizeof *w->ready);
    at = calloc(s->num_constraints + 1, sizeof *at);
    if (!w->first || !w->ready || !at) {
        free(at);
        return kt_err_set(w->err, KT_S_NOMEM, "out of memory");
    }
    /* Slot 0: no dimension read; slot p + 1: ready at position p. */
    for (size_t c = 0; c < s->num_constraints; ++c) {
        uint64_t m = dims_read(s, c);
        size_t slot = 0;
        for (size_t d = 0; d < s->num_dims; ++d)
            if (m >> d & 1 && pos_of[d] + 1 > slot)
                slot = pos_of[d] + 1;
        at[c] = slot;
        ++w->first[slot + 1];
    }
    for (size_t p = 1; p <= w->num_walked + 1; ++p)
        w->first[p] += w->first[p - 1];
    {
        size_t fill[MAX_NAMES + 2];
        memcpy(fill, w->first, (w->num_walked + 2) * sizeof *fill);
        for (size_t c = 0; c < s->num_constraints; ++c)
            w->ready[fill[at[c]]++] = c;
    }
    free(at);
    return KT_S_OK;
}

/* Whether every constraint filed under slot holds. */
static int slot_holds(const walk *w, size_t slot)
{
    for (size_t k = w->first[slot]; k < w->first[slot + 1]; ++k)
        if (!holds(w->s->constraints[w->ready[k]], w->env))
            return 0;
    return 1;
}

/* Every assignment of the unconstrained dimensions from position pos on,
 * each handed to the visitor. */
static kt_status visit_free(walk *w, size_t pos)
{
    const kt_prune_spec *s = w->s;
    kt_status rc;

    if (pos == s->num_dims) {
        rc = s->visit(s->ctx, w->env + s->num_fixed, w->err);
        if (rc == KT_S_OK)
            ++w->count;
        return rc == KT_S_INVALID ? KT_S_OK : rc;
    }
    for (size_t k = 0; k < s->dims[w->order[pos]].count; ++k) {
        w->env[s->num_fixed + w->order[pos]] = s->dims[w->order[pos]].values[k];
        if ((rc = visit_free(w, pos + 1)))
            return rc;
    }
    return KT_S_OK;
}

static kt_status descend(walk *w, size_t pos)
{
    const kt_prune_spec *s = w->s;
    const kt_prune_dim *dim;
    kt_status rc;

    if (pos == w->num_walked) {
        if (s->visit)
            return visit_free(w, pos);
        if (__builtin_add_overflow(w->count, w->free_product, &w->count))
            return kt_err_set(w->err, KT_S_INPUT,
                              "more than 2^64 points to count");
        return KT_S_OK;
    }
    dim = &s->dims[w->order[pos]];
    for (size_t k = 0; k < dim->count; ++k) {
        w->env[s->num_fixed + w->order[pos]] = dim->values[k];
        if (slot_holds(w, pos + 1) && (rc = descend(w, pos + 1)))
            return rc;
    }
    return KT_S_OK;
}

kt_status kt_prune_count(const kt_prune_spec *spec, uint64_t *count,
                         kt_err *err)
{
    walk w;
    kt_status rc;

    memset(&w, 0, sizeof w);
    w.s = spec;
    w.err = err;
    *count = 0;
    if (spec->num_fixed + spec->num_dims > MAX_NAMES)
        return kt_err_set(err, KT_S_INPUT,
                          "%zu sizes and parameters; at most %d can be "
                          "counted",
                          spec->num_fixed + spec->num_dims, MAX_NAMES);
    for (size_t d = 0; d < spec->num_dims; ++d)
        if (spec->dims[d].count == 0)
            return KT_S_OK;
    if (spec->num_fixed)
        memcpy(w.env, spec->fixed, spec->num_fixed * sizeof *w.env);
    for (size_t d = 0; d < spec->num_dims; ++d)
        w.env[spec->num_fixed + d] = spec->dims[d].values[0];
    if (!(rc = plan(&w)) && slot_holds(&w, 0))
        rc = descend(&w, 0);
    if (!rc)
        *count = w.count;
    free(w.first);
    free(w.ready);
    return rc;
}
