// SPDX-License-Identifier: Apache-2.0
#include "tuner/tune_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/runctx.h"

/* Spaces up to this size get their feasible points counted up front, so
 * the run knows when it has seen them all. */
#define FEASIBLE_COUNT_LIMIT (UINT64_C(1) << 20)

double kt_tune_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The run's clock: seconds of tuning, continued across resumed sessions,
 * and the evaluator's simulated seconds (a replay of another tool's
 * recording: core/evaluator.h). */
double kt_tune_run_clock(const kt_tune *t)
{
    kt_evaluator *ev = t->cfg->ev;
    double simulated =
        ev && ev->ops->simulated_s ? ev->ops->simulated_s(ev) : 0;
    return t->clock_offset + (kt_tune_monotonic() - t->t0) + simulated;
}

void kt_tune_set_clock(kt_tune *t, double value)
{
    t->clock_offset = value;
    t->t0 = kt_tune_monotonic();
}

const kt_space *kt_tune_space(const kt_tune *t)
{
    return t->cfg->space;
}

kt_rng *kt_tune_rng(kt_tune *t)
{
    return &t->rng;
}

void kt_tune_set_incumbent(kt_tune *t, const kt_point *pt)
{
    t->incumbent = *pt;
    t->has_incumbent = 1;
}

void kt_tune_finished(kt_tune *t, const char *why)
{
    snprintf(t->res->finish_reason, sizeof t->res->finish_reason, "%s", why);
}

size_t kt_tune_evals_left(const kt_tune *t)
{
    size_t max = t->cfg->max_evals, used = t->res->evaluations;
    if (!max)
        return SIZE_MAX;
    return used >= max ? 0 : max - used;
}

size_t kt_tune_evaluations(const kt_tune *t)
{
    return t->res->evaluations;
}

int kt_tune_slot_is_reference(const kt_tune *t, size_t slot)
{
    const kt_space *space = t->cfg->space;
    return slot < space->num_slots &&
           (space->op->variants[space->slots[slot].variant].flags &
            KT_VARIANT_REFERENCE) != 0;
}

static size_t known_points(const kt_tune *t)
{
    return t->res->evaluations;
}

int kt_tune_stop(kt_tune *t)
{
    const kt_tune_config *cfg = t->cfg;

    if (t->stop_reason)
        return 1;
    if (t->failed)
        t->stop_reason = "the evaluator failed";
    else if (cfg->max_evals && t->res->evaluations >= cfg->max_evals)
        t->stop_reason = "max_evals reached";
    else if (kt_tune_budget_spent(t))
        t->stop_reason = "max_seconds reached";
    else if (t->res->feasible_known && known_points(t) >= t->res->feasible)
        t->stop_reason = "every feasible point evaluated";
    else if (t->idle >= KT_TUNE_IDLE_LIMIT)
        t->stop_reason = "the strategy proposed no new point in 20000 tries";
    else if (t->patience && t->gain_eval &&
             t->res->evaluations - t->gain_eval >= t->patience) {
        snprintf(t->res->finish_reason, sizeof t->res->finish_reason,
                 "converged: no gain beyond min_gain %.1f%% in the last %zu "
                 "evaluations (%s)",
                 100 * cfg->min_gain, t->patience, t->patience_rule);
        t->stop_reason = t->res->finish_reason;
    }
    return t->stop_reason != NULL;
}

/* ------------------------------------------------------------- entries */

static kt_status grow(void **array, size_t *cap, size_t need, size_t elem,
                      kt_err *err)
{
    void *grown;
    size_t cap2;
    if (need <= *cap)
        return KT_S_OK;
    cap2 = *cap ? 2 * *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    grown = realloc(*array, cap2 * elem);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    *array = grown;
    *cap = cap2;
    return KT_S_OK;
}

/* The budget the display shows: max_evals or the feasible count, whichever
 * is smaller. It is what the run measures (exact) only for the exhaustive
 * strategy without a time budget; any other strategy may stop earlier, so
 * the number is shown as an upper bound. */
static size_t progress_budget(const kt_tune *t, int *exact)
{
    const kt_tune_config *cfg = t->cfg;
    const kt_tune_result *r = t->res;
    size_t budget = cfg->max_evals;

    if (r->feasible_known && (!budget || r->feasible < budget))
        budget = (size_t)r->feasible;
    *exact = budget && r->feasible_known && budget == r->feasible &&
             cfg->max_seconds <= 0 && cfg->strategy &&
             strcmp(cfg->strategy->name, "exhaustive") == 0;
    return budget;
}

static void update_progress(kt_tune *t)
{
    const kt_tune_config *cfg = t->cfg;
    kt_tune_result *r = t->res;
    kt_progress_state s = {.phase = t->phase, .current = t->current};
    double now = kt_tune_run_clock(t);
    char best[256] = "";

    if (!t->progress.out)
        return;
    s.done = r->evaluations;
    s.budget = progress_budget(t, &s.exact);
    s.left_s = cfg->max_seconds > 0 ? cfg->max_seconds - now : -1;
    if (strcmp(t->phase, "searching") == 0 && s.budget && r->evaluations > 0 &&
        r->evaluations < s.budget) {
        double est =
            now / (double)r->evaluations * (double)(s.budget - r->evaluations);
        if (s.left_s < 0 || est < s.left_s) {
            s.left_s = est;
            s.left_exact = s.exact;
        }
    }
    if (s.left_s < 0 && cfg->max_seconds > 0)
        s.left_s = 0;
    if (strcmp(t->phase, "searching") != 0)
        s.left_s = -1;
    if (t->best_us > 0) {
        kt_point pt = kt_tune_entry_point(r, &r->entries[t->best_entry]);
        kt_point_format(cfg->op, &pt, best, sizeof best);
    }
    s.best_us = t->best_us;
    s.best = best;
    kt_progress_update(&t->progress, &s);
}

