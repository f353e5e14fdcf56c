// SPDX-License-Identifier: Apache-2.0
/*
 * Where a search starts (kt_tune_start), what ran and when it has
 * converged (kt_tune_ran, kt_tune_converge), and the path the summary,
 * --json .path and the report show: where the search began, each change
 * of its best, and the answer.
 *
 * A strategy records the changes it adopts (kt_tune_path_add), but those
 * are its own walks: one_at_a_time walks each variant from its own start,
 * tpe and annealing record none, and the answer is the finalists'
 * re-measurement, which no walk ends at. So the path is made again at the
 * end from what the session knows: it starts at the first configuration
 * that ran (the declared default, or the drawn start), and every
 * evaluation that beat the best so far under the run's objective by more
 * than min_gain is one adopted change (with the strategy's paired ratio where
 * it measured that very change, else the two measurements' unpaired ratio); a
 * last step goes to the winner of the closing re-measurement when that is not
 * the best so far, with the paired ratio of that round. Its last configuration
 * is always the answer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/tune_impl.h"

/* Appends "name" to a ", "-separated list in buf. */
static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < size)
        snprintf(buf + used, size - used, "%s%s", used ? ", " : "", text);
}

/* What changed from a to b: one dimension's name, old and new value; a
 * variant change by its ids; several parameters as lists. */
static void describe(const kt_space *space, kt_tune_step *s)
{
    size_t n = kt_space_dims(space, &s->from);
    int variant = s->from.variant != s->to.variant;

    s->dim[0] = s->before[0] = s->after[0] = '\0';
    for (size_t d = 0; d < n; ++d) {
        char x[64], y[64];
        if (variant && d > 0)
            break; /* the rest of a new variant: its configuration says */
        kt_space_dim_text(space, &s->from, d, x, sizeof x);
        kt_space_dim_text(space, &s->to, d, y, sizeof y);
        if (!variant && strcmp(x, y) == 0)
            continue;
        append(s->dim, sizeof s->dim, kt_space_dim_name(space, &s->from, d));
        append(s->before, sizeof s->before, x);
        append(s->after, sizeof s->after, y);
    }
}

/* The step from a to b: the strategy's own where it recorded that very
 * change (its label and paired ratio), else what changed and the two
 * entries' unpaired ratio (their costs' ratio under an objective other
 * than time). */
static void make_step(const kt_tune *t, const kt_tune_step *old, size_t nold,
                      const kt_tune_entry *a, const kt_tune_entry *b,
                      kt_tune_step *s)
{
    kt_ratio *out = &s->ratio;

    memset(s, 0, sizeof *s);
    s->from = kt_tune_entry_point(t->res, a);
    s->to = kt_tune_entry_point(t->res, b);
    for (size_t i = 0; i < nold; ++i)
        if (kt_point_equal(&old[i].from, &s->from) &&
            kt_point_equal(&old[i].to, &s->to)) {
            *s = old[i];
            return;
        }
    describe(t->cfg->space, s);
    if (t->cfg->objective == KT_OBJ_TIME && a->timing.samples_us &&
        b->timing.samples_us)
        kt_stats_unpaired_ratio(a->timing.samples_us, a->timing.num_rounds,
                                b->timing.samples_us, b->timing.num_rounds,
                                out);
    if (out->n == 0 || !isfinite(out->ratio)) {
        out->ratio = out->lo = out->hi = b->cost / a->cost;
        out->n = 0;
    }
}

static kt_status push(kt_tune_step **steps, size_t *n, const kt_tune_step *s,
                      kt_err *err)
{
    kt_tune_step *grown = realloc(*steps, (*n + 1) * sizeof **steps);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    grown[(*n)++] = *s;
    *steps = grown;
    return KT_S_OK;
}

/* Whether e is the closing round's winner. */
static int is_winner(const kt_tune *t, const kt_tune_entry *e)
{
    uint64_t index;
    return kt_space_index(t->cfg->space, &t->res->finals[0].point, &index) &&
           index == e->index;
}

/* The closing round's step: from the best so far to the winner, with the
 * paired ratio of the round where the best so far was a finalist (the
 * inverse of its vs_winner), else the two entries' unpaired one. */
