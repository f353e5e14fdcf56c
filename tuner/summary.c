// SPDX-License-Identifier: Apache-2.0
#include "tuner/summary.h"

#include "tuner/summary_energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/sizes.h"
#include "core/term.h"

void kt_summary_change(const kt_ratio *ratio, char *out, size_t size)
{
    snprintf(out, size, "%+.1f%% [%+.1f%%, %+.1f%%]",
             100.0 * (ratio->ratio - 1), 100.0 * (ratio->lo - 1),
             100.0 * (ratio->hi - 1));
}

const kt_tune_entry *kt_summary_entry(const kt_tune_result *r,
                                      const kt_point *pt)
{
    uint64_t index;
    if (!kt_space_index(r->space, pt, &index))
        return NULL;
    for (size_t i = 0; i < r->num_entries; ++i)
        if (!r->entries[i].host_checked && r->entries[i].index == index)
            return &r->entries[i];
    return NULL;
}

/* An entry's configuration as text (kt_point_format). */
static void entry_text(const kt_tune_facts *f, const kt_tune_entry *e,
                       char *out, size_t size)
{
    kt_point pt;
    kt_space_point(f->space, e->index, &pt);
    kt_point_format(f->op, &pt, out, size);
}

int kt_summary_diagnose(const kt_tune_facts *f, const kt_tune_entry *e,
                        kt_diagnosis *out, kt_occupancy *occ)
{
    kt_diag_facts pf;
    kt_diag_facts_init(&pf, &f->space->device, f->work);
    if (f->cfg)
        pf = f->cfg->diag;
    pf.dev = &f->space->device;
    pf.work = f->work;
    pf.copy_gbs = f->copy_gbs;
    pf.peak_bw_gbs = f->peak_gbs;
    return kt_profiling_diagnose(&pf, e->timing.kernel.median, e->profile, out,
                                 occ);
}

/* The work of entry e: its own when a parameter changes it, else the
 * operator's (may be NULL). */
static const kt_work *work_of(const kt_tune_facts *f, const kt_tune_entry *e)
{
    return e && e->has_work ? &e->work : f->work;
}

static void bandwidth_text(const kt_tune_facts *f, const kt_tune_entry *e,
                           double median_us, char *out, size_t size)
{
    const kt_work *work = work_of(f, e);
    kt_derived d;
    out[0] = '\0';
    if (!work || median_us <= 0 || work->bytes_read + work->bytes_written <= 0)
        return;
    kt_derive(work, median_us, f->copy_gbs, f->peak_gbs, &d);
    if (f->copy_gbs > 0)
        snprintf(out, size, "%.1f GB/s, %.1f%% of copy", d.bandwidth_gbs,
                 d.pct_of_copy);
    else
        snprintf(out, size, "%.1f GB/s", d.bandwidth_gbs);
}

static int is_reference(const kt_tune_facts *f, const kt_point *pt)
{
    return (f->op->variants[pt->variant].flags & KT_VARIANT_REFERENCE) != 0;
}

int kt_summary_reference(const kt_tune_facts *f, const kt_tune_result *r,
                         kt_summary_ref *out)
{
    memset(out, 0, sizeof *out);
    if (!r->has_best || !r->final_measured)
        return 0;
    for (size_t i = 0; i < r->num_finals; ++i) {
        const kt_tune_final *x = &r->finals[i];
        const kt_tune_final **slot =
            is_reference(f, &x->point) ? &out->reference : &out->tuned;
        /* finals[0] is the winner, the others by median. */
        if (!*slot)
            *slot = x;
    }
    if (!out->reference || !out->tuned)
        return 0;
    out->library_wins = out->reference == &r->finals[0];
    out->ratio =
        out->library_wins ? out->tuned->vs_winner : out->reference->vs_winner;
    return 1;
}

