// SPDX-License-Identifier: Apache-2.0
/* The search: its path (tuner/tune_path.c), step by step with the gain
 * and its interval, and the best time after each evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

#define KT_PATH_MAX 64

static void path_table(kt_fig_ctx *c, const json_t *path)
{
    size_t i;
    const json_t *st;
    fputs("<table class=\"data\"><thead><tr><th>step</th><th>changed</th>"
          "<th>from</th><th>to</th><th>configuration after the step</th>"
          "<th>time ratio (new / old) [95% CI]</th><th>time</th>"
          "<th>speed-up [95% CI]</th><th>rounds</th></tr></thead><tbody>\n",
          c->out);
    json_array_foreach ((json_t *)path, i, st) {
        const json_t *ch = json_object_get(st, "change");
        double r = kt_src_num(ch, "ratio"), lo = kt_src_num(ch, "lo"),
               hi = kt_src_num(ch, "hi");
        char a[32], b[32], d[32], e[32], f[32], g[32];
        const json_t *cfg = json_object_get(st, "config");
        kt_html_sig(r, 4, a, sizeof a);
        kt_html_sig(lo, 4, b, sizeof b);
        kt_html_sig(hi, 4, d, sizeof d);
        kt_html_change(r, e, sizeof e);
        kt_html_sig(1 / r, 4, f, sizeof f);
        fprintf(c->out, "<tr><td>%zu</td><td>", i + 1);
        kt_esc_write(c->out, kt_src_text(st, "dim", "?"));
        fputs("</td><td>", c->out);
        kt_esc_write(c->out, kt_src_text(st, "from", "?"));
        fputs("</td><td>", c->out);
        kt_esc_write(c->out, kt_src_text(st, "to", "?"));
        fputs("</td><td>", c->out);
        kt_esc_write(c->out, json_is_object(cfg)
                                 ? kt_src_text(cfg, "config", "")
                                 : kt_src_text(st, "config", ""));
        fprintf(c->out, "</td><td class=\"num\">%s [%s, %s]</td>", a, b, d);
        fprintf(c->out, "<td class=\"num\">%s</td>", e);
        kt_html_sig(1 / hi, 4, g, sizeof g);
        kt_html_sig(1 / lo, 4, b, sizeof b);
        fprintf(c->out, "<td class=\"num\">%s\xC3\x97 [%s, %s]</td>", f, g, b);
        fprintf(c->out, "<td class=\"num\">%.0f</td></tr>\n",
                kt_src_num(ch, "rounds"));
    }
    fputs("</tbody></table>\n", c->out);
}

/* Time relative to the start after each step, with each step's interval
 * applied to the time before it. */
static void path_chart(kt_fig_ctx *c, const json_t *path)
{
    size_t n = json_array_size(path), i;
    double x[KT_PATH_MAX + 1], y[KT_PATH_MAX + 1], lo[KT_PATH_MAX + 1],
        hi[KT_PATH_MAX + 1], ticks[KT_PATH_MAX + 1];
    char labels[KT_PATH_MAX + 1][48], tipbuf[KT_PATH_MAX + 1][256];
    const char *label_ptrs[KT_PATH_MAX + 1], *tips[KT_PATH_MAX + 1];
    double ymin = 1, ymax = 1;
    kt_style line = {.color = kt_plot_color(0), .width = 2};
    kt_style marks = {.color = kt_plot_color(0), .radius = 4};
    kt_style bars = {.color = kt_plot_color(0), .width = 1.3};
    kt_style one = {.color = "#999", .width = 1, .dash = "4 3"};
    const json_t *st;
    kt_plot plot;

    if (n > KT_PATH_MAX)
        n = KT_PATH_MAX;
    x[0] = ticks[0] = 0;
    y[0] = lo[0] = hi[0] = 1;
    snprintf(labels[0], sizeof labels[0], "start");
    snprintf(tipbuf[0], sizeof tipbuf[0], "the start configuration");
    for (i = 0; i < n; ++i) {
        const json_t *ch;
        st = json_array_get(path, i);
        ch = json_object_get(st, "change");
        x[i + 1] = ticks[i + 1] = (double)(i + 1);
        y[i + 1] = y[i] * kt_src_num(ch, "ratio");
        lo[i + 1] = y[i] * kt_src_num(ch, "lo");
        hi[i + 1] = y[i] * kt_src_num(ch, "hi");
        snprintf(labels[i + 1], sizeof labels[i + 1], "%zu: %s", i + 1,
                 kt_src_text(st, "dim", "?"));
        snprintf(tipbuf[i + 1], sizeof tipbuf[i + 1], "%s %s \xE2\x86\x92 %s",
                 kt_src_text(st, "dim", "?"), kt_src_text(st, "from", "?"),
                 kt_src_text(st, "to", "?"));
        if (isfinite(lo[i + 1]))
            ymin = fmin(ymin, lo[i + 1]);
        if (isfinite(hi[i + 1]))
            ymax = fmax(ymax, hi[i + 1]);
    }
    for (i = 0; i <= n; ++i) {
        label_ptrs[i] = labels[i];
        tips[i] = tipbuf[i];
    }
    memset(&plot, 0, sizeof plot);
    plot.x.scale = (kt_scale){KT_SCALE_LINEAR, -0.5, (double)n + 0.5, 0, 0};
    plot.x.title = "step of the search";
    plot.x.ticks = ticks;
    plot.x.labels = label_ptrs;
    plot.x.num_ticks = n + 1;
    plot.y.scale.kind = KT_SCALE_LINEAR;
    kt_scale_nice_domain(&plot.y.scale, ymin - (ymax - ymin) * 0.08,
                         ymax + (ymax - ymin) * 0.08, 5);
    plot.y.title = "time relative to the start";
    if (kt_plot_begin(&plot, c->next_id++, 720, 300,
                      "Time relative to the start after each step"))
        return;
    kt_plot_axes(&plot);
    kt_plot_hline(&plot, 1, &one, NULL);
    kt_plot_path(&plot, x, y, n + 1, &line);
    kt_plot_whiskers_v(&plot, x + 1, lo + 1, hi + 1, n, &bars);
    kt_plot_markers(&plot, x, y, n + 1, &marks, tips);
    kt_plot_legend(&plot, "incumbent after the step", &marks, KT_LEGEND_BOTH);
    kt_plot_legend(&plot, "95% CI of the step's ratio", &bars, KT_LEGEND_LINE);
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>Each step's time ratio is paired (the median of the "
          "per-round ratios of candidate and incumbent measured together) "
          "where the search compared them, else unpaired; the product of "
          "the ratios gives the time relative to the start "
          "(approximately, where ratios are unpaired).</figcaption>\n"
          "</figure>\n",
          c->out);
}

