// SPDX-License-Identifier: Apache-2.0
#include "core/prune.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

#define MAX_NAMES 64

/* The largest table of one group of constraints (entries, one byte each). */
#define MAX_TABLE ((size_t)1 << 16)

/* The constraints that read the same dimensions, decided together: by a
 * table over those dimensions' value indices, built once, where it is
 * small (a million conditions over a few parameters are then one look-up
 * per point, not a million evaluations), else one by one. */
typedef struct group {
    uint64_t mask;        /* the dimensions read */
    size_t first, n;      /* its constraints: sorted[first..first + n) */
    size_t slot;          /* where the walk checks it (see plan) */
    unsigned char *table; /* NULL: evaluate each constraint */
    size_t stride[MAX_NAMES];
} group;

typedef struct walk {
    const kt_prune_spec *s;
    size_t order[MAX_NAMES]; /* constrained dimensions first */
    size_t num_walked;       /* how many of them are constrained */
    size_t *sorted;          /* constraint indices, by mask */
    group *groups;
    size_t num_groups;
    size_t *first;         /* first[pos]..first[pos + 1]: ready there */
    size_t *ready;         /* group indices, by position */
    uint64_t free_product; /* points below each walked leaf */
    uint64_t count;
    int64_t env[MAX_NAMES];
    size_t idx[MAX_NAMES];  /* each dimension's value index */
    uint64_t nodes, budget; /* values tried; 0: no budget */
    kt_err *err;
} walk;

/* descend's status when the budget of nodes ran out (never returned). */
#define OVER_BUDGET KT_S_TIMEOUT

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

/* Whether every constraint of g holds at w's values, one by one. */
static int group_evaluates(const walk *w, const group *g)
{
    for (size_t k = 0; k < g->n; ++k)
        if (!holds(w->s->constraints[w->sorted[g->first + k]], w->env))
            return 0;
    return 1;
}

static int group_holds(const walk *w, const group *g)
{
    size_t at = 0;
    if (!g->table)
        return group_evaluates(w, g);
    for (size_t d = 0; d < w->s->num_dims; ++d)
        at += (g->mask >> d & 1) ? w->idx[d] * g->stride[d] : 0;
    return g->table[at];
}

/* g's table, when its dimensions' product is small: every combination of
 * their values evaluated once (w->env's other values do not matter). */
static kt_status build_table(walk *w, group *g)
{
    const kt_prune_spec *s = w->s;
    size_t size = 1, d;

    for (d = 0; d < s->num_dims; ++d)
        if (g->mask >> d & 1) {
            g->stride[d] = size;
            if (__builtin_mul_overflow(size, s->dims[d].count, &size) ||
                size > MAX_TABLE || size > g->n * 64)
                return KT_S_OK; /* cheaper one by one */
        }
    if (!(g->table = malloc(size)))
        return kt_err_set(w->err, KT_S_NOMEM, "out of memory");
    memset(w->idx, 0, sizeof w->idx);
    for (size_t at = 0; at < size; ++at) {
        for (d = 0; d < s->num_dims; ++d)
            if (g->mask >> d & 1)
                w->env[s->num_fixed + d] = s->dims[d].values[w->idx[d]];
        g->table[at] = (unsigned char)group_evaluates(w, g);
        /* the next combination: an odometer over the group's dimensions */
        for (d = 0; d < s->num_dims; ++d)
            if ((g->mask >> d & 1) && ++w->idx[d] < s->dims[d].count)
                break;
            else if (g->mask >> d & 1)
                w->idx[d] = 0;
    }
    return KT_S_OK;
}

/* How many constraints placing d completes (their other dimensions all
 * placed already). */
static size_t completes(const walk *w, uint64_t placed, size_t d)
{
    size_t n = 0;
    for (size_t g = 0; g < w->num_groups; ++g) {
        uint64_t m = w->groups[g].mask;
        n += (m >> d & 1) && (m & ~(placed | UINT64_C(1) << d)) == 0
                 ? w->groups[g].n
                 : 0;
    }
    return n;
}
/* The constrained dimensions in walk order: single values first (they
 * cost nothing), then greedily the one that completes the most
 * constraints, the one with fewer values on a tie: constraints are checked
 * as high in the walk as they can be. Returns how many. */
