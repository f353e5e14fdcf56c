// SPDX-License-Identifier: Apache-2.0
/* Median time against each tuned parameter, one line per variant. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

#define KT_PARAMS_MAX 32
#define KT_PARAM_VALUES_MAX 64

typedef struct param_info {
    const char *name; /* borrowed */
    int labels;       /* an enumeration: values are labels */
    json_t *values;   /* declared order (labels) or ascending; owned */
    json_t *seen;     /* value key (seen_key) -> its index in values while
                         collecting (labels keep theirs); owned: a hashed
                         set, so 100k distinct values are not compared
                         with each other */
} param_info;

/* v's key in seen: its kind and its text. */
static int seen_key(const json_t *v, char *out, size_t size)
{
    if (json_is_integer(v))
        return snprintf(out, size, "i%lld", (long long)json_integer_value(v)) <
               (int)size;
    return json_is_string(v) &&
           snprintf(out, size, "s%s", json_string_value(v)) < (int)size;
}

static param_info *find_param(param_info *ps, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(ps[i].name, name) == 0)
            return &ps[i];
    return NULL;
}

static void add_value(param_info *pi, const json_t *v)
{
    char key[256];
    size_t i;
    const json_t *x;
    if (!json_is_integer(v) && !json_is_string(v))
        return;
    if (seen_key(v, key, sizeof key)) {
        if (json_object_get(pi->seen, key))
            return;
        json_object_set_new(
            pi->seen, key,
            json_integer((json_int_t)json_array_size(pi->values)));
    } else { /* a label too long for a key: compared with each */
        json_array_foreach (pi->values, i, x)
            if (json_equal(x, (json_t *)v))
                return;
    }
    if (json_is_string(v))
        pi->labels = 1;
    json_array_append(pi->values, (json_t *)v);
}

static size_t add_param(param_info *ps, size_t n, const char *name)
{
    if (find_param(ps, n, name) || n >= KT_PARAMS_MAX)
        return n;
    ps[n].name = name;
    ps[n].labels = 0;
    ps[n].values = json_array();
    ps[n].seen = json_object();
    return n + 1;
}

static int by_integer(const void *a, const void *b)
{
    json_int_t x = json_integer_value(*(json_t *const *)a);
    json_int_t y = json_integer_value(*(json_t *const *)b);
    return (x > y) - (x < y);
}

/* The parameters of the results: declared (the journal's space) first,
 * then any a point has; integers ascending, labels in declared order. */
static size_t collect_params(const kt_sources *s, param_info *ps)
{
    size_t n = 0, i;
    const json_t *var, *vals, *x;
    const char *k;

    json_array_foreach (
        json_object_get(json_object_get(s->header, "space"), "variants"), i,
        var) {
        json_object_foreach (json_object_get(var, "params"), k, vals) {
            size_t j;
            n = add_param(ps, n, k);
            json_array_foreach (vals, j, x)
                if (find_param(ps, n, k))
                    add_value(find_param(ps, n, k), x);
        }
    }
    for (i = 0; i < s->num_points; ++i)
        json_object_foreach ((json_t *)s->points[i].params, k, x) {
            n = add_param(ps, n, k);
            if (find_param(ps, n, k))
                add_value(find_param(ps, n, k), x);
        }
    for (i = 0; i < n; ++i) {
        size_t m = json_array_size(ps[i].values), j;
        json_t *items[KT_PARAM_VALUES_MAX];
        if (ps[i].labels || m > KT_PARAM_VALUES_MAX)
            continue;
        for (j = 0; j < m; ++j)
            items[j] = json_incref(json_array_get(ps[i].values, j));
        qsort(items, m, sizeof *items, by_integer);
        json_array_clear(ps[i].values);
        for (j = 0; j < m; ++j)
            json_array_append_new(ps[i].values, items[j]);
    }
    return n;
}

/* ------------------------------------------------------------ one chart */

/* The x of a point on a chart: the parameter's value (its index, for
 * labels), the variant's index for the variant chart; NaN when the point
 * does not have the parameter. */
static double x_of(const kt_fig_ctx *c, const param_info *pi,
                   const kt_src_point *p)
{
    const json_t *v, *x;
    char key[256];
    size_t i;
    if (!pi) {
        for (i = 0; i < c->num_variants; ++i)
            if (strcmp(c->variants[i], p->variant) == 0)
                return (double)i;
        return NAN;
    }
    v = json_object_get(p->params, pi->name);
    if (!v)
        return NAN;
    if (!pi->labels)
        return json_is_integer(v) ? (double)json_integer_value(v) : NAN;
    if (seen_key(v, key, sizeof key))
        return (x = json_object_get(pi->seen, key))
                   ? (double)json_integer_value(x)
                   : NAN;
    json_array_foreach (pi->values, i, x)
        if (json_equal(x, (json_t *)v))
            return (double)i;
    return NAN;
}