/* A staircase of vals[i] * mul (or mul / vals[i] when invert) after each
 * evaluation i + 1, under title with the y axis ytitle and the caption
 * (plain text). */
static void staircase(kt_fig_ctx *c, const json_t *vals, double mul, int invert,
                      const char *title, const char *ytitle,
                      const char *caption)
{
    size_t n = json_array_size(vals), i, m = 0;
    double *x = calloc(2 * n + 1, sizeof *x), *y = calloc(2 * n + 1, sizeof *y);
    double lo = INFINITY, hi = -INFINITY, prev = NAN;
    kt_style line = {.color = kt_plot_color(0), .width = 2};
    kt_plot plot;

    for (i = 0; x && y && i < n; ++i) {
        const json_t *v = json_array_get(vals, i);
        double t = json_is_number(v) ? json_number_value(v) : NAN;
        t = invert ? mul / t : mul * t;
        if (!(t > 0) || !isfinite(t))
            continue;
        if (isfinite(prev)) {
            x[m] = (double)(i + 1);
            y[m++] = prev;
        }
        x[m] = (double)(i + 1);
        y[m++] = t;
        prev = t;
        lo = fmin(lo, t);
        hi = fmax(hi, t);
    }
    if (!m)
        goto done;
    memset(&plot, 0, sizeof plot);
    plot.x.scale.kind = KT_SCALE_LINEAR;
    kt_scale_nice_domain(&plot.x.scale, 0, (double)n, 6);
    plot.x.title = "evaluations";
    plot.y.scale.kind = hi / lo > 3 ? KT_SCALE_LOG : KT_SCALE_LINEAR;
    if (plot.y.scale.kind == KT_SCALE_LINEAR) {
        double pad = (hi - lo) * 0.08 + lo * 1e-4;
        lo -= pad;
        hi += pad;
    }
    kt_scale_nice_domain(&plot.y.scale, lo, hi, 5);
    plot.y.title = ytitle;
    if (kt_plot_begin(&plot, c->next_id++, 720, 280, title))
        goto done;
    kt_plot_axes(&plot);
    kt_plot_path(&plot, x, y, m, &line);
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>", c->out);
    kt_esc_write(c->out, caption);
    fputs("</figcaption>\n</figure>\n", c->out);
done:
    free(x);
    free(y);
}

/* How the objective's cost (records/objective.h: lower is better) reads on
 * a chart: cost * mul, or mul / cost for a throughput; its axis title. */
typedef struct kt_obj_view {
    const char *name, *axis;
    double mul;
    int invert;
} kt_obj_view;

