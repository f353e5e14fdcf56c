// SPDX-License-Identifier: Apache-2.0
/*
 * guided: coordinate (the one-change walk with variant as a coordinate)
 * whose moves are ordered, and some left out, by the
 * incumbent's hardware counters and kernel facts through the rules of
 * metrics/guide.h (docs/metrics.md, "Counter-guided search").
 *
 * The walk is coordinate's: start at the default configuration (or a
 * random one), change one dimension, measure the change together with the
 * incumbent in interleaved rounds, adopt it only when it is faster beyond
 * the noise, and repeat full passes until one changes nothing. What differs
 * is which move comes next. Whenever the incumbent changes (and at the start
 * of each pass) it is profiled — launches of its own: no evaluation is spent
 * and no time is taken from them — and diagnosed, and every move not yet
 * tried in this pass is rated: moves a rule puts first go before the
 * others, moves it puts later go after them, and moves it skips come last
 * (option skip = 1: are left out); all are rated again once the incumbent
 * changes. Within one priority the order is coordinate's, so without
 * counters, or when no rule speaks, guided makes exactly coordinate's
 * moves.
 *
 * Skipped moves are tried last by default because leaving them out can
 * strand the walk: a block size the latency rule skips may still be the
 * fastest when the time does not follow occupancy (bench/guided.py
 * measures both; docs/metrics.md has the figures).
 *
 * A move is described to the rules by what it changes: the variant (the
 * thread-to-data mapping), the block size (the launch's threads per block,
 * from the plugin's shape() on the host), or anything else; and, for a
 * block-size move of the same kernel, the occupancy it can reach: the
 * incumbent's registers and shared memory at the new block size
 * (metrics/occupancy.h), capped by the blocks its grid gives each SM
 * (kt_guide_launch_occupancy, the same definition for the incumbent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feasible.h"
#include "tuner/strategies/sweep.h"
#include "tuner/strategy.h"
#include "tuner/tune.h"

enum { OPT_MAX_PASSES, OPT_RANDOM_START, OPT_SKIP };

static const kt_strategy_option options[] = {
    {"max_passes", "full passes over every dimension at most", 10, 1, 1000, 1},
    {"random_start",
     "1: start at a random feasible point drawn with the seed, not at the "
     "default configuration",
     0, 0, 1, 1},
    {"skip",
     "1: moves the rules skip are left out; 0: they are tried last in each "
     "pass (a wrong skip cannot strand the walk)",
     0, 0, 1, 1},
};

#define KEY_SIZE 192

/* The moves of one pass already made (or the incumbent's own values),
 * named "variant=ID" or "VARIANT.PARAM=VALUE". */
typedef struct tried {
    char (*keys)[KEY_SIZE];
    size_t n, cap;
} tried;

typedef struct move {
    size_t dim, k;
    kt_point cand;
    char key[KEY_SIZE];
    kt_guide_move desc;
} move;

typedef struct walk {
    kt_tune *t;
    const kt_space *space;
    int skip; /* leave skipped moves out (else: last) */
    tried done;
    move *moves;
    size_t num_moves, cap;
    kt_guide_verdict *verdicts;
    size_t *order;
} walk;

static void key_of(const walk *w, const kt_point *pt, size_t dim,
                   char out[KEY_SIZE])
{
    const kt_operator *op = w->space->op;
    char value[96];

    kt_space_dim_text(w->space, pt, dim, value, sizeof value);
    if (dim == 0 && w->space->num_slots > 1)
        snprintf(out, KEY_SIZE, "variant=%s", value);
    else
        snprintf(out, KEY_SIZE, "%s.%s=%s", op->variants[pt->variant].id,
                 kt_space_dim_name(w->space, pt, dim), value);
}

static int is_done(const walk *w, const char *key)
{
    for (size_t i = 0; i < w->done.n; ++i)
        if (strcmp(w->done.keys[i], key) == 0)
            return 1;
    return 0;
}

static kt_status mark(walk *w, const char *key, kt_err *err)
{
    tried *d = &w->done;
    if (is_done(w, key))
        return KT_S_OK;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        void *grown = realloc(d->keys, cap * sizeof *d->keys);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        d->keys = grown;
        d->cap = cap;
    }
    snprintf(d->keys[d->n++], KEY_SIZE, "%s", key);
    return KT_S_OK;
}

