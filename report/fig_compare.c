// SPDX-License-Identifier: Apache-2.0
/* `ktune compare` results: the variants side by side — times with their
 * intervals, speed-ups against the reference with theirs, and the
 * counters and diagnoses where they were collected (docs/compare.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

#define KT_CMP_MAX 64

typedef struct row_view {
    const json_t *row;
    const char *variant;
    double median, q1, q3, lo, hi; /* time, us */
    double sp, sp_lo, sp_hi;       /* speed-up vs the reference; NaN none */
} row_view;

/* The measured rows, in the record's order. */
static size_t measured_rows(const json_t *cmp, row_view *v)
{
    size_t i, n = 0;
    const json_t *r;
    json_array_foreach (json_object_get(cmp, "variants"), i, r) {
        const json_t *st = json_object_get(r, "stats");
        const json_t *vs = json_object_get(r, "vs_reference");
        if (n == KT_CMP_MAX ||
            strcmp(kt_src_text(r, "status", ""), "ok") != 0 ||
            !(kt_src_num(st, "median_us") > 0))
            continue;
        v[n].row = r;
        v[n].variant = kt_src_text(r, "variant", "?");
        v[n].median = kt_src_num(st, "median_us");
        v[n].q1 = kt_src_num(st, "q1_us");
        v[n].q3 = kt_src_num(st, "q3_us");
        v[n].lo = kt_src_num(st, "ci_lo_us");
        v[n].hi = kt_src_num(st, "ci_hi_us");
        v[n].sp = kt_src_num(vs, "speedup");
        v[n].sp_lo = kt_src_num(vs, "lo");
        v[n].sp_hi = kt_src_num(vs, "hi");
        ++n;
    }
    return n;
}

/* One row per variant, the first at the top. */
static void category_axis(kt_axis *a, size_t n, const row_view *v,
                          double *ticks, const char **labels)
{
    for (size_t i = 0; i < n; ++i) {
        ticks[i] = (double)(n - 1 - i);
        labels[i] = v[i].variant;
    }
    a->scale = (kt_scale){KT_SCALE_LINEAR, -0.6, (double)n - 0.4, 0, 0};
    a->ticks = ticks;
    a->labels = labels;
    a->num_ticks = n;
}

static void time_chart(kt_fig_ctx *c, const row_view *v, size_t n)
{
    double ticks[KT_CMP_MAX], lo = INFINITY, hi = 0;
    const char *labels[KT_CMP_MAX];
    kt_plot plot;

    for (size_t i = 0; i < n; ++i) {
        lo = fmin(lo, fmin(v[i].median, fmin(v[i].lo, v[i].q1)));
        hi = fmax(hi, fmax(v[i].median, fmax(v[i].hi, v[i].q3)));
    }
    memset(&plot, 0, sizeof plot);
    category_axis(&plot.y, n, v, ticks, labels);
    plot.y.title = "variant";
    plot.x.scale.kind = hi / lo > 3 ? KT_SCALE_LOG : KT_SCALE_LINEAR;
    if (plot.x.scale.kind == KT_SCALE_LINEAR)
        lo = 0;
    kt_scale_nice_domain(&plot.x.scale, lo, hi * 1.02, 6);
    plot.x.title = plot.x.scale.kind == KT_SCALE_LOG
                       ? "median kernel time (\xC2\xB5s, log scale)"
                       : "median kernel time (\xC2\xB5s)";
    if (kt_plot_begin(&plot, c->next_id++, 720, 90 + 34.0 * (double)n,
                      "Median time of each variant with its intervals"))
        return;
    kt_plot_axes(&plot);
    for (size_t i = 0; i < n; ++i) {
        const char *color = kt_fig_variant_color(c, v[i].variant);
        kt_style iqr = {.color = color, .width = 12, .opacity = 0.28};
        kt_style ci = {.color = color, .width = 1.6};
        kt_style mark = {.color = color, .radius = 4.5};
        double y = ticks[i];
        char tip[320], m[32], a[32], b[32];
        const char *tips[1] = {tip};
        kt_html_sig(v[i].median, 5, m, sizeof m);
        kt_html_sig(v[i].lo, 5, a, sizeof a);
        kt_html_sig(v[i].hi, 5, b, sizeof b);
        snprintf(tip, sizeof tip, "%s: median %s \xC2\xB5s, 95%% CI [%s, %s]",
                 kt_src_text(v[i].row, "config", v[i].variant), m, a, b);
        if (isfinite(v[i].q1) && isfinite(v[i].q3))
            kt_plot_segment(&plot, v[i].q1, y, v[i].q3, y, &iqr);
        kt_plot_whiskers_h(&plot, &y, &v[i].lo, &v[i].hi, 1, &ci);
        kt_plot_markers(&plot, &v[i].median, &y, 1, &mark, tips);
    }
    {
        kt_style iqr = {.color = "#777", .width = 10, .opacity = 0.3};
        kt_style ci = {.color = "#444", .width = 1.6};
        kt_style mark = {.color = "#444", .radius = 4.5};
        kt_plot_legend(&plot, "median", &mark, KT_LEGEND_MARKER);
        kt_plot_legend(&plot, "95% CI of the median", &ci, KT_LEGEND_LINE);
        kt_plot_legend(&plot, "q1 to q3", &iqr, KT_LEGEND_LINE);
    }
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>Every variant measured in the same interleaved "
          "rounds (one sample of each per round). Dot: the median; thin "
          "bar: its 95% confidence interval; wide band: the interquartile "
          "range of the samples.</figcaption>\n</figure>\n",
          c->out);
}