static void print_reference(FILE *out, const kt_tune_facts *f,
                            const kt_tune_result *r)
{
    kt_summary_ref ref;
    const char *lib;
    char cfg[512];

    if (!kt_summary_reference(f, r, &ref))
        return;
    lib = f->op->variants[ref.reference->point.variant].id;
    if (!ref.library_wins) {
        fprintf(out,
                "  against the reference %s (%.3f us): the answer is %.3fx "
                "as fast, 95%% CI [%.3f, %.3f]\n",
                lib, ref.reference->stats.median, ref.ratio.ratio, ref.ratio.lo,
                ref.ratio.hi);
        return;
    }
    kt_point_format(f->op, &ref.tuned->point, cfg, sizeof cfg);
    fprintf(out,
            "  the reference %s is faster than every tuned variant: the best "
            "of them, %s, takes %.1f%% longer, 95%% CI [%.1f%%, %.1f%%]\n",
            lib, cfg, 100.0 * (ref.ratio.ratio - 1), 100.0 * (ref.ratio.lo - 1),
            100.0 * (ref.ratio.hi - 1));
}

/* The answer's own work and rate, when a parameter changes the work
 * (kt_variant.work): its GFLOP/s differ from what the time alone says. */
static void print_point_work(FILE *out, const kt_tune_entry *e,
                             double median_us)
{
    kt_derived d;
    if (!e || !e->has_work || median_us <= 0 || e->work.flops <= 0)
        return;
    kt_derive(&e->work, median_us, 0, 0, &d);
    fprintf(out,
            "  %.1f GFLOP/s of this configuration's work (%.4g flop, set by "
            "its parameters)\n",
            d.gflops, e->work.flops);
}

static void print_answer(FILE *out, const kt_tune_facts *f,
                         const kt_tune_result *r)
{
    const kt_tune_final *w = &r->finals[0];
    char cfg[512], bw[96], change[96];
    size_t tied = 0;

    kt_point_format(f->op, &w->point, cfg, sizeof cfg);
    bandwidth_text(f, kt_summary_entry(r, &w->point), w->stats.median, bw,
                   sizeof bw);
    for (size_t i = 1; i < r->num_finals; ++i)
        tied += r->finals[i].tied;
    fprintf(out, "\n%s  %s\n", tied ? "best (statistical tie)" : "best", cfg);
    fprintf(out, "  median %.3f us, 95%% CI [%.3f, %.3f], noise %.2f%%%s%s\n",
            w->stats.median, w->stats.ci_lo, w->stats.ci_hi,
            100.0 * w->stats.noise, bw[0] ? ", " : "", bw);
    print_point_work(out, kt_summary_entry(r, &w->point), w->stats.median);
    /* A replay looks its finalists' samples up: nothing is re-measured,
     * nor interleaved. */
    if (r->final_measured && f->replay)
        fprintf(out,
                "  from the closing comparison of %zu finalists on their "
                "recorded samples (a replay: nothing re-measured):\n",
                r->num_finals);
    else if (r->final_measured)
        fprintf(out,
                "  from the closing re-measurement of %zu finalists in "
                "interleaved rounds:\n",
                r->num_finals);
    for (size_t i = 1; i < r->num_finals; ++i) {
        const kt_tune_final *x = &r->finals[i];
        kt_point_format(f->op, &x->point, cfg, sizeof cfg);
        kt_summary_change(&x->vs_winner, change, sizeof change);
        fprintf(out, "    %-8s %s  %.3f us, %s vs best\n",
                x->tied ? "tied" : "slower", cfg, x->stats.median, change);
    }
    if (tied)
        fprintf(out,
                "  no measurable difference (min_gain %.1f%%) between the "
                "best and the %zu configuration(s) marked tied; any of them "
                "will do\n",
                100.0 * f->cfg->min_gain, tied);
    print_reference(out, f, r);
}