/* The incumbent's own values count as tried: moving back to the point a
 * change came from is not a move. */
static kt_status mark_point(walk *w, const kt_point *pt, kt_err *err)
{
    char key[KEY_SIZE];
    kt_status rc = KT_S_OK;
    for (size_t d = 0; d < kt_space_dims(w->space, pt) && !rc; ++d) {
        key_of(w, pt, d, key);
        rc = mark(w, key, err);
    }
    return rc;
}

static uint64_t threads_of(const kt_shape *s)
{
    return (uint64_t)s->block[0] * s->block[1] * s->block[2];
}

static uint64_t blocks_of(const kt_shape *s)
{
    return (uint64_t)s->grid[0] * s->grid[1] * s->grid[2];
}

/* What the incumbent gives the rules: its diagnosis, shape and kernel
 * facts. */
typedef struct incumbent {
    kt_diagnosis diag;
    kt_guide_incumbent inc;
    kt_shape shape;
    int have_shape;
    const kt_profiling_point *prof;
} incumbent;

static kt_status describe_incumbent(walk *w, const kt_point *pt, incumbent *out,
                                    kt_err *err)
{
    const kt_space *space = w->space;
    kt_occupancy occ;
    int have_occ = 0;
    kt_status rc;

    memset(out, 0, sizeof *out);
    if ((rc = kt_tune_profile(w->t, pt, &out->prof, err)))
        return rc;
    kt_tune_diagnose(w->t, pt, &out->diag, &occ, &have_occ);
    out->have_shape = kt_point_feasible(space->op, &space->problem, pt,
                                        &out->shape, NULL) == KT_S_OK;
    out->inc.diag = &out->diag;
    out->inc.theoretical_occupancy =
        have_occ && out->have_shape
            ? kt_guide_launch_occupancy(&occ, blocks_of(&out->shape),
                                        space->device.sm_count)
            : -1;
    return KT_S_OK;
}

/* What a move changes, and the occupancy a block-size move of the same
 * kernel can reach. */
static void describe_move(const walk *w, const incumbent *inc,
                          const kt_point *from, move *m)
{
    const kt_space *space = w->space;
    const kt_kernel_info *k = inc->prof ? &inc->prof->kernel : NULL;
    kt_shape shape;
    int have = kt_point_feasible(space->op, &space->problem, &m->cand, &shape,
                                 NULL) == KT_S_OK;

    memset(&m->desc, 0, sizeof m->desc);
    m->desc.theoretical_occupancy = -1;
    m->desc.changes_variant = m->cand.variant != from->variant;
    if (m->desc.changes_variant)
        return;
    m->desc.changes_block = have && inc->have_shape &&
                            threads_of(&shape) != threads_of(&inc->shape);
    m->desc.changes_other = !m->desc.changes_block;
    if (m->desc.changes_block && k && k->available &&
        shape.kernel == inc->shape.kernel) {
        kt_occupancy occ;
        kt_status rc = kt_occupancy_compute(
            &space->device, (int)threads_of(&shape), k->num_regs,
            (int64_t)(k->static_smem_bytes + shape.dynamic_smem_bytes),
            k->reserved_smem_per_block, &occ, NULL);
        if (rc == KT_S_OK)
            m->desc.theoretical_occupancy = kt_guide_launch_occupancy(
                &occ, blocks_of(&shape), space->device.sm_count);
        else if (rc == KT_S_INVALID)
            m->desc.theoretical_occupancy = 0; /* cannot launch at all */
    }
}

static kt_status add_move(walk *w, const move *m, kt_err *err)
{
    if (w->num_moves == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        move *mv = realloc(w->moves, cap * sizeof *mv);
        kt_guide_verdict *v = mv ? realloc(w->verdicts, cap * sizeof *v) : NULL;
        size_t *o = v ? realloc(w->order, cap * sizeof *o) : NULL;
        if (mv)
            w->moves = mv;
        if (v)
            w->verdicts = v;
        if (!o)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        w->order = o;
        w->cap = cap;
    }
    w->moves[w->num_moves++] = *m;
    return KT_S_OK;
}

/* Every move from pt not yet tried in this pass, in coordinate's order,
 * rated by the rules; *count receives how many are to be tried, in
 * w->order. */
