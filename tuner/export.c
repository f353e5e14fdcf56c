// SPDX-License-Identifier: Apache-2.0
#include "tuner/export.h"

#include "core/energy_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/csv.h"
#include "core/derive.h"
#include "core/envrec.h"
#include "core/outfile.h"
#include "core/result_json.h"
#include "metrics/record.h"
#include "tuner/summary_energy.h"

/* ------------------------------------------------------------ summary */

static json_t *number_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* {"variant", "params", "config", ...} of a point. */
static json_t *point_json(const kt_tune_facts *f, const kt_point *pt)
{
    json_t *j = kt_point_to_json(f->op, pt);
    char text[512];
    kt_point_format(f->op, pt, text, sizeof text);
    json_object_set_new(j, "config", json_string(text));
    return j;
}

static void add_derived(const kt_tune_facts *f, json_t *j, double median_us)
{
    kt_derived d;
    if (!f->work || median_us <= 0)
        return;
    kt_derive(f->work, median_us, f->copy_gbs, f->peak_gbs, &d);
    json_object_set_new(j, "bandwidth_gbs", json_real(d.bandwidth_gbs));
    if (f->copy_gbs > 0)
        json_object_set_new(j, "pct_of_copy", json_real(d.pct_of_copy));
}

static json_t *stats_point(const kt_tune_facts *f, const kt_point *pt,
                           const kt_stats *s)
{
    json_t *j = point_json(f, pt);
    json_object_set_new(j, "median_us", json_real(s->median));
    json_object_set_new(j, "ci_lo_us", json_real(s->ci_lo));
    json_object_set_new(j, "ci_hi_us", json_real(s->ci_hi));
    json_object_set_new(j, "noise", json_real(s->noise));
    json_object_set_new(j, "samples", json_integer((json_int_t)s->n));
    add_derived(f, j, s->median);
    return j;
}

/* The samples a point's statistics come from (us), for `ktune diff`. */
static json_t *kept_samples(const kt_timing *t)
{
    json_t *list = json_array();
    for (size_t k = 0; t->samples_us && k < t->num_rounds; ++k)
        if (isfinite(t->samples_us[k]))
            json_array_append_new(list, json_real(t->samples_us[k]));
    return list;
}

/* The counters, kernel facts and diagnosis of a profiled point (its entry
 * e, may be NULL), added to its summary object j. The entry is handed in,
 * not looked up by point: a lookup is a scan of every entry, and the top
 * list of --json holds every measured point (a 1e6-point replay spent
 * minutes here, issue 54). */
static void add_profile(const kt_tune_facts *f, const kt_tune_result *r,
                        json_t *j, const kt_tune_entry *e)
{
    const kt_profiling_point *p = e ? e->profile : NULL;
    const kt_profiling_spec *spec = r->profiling;
    json_t *counters;
    kt_diagnosis d;
    kt_occupancy occ;
    int have_occ;

    if (!p || !spec || e->status != KT_EVAL_OK)
        return;
    have_occ = kt_summary_diagnose(f, e, &d, &occ);
    counters = json_object();
    for (size_t k = 0; k < spec->set.num_items; ++k) {
        const kt_metric_item *item = &spec->set.items[k];
        double v = NAN;
        if (item->def)
            v = p->by_id[item->def->id];
        else if (p->counters == KT_S_OK)
            v = p->raw[item->raw[0]];
        if (item->def && item->def->id == KT_M_THEORETICAL_OCCUPANCY)
            v = have_occ ? occ.theoretical : NAN;
        json_object_set_new(counters, item->name, number_or_null(v));
    }
    json_object_set_new(j, "counters", counters);
    json_object_set_new(j, "counters_collected",
                        json_boolean(p->counters == KT_S_OK));
    if (p->note[0])
        json_object_set_new(j, "counters_note", json_string(p->note));
    json_object_set_new(
        j, "kernel", kt_kernel_info_json(&p->kernel, have_occ ? &occ : NULL));
    json_object_set_new(j, "diagnosis", kt_diagnosis_json(&d));
}