/* The path (tuner/tune_path.c): its start, each new best, the answer. */
static void print_path(FILE *out, const kt_tune_facts *f,
                       const kt_tune_result *r)
{
    char cfg[512], change[96];

    if (!r->has_path_start)
        return;
    kt_point_format(f->op, &r->path_start, cfg, sizeof cfg);
    fprintf(out, "\npath (%s: the start, each new best, the answer)\n",
            r->ran[0] ? r->ran : f->cfg->strategy->name);
    fprintf(out, "  start  %s  (%s)\n", cfg,
            r->start_kind[0] ? r->start_kind : "the first that ran");
    if (!r->num_steps)
        fprintf(out, "  no configuration beat the start: it is the answer\n");
    for (size_t i = 0; i < r->num_steps; ++i) {
        const kt_tune_step *s = &r->steps[i];
        char move[200];
        if (s->before[0] || s->after[0])
            snprintf(move, sizeof move, "%s %s -> %s", s->dim, s->before,
                     s->after);
        else
            snprintf(move, sizeof move, "%s", s->dim);
        kt_summary_change(&s->ratio, change, sizeof change);
        kt_point_format(f->op, &s->to, cfg, sizeof cfg);
        fprintf(out, "  %2zu  %-30s %-26s => %s\n", i + 1, move, change, cfg);
    }
}

/* Whether the top list shows GFLOP/s: under a GFLOP/s objective, or where
 * a parameter changes the work (the time alone does not rank the rows). */
static int top_shows_gflops(const kt_tune_facts *f,
                            const kt_tune_entry *const *list, size_t n)
{
    kt_objective o = f->cfg ? f->cfg->objective : KT_OBJ_TIME;
    int own = 0;
    for (size_t i = 0; i < n; ++i)
        own |= list[i]->has_work && list[i]->work.flops > 0;
    return own || ((o == KT_OBJ_GFLOPS || o == KT_OBJ_GFLOPS_W) && f->work &&
                   f->work->flops > 0);
}

/* One row of the top list: rank i + 1, median, GFLOP/s when shown, CI,
 * noise, bandwidth, configuration. */
static void add_top_row(kt_term_table *t, const kt_tune_facts *f,
                        const kt_tune_entry *e, size_t i, int gflops)
{
    const kt_stats *s = &e->timing.kernel;
    const kt_work *w = work_of(f, e);
    char rank[24], median[32], rate[32] = "-", ci[64], noise[32], bw[96],
                               cfg[512];
    const char *with[] = {rank, median, rate, ci, noise, bw, cfg};
    const char *without[] = {rank, median, ci, noise, bw, cfg};

    entry_text(f, e, cfg, sizeof cfg);
    bandwidth_text(f, e, s->median, bw, sizeof bw);
    snprintf(rank, sizeof rank, "%zu", i + 1);
    snprintf(median, sizeof median, "%.3f", s->median);
    if (w && w->flops > 0 && s->median > 0) {
        kt_derived d;
        kt_derive(w, s->median, 0, 0, &d);
        snprintf(rate, sizeof rate, "%.1f", d.gflops);
    }
    snprintf(ci, sizeof ci, "[%.3f, %.3f]", s->ci_lo, s->ci_hi);
    snprintf(noise, sizeof noise, "%.2f%%", 100.0 * s->noise);
    kt_term_table_add(t, gflops ? with : without);
}

static void print_top(FILE *out, const kt_tune_facts *f,
                      const kt_tune_result *r, int top)
{
    size_t n;
    const kt_tune_entry **list = kt_tune_ranked(r, &n);
    /* Left out first when the width cannot hold them: the bandwidth, the
     * interval, the noise (the median, the GFLOP/s where shown and the
     * configuration stay). */
    static const kt_term_col cols[] = {
        {"rank", 1, 0},  {"median us", 1, 0}, {"95% CI", 1, 2},
        {"noise", 1, 1}, {"bandwidth", 0, 3}, {"configuration", 0, 0}};
    static const kt_term_col rate_cols[] = {
        {"rank", 1, 0},         {"median us", 1, 0}, {"GFLOP/s", 1, 0},
        {"95% CI", 1, 2},       {"noise", 1, 1},     {"bandwidth", 0, 3},
        {"configuration", 0, 0}};
    kt_term_table t;
    int gflops;

    if (!list || !n) {
        free(list);
        return;
    }
    gflops = top_shows_gflops(f, list, n < (size_t)top ? n : (size_t)top);
    fprintf(out, "\ntop %zu of %zu measured (each from its own measurement)\n",
            n < (size_t)top ? n : (size_t)top, n);
    if (gflops)
        kt_term_table_init(&t, rate_cols, sizeof rate_cols / sizeof *rate_cols);
    else
        kt_term_table_init(&t, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n && i < (size_t)top; ++i)
        add_top_row(&t, f, list[i], i, gflops);
    kt_term_table_print(out, &t, 2, f->width);
    kt_term_table_free(&t);
    free(list);
}