static const kt_obj_view *objective_view(const char *objective)
{
    static const kt_obj_view views[] = {
        {"energy", "best energy per launch so far (mJ)", 1e3, 0},
        {"edp", "best energy \xC3\x97 time so far (J\xC2\xB7s)", 1, 0},
        {"gflops", "best GFLOP/s so far", 1e-9, 1},
        {"gbs", "best GB/s so far", 1e-9, 1},
        {"gflops_w", "best GFLOP/s per W so far", 1e-9, 1},
        {"gbs_w", "best GB/s per W so far", 1e-9, 1},
    };
    for (size_t i = 0; i < sizeof views / sizeof *views; ++i)
        if (strcmp(objective, views[i].name) == 0)
            return &views[i];
    return NULL;
}

/* The best by the run's objective after each evaluation (the summary's
 * trace_objective), which never gets worse; then the time of that best
 * point (the summary's trace), which under another objective than time
 * may rise and is labelled so. */
static void trace_charts(kt_fig_ctx *c, const json_t *trace)
{
    const json_t *tobj = json_object_get(c->src->summary, "trace_objective");
    /* Summaries before trace_objective name it in their energy object. */
    const char *objective =
        kt_src_text(tobj, "objective",
                    kt_src_text(json_object_get(c->src->summary, "energy"),
                                "objective", "time"));
    const kt_obj_view *v = objective_view(objective);
    char title[160], caption[512];

    if (strcmp(objective, "time") == 0 || !v) {
        staircase(c, trace, 1, 0, "Best median time after each evaluation",
                  "best median so far (\xC2\xB5s)",
                  "The best median found after each evaluation (unique "
                  "points sent to the GPU), by the points' own "
                  "measurements.");
        return;
    }
    snprintf(title, sizeof title, "Best %s after each evaluation", objective);
    snprintf(caption, sizeof caption,
             "The best %s found after each evaluation (unique points sent to "
             "the GPU): the search's progress by its objective, which never "
             "gets worse.",
             objective);
    if (json_array_size(json_object_get(tobj, "best")))
        staircase(c, json_object_get(tobj, "best"), v->mul, v->invert, title,
                  v->axis, caption);
    else
        fputs("<p class=\"missing\">The best by the objective after each "
              "evaluation is in summaries of a newer ktune; below, the time "
              "of the best point.</p>\n",
              c->out);
    snprintf(caption, sizeof caption,
             "The median time of the best point by the objective (%s) after "
             "each evaluation: it may rise, where a slower point is "
             "better by %s.",
             objective, objective);
    staircase(c, trace, 1, 0,
              "Median time of the best point after each "
              "evaluation",
              "median of the best point by the objective (\xC2\xB5s)", caption);
}

/* The path's start (its first element since issue 52: dim "start"), as a
 * line above the steps; the steps alone into *steps (a new reference). */
static void path_start(kt_fig_ctx *c, const json_t *path, json_t **steps)
{
    const json_t *first = json_array_get(path, 0);
    const json_t *cfg = json_object_get(first, "config");

    *steps = json_copy((json_t *)path);
    if (!first || strcmp(kt_src_text(first, "dim", ""), "start") != 0)
        return;
    json_array_remove(*steps, 0);
    fputs("<p>Start: <code>", c->out);
    kt_esc_write(c->out, json_is_object(cfg)
                             ? kt_src_text(cfg, "config", "")
                             : kt_src_text(first, "config", ""));
    fputs("</code> (", c->out);
    kt_esc_write(c->out, kt_src_text(first, "start", "the first that ran"));
    fputs(").</p>\n", c->out);
}

void kt_fig_search(kt_fig_ctx *c)
{
    const json_t *sum = c->src->summary;
    const json_t *path = json_object_get(sum, "path");
    const json_t *trace = json_object_get(sum, "trace");
    json_t *steps = NULL;

    fputs("<section id=\"search\">\n<h2>Search path</h2>\n", c->out);
    if (!sum) {
        fputs("<p class=\"missing\">The path of a search is in its summary "
              "(<code>ktune tune --json</code>); these results have "
              "none.</p>\n",
              c->out);
    } else if (json_array_size(path)) {
        path_start(c, path, &steps);
        fputs("<p>From the first configuration that ran, each step is an "
              "evaluation that beat the best so far (with the paired ratio "
              "where the search measured that change against the incumbent "
              "in interleaved rounds, else the two measurements' unpaired "
              "one); the last is the answer, the winner of the finalists' "
              "closing re-measurement.</p>\n",
              c->out);
        if (json_array_size(steps)) {
            path_table(c, steps);
            path_chart(c, steps);
        } else {
            fputs("<p>No configuration beat the start: it is the "
                  "answer.</p>\n",
                  c->out);
        }
        json_decref(steps);
    } else {
        fputs("<p class=\"missing\">These results have no search "
              "path.</p>\n",
              c->out);
    }
    if (json_array_size(trace))
        trace_charts(c, trace);
    fputs("</section>\n", c->out);
}