static json_t *metrics_json(const kt_tune_result *r)
{
    json_t *m = kt_profiling_spec_json(r->profiling);
    json_object_set_new(m, "profiled", json_integer((json_int_t)r->profiled));
    json_object_set_new(m, "from_journal",
                        json_integer((json_int_t)r->profiled_from_journal));
    json_object_set_new(m, "passes",
                        json_integer((json_int_t)r->profile_passes));
    json_object_set_new(m, "profile_s", json_real(r->profile_s));
    json_object_set_new(m, "unavailable",
                        r->counters_note[0] ? json_string(r->counters_note)
                                            : json_null());
    return m;
}

static json_t *ratio_json(const kt_ratio *r)
{
    return json_pack("{s:f,s:f,s:f,s:I}", "ratio", r->ratio, "lo", r->lo, "hi",
                     r->hi, "rounds", (json_int_t)r->n);
}

/* The run's energy: the objective, the time-best and energy-best
 * finalists with their paired differences, and every point measured with
 * energy (time and joules per launch: the report's time-energy chart). */
static json_t *energy_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    const kt_tune_tradeoff *x = &r->tradeoff;
    json_t *j = json_pack("{s:s,s:b}", "objective",
                          kt_objective_name(f->cfg->objective), "asked",
                          kt_summary_energy_asked(f->cfg)),
           *pts = json_array();

    if (x->have)
        json_object_set_new(
            j, "tradeoff",
            json_pack("{s:o,s:o,s:b,s:o,s:o}", "time_best",
                      point_json(f, &x->time_best), "energy_best",
                      point_json(f, &x->energy_best), "same",
                      kt_point_equal(&x->time_best, &x->energy_best),
                      "time_ratio", ratio_json(&x->time), "energy_ratio",
                      ratio_json(&x->energy)));
    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        json_t *p;
        kt_point pt;
        if (e->status != KT_EVAL_OK || !e->energy || !e->energy->measured)
            continue;
        pt = kt_tune_entry_point(r, e);
        p = point_json(f, &pt);
        json_object_set_new(p, "median_us", json_real(e->timing.kernel.median));
        json_object_set_new(p, "joules", json_real(e->energy->joules.median));
        json_array_append_new(pts, p);
    }
    for (size_t i = 0; i < r->num_finals; ++i) {
        const kt_tune_final *fi = &r->finals[i];
        json_t *p;
        if (!fi->energy.measured)
            continue;
        p = point_json(f, &fi->point);
        json_object_set_new(p, "median_us", json_real(fi->stats.median));
        json_object_set_new(p, "joules", json_real(fi->energy.joules.median));
        json_object_set_new(p, "final", json_true());
        json_array_append_new(pts, p);
    }
    json_object_set_new(j, "points", pts);
    return j;
}

/* The answer against the reference variant of the closing round
 * (kt_summary_reference), or null. */
static json_t *reference_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    kt_summary_ref ref;
    if (!kt_summary_reference(f, r, &ref))
        return json_null();
    return json_pack("{s:s,s:f,s:s,s:o}", "variant",
                     f->op->variants[ref.reference->point.variant].id,
                     "median_us", ref.reference->stats.median, "winner",
                     ref.library_wins ? "reference" : "tuned",
                     ref.library_wins ? "tuned_vs_reference"
                                      : "speedup_vs_reference",
                     ratio_json(&ref.ratio));
}

static json_t *strategy_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    const kt_tune_config *c = f->cfg;
    json_t *opts = json_object();
    for (size_t i = 0; i < c->strategy->num_options; ++i)
        json_object_set_new(opts, c->strategy->options[i].name,
                            json_real(c->options[i]));
    json_t *j = json_pack("{s:s,s:I,s:I,s:f,s:I,s:f,s:o}", "name",
                          c->strategy->name, "seed", (json_int_t)c->seed,
                          "max_evals", (json_int_t)c->max_evals, "max_seconds",
                          c->max_seconds, "finalists", (json_int_t)c->finalists,
                          "min_gain", c->min_gain, "options", opts);
    /* What searched (auto's choice) and why, and how the search began. */
    if (j && r && r->ran[0]) {
        json_object_set_new(j, "ran", json_string(r->ran));
        json_object_set_new(j, "why", json_string(r->ran_why));
    }
    if (j && r && r->start_kind[0])
        json_object_set_new(j, "start", json_string(r->start_kind));
    return j;
}

