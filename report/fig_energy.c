// SPDX-License-Identifier: Apache-2.0
/* Time against energy: every configuration a tuning run measured with
 * energy (the summary's energy.points: the closing re-measurement's
 * finalists, and with an objective other than time every evaluation; else
 * a journal's evaluations that carry energy), by median time and joules
 * per launch, with the Pareto front (no other configuration both faster
 * and cheaper) drawn and marked, and the answer's energy, power against
 * the limit and energy per byte or flop in the caption; then a table of
 * each configuration's joules per launch, average power against the
 * limit, and energy per byte and per flop against the device's measured
 * best (the calibration's copy_pj_per_byte and compute_pj_per_flop,
 * docs/energy.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

/* The points being ordered for the front (qsort has no context). */
typedef struct tpoint {
    double t, e;
    size_t i;
} tpoint;

static int by_time_then_energy(const void *a, const void *b)
{
    const tpoint *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

size_t kt_fig_pareto(const double *time, const double *energy, size_t n,
                     int *front)
{
    tpoint *p = malloc((n ? n : 1) * sizeof *p);
    double before = INFINITY; /* least energy of every faster point */
    size_t count = 0, m = 0;

    /* On the front: no other point at most as slow and as costly, and
     * better in one of the two. Sorted by time, one sweep: O(n log n). A
     * NaN neither dominates nor is dominated. */
    for (size_t i = 0; i < n; ++i) {
        front[i] = 1;
        if (p && !isnan(time[i]) && !isnan(energy[i]))
            p[m++] = (tpoint){time[i], energy[i], i};
    }
    if (!p)
        return n; /* out of memory: every point shown as on the front */
    qsort(p, m, sizeof *p, by_time_then_energy);
    for (size_t a = 0, b; a < m; a = b) {
        /* p[a..b): one time; p[a] has its least energy */
        for (b = a; b < m && p[b].t == p[a].t; ++b)
            front[p[b].i] = !(before <= p[b].e || p[a].e < p[b].e);
        if (p[a].e < before)
            before = p[a].e;
    }
    free(p);
    for (size_t i = 0; i < n; ++i)
        count += (size_t)front[i];
    return count;
}

static void missing(kt_fig_ctx *c, const char *why)
{
    fputs("<p class=\"missing\">", c->out);
    kt_esc_write(c->out, why);
    fputs("</p>\n", c->out);
}

/* The points of energy.points: time (us), energy (mJ), configuration. */
typedef struct epoints {
    double *t, *e;
    const char **cfg;
    int *front;
    size_t n;
} epoints;

/* Room for n points in p, none yet; -1 without memory. */
static int alloc_points(epoints *p, size_t n)
{
    memset(p, 0, sizeof *p);
    p->t = calloc(n ? n : 1, sizeof *p->t);
    p->e = calloc(n ? n : 1, sizeof *p->e);
    p->cfg = calloc(n ? n : 1, sizeof *p->cfg);
    p->front = calloc(n ? n : 1, sizeof *p->front);
    return p->t && p->e && p->cfg && p->front ? 0 : -1;
}

static int load_points(const json_t *pts, epoints *p)
{
    size_t n = json_array_size(pts), i;
    json_t *x;

    if (alloc_points(p, n))
        return -1;
    json_array_foreach ((json_t *)pts, i, x) {
        double t = json_number_value(json_object_get(x, "median_us"));
        double j = json_number_value(json_object_get(x, "joules"));
        if (!(t > 0) || !(j > 0))
            continue;
        p->t[p->n] = t;
        p->e[p->n] = 1e3 * j;
        p->cfg[p->n++] = kt_src_text(x, "config", "?");
    }
    kt_fig_pareto(p->t, p->e, p->n, p->front);
    return 0;
}

/* Each of the sources' points' measured energy (NULL: not ok, or none),
 * for the chart and both tables; *count: how many. NULL without memory. */
static const kt_journal_energy **point_energies(const kt_sources *s,
                                                size_t *count)
{
    const kt_journal_energy **pe =
        calloc(s->num_points ? s->num_points : 1, sizeof *pe);

    *count = 0;
    for (size_t i = 0; pe && i < s->num_points; ++i)
        if (s->points[i].ok && s->points[i].energy.measured) {
            pe[i] = &s->points[i].energy;
            ++*count;
        }
    return pe;
}

/* The journal's configurations measured with energy (pe), read as
 * load_points reads energy.points. */
static int journal_points(const kt_sources *s, const kt_journal_energy **pe,
                          epoints *p)
{
    if (alloc_points(p, s->num_points) || !pe)
        return -1;
    for (size_t i = 0; i < s->num_points; ++i) {
        double t = s->points[i].kernel.median, j;
        if (!pe[i])
            continue;
        j = pe[i]->joules_per_launch;
        if (!(t > 0) || !(j > 0))
            continue;
        p->t[p->n] = t;
        p->e[p->n] = 1e3 * j;
        p->cfg[p->n++] = s->points[i].config;
    }
    kt_fig_pareto(p->t, p->e, p->n, p->front);
    return 0;
}

static void free_points(epoints *p)
{
    free(p->t);
    free(p->e);
    free(p->cfg);
    free(p->front);
}

/* The front as a staircase line through its points, fastest first (the
 * front's points of one time have one energy: one step). Sorted: O(n log
 * n) (a front of every point made it quadratic). */
static void draw_front(kt_plot *plot, const epoints *p, const kt_style *s)
{
    double *x = calloc(2 * p->n + 1, sizeof *x),
           *y = calloc(2 * p->n + 1, sizeof *y);
    tpoint *order = calloc(p->n + 1, sizeof *order);
    size_t k = 0, m = 0;

    for (size_t i = 0; order && i < p->n; ++i)
        if (p->front[i])
            order[k++] = (tpoint){p->t[i], p->e[i], i};
    if (order)
        qsort(order, k, sizeof *order, by_time_then_energy);
    for (size_t a = 0; x && y && order && a < k; ++a) {
        size_t next = order[a].i;
        if (a && order[a].t == order[a - 1].t)
            continue;
        if (m) {
            x[m] = p->t[next];
            y[m] = y[m - 1];
            ++m;
        }
        x[m] = p->t[next];
        y[m++] = p->e[next];
    }
    if (m > 1)
        kt_plot_path(plot, x, y, m, s);
    free(x);
    free(y);
    free(order);
}

static void markers(kt_plot *plot, const epoints *p, int on_front,
                    const kt_style *s, const char *legend)
{
    double *x = calloc(p->n ? p->n : 1, sizeof *x);
    double *y = calloc(p->n ? p->n : 1, sizeof *y);
    const char **tips = calloc(p->n ? p->n : 1, sizeof *tips);
    char(*buf)[320] = calloc(p->n ? p->n : 1, sizeof *buf);
    char a[32], b[32];
    size_t m = 0;

    for (size_t i = 0; x && y && tips && buf && i < p->n; ++i) {
        if (p->front[i] != on_front)
            continue;
        kt_html_sig(p->t[i], 4, a, sizeof a);
        kt_html_sig(p->e[i], 4, b, sizeof b);
        snprintf(buf[m], sizeof buf[m], "%s: %s us, %s mJ per launch%s",
                 p->cfg[i], a, b, on_front ? " (Pareto front)" : "");
        tips[m] = buf[m];
        x[m] = p->t[i];
        y[m++] = p->e[i];
    }
    if (m) {
        kt_plot_markers(plot, x, y, m, s, tips);
        kt_plot_legend(plot, legend, s, KT_LEGEND_MARKER);
    }
    free(x);
    free(y);
    free(tips);
    free(buf);
}

/* The answer's energy record among the summary's finalists, or NULL. */
static const json_t *answer_energy(const json_t *summary, const char **cfg)
{
    const json_t *f = json_array_get(json_object_get(summary, "finalists"), 0);
    const json_t *e = json_object_get(f, "energy");

    *cfg = kt_src_text(f, "config", "?");
    return json_is_true(json_object_get(e, "measured")) ? e : NULL;
}

static void caption(kt_fig_ctx *c, const epoints *p, size_t on_front)
{
    const char *cfg;
    const json_t *e = answer_energy(c->src->summary, &cfg);
    const kt_work *w = &c->src->work;
    double j, pw, lim, bytes = w->bytes_read + w->bytes_written;
    char a[32], b[32], d[32];

    kt_html_escf(c->out,
                 "%zu configurations measured with energy (NVML's "
                 "total-energy counter, docs/measurement.md), %zu of them on "
                 "the Pareto front: no other is both faster and cheaper in "
                 "energy. ",
                 p->n, on_front);
    if (!e)
        return;
    j = json_number_value(json_object_get(e, "joules_per_launch"));
    pw = json_number_value(json_object_get(e, "power_w"));
    lim = json_number_value(json_object_get(e, "power_limit_w"));
    kt_html_sig(1e3 * j, 4, a, sizeof a);
    kt_html_sig(pw, 4, b, sizeof b);
    kt_html_escf(c->out, "The answer, %s, takes %s mJ per launch at %s W", cfg,
                 a, b);
    if (lim > 0) {
        kt_html_sig(100 * pw / lim, 3, d, sizeof d);
        kt_html_escf(c->out, " (%s%% of the %.0f W limit)", d, lim);
    }
    if (c->src->have_work && bytes > 0) {
        kt_html_sig(1e12 * j / bytes, 3, d, sizeof d);
        kt_html_escf(c->out, ", %s pJ per algorithm byte", d);
    }
    if (c->src->have_work && w->flops > 0) {
        kt_html_sig(1e12 * j / w->flops, 3, d, sizeof d);
        kt_html_escf(c->out, ", %s pJ per flop", d);
    }
    fputs(".", c->out);
}

/* "12.3 pJ/B (1.8x the best)" of joules j over work w against the
 * device's best (pJ per unit; NaN unknown), "–" without work. */
static void per_work_cell(FILE *out, double j, double w, double best_pj,
                          const char *unit)
{
    char a[32], b[32];

    fputs("<td>", out);
    if (!(w > 0) || !(j > 0)) {
        fputs("–</td>", out);
        return;
    }
    kt_html_sig(1e12 * j / w, 3, a, sizeof a);
    kt_html_escf(out, "%s %s", a, unit);
    if (best_pj > 0) {
        kt_html_sig(1e12 * j / w / best_pj, 3, b, sizeof b);
        kt_html_escf(out, " (%sx the best)", b);
    }
    fputs("</td>", out);
}

/* One row: configuration, time, joules per launch with its interval,
 * power against the limit, energy per byte and per flop. */
static void energy_row(kt_fig_ctx *c, const char *cfg, double us,
                       const kt_journal_energy *e)
{
    const kt_work *w = &c->src->work;
    double j = e->joules_per_launch, lo = e->ci_lo_j, hi = e->ci_hi_j,
           pw = e->power_w, lim = e->power_limit_w;
    double bytes = c->src->have_work ? w->bytes_read + w->bytes_written : 0;
    char a[32], b[32], d[32];

    fputs("<tr><td>", c->out);
    kt_esc_write(c->out, cfg);
    kt_html_sig(us, 4, a, sizeof a);
    fputs("</td><td>", c->out);
    kt_esc_write(c->out, a);
    fputs("</td><td>", c->out);
    kt_html_sig(1e3 * j, 4, a, sizeof a);
    kt_html_sig(1e3 * lo, 4, b, sizeof b);
    kt_html_sig(1e3 * hi, 4, d, sizeof d);
    kt_esc_write(c->out, a);
    if (lo > 0 && hi > 0)
        kt_html_escf(c->out, " [%s, %s]", b, d);
    kt_html_sig(pw, 4, a, sizeof a);
    kt_html_sig(100 * pw / lim, 3, b, sizeof b);
    fputs("</td><td>", c->out);
    kt_html_escf(c->out, "%s W", a);
    if (pw > 0 && lim > 0)
        kt_html_escf(c->out, " (%s%% of %.0f W)", b, lim);
    fputs("</td>", c->out);
    per_work_cell(c->out, j, bytes, kt_src_num(c->calib, "copy_pj_per_byte"),
                  "pJ/B");
    per_work_cell(c->out, j, c->src->have_work ? w->flops : 0,
                  kt_src_num(c->calib, "compute_pj_per_flop"), "pJ/flop");
    fputs("</tr>\n", c->out);
}

/* The rows a table of a page shows; the rest as text (energy_rest). */
#define KT_ENERGY_ROWS 1000

/* The configurations after the table's first KT_ENERGY_ROWS (from the
 * sources' point i on), one tab-separated line each in a closed
 * details element: every one stays on the page at a fifth of a row's
 * size (100,000 rows made the page 34 MB). */
static void energy_rest(kt_fig_ctx *c, const kt_journal_energy **pe, size_t i)
{
    size_t rest = 0;

    for (size_t k = i; k < c->src->num_points; ++k)
        rest += pe[k] != NULL;
    if (!rest)
        return;
    fputs("<details><summary>", c->out);
    kt_html_escf(c->out,
                 "The other %zu configurations measured with energy (the "
                 "table's first %d shown above), as tab-separated text",
                 rest, KT_ENERGY_ROWS);
    fputs("</summary>\n<pre>configuration\tmedian (us)\tenergy per launch "
          "(mJ)\taverage power (W)\n",
          c->out);
    for (; i < c->src->num_points; ++i) {
        const kt_src_point *p = &c->src->points[i];
        char num[3][32];
        if (!pe[i])
            continue;
        kt_html_sig(p->kernel.median, 4, num[0], sizeof num[0]);
        kt_html_sig(1e3 * pe[i]->joules_per_launch, 4, num[1], sizeof num[1]);
        kt_html_sig(pe[i]->power_w, 4, num[2], sizeof num[2]);
        kt_esc_write(c->out, p->config);
        for (size_t k = 0; k < 3; ++k) {
            fputc('\t', c->out);
            kt_esc_write(c->out, num[k]);
        }
        fputc('\n', c->out);
    }
    fputs("</pre></details>\n", c->out);
}

/* Every configuration measured with energy: the journal's, else the
 * summary's finalists. */
static void energy_table(kt_fig_ctx *c, const kt_journal_energy **pe)
{
    const json_t *fin = json_object_get(c->src->summary, "finalists"), *f;
    size_t rows = 0, i, shown;

    fputs("<table class=\"data\"><thead><tr><th>configuration</th>"
          "<th>median (us)</th><th>energy per launch (mJ, 95% CI)</th>"
          "<th>average power (of the limit)</th>"
          "<th>energy per byte (against the device's best)</th>"
          "<th>energy per flop (against the device's best)</th>"
          "</tr></thead><tbody>\n",
          c->out);
    for (i = 0; i < c->src->num_points && rows < KT_ENERGY_ROWS; ++i) {
        const kt_src_point *p = &c->src->points[i];
        if (pe[i] && ++rows)
            energy_row(c, p->config, p->kernel.median, pe[i]);
    }
    shown = i;
    json_array_foreach ((json_t *)fin, i, f) {
        kt_journal_energy e =
            kt_journal_energy_of(json_object_get(f, "energy"));
        if (rows || !e.measured)
            continue;
        energy_row(c, kt_src_text(f, "config", "?"), kt_src_num(f, "median_us"),
                   &e);
    }
    fputs("</tbody></table>\n", c->out);
    if (shown < c->src->num_points)
        energy_rest(c, pe, shown);
    fputs("<p>", c->out);
    kt_html_escf(
        c->out,
        "The device's best: %s (the calibration's 1 GiB device-to-device copy "
        "and FP32 FMA kernel, each with an energy window; docs/energy.md).",
        kt_src_num(c->calib, "copy_pj_per_byte") > 0
            ? "the copy's pJ per byte and the FMA kernel's pJ per flop"
            : "not measured (no calibration with energy in these results)");
    fputs("</p>\n", c->out);
}

void kt_fig_energy(kt_fig_ctx *c)
{
    size_t measured;
    const kt_journal_energy **pe = point_energies(c->src, &measured);
    const json_t *pts =
        json_object_get(json_object_get(c->src->summary, "energy"), "points");
    kt_style front = {.color = "#8B0000", .width = 1.5, .dash = "5 3"};
    kt_style on = {.color = "#8B0000", .radius = 5, .opacity = 0.9};
    kt_style off = {.color = kt_plot_color(0), .radius = 3.5, .opacity = 0.6};
    double tlo = INFINITY, thi = 0, elo = INFINITY, ehi = 0;
    size_t on_front = 0;
    epoints p;
    kt_plot plot;

    memset(&p, 0, sizeof p);
    if (!pe || (!c->src->summary && !measured)) {
        free(pe);
        return;
    }
    fputs("<section id=\"energy\">\n<h2>Time and energy</h2>\n", c->out);
    /* The summary's points, else (none, or none recorded) the journal's. */
    if ((json_array_size(pts) ? load_points(pts, &p)
                              : journal_points(c->src, pe, &p)) ||
        p.n == 0) {
        missing(c, "No configuration of this run was measured with energy: "
                   "NVML did not answer where it ran, or the results come "
                   "from a replay or an older ktune (docs/energy.md).");
        goto done;
    }
    for (size_t i = 0; i < p.n; ++i) {
        tlo = fmin(tlo, p.t[i]);
        thi = fmax(thi, p.t[i]);
        elo = fmin(elo, p.e[i]);
        ehi = fmax(ehi, p.e[i]);
        on_front += (size_t)p.front[i];
    }
    memset(&plot, 0, sizeof plot);
    plot.x.scale.kind = KT_SCALE_LOG;
    kt_scale_nice_domain(&plot.x.scale, tlo / 1.1, thi * 1.1, 6);
    plot.x.title = "median time per launch (us, log scale)";
    plot.y.scale.kind = KT_SCALE_LOG;
    kt_scale_nice_domain(&plot.y.scale, elo / 1.1, ehi * 1.1, 6);
    plot.y.title = "energy per launch (mJ, log scale)";
    if (kt_plot_begin(&plot, c->next_id++, 720, 400,
                      "Time against energy, the Pareto front marked"))
        goto done;
    kt_plot_axes(&plot);
    draw_front(&plot, &p, &front);
    markers(&plot, &p, 0, &off, "configuration");
    markers(&plot, &p, 1, &on, "on the Pareto front");
    kt_plot_legend(&plot, "Pareto front", &front, KT_LEGEND_LINE);
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>", c->out);
    caption(c, &p, on_front);
    fputs("</figcaption>\n</figure>\n", c->out);
    energy_table(c, pe);
done:
    free_points(&p);
    free(pe);
    fputs("</section>\n", c->out);
}