/* The phase and configuration the display names while a call runs. */
void kt_tune_progress_call(kt_tune *t, const char *purpose, const kt_point *pts,
                           size_t n)
{
    if (!t->progress.out)
        return;
    if (strcmp(purpose, "final") == 0)
        snprintf(t->phase, sizeof t->phase, "re-measuring %zu finalists", n);
    else if (strcmp(purpose, "profile") == 0)
        snprintf(t->phase, sizeof t->phase, "profiling");
    else
        snprintf(t->phase, sizeof t->phase, "searching");
    if (n == 1)
        kt_point_format(t->cfg->op, &pts[0], t->current, sizeof t->current);
    else
        snprintf(t->current, sizeof t->current, "%zu configurations", n);
    update_progress(t);
}

/* The work a point's cost divides by: its own where a parameter changes
 * it (hotspot's temporal tiling factor), else the problem's. */
static const kt_work *work_of(const kt_tune *t, const kt_work *own, int has)
{
    kt_evaluator *ev = t->cfg->ev;
    if (has)
        return own;
    return ev && ev->ops->work ? ev->ops->work(ev) : NULL;
}

/* A cost under the run's objective (records/objective.h): the median in us
 * for time; +inf where the objective lacks a figure. */
static double cost_of(const kt_tune *t, const kt_timing *timing,
                      const kt_energy *energy, const kt_work *work)
{
    kt_objective_side s = {timing, energy, work};
    double c = kt_objective_cost(t->cfg->objective, &s);
    return isnan(c) ? INFINITY : c;
}

/* The parts of r that e holds out of line, copied: its timing (status
 * OK), its reason where not empty, its energy where measured or noted. */