static void speedup_chart(kt_fig_ctx *c, const row_view *v, size_t n,
                          const char *reference)
{
    double ticks[KT_CMP_MAX], lo = 1, hi = 1;
    const char *labels[KT_CMP_MAX];
    kt_style one = {.color = "#444", .width = 1.2, .dash = "5 4"};
    char ref[160];
    size_t have = 0;
    kt_plot plot;

    for (size_t i = 0; i < n; ++i) {
        if (!(v[i].sp > 0))
            continue;
        lo = fmin(lo, isfinite(v[i].sp_lo) ? v[i].sp_lo : v[i].sp);
        hi = fmax(hi, isfinite(v[i].sp_hi) ? v[i].sp_hi : v[i].sp);
        ++have;
    }
    if (have < 2)
        return;
    memset(&plot, 0, sizeof plot);
    category_axis(&plot.y, n, v, ticks, labels);
    plot.y.title = "variant";
    plot.x.scale.kind = hi / lo > 4 ? KT_SCALE_LOG : KT_SCALE_LINEAR;
    if (plot.x.scale.kind == KT_SCALE_LINEAR) {
        double pad = (hi - lo) * 0.08 + 0.01;
        lo -= pad;
        hi += pad;
        if (lo < 0)
            lo = 0;
    }
    kt_scale_nice_domain(&plot.x.scale, lo, hi, 6);
    plot.x.title = "speed-up against the reference (t_ref / t; >1 faster)";
    if (kt_plot_begin(&plot, c->next_id++, 720, 90 + 34.0 * (double)n,
                      "Speed-up of each variant against the reference"))
        return;
    kt_plot_axes(&plot);
    snprintf(ref, sizeof ref, "reference: %s", reference);
    kt_plot_vline(&plot, 1, &one, ref);
    for (size_t i = 0; i < n; ++i) {
        const char *color = kt_fig_variant_color(c, v[i].variant);
        kt_style ci = {.color = color, .width = 1.6};
        kt_style mark = {.color = color, .radius = 4.5};
        double y = ticks[i];
        char tip[320], m[32], a[32], b[32];
        const char *tips[1] = {tip};
        if (!(v[i].sp > 0))
            continue;
        kt_html_sig(v[i].sp, 4, m, sizeof m);
        kt_html_sig(v[i].sp_lo, 4, a, sizeof a);
        kt_html_sig(v[i].sp_hi, 4, b, sizeof b);
        snprintf(tip, sizeof tip, "%s: %s\xC3\x97 [%s, %s]", v[i].variant, m, a,
                 b);
        kt_plot_whiskers_h(&plot, &y, &v[i].sp_lo, &v[i].sp_hi, 1, &ci);
        kt_plot_markers(&plot, &v[i].sp, &y, 1, &mark, tips);
    }
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>The median of the per-round ratios t_ref / t "
          "(drift cancels within a round) with its distribution-free 95% "
          "interval; an interval that contains 1 is a tie.</figcaption>\n"
          "</figure>\n",
          c->out);
}

