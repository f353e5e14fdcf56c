// SPDX-License-Identifier: Apache-2.0
/*
 * The session's hints (tuner/tune.h, kt_tune_hint): points a strategy
 * expects to measure soon, dealt out to the evaluators' prefetch so their
 * kernels compile while the GPU measures others. A hint decides nothing
 * and records nothing: what is read here is never written.
 */
#include "tuner/tune_impl.h"

#include <jansson.h>
#include <stdlib.h>

int kt_tune_hints_wanted(const kt_tune *t)
{
    const kt_tune_config *cfg = t->cfg;
    const kt_evaluator *ev = t->pool ? cfg->workers[0] : cfg->ev;

    /* An evaluator that takes no hints (a replay) compiles nothing. A
     * resumed journal still wants them: kt_tune_hint passes over the
     * points it holds, and the new ones after them compile while it
     * answers. (Refusing every hint until the journal's last call was
     * answered left a resumed sweep compiling one kernel at a time: a
     * journal ending on a failed point never gets there, that point being
     * answered from its failure record, not as a call.) */
    return !t->failed && ev->ops->prefetch;
}

int kt_tune_compile_record(kt_evaluator *ev, int *run_time)
{
    json_t *env = ev->ops->environment(ev);
    const json_t *compile = json_object_get(env, "compile");
    json_int_t n = json_integer_value(json_object_get(compile, "threads"));

    if (run_time)
        *run_time = json_is_true(json_object_get(compile, "run_time"));
    json_decref(env);
    return n > 0 ? (int)n : 0;
}

size_t kt_tune_compile_ahead(const kt_tune *t)
{
    const kt_tune_config *cfg = t->cfg;
    int run_time, threads;

    if (!kt_tune_hints_wanted(t))
        return 0;
    threads =
        kt_tune_compile_record(t->pool ? cfg->workers[0] : cfg->ev, &run_time);
    return run_time ? (size_t)threads : 0;
}

int kt_tune_visited(const kt_tune *t, const kt_point *pt)
{
    uint64_t index;
    return kt_space_index(t->cfg->space, pt, &index) &&
           (kt_tune_find_entry(t, index) || kt_tune_recorded_failure(t, index));
}

void kt_tune_hint(kt_tune *t, const kt_point *pts, size_t n)
{
    const kt_tune_config *cfg = t->cfg;
    size_t workers = t->pool ? cfg->num_workers : 1, m = 0;
    kt_point *keep, *share;
    uint64_t *kept;

    if (!n || !kt_tune_hints_wanted(t))
        return;
    keep = malloc(2 * n * sizeof *keep);
    kept = malloc(n * sizeof *kept);
    for (size_t i = 0; keep && kept && i < n; ++i) {
        uint64_t index;
        kt_err why;
        int twice = 0;
        if (!kt_space_index(cfg->space, &pts[i], &index))
            continue;
        /* A point given twice keeps its first (soonest) place. */
        for (size_t k = 0; k < m && !twice; ++k)
            twice = kept[k] == index;
        if (!twice && !kt_tune_find_entry(t, index) &&
            !kt_tune_recorded(t, index) &&
            kt_space_feasible(cfg->space, &pts[i], &why) == KT_S_OK) {
            kept[m] = index;
            keep[m++] = pts[i];
        }
    }
    free(kept);
    /* With several workers the hints are dealt out in turn; the shared disk
     * cache hands each kernel to whichever worker measures it. */
    share = keep ? keep + n : NULL;
    for (size_t w = 0; share && w < workers && m; ++w) {
        kt_evaluator *ev = t->pool ? cfg->workers[w] : cfg->ev;
        size_t k = 0;
        for (size_t i = w; i < m; i += workers)
            share[k++] = keep[i];
        if (ev->ops->prefetch && k)
            ev->ops->prefetch(ev, share, k);
    }
    free(keep);
}