static kt_status entry_own(kt_tune_entry *e, const kt_eval_result *r,
                           kt_err *err)
{
    kt_status rc;

    if (r->reason[0] && !(e->reason = strdup(r->reason))) {
        e->reason = "";
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    if (r->status == KT_EVAL_OK &&
        (rc = kt_timing_copy(&r->timing, &e->timing, err)))
        return rc;
    if (r->status == KT_EVAL_OK && (r->energy.measured || r->energy.note[0])) {
        if (!(e->energy = malloc(sizeof *e->energy)))
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        *e->energy = r->energy;
    }
    return KT_S_OK;
}

/* Records a visited point. r's timing is copied. */
static kt_status add_entry(kt_tune *t, uint64_t index, const kt_eval_result *r,
                           int host, int from_journal, kt_err *err)
{
    kt_tune_result *res = t->res;
    kt_tune_entry *e;
    kt_status rc;

    if ((rc = grow((void **)&res->entries, &t->entry_cap, res->num_entries + 1,
                   sizeof *res->entries, err)) ||
        (rc = kt_u64map_put(&t->by_index, index, res->num_entries, err)))
        return rc;
    e = &res->entries[res->num_entries];
    memset(e, 0, sizeof *e);
    e->index = index;
    e->status = r->status;
    e->reason = "";
    e->host_checked = host;
    e->from_journal = from_journal;
    e->elapsed_s = kt_tune_run_clock(t);
    e->when = time(NULL);
    e->compile_s = r->compile_s;
    e->compiled = r->compiled;
    e->compile_cache_hits = r->compile_cache_hits;
    e->work = r->work;
    e->has_work = r->has_work;
    if (!host && !from_journal) {
        e->phases = r->phases;
        e->call_s = t->call_s;
        kt_tune_budget_note_call(t, t->call_s);
        e->strategy_s = t->call_gap_s;
        t->call_gap_s = 0;
    }
    /* A point's compile costs once, at its first evaluation: an evaluator
     * that repeats its verification's costs when the point is measured
     * again (a comparison, the closing round) would count the GPU's
     * waits twice (an idle fraction of 1.18 on the H200's hotspot). */
    res->compile_s += r->compile_s;
    res->compile_cpu_s += r->compile_cpu_s;
    res->compile_wait_s += r->compile_wait_s;
    res->compile_taken += r->compile_taken;
    res->compile_took_queued += r->compile_took_queued;
    res->compile_unhinted += r->compile_unhinted;
    res->compiled += r->compiled;
    res->compile_cache_hits += r->compile_cache_hits;
    res->compile_failed += kt_eval_is_compile_failure(r->status, r->reason);
    /* Counted before its owned parts are made: a failure leaves them to
     * kt_tune_result_free. */
    ++res->num_entries;
    if ((rc = entry_own(e, r, err)))
        return rc;
    e->cost = r->status == KT_EVAL_OK
                  ? cost_of(t, &e->timing, e->energy,
                            work_of(t, &e->work, e->has_work))
                  : INFINITY;
    if (host) {
        ++res->host_invalid;
        return t->cfg->on_entry ? t->cfg->on_entry(t->cfg->on_entry_ctx, e, err)
                                : KT_S_OK;
    }
    e->order = ++res->evaluations;
    res->from_journal += from_journal != 0;
    if (r->status == KT_EVAL_OK) {
        ++res->measured;
        /* The best by the objective; its time is what progress shows. */
        if (t->best_us <= 0 || e->cost < res->entries[t->best_entry].cost) {
            t->best_us = e->timing.kernel.median;
            t->best_entry = res->num_entries - 1;
        }
        /* The convergence rule's clock: the last gain beyond the noise. */
        if (!t->gain_eval || e->cost < t->gain_cost * (1 - t->cfg->min_gain)) {
            t->gain_cost = e->cost;
            t->gain_eval = res->evaluations;
        }
    }
    if ((rc = grow((void **)&res->trace, &t->trace_cap, res->evaluations,
                   sizeof *res->trace, err)))
        return rc;
    res->trace[res->evaluations - 1] = t->best_us > 0 ? t->best_us : NAN;
    t->idle = 0;
    update_progress(t);
    return t->cfg->on_entry ? t->cfg->on_entry(t->cfg->on_entry_ctx, e, err)
                            : KT_S_OK;
}

kt_tune_entry *kt_tune_find_entry(const kt_tune *t, uint64_t index)
{
    uint64_t pos;
    return kt_u64map_get(&t->by_index, index, &pos) ? &t->res->entries[pos]
                                                    : NULL;
}

double kt_tune_result_cost(const kt_tune *t, const kt_eval_result *r)
{
    return cost_of(t, &r->timing, &r->energy,
                   work_of(t, &r->work, r->has_work));
}

/* cost(b) / cost(a), paired, under the run's objective; each side with
 * its own work, so a point that computes more per launch is credited. */
void kt_tune_paired(const kt_tune *t, const kt_eval_result *a,
                    const kt_eval_result *b, kt_ratio *out)
{
    kt_objective_side sa = {&a->timing, &a->energy,
                            work_of(t, &a->work, a->has_work)},
                      sb = {&b->timing, &b->energy,
                            work_of(t, &b->work, b->has_work)};
    kt_objective_ratio(t->cfg->objective, &sa, &sb, out);
}

static void observe(const kt_tune_entry *e, kt_tune_obs *out)
{
    out->known = 1;
    out->status = e->status;
    out->median_us = e->status == KT_EVAL_OK ? e->cost : 0;
}

static kt_status locate(const kt_tune *t, const kt_point *pt, uint64_t *index,
                        kt_err *err)
{
    char text[512];
    if (kt_space_index(t->cfg->space, pt, index))
        return KT_S_OK;
    kt_point_format(t->cfg->op, pt, text, sizeof text);
    return kt_err_set(err, KT_S_INPUT,
                      "strategy %s proposed %s, which is not in the space",
                      t->cfg->strategy->name, text);
}

/* Refuses pt on the host when it cannot run (constraint, device limit):
 * returns 1 with the entry recorded, 0 when pt is feasible. */
static int host_refused(kt_tune *t, const kt_point *pt, uint64_t index,
                        kt_status *rc, kt_err *err)
{
    kt_eval_result r;
    kt_err why;
    kt_status st;

    *rc = KT_S_OK;
    kt_err_clear(&why);
    st = kt_space_feasible(t->cfg->space, pt, &why);
    if (st == KT_S_OK)
        return 0;
    memset(&r, 0, sizeof r);
    r.status = st == KT_S_INVALID ? KT_EVAL_INVALID : KT_EVAL_ERROR;
    snprintf(r.reason, sizeof r.reason, "%s", why.msg);
    /* A check() or shape() that faulted or hung is the plugin's failure,
     * not a constraint: the run's note names the first one. */
    if (st != KT_S_INVALID && !t->res->note[0])
        snprintf(t->res->note, sizeof t->res->note,
                 "the plugin failed on the host: %s", why.msg);
    if ((*rc = add_entry(t, index, &r, 1, 0, err)))
        return 1;
    if (t->cfg->journal && !kt_u64map_get(&t->checked, index, NULL))
        *rc = kt_journal_check(t->cfg->journal, t->cfg->op, pt, r.reason, err);
    return 1;
}

/* --------------------------------------------------------- evaluations */

kt_status kt_tune_fail(kt_tune *t, kt_status rc, const kt_err *err)
{
    t->failed = 1;
    t->fatal = *err;
    t->fatal.status = rc;
    return rc;
}

static void add_phases(kt_eval_phases *sum, const kt_eval_phases *p)
{
    sum->setup_s += p->setup_s;
    sum->verify_s += p->verify_s;
    sum->warmup_s += p->warmup_s;
    sum->sampling_s += p->sampling_s;
    sum->flush_s += p->flush_s;
    sum->probe_s += p->probe_s;
}

/* Under GFLOP/s or GB/s the bar is the best cost per flop or byte, which
 * the evaluator makes each call's time bar by its points' work. */
static void work_bar(const kt_tune *t, int racing, kt_protocol *p)
{
    kt_objective o = t->cfg->objective;
    double cost = racing ? t->res->entries[t->best_entry].cost : 0;

    p->race_bar_us_per_work = 0;
    p->race_bar_work = KT_BAR_NONE;
    if (!(cost > 0) || !isfinite(cost) ||
        (o != KT_OBJ_GFLOPS && o != KT_OBJ_GBS))
        return;
    p->race_bar_us_per_work = 1e6 * cost;
    p->race_bar_work = o == KT_OBJ_GFLOPS ? KT_BAR_FLOPS : KT_BAR_BYTES;
}

/* The protocol of one call: the job's, with the racing bar (the fastest
 * median so far) for searching calls, paired stopping for comparisons and
 * the screen ([measure] screen_samples) for searching calls. The closing
 * re-measurement races and screens nothing: its medians are the answer. */
static const kt_protocol *call_protocol(kt_tune *t, const char *purpose)
{
    kt_protocol *p = &t->call_protocol;
    int final = strcmp(purpose, "final") == 0;
    int by_time = t->cfg->objective == KT_OBJ_TIME;
    int racing;
    *p = t->cfg->protocol;
    racing = !final && p->race > 0 && t->best_us > 0;
    p->race_bar_us = by_time && racing ? t->best_us : 0;
    work_bar(t, racing, p);
    /* Energy windows cost seconds each: measured on every call where the
     * objective needs them, on the closing call where the user asked
     * ([measure] energy, --energy), else never (docs/energy.md). */
    p->energy = kt_objective_needs_energy(t->cfg->objective) ||
                (final && t->cfg->protocol.energy);
    /* Searching calls compare paired rounds, where a short window does;
     * the answer's own figures take the full one (core/energy.h). */
    if (!final && p->energy_window_s > KT_ENERGY_SEARCH_WINDOW_S)
        p->energy_window_s = KT_ENERGY_SEARCH_WINDOW_S;
    p->race_pairs = strcmp(purpose, "compare") == 0;
    /* A screen: searching calls look at a point after a few samples and
     * one warm-up; the answer's are full. */
    if (!final && p->screen_samples > 0) {
        p->min_samples = p->screen_samples;
        p->warmups = p->warmups < 1 ? p->warmups : 1;
    }
    return p;
}

/* Answers a call from the resumed journal's record c of it. */
static kt_status answer_from_log(kt_tune *t, resume_call *c, size_t n,
                                 kt_eval_result *out, kt_err *err)
{
    const kt_journal_entry *e = &t->cfg->resume->entries[c->first];
    kt_status rc;

    c->used = 1;
    for (size_t i = 0; i < n; ++i) {
        out[i].status = e[i].result.status;
        out[i].shape = e[i].result.shape;
        snprintf(out[i].reason, sizeof out[i].reason, "%s", e[i].result.reason);
        out[i].compile_s = e[i].result.compile_s;
        out[i].compiled = e[i].result.compiled;
        out[i].compile_cache_hits = e[i].result.compile_cache_hits;
        out[i].energy = e[i].result.energy;
        out[i].work = e[i].result.work; /* a point's own, where it had one */
        out[i].has_work = e[i].result.has_work;
        if (e[i].result.status == KT_EVAL_OK &&
            (rc = kt_timing_copy(&e[i].result.timing, &out[i].timing, err)))
            return rc;
    }
    kt_tune_set_clock(t, e[n - 1].elapsed_s);
    return KT_S_OK;
}

/* The journal's environment record of worker w. */
static int worker_env(const kt_tune *t, size_t w)
{
    const kt_tune_config *cfg = t->cfg;
    return cfg->worker_envs && w < cfg->num_workers ? cfg->worker_envs[w]
                                                    : cfg->journal->env;
}

/* The time of the call (or batch) that began at start, of n points. */
static void call_timing(kt_tune *t, double start, size_t n)
{
    t->call_gap_s = start - t->call_end;
    t->call_end = kt_tune_monotonic();
    t->call_s = n ? (t->call_end - start) / (double)n : 0;
    t->res->evaluator_s += t->call_end - start;
}

/* Counts an evaluate() call and where its time went. */
static void count_call(kt_tune *t, const kt_eval_result *out, size_t n)
{
    ++t->res->calls;
    for (size_t i = 0; i < n; ++i) {
        add_phases(&t->res->phases, &out[i].phases);
        t->res->compile_busy_s += out[i].compile_busy_s;
        t->res->compile_work_s += out[i].compile_work_s;
        if (out[i].compile_peak > t->res->compile_peak)
            t->res->compile_peak = out[i].compile_peak;
    }
}

/* Journals an evaluated call as measured by worker w; the results are
 * freed when the journal cannot be written. */
static kt_status journal_call(kt_tune *t, const char *purpose,
                              const kt_point *pts, size_t n,
                              kt_eval_result *out, size_t w, kt_err *err)
{
    const kt_tune_config *cfg = t->cfg;
    kt_journal *j = cfg->journal;
    kt_status jrc = KT_S_OK;

    for (size_t i = 0; i < n; ++i)
        if (out[i].status == KT_EVAL_OK)
            t->res->gpu_s += out[i].timing.gpu_time_s;
    if (j) {
        size_t call = j->next_call++;
        int own = j->env;
        j->env = worker_env(t, w);
        for (size_t i = 0; i < n && !jrc; ++i)
            jrc = kt_journal_eval(j, cfg->op, call, i, n, purpose,
                                  kt_tune_run_clock(t), &pts[i], &out[i], err);
        j->env = own;
        if (jrc) {
            for (size_t i = 0; i < n; ++i)
                kt_eval_result_free(&out[i]);
            return kt_tune_fail(t, jrc, err);
        }
    }
    return KT_S_OK;
}

/* Evaluates pts in one call: answered from the resumed journal when it
 * holds this call, else by the evaluator and journaled at once. */
static kt_status run_call(kt_tune *t, const char *purpose, const kt_point *pts,
                          size_t n, kt_eval_result *out, int *answered,
                          kt_err *err)
{
    const kt_tune_config *cfg = t->cfg;
    resume_call *c = kt_tune_find_call(t, pts, n);
    kt_journal *j = cfg->journal;
    double start;
    kt_status rc;

    memset(out, 0, n * sizeof *out);
    *answered = c != NULL;
    kt_tune_progress_call(t, purpose, pts, n);
    if (c)
        return answer_from_log(t, c, n, out, err);
    start = kt_tune_monotonic();
    rc = cfg->ev->ops->evaluate(cfg->ev, pts, n, call_protocol(t, purpose), out,
                                err);
    call_timing(t, start, n);
    count_call(t, out, n);
    if (rc) {
        /* The evaluator cannot go on. Keep what it decided about single
         * points (the one that faulted, above all), each as a call of its
         * own, so a resumed run skips it; the rest was never measured. */
        for (size_t i = 0; i < n; ++i) {
            kt_err jerr;
            int decided = out[i].status != KT_EVAL_OK;
            if (!decided || !j)
                continue;
            if (kt_journal_eval(j, cfg->op, j->next_call++, 0, 1, purpose,
                                kt_tune_run_clock(t), &pts[i], &out[i], &jerr))
                break;
        }
        return kt_tune_fail(t, rc, err);
    }
    return journal_call(t, purpose, pts, n, out, 0, err);
}

/* `count` calls of `per` points each (pts and out in call order): answered
 * from the resumed journal where it holds them, the others evaluated at
 * once by the workers, then all journaled in the order given — so the
 * journal, the record and every decision are the same whichever worker
 * finished first. Without workers, one call after the other. */
kt_status kt_tune_run_calls(kt_tune *t, const char *purpose,
                            const kt_point *pts, size_t per, size_t count,
                            kt_eval_result *out, int *answered, kt_err *err)
{
    kt_pool_call *calls;
    size_t m = 0;
    double start;
    kt_status rc = KT_S_OK;

    if (!t->pool) {
        for (size_t i = 0; i < count && !rc; ++i)
            rc = run_call(t, purpose, &pts[i * per], per, &out[i * per],
                          &answered[i], err);
        return rc;
    }
    if (!(calls = calloc(count, sizeof *calls)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    memset(out, 0, count * per * sizeof *out);
    kt_tune_progress_call(t, purpose, pts, count * per);
    for (size_t i = 0; i < count && !rc; ++i) {
        resume_call *c = kt_tune_find_call(t, &pts[i * per], per);
        answered[i] = c != NULL;
        if (c) {
            rc = answer_from_log(t, c, per, &out[i * per], err);
            continue;
        }
        calls[m].pts = &pts[i * per];
        calls[m].n = per;
        calls[m].protocol = call_protocol(t, purpose);
        calls[m].out = &out[i * per];
        calls[m].prefer = (int)m;
        ++m;
    }
    start = kt_tune_monotonic();
    if (!rc && m)
        rc = kt_pool_run(t->pool, calls, m, err);
    if (m)
        call_timing(t, start, m * per);
    if (rc)
        rc = kt_tune_fail(t, rc, err);
    for (size_t k = 0; k < m && !rc; ++k) {
        count_call(t, calls[k].out, per);
        rc = journal_call(t, purpose, calls[k].pts, per, calls[k].out,
                          calls[k].worker, err);
    }
    if (rc)
        for (size_t i = 0; i < count * per; ++i)
            kt_eval_result_free(&out[i]);
    free(calls);
    return rc;
}

size_t kt_tune_width(const kt_tune *t)
{
    size_t alive = t->pool ? kt_pool_alive(t->pool) : 1;
    return alive ? alive : 1;
}

/* What a stopped session tells the strategy: its failure, or nothing. */
static kt_status stopped(const kt_tune *t, kt_err *err)
{
    return t->failed ? kt_err_set(err, t->fatal.status, "%s", t->fatal.msg)
                     : KT_S_OK;
}

/* 1 when index is among idx[0..m). */
static int among(const uint64_t *idx, size_t m, uint64_t index)
{
    for (size_t k = 0; k < m; ++k)
        if (idx[k] == index)
            return 1;
    return 0;
}

/* The points of pts that need the evaluator, in order, into send/idx
 * (*m of them); the others are answered: known, refused on the host, a
 * failure the resumed journal recorded, or cut by a budget. */
static kt_status measure_plan(kt_tune *t, const kt_point *pts, size_t n,
                              kt_point *send, uint64_t *idx, size_t *m,
                              kt_err *err)
{
    kt_status rc = KT_S_OK;

    *m = 0;
    for (size_t i = 0; i < n && !rc; ++i) {
        const kt_journal_entry *failed;
        uint64_t index;
        if ((rc = locate(t, &pts[i], &index, err)))
            break;
        if (kt_tune_find_entry(t, index) || among(idx, *m, index)) {
            ++t->idle;
            continue;
        }
        if (host_refused(t, &pts[i], index, &rc, err))
            continue;
        if (kt_tune_stop(t) || *m >= kt_tune_evals_left(t)) {
            rc = stopped(t, err);
            continue;
        }
        if ((failed = kt_tune_recorded_failure(t, index))) {
            kt_tune_set_clock(t, failed->elapsed_s);
            rc = add_entry(t, index, &failed->result, 0, 1, err);
            continue;
        }
        send[*m] = pts[i];
        idx[(*m)++] = index;
    }
    return rc;
}

kt_status kt_tune_measure_batch(kt_tune *t, const kt_point *pts, size_t n,
                                kt_tune_obs *out, kt_err *err)
{
    kt_point *send = malloc((n ? n : 1) * sizeof *send);
    uint64_t *idx = malloc((n ? n : 1) * sizeof *idx);
    kt_eval_result *r = calloc(n ? n : 1, sizeof *r);
    int *answered = calloc(n ? n : 1, sizeof *answered);
    size_t m = 0;
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    if (!send || !idx || !r || !answered)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (!rc)
        rc = measure_plan(t, pts, n, send, idx, &m, err);
    if (!rc && m > 1)
        kt_tune_hint(t, send, m); /* one call each: their kernels at once */
    if (!rc && m)
        rc = kt_tune_run_calls(t, "measure", send, 1, m, r, answered, err);
    for (size_t k = 0; k < m && !rc; ++k) {
        rc = add_entry(t, idx[k], &r[k], 0, answered[k], err);
        if (!rc)
            rc = kt_tune_profile_new(t, t->res->num_entries - 1, err);
    }
    for (size_t k = 0; r && k < m; ++k)
        kt_eval_result_free(&r[k]);
    for (size_t i = 0; i < n && !rc; ++i) {
        uint64_t index;
        const kt_tune_entry *e;
        if (kt_space_index(t->cfg->space, &pts[i], &index) &&
            (e = kt_tune_find_entry(t, index)))
            observe(e, &out[i]);
    }
    free(send);
    free(idx);
    free(r);
    free(answered);
    return rc;
}

kt_status kt_tune_measure(kt_tune *t, const kt_point *pt, kt_tune_obs *out,
                          kt_err *err)
{
    return kt_tune_measure_batch(t, pt, 1, out, err);
}

int kt_tune_seen(const kt_tune *t, const kt_point *pt)
{
    uint64_t index;
    return kt_space_index(t->cfg->space, pt, &index) &&
           kt_tune_find_entry(t, index) != NULL;
}

int kt_tune_known(kt_tune *t, const kt_point *pt, kt_tune_obs *out)
{
    kt_tune_entry *e;
    uint64_t index;
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (!kt_space_index(t->cfg->space, pt, &index))
        return 0;
    if ((e = kt_tune_find_entry(t, index))) {
        observe(e, out);
        return 1;
    }
    if (host_refused(t, pt, index, &rc, &t->fatal)) {
        if (rc) {
            t->failed = 1;
            return 0;
        }
        observe(&t->res->entries[t->res->num_entries - 1], out);
        return 1;
    }
    return 0;
}

static memo *find_memo(kt_tune *t, uint64_t a, uint64_t b)
{
    for (size_t i = 0; i < t->num_memos; ++i)
        if (t->memos[i].incumbent == a && t->memos[i].candidate == b)
            return &t->memos[i];
    return NULL;
}

/* The comparisons of a batch that need the evaluator. */
typedef struct cmp_plan {
    kt_point *pairs; /* incumbent, candidate; per call */
    uint64_t *ib;    /* the candidate's index */
    size_t *which;   /* its place in the batch */
    int *had;        /* the candidate was an entry before */
    size_t m, fresh; /* calls; of which with new candidates */
} cmp_plan;

/* Answers candidate i of a comparison batch without the evaluator when
 * the session can (known invalid, refused, compared before, cut by a
 * budget, a recorded failure), else adds it to the plan. */
static kt_status compare_plan_one(kt_tune *t, const kt_point *incumbent,
                                  uint64_t ia, const kt_point *cand, size_t i,
                                  cmp_plan *pl, kt_tune_cmp *out, kt_err *err)
{
    const kt_journal_entry *failed;
    kt_tune_entry *e;
    uint64_t ib;
    memo *mm;
    kt_status rc;

    if ((rc = locate(t, cand, &ib, err)))
        return rc;
    e = kt_tune_find_entry(t, ib);
    if (e && e->status != KT_EVAL_OK) {
        ++t->idle;
        out->known = 1;
        out->status = e->status;
        return KT_S_OK;
    }
    if (!e && host_refused(t, cand, ib, &rc, err)) {
        out->known = !rc;
        out->status = KT_EVAL_INVALID;
        return rc;
    }
    if ((mm = find_memo(t, ia, ib)) || among(pl->ib, pl->m, ib)) {
        ++t->idle;
        if (mm)
            *out = mm->cmp;
        return KT_S_OK;
    }
    if (kt_tune_stop(t) || (!e && pl->fresh >= kt_tune_evals_left(t)))
        return stopped(t, err);
    if (!e && (failed = kt_tune_recorded_failure(t, ib))) {
        kt_tune_set_clock(t, failed->elapsed_s);
        if ((rc = add_entry(t, ib, &failed->result, 0, 1, err)))
            return rc;
        out->known = 1;
        out->status = failed->result.status;
        return KT_S_OK;
    }
    pl->pairs[2 * pl->m] = *incumbent;
    pl->pairs[2 * pl->m + 1] = *cand;
    pl->ib[pl->m] = ib;
    pl->which[pl->m] = i;
    pl->had[pl->m++] = e != NULL;
    pl->fresh += e == NULL;
    return KT_S_OK;
}

/* The outcome of one compared pair r[0..1] (the candidate's index ib). */
static kt_status compare_settle(kt_tune *t, uint64_t ia, uint64_t ib, int had,
                                const kt_eval_result *r, int answered,
                                kt_tune_cmp *out, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (!had && !(rc = add_entry(t, ib, &r[1], 0, answered, err)))
        rc = kt_tune_profile_new(t, t->res->num_entries - 1, err);
    t->idle = 0;
    out->known = 1;
    out->status = r[1].status;
    if (!rc && r[1].status == KT_EVAL_OK) {
        if (r[0].status != KT_EVAL_OK) {
            /* The incumbent measured before; failing now says nothing about
             * the candidate. No verdict. */
            out->status = KT_EVAL_ERROR;
        } else {
            kt_tune_paired(t, &r[0], &r[1], &out->ratio);
            out->verdict = kt_stats_verdict(&out->ratio, t->cfg->min_gain);
        }
    }
    if (!rc && !(rc = grow((void **)&t->memos, &t->memo_cap, t->num_memos + 1,
                           sizeof *t->memos, err))) {
        t->memos[t->num_memos].incumbent = ia;
        t->memos[t->num_memos].candidate = ib;
        t->memos[t->num_memos++].cmp = *out;
    }
    return rc;
}

kt_status kt_tune_compare_batch(kt_tune *t, const kt_point *incumbent,
                                const kt_point *cands, size_t n,
                                kt_tune_cmp *out, kt_err *err)
{
    size_t cap = n ? n : 1;
    cmp_plan pl = {malloc(2 * cap * sizeof(kt_point)),
                   malloc(cap * sizeof(uint64_t)),
                   malloc(cap * sizeof(size_t)),
                   calloc(cap, sizeof(int)),
                   0,
                   0};
    kt_eval_result *r = calloc(2 * cap, sizeof *r);
    int *answered = calloc(cap, sizeof *answered);
    uint64_t ia = 0;
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    if (!pl.pairs || !pl.ib || !pl.which || !pl.had || !r || !answered)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (!rc)
        rc = locate(t, incumbent, &ia, err);
    for (size_t i = 0; i < n && !rc; ++i)
        rc =
            compare_plan_one(t, incumbent, ia, &cands[i], i, &pl, &out[i], err);
    if (!rc && pl.m)
        rc = kt_tune_run_calls(t, "compare", pl.pairs, 2, pl.m, r, answered,
                               err);
    for (size_t k = 0; k < pl.m && !rc; ++k)
        rc = compare_settle(t, ia, pl.ib[k], pl.had[k], &r[2 * k], answered[k],
                            &out[pl.which[k]], err);
    /* A candidate named twice gets the first one's outcome. */
    for (size_t i = 0; i < n && !rc; ++i) {
        uint64_t ib;
        memo *mm;
        if (!out[i].known && kt_space_index(t->cfg->space, &cands[i], &ib) &&
            (mm = find_memo(t, ia, ib)))
            out[i] = mm->cmp;
    }
    for (size_t k = 0; r && k < 2 * pl.m; ++k)
        kt_eval_result_free(&r[k]);
    free(pl.pairs);
    free(pl.ib);
    free(pl.which);
    free(pl.had);
    free(r);
    free(answered);
    return rc;
}

kt_status kt_tune_compare(kt_tune *t, const kt_point *incumbent,
                          const kt_point *candidate, kt_tune_cmp *out,
                          kt_err *err)
{
    return kt_tune_compare_batch(t, incumbent, candidate, 1, out, err);
}

kt_status kt_tune_lookahead(kt_tune *t, const kt_point *incumbent,
                            double bar_us, const kt_point *cands, size_t n,
                            kt_err *err)
{
    kt_tune_obs *obs;
    kt_point *faster;
    kt_tune_cmp *cmp;
    size_t m = 0;
    kt_status rc;

    if (!t->pool || n < 2)
        return KT_S_OK;
    obs = calloc(n, sizeof *obs);
    faster = calloc(n, sizeof *faster);
    cmp = calloc(n, sizeof *cmp);
    if (!obs || !faster || !cmp)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    else
        rc = kt_tune_measure_batch(t, cands, n, obs, err);
    for (size_t i = 0; i < n && !rc; ++i)
        if (obs[i].known && obs[i].status == KT_EVAL_OK &&
            obs[i].median_us < bar_us && !kt_point_equal(&cands[i], incumbent))
            faster[m++] = cands[i];
    if (!rc && m > 0)
        rc = kt_tune_compare_batch(t, incumbent, faster, m, cmp, err);
    free(obs);
    free(faster);
    free(cmp);
    return rc;
}

/* Appends a step from -> to labelled `dim` (before/after left empty). */
static kt_status add_step(kt_tune *t, const kt_point *from, const kt_point *to,
                          const char *dim, const kt_ratio *ratio,
                          kt_tune_step **out, kt_err *err)
{
    kt_tune_result *res = t->res;
    kt_tune_step *s;
    kt_status rc;

    if ((rc = grow((void **)&res->steps, &t->step_cap, res->num_steps + 1,
                   sizeof *res->steps, err)))
        return rc;
    s = &res->steps[res->num_steps++];
    memset(s, 0, sizeof *s);
    s->from = *from;
    s->to = *to;
    s->ratio = *ratio;
    snprintf(s->dim, sizeof s->dim, "%s", dim);
    *out = s;
    return KT_S_OK;
}

kt_status kt_tune_path_add(kt_tune *t, const kt_point *from, const kt_point *to,
                           size_t dim, const kt_ratio *ratio, kt_err *err)
{
    const kt_space *space = t->cfg->space;
    kt_tune_step *s;
    kt_status rc = add_step(t, from, to, kt_space_dim_name(space, from, dim),
                            ratio, &s, err);

    if (rc)
        return rc;
    kt_space_dim_text(space, from, dim, s->before, sizeof s->before);
    kt_space_dim_text(space, to, dim, s->after, sizeof s->after);
    return KT_S_OK;
}

kt_status kt_tune_path_jump(kt_tune *t, const kt_point *from,
                            const kt_point *to, const char *label,
                            const kt_ratio *ratio, kt_err *err)
{
    kt_tune_step *s;
    return add_step(t, from, to, label, ratio, &s, err);
}

/* What each worker did, for the summary (nothing without workers). */
static void keep_worker_stats(kt_tune *t)
{
    kt_tune_result *r = t->res;
    size_t n = t->pool ? kt_pool_size(t->pool) : 0;

    if (!n || !(r->worker_stats = calloc(n, sizeof *r->worker_stats)))
        return;
    r->num_workers = n;
    for (size_t i = 0; i < n; ++i)
        r->worker_stats[i] = *kt_pool_worker_stats(t->pool, i);
}

kt_status kt_tune_run(const kt_tune_config *cfg, kt_tune_result *out,
                      kt_err *err)
{
    kt_tune t;
    kt_status rc;
    uint64_t feasible;
    kt_err ferr;
    double started = kt_tune_monotonic();
    /* The journal's header was written before: not this run's time. */
    double journal_before = cfg->journal ? cfg->journal->written_s : 0;

    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    t.cfg = cfg;
    t.res = out;
    out->space = cfg->space;
    t.call_end = started;
    kt_u64map_init(&t.by_index);
    kt_u64map_init(&t.recorded_failures);
    kt_u64map_init(&t.recorded);
    kt_u64map_init(&t.checked);
    kt_rng_seed(&t.rng, cfg->seed);
    kt_tune_set_clock(&t, 0);
    t.before_s = cfg->budget_origin > 0 && cfg->budget_origin < started
                     ? started - cfg->budget_origin
                     : 0;
    if (kt_space_count_feasible(cfg->space, FEASIBLE_COUNT_LIMIT, &feasible,
                                &ferr) == KT_S_OK) {
        out->feasible = feasible;
        out->feasible_known = 1;
    }
    kt_progress_init(&t.progress, kt_stderr(), cfg->progress);
    if ((rc = kt_tune_prepare_profiling(&t, err)) ||
        (rc = kt_tune_prepare_resume(&t, err)) ||
        (cfg->num_workers > 1 &&
         (rc = kt_pool_open(cfg->workers, cfg->num_workers, &t.pool, err))))
        goto done;
    rc = cfg->strategy->run(&t, cfg->options, err);
    if (!rc && t.failed)
        rc = kt_err_set(err, t.fatal.status, "%s", t.fatal.msg);
    out->budget_before_s = t.before_s;
    out->search_s = kt_tune_monotonic() - started;
    if (!rc)
        rc = kt_tune_finish(&t, err);
    if (!rc)
        rc = kt_tune_true_path(&t, err);
    if (!rc)
        rc = kt_tune_profile_top(&t, err);
    out->closing_s = kt_tune_monotonic() - started - out->search_s;
done:
    out->stop_reason = t.stop_reason           ? t.stop_reason
                       : out->finish_reason[0] ? out->finish_reason
                                               : "the strategy finished";
    if (rc && !t.stop_reason)
        out->stop_reason = "the run failed";
    out->elapsed_s = kt_tune_run_clock(&t);
    out->wall_s = kt_tune_monotonic() - started;
    if (cfg->journal)
        out->journal_s = cfg->journal->written_s - journal_before;
    kt_progress_end(&t.progress);
    keep_worker_stats(&t);
    out->compile_threads = kt_tune_compile_record(cfg->ev, NULL);
    kt_pool_close(t.pool);
    kt_u64map_free(&t.by_index);
    kt_u64map_free(&t.recorded_failures);
    kt_u64map_free(&t.recorded);
    kt_u64map_free(&t.checked);
    free(t.calls);
    free(t.memos);
    return rc;
}

double kt_tune_compile_idle(const kt_tune_result *r)
{
    return r->wall_s > 0 ? r->compile_wait_s / r->wall_s : 0;
}

double kt_tune_total_s(const kt_tune_result *r)
{
    return r->exec_s + r->open_s + r->calibration_s + r->wall_s + r->close_s;
}

void kt_tune_result_free(kt_tune_result *r)
{
    for (size_t i = 0; i < r->num_entries; ++i) {
        kt_timing_free(&r->entries[i].timing);
        free(r->entries[i].profile);
        free(r->entries[i].energy);
        if (r->entries[i].reason[0])
            free((char *)r->entries[i].reason);
    }
    free(r->profiling);
    free(r->entries);
    free(r->trace);
    free(r->steps);
    for (size_t i = 0; i < r->num_finals; ++i)
        free(r->finals[i].samples_us);
    free(r->finals);
    free(r->worker_stats);
    memset(r, 0, sizeof *r);
}

static int by_cost(const void *a, const void *b)
{
    const kt_tune_entry *x = *(const kt_tune_entry *const *)a;
    const kt_tune_entry *y = *(const kt_tune_entry *const *)b;
    double mx = x->cost, my = y->cost;
    if (mx != my)
        return (mx > my) - (mx < my);
    return (x->order > y->order) - (x->order < y->order);
}

const kt_tune_entry **kt_tune_ranked(const kt_tune_result *r, size_t *count)
{
    const kt_tune_entry **list =
        malloc((r->num_entries ? r->num_entries : 1) * sizeof *list);
    size_t n = 0;

    *count = 0;
    if (!list)
        return NULL;
    for (size_t i = 0; i < r->num_entries; ++i)
        if (r->entries[i].status == KT_EVAL_OK && !r->entries[i].host_checked)
            list[n++] = &r->entries[i];
    qsort(list, n, sizeof *list, by_cost);
    *count = n;
    return list;
}

double kt_tune_compile_parallel(const kt_tune_result *r)
{
    return r->compile_busy_s > 0 ? r->compile_work_s / r->compile_busy_s : 0;
}