/* The low and high end of a point's bar: its quartiles, else the CI. */
static void bar_of(const kt_src_point *p, double *lo, double *hi)
{
    *lo = isfinite(p->kernel.q1) ? p->kernel.q1 : p->kernel.ci_lo;
    *hi = isfinite(p->kernel.q3) ? p->kernel.q3 : p->kernel.ci_hi;
}

static void tip_of(const kt_src_point *p, char *out, size_t size)
{
    char m[32], a[32], b[32];
    double lo, hi;
    bar_of(p, &lo, &hi);
    kt_html_sig(p->kernel.median, 5, m, sizeof m);
    kt_html_sig(lo, 5, a, sizeof a);
    kt_html_sig(hi, 5, b, sizeof b);
    snprintf(out, size,
             "%s: median %s \xC2\xB5s, %s %s\xE2\x80\x93%s \xC2\xB5s",
             p->config, m, isfinite(p->kernel.q1) ? "IQR" : "95% CI", a, b);
}

typedef struct xpoint {
    double x;
    const kt_src_point *p;
} xpoint;

static int cmp_xpoint(const void *a, const void *b)
{
    const xpoint *u = a, *v = b;
    if (u->x != v->x)
        return u->x < v->x ? -1 : 1;
    if (u->p->kernel.median != v->p->kernel.median)
        return u->p->kernel.median < v->p->kernel.median ? -1 : 1;
    return u->p < v->p ? -1 : u->p > v->p;
}

/* Axis for the parameter's values. ticks/labels receive the explicit
 * ticks (storage for the chart's lifetime). */
static void x_axis(const kt_fig_ctx *c, const param_info *pi, kt_axis *a,
                   double *ticks, char (*labels)[48], const char **label_ptrs)
{
    size_t n = pi ? json_array_size(pi->values) : c->num_variants;
    double lo = INFINITY, hi = -INFINITY;
    memset(a, 0, sizeof *a);
    if (n > KT_PARAM_VALUES_MAX)
        n = KT_PARAM_VALUES_MAX;
    a->title = pi ? pi->name : "variant";
    for (size_t i = 0; i < n; ++i) {
        const json_t *v = pi ? json_array_get(pi->values, i) : NULL;
        if (!pi)
            snprintf(labels[i], 48, "%s", c->variants[i]);
        else if (json_is_string(v))
            snprintf(labels[i], 48, "%s", json_string_value(v));
        else
            snprintf(labels[i], 48, "%lld", (long long)json_integer_value(v));
        ticks[i] =
            !pi || pi->labels ? (double)i : (double)json_integer_value(v);
        label_ptrs[i] = labels[i];
        lo = fmin(lo, ticks[i]);
        hi = fmax(hi, ticks[i]);
    }
    a->ticks = ticks;
    a->labels = label_ptrs;
    a->num_ticks = n;
    if (!pi || pi->labels) {
        a->scale.kind = KT_SCALE_LINEAR;
        a->scale.d0 = -0.5;
        a->scale.d1 = (double)n - 0.5;
    } else if (lo > 0 && hi / lo >= 4) {
        a->scale.kind = KT_SCALE_LOG;
        a->scale.d0 = lo / 1.4;
        a->scale.d1 = hi * 1.4;
    } else {
        double pad = hi > lo ? (hi - lo) * 0.06 : 1;
        a->scale.kind = KT_SCALE_LINEAR;
        a->scale.d0 = lo - pad;
        a->scale.d1 = hi + pad;
    }
}

/* A parameter measured at one value only: a chart would be one point
 * zoomed into its own interval, so a sentence says what there is. xs is
 * sorted (the fastest first at the one x). */
static void one_value(const kt_fig_ctx *c, const param_info *pi,
                      const xpoint *xs, size_t n)
{
    const kt_src_point *best = xs[0].p;
    const json_t *v = pi ? json_object_get(best->params, pi->name) : NULL;
    char value[64], m[32];
    if (!pi)
        snprintf(value, sizeof value, "%s", best->variant);
    else if (json_is_string(v))
        snprintf(value, sizeof value, "%s", json_string_value(v));
    else
        snprintf(value, sizeof value, "%lld", (long long)json_integer_value(v));
    kt_html_sig(best->kernel.median, 4, m, sizeof m);
    fputs("<p class=\"one-value\">", c->out);
    kt_html_escf(c->out,
                 "%s was measured at one value only, %s (%zu "
                 "configuration%s): no chart of time against it. The "
                 "fastest there: %s, median %s \xC2\xB5s.",
                 pi ? pi->name : "variant", value, n, n == 1 ? "" : "s",
                 best->config, m);
    fputs("</p>\n", c->out);
}

