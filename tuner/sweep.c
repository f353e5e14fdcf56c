// SPDX-License-Identifier: Apache-2.0
#include "tuner/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/sizes.h"
#include "core/term.h"

/* The variants compare treats as the reference to beat. */
static const char *const references[] = {"cublas", "cub", "memcpy"};

/* The fastest measured entry of variant v, or NULL. */
static const kt_tune_entry *best_of_variant(const kt_tune_result *r, uint32_t v)
{
    const kt_tune_entry *best = NULL;
    for (size_t i = 0; i < r->num_entries; ++i) {
        const kt_tune_entry *e = &r->entries[i];
        if (e->host_checked || e->status != KT_EVAL_OK ||
            kt_tune_entry_point(r, e).variant != v)
            continue;
        if (!best || e->timing.kernel.median < best->timing.kernel.median)
            best = e;
    }
    return best;
}

static void fill_reference(const kt_tune_facts *f, const kt_tune_result *r,
                           kt_sweep_row *row)
{
    for (size_t k = 0; k < sizeof references / sizeof references[0]; ++k)
        for (uint32_t v = 0; v < f->op->num_variants; ++v) {
            const kt_tune_entry *e;
            if (strcmp(f->op->variants[v].id, references[k]) != 0)
                continue;
            snprintf(row->reference, sizeof row->reference, "%s",
                     references[k]);
            if ((e = best_of_variant(r, v)))
                row->reference_us = e->timing.kernel.median;
            return;
        }
}

void kt_sweep_row_fill(const kt_tune_facts *f, const kt_tune_result *r,
                       kt_sweep_row *row)
{
    kt_point start;
    const kt_tune_entry *e;

    memset(row, 0, sizeof *row);
    memcpy(row->sizes, f->sizes, f->op->num_sizes * sizeof *f->sizes);
    row->bandwidth_gbs = row->pct_copy = NAN;
    row->default_us = row->reference_us = NAN;
    row->evaluations = r->evaluations;
    if (f->journal)
        snprintf(row->journal, sizeof row->journal, "%s", f->journal);
    kt_space_start(f->space, &start);
    if ((e = kt_summary_entry(r, &start)) && e->status == KT_EVAL_OK)
        row->default_us = e->timing.kernel.median;
    fill_reference(f, r, row);
    if (!r->has_best)
        return;
    row->has_best = 1;
    row->best = r->finals[0].point;
    row->stats = r->finals[0].stats;
    if (f->work && f->work->bytes_read + f->work->bytes_written > 0 &&
        row->stats.median > 0) {
        kt_derived d;
        kt_derive(f->work, row->stats.median, f->copy_gbs, f->peak_gbs, &d);
        row->bandwidth_gbs = d.bandwidth_gbs;
        if (f->copy_gbs > 0)
            row->pct_copy = d.pct_of_copy;
    }
}

/* "1.23x", or "-" when either side is unknown. */
static void speedup(double base_us, const kt_sweep_row *row, char *out,
                    size_t size)
{
    if (!row->has_best || isnan(base_us) || row->stats.median <= 0)
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.2fx", base_us / row->stats.median);
}

/* v with one decimal, or "-" when unknown. */
static void number(double v, char *out, size_t size)
{
    if (isnan(v))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.1f", v);
}

/* What the last columns mean, wrapped to width. */
static void print_key(FILE *out, const char *ref, int width)
{
    char line[512];
    int n = snprintf(line, sizeof line,
                     "  vs dflt: the default configuration's time over the "
                     "answer's (each from its own measurement); %s: the same "
                     "for the %s variant; -: not measured\n",
                     ref ? ref : "vs ref", ref ? ref : "reference");

    if (n > 0)
        kt_term_wrap(out, line,
                     (size_t)n < sizeof line ? (size_t)n : sizeof line - 1,
                     width);
}

void kt_sweep_print(FILE *out, const char *spec, const kt_operator *op,
                    const char *device, const kt_sweep_row *rows, size_t n,
                    int width)
{
    const char *ref = "";
    kt_term_col cols[] = {{"size", 0, 0},   {"median us", 1, 0},
                          {"95% CI", 1, 2}, {"GB/s", 1, 4},
                          {"% copy", 1, 3}, {"vs dflt", 1, 1},
                          {"vs ref", 1, 1}, {"best configuration", 0, 0}};
    kt_term_table t;

    for (size_t i = 0; i < n && !*ref; ++i)
        ref = rows[i].reference;
    if (*ref)
        cols[6].head = ref;
    fprintf(out, "\nsweep: %s on %s, %zu size(s), one search each\n", spec,
            device ? device : "?", n);
    kt_term_table_init(&t, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n; ++i) {
        const kt_sweep_row *r = &rows[i];
        char sizes[128], cfg[640], med[32], ci[64], bw[32], pct[32], d[32],
            x[32];
        const char *row[] = {sizes, med, ci, bw, pct, d, x, cfg};
        kt_format_sizes(op, r->sizes, sizes, sizeof sizes);
        if (!r->has_best) {
            const char *none[] = {sizes, "-", "-", "-", "-", "-", "-", cfg};
            snprintf(cfg, sizeof cfg, "no valid configuration (%zu evaluated)",
                     r->evaluations);
            kt_term_table_add(&t, none);
            continue;
        }
        kt_point_format(op, &r->best, cfg, sizeof cfg);
        snprintf(med, sizeof med, "%.3f", r->stats.median);
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->stats.ci_lo, r->stats.ci_hi);
        number(r->bandwidth_gbs, bw, sizeof bw);
        number(r->pct_copy, pct, sizeof pct);
        speedup(r->default_us, r, d, sizeof d);
        speedup(r->reference_us, r, x, sizeof x);
        kt_term_table_add(&t, row);
    }
    kt_term_table_print(out, &t, 2, width);
    kt_term_table_free(&t);
    print_key(out, *ref ? ref : NULL, width);
}

void kt_sweep_tag(const kt_operator *op, const int64_t *sizes, char *out,
                  size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < op->num_sizes && used < size; ++i) {
        int w = snprintf(out + used, size - used, "%s%s%lld", i ? "-" : "",
                         op->sizes[i].name, (long long)sizes[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void kt_sweep_path(const char *path, const kt_operator *op,
                   const int64_t *sizes, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    char tag[128];
    size_t stem;

    kt_sweep_tag(op, sizes, tag, sizeof tag);
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        dot = path + strlen(path);
    stem = (size_t)(dot - path);
    snprintf(out, size, "%.*s.%s%s", (int)stem, path, tag, dot);
}