/* A table cell with `decimals` decimals, "-" when not known. */
static void cell(double v, int decimals, char *out, size_t size)
{
    if (isnan(v))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.*f", decimals, v);
}

/* The counters of the top rows that were profiled, and the diagnosis of the
 * answer. */
static void print_counters(FILE *out, const kt_tune_facts *f,
                           const kt_tune_result *r, int top)
{
    const kt_profiling_spec *spec = r->profiling;
    const kt_tune_entry **list;
    const kt_tune_entry *best;
    size_t n, shown = 0;
    char cfg[512];
    static const kt_term_col cols[] = {
        {"rank", 1, 0},  {"ld s/req", 1, 2},     {"st s/req", 1, 2},
        {"occ %", 1, 4}, {"theo %", 1, 5},       {"DRAM %", 1, 3},
        {"class", 0, 1}, {"configuration", 0, 0}};
    kt_term_table t;

    if (!spec || !r->profiled)
        return;
    list = kt_tune_ranked(r, &n);
    if (!list)
        return;
    fprintf(out,
            "\ncounters: %zu point(s) profiled (%s), from launches of their "
            "own: no time is taken from them\n",
            r->profiled, kt_profiling_points_name(spec->points));
    if (r->counters_note[0])
        fprintf(out, "  no hardware counters: %s\n", r->counters_note);
    kt_term_table_init(&t, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n && (int)i < top; ++i) {
        const kt_tune_entry *e = list[i];
        kt_diagnosis d;
        kt_occupancy occ;
        char rank[24], ld[16], st[16], ach[16], theo[16], dram[16], cls[64];
        const char *row[] = {rank, ld, st, ach, theo, dram, cls, cfg};
        int have_occ;
        if (!e->profile)
            continue;
        ++shown;
        snprintf(rank, sizeof rank, "%zu", i + 1);
        have_occ = kt_summary_diagnose(f, e, &d, &occ);
        cell(e->profile->by_id[KT_M_LD_SECTORS_PER_REQUEST], 2, ld, sizeof ld);
        cell(e->profile->by_id[KT_M_ST_SECTORS_PER_REQUEST], 2, st, sizeof st);
        cell(e->profile->by_id[KT_M_ACHIEVED_OCCUPANCY], 1, ach, sizeof ach);
        cell(have_occ ? occ.theoretical : NAN, 1, theo, sizeof theo);
        cell(d.dram_pct, 1, dram, sizeof dram);
        snprintf(cls, sizeof cls, "%s%s%s%s", kt_bound_name(d.bound),
                 d.unit ? " (" : "", d.unit ? d.unit : "", d.unit ? ")" : "");
        entry_text(f, e, cfg, sizeof cfg);
        kt_term_table_add(&t, row);
    }
    if (shown)
        kt_term_table_print(out, &t, 2, f->width);
    kt_term_table_free(&t);
    free(list);
    if (!shown)
        fprintf(out, "  none of the top %d was profiled\n", top);
    best = r->has_best ? kt_summary_entry(r, &r->finals[0].point) : NULL;
    if (best && best->profile && best->status == KT_EVAL_OK) {
        kt_diagnosis d;
        kt_summary_diagnose(f, best, &d, NULL);
        entry_text(f, best, cfg, sizeof cfg);
        fprintf(out, "  best %s: %s%s%s%s: %s\n", cfg, kt_bound_name(d.bound),
                d.unit ? " (" : "", d.unit ? d.unit : "", d.unit ? ")" : "",
                d.why);
        if (d.coalescing[0])
            fprintf(out, "  coalescing: %s\n", d.coalescing);
        if (d.profiled[0])
            fprintf(out, "  profiled: %s\n", d.profiled);
        if (d.l2_hit_note[0])
            fprintf(out, "  l2 hits: %s\n", d.l2_hit_note);
    }
}