/* What a chart's bars are, and what the results lack for quartiles. */
static const char *bars_text(const kt_fig_ctx *c, int quartiles)
{
    if (quartiles)
        return "bars: interquartile range (q1 to q3) of its samples";
    if (kt_sources_external(c->src))
        return "bars: 95% confidence interval of the median (the recording "
               "keeps one time per configuration)";
    return "bars: 95% confidence interval of the median (these results keep "
           "no quartiles; give the journal for them)";
}

/* Draws one chart, or the sentence for one value; returns 0 when no point
 * has the parameter. */
static int time_chart(kt_fig_ctx *c, const param_info *pi)
{
    const kt_sources *s = c->src;
    xpoint *xs = calloc(s->num_points + 1, sizeof *xs);
    double ticks[KT_PARAM_VALUES_MAX];
    char labels[KT_PARAM_VALUES_MAX][48], title[256];
    const char *label_ptrs[KT_PARAM_VALUES_MAX];
    double ylo = INFINITY, yhi = -INFINITY;
    size_t n = 0, others = 0;
    int quartiles = 1, drawn = 0;
    kt_plot plot;

    if (!xs)
        return 0;
    for (size_t i = 0; i < s->num_points; ++i) {
        const kt_src_point *p = &s->points[i];
        double x = p->ok ? x_of(c, pi, p) : NAN, lo, hi;
        if (!isfinite(x))
            continue;
        xs[n].x = x;
        xs[n++].p = p;
        bar_of(p, &lo, &hi);
        ylo = fmin(
            ylo, fmin(p->kernel.median, isfinite(lo) ? lo : p->kernel.median));
        yhi = fmax(
            yhi, fmax(p->kernel.median, isfinite(hi) ? hi : p->kernel.median));
        quartiles &= isfinite(p->kernel.q1) && isfinite(p->kernel.q3);
    }
    if (!n) {
        free(xs);
        return 0;
    }
    qsort(xs, n, sizeof *xs, cmp_xpoint);
    if (xs[n - 1].x == xs[0].x) {
        one_value(c, pi, xs, n);
        free(xs);
        return 1;
    }
    memset(&plot, 0, sizeof plot);
    x_axis(c, pi, &plot.x, ticks, labels, label_ptrs);
    plot.y.scale.kind = yhi / ylo > 3 ? KT_SCALE_LOG : KT_SCALE_LINEAR;
    if (plot.y.scale.kind == KT_SCALE_LINEAR) {
        double pad = (yhi - ylo) * 0.08 + ylo * 1e-4;
        ylo -= pad;
        yhi += pad;
    }
    kt_scale_nice_domain(&plot.y.scale, ylo, yhi, 5);
    plot.y.title = plot.y.scale.kind == KT_SCALE_LOG
                       ? "median time (\xC2\xB5s, log scale)"
                       : "median time (\xC2\xB5s; axis not from zero)";
    snprintf(title, sizeof title, "Median kernel time against %s",
             pi ? pi->name : "variant");
    if (kt_plot_begin(&plot, c->next_id++, 720, 330, title)) {
        free(xs);
        return 0;
    }
    kt_plot_axes(&plot);

    for (size_t v = 0; v < c->num_variants; ++v) {
        const char *color = kt_plot_color(v);
        kt_style dots = {.color = color, .radius = 2.3, .opacity = 0.35};
        kt_style line = {.color = color, .width = 2};
        kt_style bars = {.color = color, .width = 1.3};
        kt_style marks = {.color = color, .radius = 4};
        double bx[KT_PARAM_VALUES_MAX], by[KT_PARAM_VALUES_MAX];
        double blo[KT_PARAM_VALUES_MAX], bhi[KT_PARAM_VALUES_MAX];
        char tipbuf[KT_PARAM_VALUES_MAX][320];
        const char *tips[KT_PARAM_VALUES_MAX];
        double *ox = calloc(n, sizeof *ox), *oy = calloc(n, sizeof *oy);
        const char **otips = calloc(n, sizeof *otips);
        char(*obuf)[320] = calloc(n, sizeof *obuf);
        size_t nb = 0, no = 0;

        if (!ox || !oy || !otips || !obuf)
            goto next;
        /* xs is sorted by x, then median: the first of each x is the
         * variant's fastest there; the rest are the faint dots. */
        for (size_t i = 0; i < n; ++i) {
            const kt_src_point *p = xs[i].p;
            if (strcmp(p->variant, c->variants[v]) != 0)
                continue;
            if (nb && bx[nb - 1] == xs[i].x) {
                ox[no] = xs[i].x;
                oy[no] = p->kernel.median;
                tip_of(p, obuf[no], sizeof obuf[no]);
                otips[no] = obuf[no];
                ++no;
                continue;
            }
            if (nb == KT_PARAM_VALUES_MAX)
                continue;
            bx[nb] = xs[i].x;
            by[nb] = p->kernel.median;
            bar_of(p, &blo[nb], &bhi[nb]);
            tip_of(p, tipbuf[nb], sizeof tipbuf[nb]);
            tips[nb] = tipbuf[nb];
            ++nb;
        }
        if (nb) {
            if (no)
                kt_plot_markers(&plot, ox, oy, no, &dots, otips);
            if (pi && nb > 1)
                kt_plot_path(&plot, bx, by, nb, &line);
            kt_plot_whiskers_v(&plot, bx, blo, bhi, nb, &bars);
            kt_plot_markers(&plot, bx, by, nb, &marks, tips);
            kt_plot_legend(&plot, c->variants[v], &marks,
                           pi && nb > 1 ? KT_LEGEND_BOTH : KT_LEGEND_MARKER);
            drawn = 1;
        }
        others += no;
    next:
        free(ox);
        free(oy);
        free(otips);
        free(obuf);
    }
    if (others) {
        kt_style grey = {.color = "#777", .radius = 2.3, .opacity = 0.45};
        kt_plot_legend(&plot, "other configurations of the variant", &grey,
                       KT_LEGEND_MARKER);
    }
    if (!drawn) {
        kt_plot_discard(&plot);
        free(xs);
        return 0;
    }
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>", c->out);
    if (pi)
        kt_html_escf(c->out,
                     "Median kernel time against %s. Per variant, the line "
                     "joins its fastest configuration at each value of %s "
                     "(other parameters free); ",
                     pi->name, pi->name);
    else
        fputs("The fastest configuration of each variant; ", c->out);
    fputs(bars_text(c, quartiles), c->out);
    if (others)
        fputs("; faint dots: the variant's other measured configurations",
              c->out);
    fputs(". Hover a point for its configuration.</figcaption>\n</figure>\n",
          c->out);
    free(xs);
    return 1;
}