static kt_status plan(walk *w, const kt_point *pt, size_t *count, kt_err *err)
{
    const kt_space *space = w->space;
    incumbent inc;
    kt_status rc;

    *count = 0;
    w->num_moves = 0;
    for (size_t d = 0; d < kt_space_dims(space, pt); ++d) {
        for (size_t k = 0; k < kt_space_dim_count(space, pt, d); ++k) {
            move m;
            memset(&m, 0, sizeof m);
            m.dim = d;
            m.k = k;
            kt_sweep_candidate(w->t, pt, d, k, &m.cand);
            key_of(w, &m.cand, d, m.key);
            if (kt_point_equal(&m.cand, pt) || is_done(w, m.key))
                continue;
            if ((rc = add_move(w, &m, err)))
                return rc;
        }
    }
    if (!w->num_moves)
        return KT_S_OK;
    if ((rc = describe_incumbent(w, pt, &inc, err)))
        return rc;
    for (size_t i = 0; i < w->num_moves; ++i)
        describe_move(w, &inc, pt, &w->moves[i]);
    for (size_t i = 0; i < w->num_moves; ++i)
        kt_guide_rate(&inc.inc, &w->moves[i].desc, 1, &w->verdicts[i]);
    kt_tune_guide_note(w->t, w->verdicts, w->num_moves);
    *count = kt_guide_order(w->verdicts, w->num_moves, w->order);
    /* Not skipping: what the rules skip comes after everything else. */
    for (size_t i = 0; !w->skip && i < w->num_moves; ++i)
        if (w->verdicts[i].priority == KT_GUIDE_SKIP)
            w->order[(*count)++] = i;
    return KT_S_OK;
}

/* One pass: moves in the rules' order until every move not skipped was
 * tried; after an adoption the rest is planned again from the new
 * incumbent. */
static kt_status pass(walk *w, kt_point *inc, int *changed, int *stop,
                      kt_err *err)
{
    kt_status rc;

    w->done.n = 0;
    if ((rc = mark_point(w, inc, err)))
        return rc;
    for (;;) {
        size_t count, i;
        int adopted = 0;
        if ((rc = plan(w, inc, &count, err)))
            return rc;
        for (i = 0; i < count && !adopted; ++i) {
            const move *m = &w->moves[w->order[i]];
            kt_tune_cmp cmp;
            if (kt_tune_stop(w->t)) {
                *stop = 1;
                return KT_S_OK;
            }
            if ((rc = kt_tune_compare(w->t, inc, &m->cand, &cmp, err)) ||
                (rc = mark(w, m->key, err)))
                return rc;
            if (!cmp.known) {
                *stop = 1;
                return KT_S_OK;
            }
            if (cmp.status != KT_EVAL_OK || cmp.verdict >= 0)
                continue;
            if ((rc = kt_tune_path_add(w->t, inc, &m->cand, m->dim, &cmp.ratio,
                                       err)))
                return rc;
            *inc = m->cand;
            kt_tune_set_incumbent(w->t, inc);
            if ((rc = mark_point(w, inc, err)))
                return rc;
            *changed = adopted = 1;
        }
        if (!adopted)
            return KT_S_OK;
    }
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    walk w;
    int passes = (int)opt[OPT_MAX_PASSES], found, stop = 0;
    kt_point inc;
    kt_status rc;

    memset(&w, 0, sizeof w);
    w.t = t;
    w.space = kt_tune_space(t);
    w.skip = opt[OPT_SKIP] != 0;
    if ((rc = kt_sweep_first(t, opt[OPT_RANDOM_START] != 0, &inc, &found,
                             err)) ||
        !found)
        return rc;
    kt_tune_set_incumbent(t, &inc);
    for (int p = 0; p < passes && !stop && !rc; ++p) {
        int changed = 0;
        rc = pass(&w, &inc, &changed, &stop, err);
        if (!changed)
            break;
    }
    free(w.done.keys);
    free(w.moves);
    free(w.verdicts);
    free(w.order);
    return rc;
}

const kt_strategy kt_strategy_guided = {
    .name = "guided",
    .summary = "coordinate with moves ordered and skipped by the "
               "incumbent's counters (mapping first when uncoalesced, no "
               "block size that cannot raise a latency-bound incumbent's "
               "occupancy)",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
    .uses_counters = 1,
};