static size_t order_walked(const walk *w, uint64_t used, size_t *order)
{
    const kt_prune_spec *s = w->s;
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
            done = completes(w, placed, d);
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

typedef struct keyed {
    uint64_t mask;
    size_t c;
} keyed;

static int by_mask(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->mask != y->mask)
        return x->mask < y->mask ? -1 : 1;
    return (x->c > y->c) - (x->c < y->c); /* the file's order within */
}

/* The constraints sorted by the dimensions they read, in groups: O(C log
 * C). */
static kt_status group_constraints(walk *w)
{
    const kt_prune_spec *s = w->s;
    size_t n = s->num_constraints;
    keyed *k = malloc((n ? n : 1) * sizeof *k);

    w->sorted = malloc((n ? n : 1) * sizeof *w->sorted);
    w->groups = calloc(n ? n : 1, sizeof *w->groups);
    if (!k || !w->sorted || !w->groups) {
        free(k);
        return kt_err_set(w->err, KT_S_NOMEM, "out of memory");
    }
    for (size_t c = 0; c < n; ++c)
        k[c] = (keyed){dims_read(s, c), c};
    qsort(k, n, sizeof *k, by_mask);
    for (size_t c = 0; c < n; ++c) {
        w->sorted[c] = k[c].c;
        if (!c || k[c].mask != k[c - 1].mask)
            w->groups[w->num_groups++] = (group){.mask = k[c].mask, .first = c};
        ++w->groups[w->num_groups - 1].n;
    }
    free(k);
    return KT_S_OK;
}

/* Orders the dimensions, builds the groups' tables, and files each group
 * under the position of the last dimension it reads (groups on fixed
 * values alone in slot 0: they are checked first). */
static kt_status plan(walk *w)
{
    const kt_prune_spec *s = w->s;
    uint64_t used = 0;
    size_t n = 0, pos_of[MAX_NAMES], fill[MAX_NAMES + 2];
    kt_status rc;

    if ((rc = group_constraints(w)))
        return rc;
    for (size_t g = 0; g < w->num_groups; ++g)
        if ((rc = build_table(w, &w->groups[g])))
            return rc;
    for (size_t g = 0; g < w->num_groups; ++g)
        used |= w->groups[g].mask;
    n = order_walked(w, used, w->order);
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
    w->ready = calloc(w->num_groups + 1, sizeof *w->ready);
    if (!w->first || !w->ready)
        return kt_err_set(w->err, KT_S_NOMEM, "out of memory");
    /* Slot 0: no dimension read; slot p + 1: ready at position p. */
    for (size_t g = 0; g < w->num_groups; ++g) {
        size_t slot = 0;
        for (size_t d = 0; d < s->num_dims; ++d)
            if (w->groups[g].mask >> d & 1 && pos_of[d] + 1 > slot)
                slot = pos_of[d] + 1;
        w->groups[g].slot = slot;
        ++w->first[slot + 1];
    }
    for (size_t p = 1; p <= w->num_walked + 1; ++p)
        w->first[p] += w->first[p - 1];
    memcpy(fill, w->first, (w->num_walked + 2) * sizeof *fill);
    for (size_t g = 0; g < w->num_groups; ++g)
        w->ready[fill[w->groups[g].slot]++] = g;
    return KT_S_OK;
}

/* Whether every group filed under slot holds. */
static int slot_holds(const walk *w, size_t slot)
{
    for (size_t k = w->first[slot]; k < w->first[slot + 1]; ++k)
        if (!group_holds(w, &w->groups[w->ready[k]]))
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
    if (w->budget && (w->nodes += dim->count) > w->budget)
        return OVER_BUDGET;
    for (size_t k = 0; k < dim->count; ++k) {
        w->env[s->num_fixed + w->order[pos]] = dim->values[k];
        w->idx[w->order[pos]] = k;
        if (slot_holds(w, pos + 1) && (rc = descend(w, pos + 1)))
            return rc;
    }
    return KT_S_OK;
}