/* The best cost by the objective after each evaluation (the entries'
 * running minimum, null before the first measured): the curve that
 * "trace", the time of that best point, follows; under an objective other
 * than time that time may rise while this never does. */
static json_t *trace_objective(const kt_tune_facts *f, const kt_tune_result *r)
{
    kt_objective o = f->cfg->objective;
    json_t *best = json_array();
    double low = INFINITY;
    size_t done = 0;

    for (size_t i = 0; best && i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        if (!e->order || e->order > r->evaluations)
            continue;
        if (e->status == KT_EVAL_OK && isfinite(e->cost) && e->cost < low)
            low = e->cost;
        /* Evaluations are numbered in visiting order: fill up to e's. */
        for (; done < e->order; ++done)
            json_array_append_new(best, number_or_null(low));
    }
    for (; best && done < r->evaluations; ++done)
        json_array_append_new(best, number_or_null(low));
    return json_pack("{s:s,s:s,s:o}", "objective", kt_objective_name(o), "unit",
                     kt_objective_unit(o), "best", best);
}

/* The points that did not run, the time of the best point after each
 * evaluation (trace) and the best by the objective (trace_objective). */
static void add_invalid_and_traces(json_t *root, const kt_tune_facts *f,
                                   const kt_tune_result *r)
{
    json_t *list = json_array();
    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        json_t *x;
        kt_point pt;
        if (e->status == KT_EVAL_OK)
            continue;
        pt = kt_tune_entry_point(r, e);
        x = point_json(f, &pt);
        json_object_set_new(x, "status",
                            json_string(kt_eval_status_name(e->status)));
        json_object_set_new(x, "reason", json_string(e->reason));
        json_object_set_new(x, "host_checked", json_boolean(e->host_checked));
        json_array_append_new(list, x);
    }
    json_object_set_new(root, "invalid", list);
    list = json_array();
    for (size_t i = 0; i < r->evaluations; ++i)
        json_array_append_new(list, number_or_null(r->trace[i]));
    json_object_set_new(root, "trace", list);
    json_object_set_new(root, "trace_objective", trace_objective(f, r));
}

json_t *kt_export_phases(const kt_tune_result *r)
{
    const kt_eval_phases *p = &r->phases;
    double inside = p->setup_s + p->verify_s + p->warmup_s + p->sampling_s;
    return json_pack(
        "{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
        "total_s", kt_tune_total_s(r), "exec_s", r->exec_s, "start_s",
        r->open_s, "close_s", r->close_s, "calibration_s", r->calibration_s,
        "setup_s", p->setup_s, "verify_s", p->verify_s, "warmup_s", p->warmup_s,
        "sampling_s", p->sampling_s, "kernels_s", r->gpu_s, "flush_s",
        p->flush_s, "probe_s", p->probe_s, "evaluator_other_s",
        r->evaluator_s - inside, "journal_s", r->journal_s, "strategy_s",
        r->wall_s - r->evaluator_s - r->journal_s - r->profile_s);
}

/* With several workers: what each did (docs/multigpu.md). */
static json_t *workers_json(const kt_tune_result *r)
{
    json_t *list = json_array();
    for (size_t i = 0; i < r->num_workers; ++i) {
        const kt_pool_stats *w = &r->worker_stats[i];
        json_t *x = json_pack("{s:I,s:I,s:f,s:b}", "calls",
                              (json_int_t)w->calls, "lost", (json_int_t)w->lost,
                              "busy_s", w->busy_s, "retired", w->retired);
        if (w->retired)
            json_object_set_new(x, "why", json_string(w->why));
        json_array_append_new(list, x);
    }
    return list;
}