static void num_cell(FILE *o, double v, int digits, const char *suffix)
{
    char t[48];
    kt_html_sig(v, digits, t, sizeof t);
    fprintf(o, "<td class=\"num\">%s%s</td>", t, isfinite(v) ? suffix : "");
}

static void timing_table(kt_fig_ctx *c, const json_t *cmp)
{
    size_t i;
    const json_t *r;
    FILE *o = c->out;
    fputs("<table class=\"data\"><thead><tr>"
          "<th>variant</th><th>configuration</th><th>from</th><th>status</th>"
          "<th>median (\xC2\xB5s)</th><th>min (\xC2\xB5s)</th>"
          "<th>q1 \xE2\x80\x93 q3 (\xC2\xB5s)</th><th>95% CI (\xC2\xB5s)</th>"
          "<th>noise</th><th>samples</th><th>speed-up [95% CI]</th>"
          "<th>verdict</th><th>GB/s</th><th>% of copy</th></tr></thead>"
          "<tbody>\n",
          o);
    json_array_foreach (json_object_get(cmp, "variants"), i, r) {
        const json_t *st = json_object_get(r, "stats");
        const json_t *vs = json_object_get(r, "vs_reference");
        const json_t *src = json_object_get(r, "source");
        const json_t *d = json_object_get(r, "derived");
        int ok = strcmp(kt_src_text(r, "status", ""), "ok") == 0;
        char a[32], b[32];
        fprintf(o, "<tr%s><td>",
                json_is_true(json_object_get(r, "reference"))
                    ? " class=\"best\""
                    : "");
        kt_esc_write(o, kt_src_text(r, "variant", "?"));
        if (json_is_true(json_object_get(r, "reference")))
            fputs(" (reference)", o);
        fputs("</td><td>", o);
        kt_esc_write(o, kt_src_text(r, "config", ""));
        fputs("</td><td>", o);
        kt_esc_write(o, kt_src_text(src, "kind", ""));
        if (kt_src_text(src, "detail", NULL)) {
            fputs(": ", o);
            kt_esc_write(o, kt_src_text(src, "detail", ""));
        }
        fputs("</td><td>", o);
        kt_esc_write(o, kt_src_text(r, "status", "?"));
        if (!ok) {
            fputs(": ", o);
            kt_esc_write(o, kt_src_text(r, "reason", ""));
            fputs("</td><td colspan=\"10\"></td></tr>\n", o);
            continue;
        }
        fputs("</td>", o);
        num_cell(o, kt_src_num(st, "median_us"), 5, "");
        num_cell(o, kt_src_num(st, "min_us"), 5, "");
        kt_html_sig(kt_src_num(st, "q1_us"), 5, a, sizeof a);
        kt_html_sig(kt_src_num(st, "q3_us"), 5, b, sizeof b);
        fprintf(o, "<td class=\"num\">%s \xE2\x80\x93 %s</td>", a, b);
        kt_html_sig(kt_src_num(st, "ci_lo_us"), 5, a, sizeof a);
        kt_html_sig(kt_src_num(st, "ci_hi_us"), 5, b, sizeof b);
        fprintf(o, "<td class=\"num\">[%s, %s]</td>", a, b);
        kt_html_group(100 * kt_src_num(st, "noise"), 2, a, sizeof a);
        kt_html_group(kt_src_num(st, "samples"), 0, b, sizeof b);
        fprintf(o, "<td class=\"num\">%s%%</td><td class=\"num\">%s</td>", a,
                b);
        if (json_is_true(json_object_get(r, "reference"))) {
            fputs("<td class=\"num\">1</td><td>reference</td>", o);
        } else if (json_is_object(vs)) {
            char m[32];
            kt_html_sig(kt_src_num(vs, "speedup"), 4, m, sizeof m);
            kt_html_sig(kt_src_num(vs, "lo"), 4, a, sizeof a);
            kt_html_sig(kt_src_num(vs, "hi"), 4, b, sizeof b);
            fprintf(o, "<td class=\"num\">%s\xC3\x97 [%s, %s]</td><td>", m, a,
                    b);
            kt_esc_write(o, kt_src_text(vs, "verdict", ""));
            fputs("</td>", o);
        } else {
            fputs("<td class=\"num\">\xE2\x80\x93</td><td></td>", o);
        }
        num_cell(o, kt_src_num(d, "bandwidth_gbs"), 4, "");
        num_cell(o, kt_src_num(d, "pct_of_copy"), 3, "%");
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
}

/* Counters: the figures the diagnosis uses, the diagnosis itself, then
 * every collected metric with the variants side by side. */
static void counters_tables(kt_fig_ctx *c, const json_t *cmp)
{
    const json_t *info = json_object_get(cmp, "counters");
    const json_t *rows = json_object_get(cmp, "variants"), *r, *m;
    json_t *names;
    const char *k;
    size_t i, j;
    FILE *o = c->out;

    fputs("<h3>Counters and diagnosis</h3>\n", o);
    if (!json_is_true(json_object_get(info, "collected"))) {
        fputs("<p class=\"missing\">No hardware counters in this record", o);
        if (kt_src_text(info, "why", NULL)) {
            fputs(": ", o);
            kt_esc_write(o, kt_src_text(info, "why", ""));
        }
        fputs(". The diagnosis below rests on effective bandwidth "
              "alone.</p>\n",
              o);
    }
    fputs("<table class=\"data\"><thead><tr><th>variant</th>"
          "<th>load sectors / request</th><th>store sectors / request</th>"
          "<th>achieved occupancy</th><th>theoretical occupancy</th>"
          "<th>DRAM</th><th>diagnosis</th><th>why</th></tr></thead>"
          "<tbody>\n",
          o);
    json_array_foreach ((json_t *)rows, i, r) {
        const json_t *f = json_object_get(r, "figures");
        const json_t *d = json_object_get(r, "diagnosis");
        if (!json_is_object(f) && !json_is_object(d))
            continue;
        fputs("<tr><td>", o);
        kt_esc_write(o, kt_src_text(r, "variant", "?"));
        fputs("</td>", o);
        num_cell(o, kt_src_num(f, "ld_sectors_per_request"), 3, "");
        num_cell(o, kt_src_num(f, "st_sectors_per_request"), 3, "");
        num_cell(o, kt_src_num(f, "achieved_occupancy_pct"), 3, "%");
        num_cell(o, kt_src_num(f, "theoretical_occupancy_pct"), 3, "%");
        num_cell(o, kt_src_num(f, "dram_pct"), 3, "%");
        fputs("<td>", o);
        kt_esc_write(o, kt_src_text(d, "bound", "\xE2\x80\x93"));
        if (kt_src_text(d, "unit", NULL)) {
            fputs(" (", o);
            kt_esc_write(o, kt_src_text(d, "unit", ""));
            fputs(")", o);
        }
        fputs("</td><td>", o);
        kt_esc_write(o, kt_src_text(d, "why", ""));
        {
            const char *t =
                kt_src_text(json_object_get(d, "coalescing"), "text", "");
            if (*t) {
                fputs("<br>", o);
                kt_esc_write(o, t);
            }
        }
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);

    /* Every metric by name; a variant without it shows a dash. */
    names = json_object();
    json_array_foreach ((json_t *)rows, i, r)
        json_array_foreach (
            json_object_get(json_object_get(r, "counters"), "metrics"), j, m)
            if (kt_src_text(m, "name", NULL))
                json_object_set_new(names, kt_src_text(m, "name", ""),
                                    json_string(kt_src_text(m, "unit", "")));
    if (json_object_size(names)) {
        const json_t *unit;
        fputs("<table class=\"data\"><thead><tr><th>metric</th><th>unit</th>",
              o);
        json_array_foreach ((json_t *)rows, i, r) {
            fputs("<th>", o);
            kt_esc_write(o, kt_src_text(r, "variant", "?"));
            fputs("</th>", o);
        }
        fputs("</tr></thead><tbody>\n", o);
        json_object_foreach (names, k, unit) {
            fputs("<tr><td>", o);
            kt_esc_write(o, k);
            fputs("</td><td>", o);
            kt_esc_write(o, json_string_value(unit));
            fputs("</td>", o);
            json_array_foreach ((json_t *)rows, i, r) {
                double v = NAN;
                json_array_foreach (
                    json_object_get(json_object_get(r, "counters"), "metrics"),
                    j, m)
                    if (strcmp(kt_src_text(m, "name", ""), k) == 0)
                        v = kt_src_num(m, "value");
                num_cell(o, v, 4, "");
            }
            fputs("</tr>\n", o);
        }
        fputs("</tbody></table>\n", o);
    }
    json_decref(names);
}

void kt_fig_compare(kt_fig_ctx *c)
{
    const json_t *cmp = c->src->compare;
    row_view v[KT_CMP_MAX];
    size_t n;
    FILE *o = c->out;
    const json_t *files = json_object_get(cmp, "sources"), *f;
    size_t i;

    if (!cmp)
        return;
    n = measured_rows(cmp, v);
    fputs("<section id=\"compare\">\n<h2>Variants side by side</h2>\n<p>", o);
    if (strcmp(kt_src_text(cmp, "evaluator", ""), "replay") == 0)
        kt_html_escf(o,
                     "%zu variants answered from a recording (evaluator: "
                     "replay): the times are the recording's, and the rounds "
                     "of different variants were not measured together. "
                     "Reference: %s.",
                     json_array_size(json_object_get(cmp, "variants")),
                     kt_src_text(cmp, "reference", "?"));
    else
        kt_html_escf(o,
                     "%zu variants measured together in %.0f interleaved "
                     "rounds (evaluator: %s); reference: %s.",
                     json_array_size(json_object_get(cmp, "variants")),
                     kt_src_num(cmp, "rounds"),
                     kt_src_text(cmp, "evaluator", "?"),
                     kt_src_text(cmp, "reference", "?"));
    if (kt_src_text(cmp, "command", NULL)) {
        fputs(" Command: <code>", o);
        kt_esc_write(o, kt_src_text(cmp, "command", ""));
        fputs("</code>", o);
    }
    fputs("</p>\n", o);
    if (json_array_size(files)) {
        fputs("<p>Configurations taken from: ", o);
        json_array_foreach ((json_t *)files, i, f) {
            fputs(i ? "; <code>" : "<code>", o);
            kt_esc_write(o, kt_src_text(f, "path", "?"));
            fputs("</code> (", o);
            kt_esc_write(o, kt_src_text(f, "kind", "?"));
            fputs(")", o);
        }
        fputs(".</p>\n", o);
    }
    if (n) {
        time_chart(c, v, n);
        speedup_chart(c, v, n, kt_src_text(cmp, "reference", "?"));
    } else {
        fputs("<p class=\"missing\">No variant measured.</p>\n", o);
    }
    timing_table(c, cmp);
    counters_tables(c, cmp);
    fputs("</section>\n", o);
}