static void print_invalid(FILE *out, const kt_tune_facts *f,
                          const kt_tune_result *r)
{
    size_t by_status[KT_EVAL_TIMEOUT + 1] = {0}, shown = 0, failed = 0;
    char cfg[512];

    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        if (!e->host_checked && e->status != KT_EVAL_OK)
            ++by_status[e->status];
        failed += e->host_checked && e->status == KT_EVAL_ERROR;
    }
    if (r->host_invalid > failed)
        fprintf(out, "\n%zu point(s) refused on the host (%s), never run\n",
                r->host_invalid - failed,
                f->replay_note ? "not in the recording: outside its space"
                               : "constraint or device limit");
    if (failed)
        fprintf(out,
                "\n%zu point(s) where the plugin's check() or shape() "
                "failed on the host, never run\n",
                failed);
    for (int s = KT_EVAL_INVALID; s <= KT_EVAL_TIMEOUT; ++s) {
        if (!by_status[s])
            continue;
        fprintf(out, "%s%zu point(s) %s, skipped:\n", shown ? "" : "\n",
                by_status[s], kt_eval_status_name((kt_eval_status)s));
        ++shown;
        for (size_t i = 0, listed = 0; i < r->num_entries && listed < 3; ++i) {
            const kt_tune_entry *e = &r->entries[i];
            if (e->host_checked || e->status != (kt_eval_status)s)
                continue;
            entry_text(f, e, cfg, sizeof cfg);
            fprintf(out, "  %s: %s\n", cfg, e->reason);
            ++listed;
        }
    }
}

/* Where the wall time went, phase by phase (tune.h, kt_eval_phases). */
static void print_time(FILE *out, const kt_tune_result *r)
{
    const kt_eval_phases *p = &r->phases;
    double total = kt_tune_total_s(r);
    double inside = p->setup_s + p->verify_s + p->warmup_s + p->sampling_s;
    double strategy = r->wall_s - r->evaluator_s - r->journal_s - r->profile_s;

    if (r->calls == 0)
        return;
    fprintf(out,
            "\ntime %.2f s: process start %.2f s, start %.2f s (plugins, "
            "job, evaluator, problem set-up), calibration %.2f s, run %.2f "
            "s, release %.2f s (the evaluator letting go of the device)\n",
            total, r->exec_s, r->open_s, r->calibration_s, r->wall_s,
            r->close_s);
    fprintf(out,
            "  evaluator %.2f s: set-up %.2f, verification %.2f, warm-up "
            "%.2f, sampling %.2f (kernels %.2f, L2 flushes %.2f, clock "
            "probes %.2f), other %.2f (messages, results)\n",
            r->evaluator_s, p->setup_s, p->verify_s, p->warmup_s, p->sampling_s,
            r->gpu_s, p->flush_s, p->probe_s, r->evaluator_s - inside);
    fprintf(out, "  journal %.2f s, strategy %.2f s", r->journal_s, strategy);
    if (r->profile_s > 0)
        fprintf(out, ", counters %.2f s", r->profile_s);
    if (r->gpu_s > 0)
        fprintf(out, "; wall time %.2fx the sampled kernel time",
                total / r->gpu_s);
    fprintf(out, "\n");
}

/* With several workers: each one's calls and busy time, and the ones
 * retired after a failure. */