/* How the compile pool kept ahead of the GPU (docs/declared.md). */
static json_t *compile_json(const kt_tune_result *r)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:f,s:I,s:f,s:f,s:f,s:f}", "taken",
                     (json_int_t)r->compile_taken, "ahead",
                     (json_int_t)(r->compile_taken - r->compile_took_queued -
                                  r->compile_unhinted),
                     "took_queued", (json_int_t)r->compile_took_queued,
                     "unhinted", (json_int_t)r->compile_unhinted, "parallel",
                     kt_tune_compile_parallel(r), "peak_running",
                     (json_int_t)r->compile_peak, "work_s", r->compile_work_s,
                     "busy_s", r->compile_busy_s, "gpu_wait_s",
                     r->compile_wait_s, "gpu_idle_fraction",
                     kt_tune_compile_idle(r));
}

/* Run-time compilation, when a kernel compiled: NVRTC's side
 * ("compilation") and the pool's hints ("compile"). */
static void add_compilation(json_t *root, const kt_tune_result *r)
{
    if (r->compiled || r->compile_cache_hits || r->compile_failed)
        json_object_set_new(
            root, "compilation",
            json_pack(
                "{s:f,s:I,s:I,s:I,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "seconds",
                r->compile_s, "compiled", (json_int_t)r->compiled, "cache_hits",
                (json_int_t)r->compile_cache_hits, "failed",
                (json_int_t)r->compile_failed, "threads", r->compile_threads,
                "wall_s", r->compile_busy_s, "cpu_s", r->compile_cpu_s,
                "gpu_wait_s", r->compile_wait_s, "gpu_idle_fraction",
                kt_tune_compile_idle(r), "occupancy",
                kt_tune_compile_parallel(r), "cpus_busy",
                r->compile_busy_s > 0 ? r->compile_cpu_s / r->compile_busy_s
                                      : 0.0,
                "cpu_per_compile_s",
                r->compiled ? r->compile_cpu_s / (double)r->compiled : 0.0));
    if (r->compiled || r->compile_taken)
        json_object_set_new(root, "compile", compile_json(r));
}

/* The search path: its start (a step from nowhere, ratio 1), then each
 * adopted change. */
static json_t *path_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    json_t *list;

    list = json_array();
    if (r->has_path_start) {
        kt_ratio one = {0, 1, 1, 1};
        json_t *st = json_pack(
            "{s:s,s:s,s:s,s:o,s:o,s:s}", "dim", "start", "from", "", "to", "",
            "change", ratio_json(&one), "config", point_json(f, &r->path_start),
            "start", r->start_kind[0] ? r->start_kind : "the first that ran");
        json_array_append_new(list, st);
    }
    for (size_t i = 0; i < r->num_steps; ++i) {
        const kt_tune_step *s = &r->steps[i];
        json_t *step =
            json_pack("{s:s,s:s,s:s,s:o,s:o}", "dim", s->dim, "from", s->before,
                      "to", s->after, "change", ratio_json(&s->ratio), "config",
                      point_json(f, &s->to));
        json_array_append_new(list, step);
    }
    return list;
}

/* The one clock: the budget and where the time went (tune_budget.c). */
static json_t *budget_json(const kt_tune_facts *f, const kt_tune_result *r)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:s}", "max_seconds",
                     f->cfg->max_seconds, "used_s", kt_tune_total_s(r),
                     "before_search_s", r->budget_before_s, "search_s",
                     r->search_s, "closing_s", r->closing_s, "reserve_s",
                     r->budget_reserve_s, "simulated", f->replay_note != NULL,
                     "left_out", r->budget_left_out);
}

/* One point of the top list: its statistics, samples and profile. */
static json_t *top_point(const kt_tune_facts *f, const kt_tune_result *r,
                         const kt_tune_entry *e)
{
    kt_point pt = kt_tune_entry_point(r, e);
    json_t *x = stats_point(f, &pt, &e->timing.kernel);
    json_object_set_new(x, "samples_us", kept_samples(&e->timing));
    add_profile(f, r, x, e);
    return x;
}

/* The placeholder kt_export_json streams the top list into: a string no
 * other value holds (a C string never holds a NUL). */
#define TOP_MARK "\0ktune-top"
#define TOP_MARK_TEXT "\"\\u0000ktune-top\""