/* w made ready to walk spec: its plan built, every dimension at its
 * first value. */
static kt_status start(walk *w, const kt_prune_spec *spec, kt_err *err)
{
    kt_status rc;

    memset(w, 0, sizeof *w);
    w->s = spec;
    w->err = err;
    if (spec->num_fixed + spec->num_dims > MAX_NAMES)
        return kt_err_set(err, KT_S_INPUT,
                          "%zu sizes and parameters; at most %d can be "
                          "counted",
                          spec->num_fixed + spec->num_dims, MAX_NAMES);
    if (spec->num_fixed)
        memcpy(w->env, spec->fixed, spec->num_fixed * sizeof *w->env);
    if ((rc = plan(w)))
        return rc;
    /* the tables' building moved them: every dimension at its first value
     * again */
    for (size_t d = 0; d < spec->num_dims; ++d)
        w->env[spec->num_fixed + d] = spec->dims[d].values[0];
    memset(w->idx, 0, sizeof w->idx);
    return KT_S_OK;
}

static void finish(walk *w)
{
    for (size_t g = 0; g < w->num_groups; ++g)
        free(w->groups[g].table);
    free(w->groups);
    free(w->sorted);
    free(w->first);
    free(w->ready);
}

static int any_empty(const kt_prune_spec *spec)
{
    for (size_t d = 0; d < spec->num_dims; ++d)
        if (spec->dims[d].count == 0)
            return 1;
    return 0;
}

kt_status kt_prune_count(const kt_prune_spec *spec, uint64_t *count,
                         kt_err *err)
{
    walk w;
    kt_status rc;

    *count = 0;
    if (any_empty(spec))
        return KT_S_OK;
    if (!(rc = start(&w, spec, err)) && slot_holds(&w, 0))
        rc = descend(&w, 0);
    if (!rc)
        *count = w.count;
    finish(&w);
    return rc;
}

/* The share of KT_PRUNE_SAMPLES random points of the walked dimensions
 * that every constraint allows, times their product (the free dimensions
 * multiply it as in the exact count). */
static kt_status estimate(walk *w, uint64_t *count)
{
    const kt_prune_spec *s = w->s;
    double product = (double)w->free_product, hits = 0;
    kt_rng rng;

    kt_rng_seed(&rng, 1);
    for (size_t p = 0; p < w->num_walked; ++p)
        product *= (double)s->dims[w->order[p]].count;
    for (uint64_t i = 0; i < KT_PRUNE_SAMPLES; ++i) {
        int ok = 1;
        for (size_t p = 0; p < w->num_walked; ++p) {
            size_t d = w->order[p];
            w->idx[d] = (size_t)kt_rng_below(&rng, s->dims[d].count);
            w->env[s->num_fixed + d] = s->dims[d].values[w->idx[d]];
        }
        for (size_t slot = 0; ok && slot <= w->num_walked; ++slot)
            ok = slot_holds(w, slot);
        hits += ok;
    }
    product *= hits / (double)KT_PRUNE_SAMPLES;
    if (product >= 18446744073709551615.0)
        return kt_err_set(w->err, KT_S_INPUT, "more than 2^64 points to count");
    *count = (uint64_t)(product + 0.5);
    return KT_S_OK;
}

kt_status kt_prune_count_within(const kt_prune_spec *spec, uint64_t budget,
                                uint64_t *count, int *estimated, kt_err *err)
{
    walk w;
    kt_status rc;

    *count = 0;
    *estimated = 0;
    if (spec->visit)
        return kt_err_set(err, KT_S_INVALID,
                          "kt_prune_count_within counts; it visits nothing");
    if (any_empty(spec))
        return KT_S_OK;
    if ((rc = start(&w, spec, err)))
        goto done;
    w.budget = budget;
    if (slot_holds(&w, 0) && (rc = descend(&w, 0)) == OVER_BUDGET) {
        *estimated = 1;
        rc = estimate(&w, &w.count);
    }
    if (!rc)
        *count = w.count;
done:
    finish(&w);
    return rc;
}