static void print_workers(FILE *out, const kt_tune_result *r)
{
    if (r->num_workers < 2)
        return;
    fprintf(out,
            "%zu workers (each comparison on one of them):", r->num_workers);
    for (size_t i = 0; i < r->num_workers; ++i) {
        const kt_pool_stats *w = &r->worker_stats[i];
        fprintf(out, "%s %zu: %zu calls, %.1f s busy%s", i ? ";" : "", i,
                w->calls, w->busy_s, w->lost ? ", lost some" : "");
        if (w->retired)
            fprintf(out, " (retired: %s)", w->why);
    }
    fprintf(out, "\n");
}

/* Run-time compilation, when a kernel compiled (docs/declared.md): NVRTC's
 * count, the pool's time, and how far its hints kept it ahead. */
static void print_compile(FILE *out, const kt_tune_result *r)
{
    if (r->compiled || r->compile_cache_hits || r->compile_failed)
        fprintf(out,
                "compiled %zu kernel(s) with NVRTC (%.2f s of compile time, "
                "outside the measured regions), %zu read from the cache, %zu "
                "did not compile\n",
                r->compiled, r->compile_s, r->compile_cache_hits,
                r->compile_failed);
    if (r->compiled || r->compile_busy_s > 0)
        fprintf(out,
                "compile pool: %d thread(s), %.2f s wall with a compile "
                "running, %.2f s of compile CPU; the GPU waited %.2f s on "
                "compiles (%.1f%% of the run)\n",
                r->compile_threads, r->compile_busy_s, r->compile_cpu_s,
                r->compile_wait_s, 100.0 * kt_tune_compile_idle(r));
    if (r->compiled && r->compile_busy_s > 0)
        /* Issue 54: how close compiling came to the host's capacity. */
        fprintf(out,
                "compile occupancy: %.1f compiles at once while compiling "
                "(%.1f CPUs busy compiling) of %d; %.2f CPU-s per compile\n",
                kt_tune_compile_parallel(r),
                r->compile_cpu_s / r->compile_busy_s, r->compile_threads,
                r->compile_cpu_s / (double)r->compiled);
    if (r->compiled || r->compile_taken)
        fprintf(out,
                "compile: %zu kernel(s) taken by verification, %zu compiled "
                "or compiling ahead (hinted), %zu hinted but not started "
                "(compiled while the GPU waited), %zu never hinted; %.1f "
                "compile(s) at once while compiling (peak %zu)\n",
                r->compile_taken,
                r->compile_taken - r->compile_took_queued - r->compile_unhinted,
                r->compile_took_queued, r->compile_unhinted,
                kt_tune_compile_parallel(r), r->compile_peak);
}

/* max_seconds as the command's wall time (tuner/tune_budget.c): the
 * budget, the time used from the process's start to the summary, and its
 * parts. A replay of another tool's recording keeps that tool's simulated
 * clock, said in its own paragraph. */
static void print_budget(FILE *out, const kt_tune_facts *f,
                         const kt_tune_result *r)
{
    if (!(f->cfg->max_seconds > 0) || f->replay_note)
        return;
    fprintf(out,
            "budget max_seconds %g s, used %.1f s from start to exit: "
            "before the search %.1f s, search %.1f s, closing %.1f s "
            "(finalists%s, outputs), release %.1f s",
            f->cfg->max_seconds, kt_tune_total_s(r), r->budget_before_s,
            r->search_s, r->closing_s,
            kt_summary_energy_asked(f->cfg) ? ", energy" : "", r->close_s);
    if (r->budget_reserve_s > 0)
        fprintf(out, "; the search stopped with %.1f s kept for the closing",
                r->budget_reserve_s);
    fprintf(out, "\n");
    if (r->budget_left_out[0])
        fprintf(out, "  left out for the budget: %s\n", r->budget_left_out);
}