/* The summary; with stream set, "top" is the placeholder TOP_MARK and
 * the list is left to the caller. */
static json_t *summary(const kt_tune_facts *f, const kt_tune_result *r, int top,
                       int stream)
{
    json_t *root, *sizes = json_object(), *list;
    size_t ranked_n = 0, fresh = r->evaluations - r->from_journal;
    const kt_tune_entry **ranked = stream ? NULL : kt_tune_ranked(r, &ranked_n);
    double overhead = r->wall_s - r->evaluator_s;

    for (uint32_t i = 0; i < f->op->num_sizes; ++i)
        json_object_set_new(sizes, f->op->sizes[i].name,
                            json_integer(f->sizes[i]));
    root = json_pack(
        "{s:s,s:i,s:s,s:s,s:s,s:o,s:s,s:o,s:o,s:{s:I,s:o},s:I,s:I,s:I,s:I,"
        "s:s,s:f}",
        "kind", "ktune.tune", "format", 1, "spec", f->spec, "plugin",
        f->plugin->desc.name, "operator", f->op->id, "sizes", sizes, "device",
        f->device_name ? f->device_name : "", "strategy", strategy_json(f, r),
        "protocol", kt_env_protocol(&f->cfg->protocol), "space", "size",
        (json_int_t)f->space->size, "feasible",
        r->feasible_known ? json_integer((json_int_t)r->feasible) : json_null(),
        "evaluations", (json_int_t)r->evaluations, "measured",
        (json_int_t)r->measured, "host_invalid", (json_int_t)r->host_invalid,
        "from_journal", (json_int_t)r->from_journal, "stop_reason",
        r->stop_reason, "elapsed_s", r->elapsed_s);
    json_object_set_new(root, "budget", budget_json(f, r));
    if (f->environment)
        json_object_set(root, "environment", f->environment);
    if (f->journal)
        json_object_set_new(root, "journal", json_string(f->journal));
    add_compilation(root, r);
    json_object_set_new(
        root, "overhead",
        json_pack(
            "{s:f,s:f,s:f,s:f,s:I,s:o}", "wall_s", r->wall_s, "evaluator_s",
            r->evaluator_s, "gpu_s", r->gpu_s, "tuner_s", overhead, "calls",
            (json_int_t)r->calls, "tuner_ms_per_evaluation",
            fresh ? json_real(1e3 * overhead / (double)fresh) : json_null()));
    json_object_set_new(root, "phases", kt_export_phases(r));
    if (r->num_workers > 1)
        json_object_set_new(root, "workers", workers_json(r));
    if (r->has_best) {
        json_t *tie = json_array(), *finals = json_array();
        json_t *best = stats_point(f, &r->finals[0].point, &r->finals[0].stats);
        add_profile(f, r, best, kt_summary_entry(r, &r->finals[0].point));
        json_object_set_new(root, "best", best);
        for (size_t i = 0; i < r->num_finals; ++i) {
            json_t *x =
                stats_point(f, &r->finals[i].point, &r->finals[i].stats);
            json_object_set_new(x, "vs_best",
                                ratio_json(&r->finals[i].vs_winner));
            json_object_set_new(x, "tied", json_boolean(r->finals[i].tied));
            if (r->finals[i].energy.measured || r->finals[i].energy.note[0])
                json_object_set_new(x, "energy",
                                    kt_energy_to_json(&r->finals[i].energy));
            if (r->finals[i].tied)
                json_array_append(tie, x);
            json_array_append_new(finals, x);
        }
        json_object_set_new(root, "tie", tie);
        json_object_set_new(root, "finalists", finals);
        json_object_set_new(root, "reference", reference_json(f, r));
        json_object_set_new(root, "finalists_remeasured",
                            json_boolean(r->final_measured));
        json_object_set_new(root, "energy", energy_json(f, r));
    } else {
        json_object_set_new(root, "best", json_null());
    }
    list = stream ? json_stringn(TOP_MARK, sizeof TOP_MARK - 1) : json_array();
    for (size_t i = 0; ranked && i < ranked_n && i < (size_t)top; ++i)
        json_array_append_new(list, top_point(f, r, ranked[i]));
    json_object_set_new(root, "top", list);
    free(ranked);
    json_object_set_new(root, "path", path_json(f, r));
    add_invalid_and_traces(root, f, r);
    if (r->profiling)
        json_object_set_new(root, "metrics", metrics_json(r));
    if (f->replay) {
        json_t *rep = json_pack("{s:s}", "recording", f->replay);
        if (f->has_optimum) {
            json_object_set_new(rep, "recorded_optimum",
                                stats_point(f, &f->optimum, &f->optimum_stats));
            if (r->has_best)
                json_object_set_new(rep, "best_vs_optimum",
                                    json_real(kt_summary_vs_optimum(f, r)));
        }
        json_object_set_new(
            rep, "fraction_evaluated",
            r->feasible_known && r->feasible
                ? json_real((double)r->evaluations / (double)r->feasible)
                : json_null());
        /* Another tool's recording: what its replay means, and that
         * elapsed_s is simulated time (records/replay_ext.h). */
        if (f->replay_note)
            json_object_set_new(rep, "external", json_string(f->replay_note));
        json_object_set_new(root, "replay", rep);
    }
    return root;
}