static void final_step(const kt_tune *t, const kt_tune_entry *from,
                       kt_tune_step *s)
{
    const kt_tune_result *res = t->res;
    const kt_tune_entry *to = NULL;
    uint64_t index;

    if (kt_space_index(t->cfg->space, &res->finals[0].point, &index))
        to = kt_tune_find_entry(t, index);
    memset(s, 0, sizeof *s);
    if (to)
        make_step(t, NULL, 0, from, to, s);
    s->from = kt_tune_entry_point(res, from);
    s->to = res->finals[0].point;
    if (!to)
        s->ratio = (kt_ratio){0, res->finals[0].cost / from->cost,
                              res->finals[0].cost / from->cost,
                              res->finals[0].cost / from->cost};
    for (size_t i = 1; i < res->num_finals; ++i)
        if (kt_point_equal(&res->finals[i].point, &s->from)) {
            const kt_ratio *v = &res->finals[i].vs_winner;
            if (v->lo > 0 && v->ratio > 0)
                s->ratio = (kt_ratio){v->n, 1 / v->ratio, 1 / v->hi, 1 / v->lo};
        }
    /* Every ratio is a number (--json writes it as one). */
    if (!isfinite(s->ratio.ratio) || !isfinite(s->ratio.lo) ||
        !isfinite(s->ratio.hi)) {
        double q = res->finals[0].cost / from->cost;
        s->ratio = (kt_ratio){0, q, q, q};
    }
}

/* Draws until a point of slot passes the host's checks (a few tries; the
 * last draw otherwise, which the session then records as refused). */
static void draw_start(kt_tune *t, size_t slot, kt_point *pt)
{
    const kt_space *space = t->cfg->space;
    const kt_space_variant *sv = &space->slots[slot];

    for (int tries = 0; tries < 64; ++tries) {
        kt_err err;
        kt_space_point(space, sv->offset + kt_rng_below(&t->rng, sv->size), pt);
        if (!space->bound || kt_space_feasible(space, pt, &err) == KT_S_OK)
            return;
    }
}

static void note_start(kt_tune *t)
{
    if (t->res->start_kind[0])
        return;
    if (kt_tune_start_declared(t))
        snprintf(t->res->start_kind, sizeof t->res->start_kind, "%s",
                 t->cfg->space->start_given ? "named in [strategy] start"
                                            : "the declared default");
    else
        snprintf(t->res->start_kind, sizeof t->res->start_kind,
                 "drawn at random (seed %llu; the recording declares no "
                 "default)",
                 (unsigned long long)t->cfg->seed);
}

int kt_tune_slot_start(kt_tune *t, size_t slot, kt_point *pt)
{
    note_start(t);
    if (kt_space_slot_start_chosen(t->cfg->space, slot)) {
        kt_space_slot_start(t->cfg->space, slot, pt);
        return 1;
    }
    draw_start(t, slot, pt);
    return 0;
}

int kt_tune_start(kt_tune *t, kt_point *pt)
{
    long s = kt_space_slot_of(t->cfg->space, 0);
    return kt_tune_slot_start(t, s < 0 ? 0 : (size_t)s, pt);
}

int kt_tune_budgeted(const kt_tune *t)
{
    return t->cfg->max_evals > 0 || t->cfg->max_seconds > 0;
}

uint64_t kt_tune_points(const kt_tune *t)
{
    return t->res->feasible_known ? t->res->feasible : t->cfg->space->size;
}

void kt_tune_ran(kt_tune *t, const char *name, const char *why)
{
    snprintf(t->res->ran, sizeof t->res->ran, "%s", name);
    snprintf(t->res->ran_why, sizeof t->res->ran_why, "%s", why);
}

int kt_tune_start_declared(const kt_tune *t)
{
    return t->cfg->space->start_declared || t->cfg->space->start_given;
}

void kt_tune_converge(kt_tune *t, size_t patience, const char *rule)
{
    t->patience = patience;
    snprintf(t->patience_rule, sizeof t->patience_rule, "%s", rule);
}

kt_status kt_tune_true_path(kt_tune *t, kt_err *err)
{
    kt_tune_result *res = t->res;
    kt_tune_step *old = res->steps, *steps = NULL, s;
    size_t nold = res->num_steps, n = 0;
    const kt_tune_entry *cur = NULL;
    kt_status rc = KT_S_OK;

    for (size_t i = 0; i < res->num_entries && !rc; ++i) {
        const kt_tune_entry *e = &res->entries[i];
        if (e->status != KT_EVAL_OK || !e->order)
            continue;
        if (!cur) {
            res->path_start = kt_tune_entry_point(res, e);
            res->has_path_start = 1;
            cur = e;
            continue;
        }
        /* A new best beyond the noise; one within it is left to the
         * finalists' re-measurement, the path's last step. */
        if (!(e->cost < cur->cost * (1 - t->cfg->min_gain)))
            continue;
        make_step(t, old, nold, cur, e, &s);
        rc = push(&steps, &n, &s, err);
        cur = e;
    }
    if (!rc && cur && res->has_best && !is_winner(t, cur)) {
        char what[sizeof s.dim];
        final_step(t, cur, &s);
        describe(t->cfg->space, &s);
        snprintf(what, sizeof what, "%s", s.dim);
        snprintf(s.dim, sizeof s.dim, "finalists: %s", what);
        rc = push(&steps, &n, &s, err);
    }
    if (rc) {
        free(steps);
        return rc;
    }
    free(old);
    res->steps = steps;
    res->num_steps = n;
    t->step_cap = n;
    return KT_S_OK;
}
