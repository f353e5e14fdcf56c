// SPDX-License-Identifier: Apache-2.0
/* kt_summary_markdown: a tuning run's summary as Markdown, for pull
 * requests and CI pages (the tables nvbench users paste). */
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/sizes.h"
#include "tuner/summary.h"

#include "tuner/summary_energy.h"

/* A table cell's text: '|' would end the cell, so it is escaped. */
static void md_cell(FILE *out, const char *text)
{
    for (const char *p = text; *p; ++p) {
        if (*p == '|' || *p == '\n')
            fputc('\\', out);
        fputc(*p == '\n' ? ' ' : *p, out);
    }
}

static void md_bandwidth(FILE *out, const kt_tune_facts *f, double median_us)
{
    kt_derived d;
    if (!f->work || median_us <= 0 ||
        f->work->bytes_read + f->work->bytes_written <= 0) {
        fputs(" - |", out);
        return;
    }
    kt_derive(f->work, median_us, f->copy_gbs, f->peak_gbs, &d);
    fprintf(out, " %.1f |", d.bandwidth_gbs);
}

static void md_heading(FILE *out, const kt_tune_facts *f,
                       const kt_tune_result *r)
{
    char sizes[256];
    kt_format_sizes(f->op, f->sizes, sizes, sizeof sizes);
    fprintf(out, "## %s, %s, on %s\n\n", f->spec, sizes,
            f->device_name ? f->device_name : "?");
    fprintf(out, "Strategy `%s%s%s`, seed %llu; %zu evaluated",
            f->strategy_alias ? f->strategy_alias : "",
            f->strategy_alias ? " -> " : "", f->cfg->strategy->name,
            (unsigned long long)f->cfg->seed, r->evaluations);
    if (r->feasible_known)
        fprintf(out, " of %llu feasible", (unsigned long long)r->feasible);
    fprintf(out, ", %zu verified and timed; stopped: %s after %.1f s.",
            r->measured, r->stop_reason ? r->stop_reason : "?", r->elapsed_s);
    if (f->replay)
        fprintf(out, " Replayed from `%s`.", f->replay);
    fputs("\n\n", out);
}

static void md_finalists(FILE *out, const kt_tune_facts *f,
                         const kt_tune_result *r)
{
    char cfg[512], change[96];

    fprintf(out, "| | Configuration | Median (us) | 95%% CI (us) | Noise | "
                 "Bandwidth (GB/s) | vs best (95%% CI) |\n");
    fprintf(out, "|---|---|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < r->num_finals; ++i) {
        const kt_tune_final *x = &r->finals[i];
        kt_point_format(f->op, &x->point, cfg, sizeof cfg);
        if (i)
            kt_summary_change(&x->vs_winner, change, sizeof change);
        fprintf(out, "| %s | `",
                i == 0    ? "**best**"
                : x->tied ? "tied"
                          : "slower");
        md_cell(out, cfg);
        fprintf(out, "` | %.3f | [%.3f, %.3f] | %.2f%% |", x->stats.median,
                x->stats.ci_lo, x->stats.ci_hi, 100.0 * x->stats.noise);
        md_bandwidth(out, f, x->stats.median);
        fprintf(out, " %s |\n", i ? change : "-");
    }
    fprintf(out, "\n%s\n\n",
            !r->final_measured ? "From each point's own measurement."
            : f->replay        ? "Finalists compared on their recorded samples "
                                 "(a replay: nothing re-measured)."
                               : "Finalists re-measured together in "
                                 "interleaved rounds; the change is paired.");
}

static void md_top(FILE *out, const kt_tune_facts *f, const kt_tune_result *r,
                   int top)
{
    size_t n;
    const kt_tune_entry **list = kt_tune_ranked(r, &n);
    char cfg[512];

    if (list && n) {
        fprintf(out, "### Top %zu of %zu measured\n\n",
                n < (size_t)top ? n : (size_t)top, n);
        fprintf(out, "| Rank | Configuration | Median (us) | 95%% CI (us) | "
                     "Noise | Samples | Bandwidth (GB/s) |\n");
        fprintf(out, "|---:|---|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < n && i < (size_t)top; ++i) {
            const kt_stats *s = &list[i]->timing.kernel;
            const kt_point pt = kt_tune_entry_point(r, list[i]);
            kt_point_format(f->op, &pt, cfg, sizeof cfg);
            fprintf(out, "| %zu | `", i + 1);
            md_cell(out, cfg);
            fprintf(out, "` | %.3f | [%.3f, %.3f] | %.2f%% | %zu |", s->median,
                    s->ci_lo, s->ci_hi, 100.0 * s->noise, s->n);
            md_bandwidth(out, f, s->median);
            fputc('\n', out);
        }
        fputc('\n', out);
    }
    free(list);
}

static void md_invalid(FILE *out, const kt_tune_result *r)
{
    size_t by_status[KT_EVAL_TIMEOUT + 1] = {0};
    int any = 0;

    for (size_t i = 0; i < r->num_entries; ++i)
        if (!r->entries[i].host_checked && r->entries[i].status != KT_EVAL_OK)
            ++by_status[r->entries[i].status];
    if (r->host_invalid) {
        fprintf(out, "- %zu refused on the host (constraint or device limit)\n",
                r->host_invalid);
        any = 1;
    }
    for (int s = KT_EVAL_INVALID; s <= KT_EVAL_TIMEOUT; ++s)
        if (by_status[s]) {
            fprintf(out, "- %zu %s\n", by_status[s],
                    kt_eval_status_name((kt_eval_status)s));
            any = 1;
        }
    if (any)
        fputc('\n', out);
}

void kt_summary_markdown(FILE *out, const kt_tune_facts *f,
                         const kt_tune_result *r, int top)
{
    md_heading(out, f, r);
    if (r->has_best) {
        md_finalists(out, f, r);
        kt_summary_energy_markdown(out, f, r);
    } else
        fprintf(out, "**No valid configuration found**%s%s\n\n",
                r->note[0] ? ": " : ".", r->note);
    md_top(out, f, r, top);
    md_invalid(out, r);
}