json_t *kt_export_summary(const kt_tune_facts *f, const kt_tune_result *r,
                          int top)
{
    return summary(f, r, top, 0);
}

/* text with a nested level's indent (4 spaces) after each line break. */
static int put_indented(FILE *out, const char *text)
{
    for (const char *c = text; *c; ++c)
        if (fputc(*c, out) == EOF || (*c == '\n' && fputs("    ", out) == EOF))
            return -1;
    return 0;
}

/* The top list where the placeholder stood, one point made and written at
 * a time, as json_dumpf's JSON_INDENT(2) would have written it. */
static int put_top(FILE *out, const kt_tune_facts *f, const kt_tune_result *r,
                   int top)
{
    size_t n = 0;
    const kt_tune_entry **ranked = kt_tune_ranked(r, &n);
    int rc = fputc('[', out) == EOF;

    for (size_t i = 0; !rc && ranked && i < n && i < (size_t)top; ++i) {
        json_t *x = top_point(f, r, ranked[i]);
        char *text = x ? json_dumps(x, JSON_INDENT(2)) : NULL;
        rc = !text || fputs(i ? ",\n    " : "\n    ", out) == EOF ||
             put_indented(out, text);
        free(text);
        json_decref(x);
    }
    if (!rc && ranked && n && top > 0)
        rc = fputs("\n  ", out) == EOF;
    free(ranked);
    return !rc && fputc(']', out) != EOF ? 0 : -1;
}

/* The summary written with its top list streamed: a replay's lists every
 * point measured, and as one document 1e6 points held 3.7 GB of JSON
 * values (issue 54); here one point's at a time. */
kt_status kt_export_json(const char *path, const kt_tune_facts *f,
                         const kt_tune_result *r, int top, kt_err *err)
{
    json_t *root = summary(f, r, top, 1);
    char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
    char *mark = text ? strstr(text, TOP_MARK_TEXT) : NULL;
    FILE *out = mark ? kt_out_open(path) : NULL;
    int bad = !out, why = errno;

    if (out) {
        *mark = '\0';
        errno = 0;
        bad = fputs(text, out) == EOF || put_top(out, f, r, top) ||
              fputs(mark + sizeof TOP_MARK_TEXT - 1, out) == EOF ||
              fputc('\n', out) == EOF;
        why = errno ? errno : EIO; /* before the discard's own calls */
        if (bad)
            kt_out_discard(out);
        else if ((bad = kt_out_close(out) != 0))
            why = errno ? errno : EIO;
    }
    json_decref(root);
    free(text);
    if (!bad)
        return KT_S_OK;
    if (!mark)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                      strerror(why));
}

/* ---------------------------------------------------------------- CSV */

/* The columns every row carries so that files of several runs concatenate:
 * device, operator and one column per problem size. header: their names. */