static void print_summary(FILE *out, const kt_tune_facts *f,
                          const kt_tune_result *r, int top)
{
    char sizes[256], budget[128] = "";

    kt_format_sizes(f->op, f->sizes, sizes, sizeof sizes);
    fprintf(out, "%s  %s  on %s", f->spec, sizes,
            f->device_name ? f->device_name : "?");
    if (f->replay)
        fprintf(out, "  (replay of %s)", f->replay);
    fprintf(out, "\n");
    if (f->replay_note)
        fprintf(out, "This run %s\n", f->replay_note);
    if (f->cfg->max_evals)
        snprintf(budget, sizeof budget, ", max_evals %zu", f->cfg->max_evals);
    if (f->cfg->max_seconds > 0) {
        size_t used = strlen(budget);
        snprintf(budget + used, sizeof budget - used, ", max_seconds %g",
                 f->cfg->max_seconds);
    }
    fprintf(out, "strategy %s%s%s, seed %llu%s; stopped: %s after %.1f s\n",
            f->strategy_alias ? f->strategy_alias : "",
            f->strategy_alias ? " -> " : "", f->cfg->strategy->name,
            (unsigned long long)f->cfg->seed, budget, r->stop_reason,
            r->elapsed_s);
    print_budget(out, f, r);
    if (r->ran[0])
        fprintf(out, "  ran %s: %s\n", r->ran, r->ran_why);
    fprintf(out, "space %llu point(s)", (unsigned long long)f->space->size);
    if (r->feasible_known)
        fprintf(out,
                f->replay_note ? ", %llu recorded"
                               : ", %llu feasible on this device",
                (unsigned long long)r->feasible);
    fprintf(out, "; %zu evaluated", r->evaluations);
    if (r->feasible_known && r->feasible)
        fprintf(out, " (%.0f%%)",
                100.0 * (double)r->evaluations / (double)r->feasible);
    fprintf(out, ", %zu verified and timed", r->measured);
    if (r->from_journal)
        fprintf(out, ", %zu from the journal", r->from_journal);
    fprintf(out, "\n");
    print_compile(out, r);
    print_workers(out, r);
    if (f->journal)
        fprintf(out, "journal %s\n", f->journal);
    if (r->has_best) {
        print_answer(out, f, r);
        /* A replay of a recording made without energy says nothing,
         * unless energy was not asked for (said whatever the evaluator). */
        if (!f->replay || r->finals[0].energy.measured ||
            (!f->replay_note && !kt_summary_energy_asked(f->cfg)))
            kt_summary_energy(out, f, r);
    } else
        fprintf(out, "\nno valid configuration found%s%s\n",
                r->note[0] ? ": " : "", r->note);
    if (f->replay && f->has_optimum) {
        char cfg[512];
        kt_point_format(f->op, &f->optimum, cfg, sizeof cfg);
        fprintf(out, "  recorded optimum %s, %.3f us", cfg,
                f->optimum_stats.median);
        if (r->has_best)
            /* Under a throughput objective, its cost: time per unit of
             * work, so + is worse there too. */
            fprintf(out, " (the answer's recorded %s%s is %+.1f%% off it)",
                    f->cfg && f->cfg->objective != KT_OBJ_TIME ? "cost by "
                                                               : "",
                    kt_objective_name(f->cfg ? f->cfg->objective : KT_OBJ_TIME),
                    100.0 * (kt_summary_vs_optimum(f, r) - 1));
        fprintf(out, "\n");
    }
    print_path(out, f, r);
    print_top(out, f, r, top);
    print_counters(out, f, r, top);
    print_invalid(out, f, r);
    if (!f->replay)
        print_time(out, r);
}

void kt_summary_print(FILE *out, const kt_tune_facts *f,
                      const kt_tune_result *r, int top)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = f->width > 0 ? open_memstream(&text, &len) : NULL;

    if (!mem) {
        print_summary(out, f, r, top);
        return;
    }
    print_summary(mem, f, r, top);
    if (fclose(mem) == 0)
        kt_term_wrap(out, text, len, f->width);
    else
        print_summary(out, f, r, top);
    free(text);
}

double kt_summary_vs_optimum(const kt_tune_facts *f, const kt_tune_result *r)
{
    double c = r->finals[0].cost;
    if (f->optimum_cost > 0 && isfinite(f->optimum_cost) && c > 0 &&
        isfinite(c))
        return c / f->optimum_cost;
    return r->finals[0].stats.median / f->optimum_stats.median;
}