/* What the charts leave out, and how to get it, when they do. A replay of
 * another tool's recording keeps no journal, and its summary lists every
 * point measured (tuner/tune_job.c): nothing to ask for there. */
static void missing_points(kt_fig_ctx *c, size_t ok)
{
    const json_t *sum = c->src->summary;
    double measured = kt_src_num(sum, "measured");

    if (c->src->header || !sum || !(measured > (double)ok))
        return;
    if (kt_sources_external(c->src))
        fprintf(c->out,
                "<p class=\"missing\">%zu of the %.0f configurations "
                "measured are drawn: the summary was written with a top list "
                "shorter than the run.</p>\n",
                ok, measured);
    else
        fputs("<p class=\"missing\">Only the summary's top "
              "configurations are drawn: give the run's journal "
              "(<code>--journal FILE</code>) for every evaluated "
              "point.</p>\n",
              c->out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distribution of the measured configurations' medians, in words:
 * how much the choice matters, and where the answer stands. */
static void distribution(kt_fig_ctx *c, size_t ok)
{
    double *t = ok > 1 ? malloc(ok * sizeof *t) : NULL, q[5];
    size_t n = 0;

    if (!t)
        return;
    for (size_t i = 0; i < c->src->num_points; ++i)
        if (c->src->points[i].ok)
            t[n++] = c->src->points[i].kernel.median;
    qsort(t, n, sizeof *t, cmp_double);
    for (int k = 0; k < 5; ++k)
        q[k] = t[(size_t)((double)(n - 1) * k / 4 + 0.5)];
    fprintf(c->out,
            "<p>The %zu configurations measured: median kernel time from "
            "%.4g to %.4g \xC2\xB5s (quartiles %.4g, %.4g, %.4g); the slowest "
            "takes %.3g\xC3\x97 the fastest's time, so the choice matters "
            "that much here.</p>\n",
            n, q[0], q[4], q[1], q[2], q[3], q[4] / q[0]);
    free(t);
}

void kt_fig_parameters(kt_fig_ctx *c)
{
    param_info ps[KT_PARAMS_MAX];
    size_t n = collect_params(c->src, ps), ok = 0;

    for (size_t i = 0; i < c->src->num_points; ++i)
        ok += c->src->points[i].ok;
    fputs("<section id=\"parameters\">\n<h2>Time against each parameter</h2>\n",
          c->out);
    if (!ok) {
        fputs("<p class=\"missing\">No measured configuration in these "
              "results.</p>\n",
              c->out);
    } else {
        missing_points(c, ok);
        distribution(c, ok);
        if (c->num_variants > 1)
            time_chart(c, NULL);
        for (size_t i = 0; i < n; ++i)
            time_chart(c, &ps[i]);
    }
    fputs("</section>\n", c->out);
    for (size_t i = 0; i < n; ++i) {
        json_decref(ps[i].values);
        json_decref(ps[i].seen);
    }
}