static void csv_context(FILE *out, const kt_tune_facts *f, int header)
{
    char cell[32];
    kt_csv_field(out,
                 header           ? "device"
                 : f->device_name ? f->device_name
                                  : "",
                 0);
    kt_csv_field(out, header ? "operator" : f->spec, 0);
    for (uint32_t i = 0; i < f->op->num_sizes; ++i) {
        snprintf(cell, sizeof cell, "%lld", (long long)f->sizes[i]);
        kt_csv_field(out, header ? f->op->sizes[i].name : cell, 0);
    }
}

/* The energy columns of a row (empty where not measured), and its end. */
static void csv_energy(FILE *out, const kt_energy *e)
{
    if (e && e->measured)
        fprintf(out, "%.6g,%.2f\n", 1e3 * e->joules.median, e->power_w);
    else
        fputs(",\n", out);
}

/* A column per device setting the space lists (nvml_gr_clock, ...): its
 * name in the header (pt NULL), else pt's value. */
static void csv_nvml(FILE *out, const kt_space *space, const kt_point *pt)
{
    for (size_t w = 0; w < 3; ++w) {
        char cell[32];
        kt_nvml_setting s = pt ? pt->nvml : (kt_nvml_setting){0, 0, 0};
        if (!space->nvml.count[w])
            continue;
        snprintf(cell, sizeof cell, "%u", *kt_nvml_field(&s, w));
        kt_csv_field(out, pt ? cell : kt_nvml_key(w), 0);
    }
}

kt_status kt_export_csv(const char *path, const kt_tune_facts *f,
                        const kt_tune_result *r, kt_err *err)
{
    const char *names[64];
    size_t num_names = 0;
    FILE *out = kt_out_open(path);
    kt_status rc = KT_S_OK;

    if (!out)
        return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno));
    /* One column per parameter name of any variant in the space. */
    for (size_t s = 0; s < f->space->num_slots; ++s) {
        const kt_variant *v = &f->op->variants[f->space->slots[s].variant];
        for (uint32_t i = 0; i < v->num_params; ++i) {
            int seen = 0;
            for (size_t k = 0; k < num_names; ++k)
                seen |= strcmp(names[k], v->params[i].name) == 0;
            if (!seen && num_names < 64)
                names[num_names++] = v->params[i].name;
        }
    }
    csv_context(out, f, 1);
    fputs("evaluation,variant,", out);
    for (size_t k = 0; k < num_names; ++k)
        kt_csv_field(out, names[k], 0);
    csv_nvml(out, f->space, NULL);
    fputs("status,reason,median_us,min_us,mean_us,ci_lo_us,ci_hi_us,noise,"
          "samples,bandwidth_gbs,energy_mj,power_w\n",
          out);
    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        const kt_point pt = kt_tune_entry_point(r, e);
        const kt_variant *v = &f->op->variants[pt.variant];
        const kt_stats *s = &e->timing.kernel;
        char cell[128];
        csv_context(out, f, 0);
        if (e->order)
            fprintf(out, "%zu,", e->order);
        else
            fputs(",", out);
        kt_csv_field(out, v->id, 0);
        for (size_t k = 0; k < num_names; ++k) {
            long p = kt_variant_find_param(v, names[k]);
            cell[0] = '\0';
            if (p >= 0)
                kt_param_format(&v->params[p], pt.values[p], cell, sizeof cell);
            kt_csv_field(out, cell, 0);
        }
        csv_nvml(out, f->space, &pt);
        kt_csv_field(out, kt_eval_status_name(e->status), 0);
        kt_csv_field(out, e->reason, 0);
        if (e->status == KT_EVAL_OK) {
            kt_derived d;
            double gbs = 0;
            if (f->work && s->median > 0) {
                kt_derive(f->work, s->median, 0, 0, &d);
                gbs = d.bandwidth_gbs;
            }
            fprintf(out, "%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%zu,%.2f,", s->median,
                    s->min, s->mean, s->ci_lo, s->ci_hi, s->noise, s->n, gbs);
            csv_energy(out, e->energy);
        } else {
            fputs(",,,,,,,,,\n", out);
        }
    }
    if (kt_out_close(out) != 0)
        rc = kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    return rc;
}
