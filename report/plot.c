// SPDX-License-Identifier: Apache-2.0
#include "report/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"

#define KT_PLOT_MAX_TICKS 64
#define KT_PLOT_FONT 12.0
#define KT_PLOT_SMALL 11.0 /* tick labels and labels in the plot */
#define KT_PLOT_LEGEND_ROW 18.0
#define KT_PLOT_GRID "#e2e2e2"
#define KT_PLOT_INK "#444"

double kt_plot_text_width(const char *text, double font_px)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)text; c && *c; ++c)
        n += (*c & 0xC0) != 0x80; /* not a continuation byte */
    return (double)n * KT_PLOT_EM_PER_CHAR * font_px;
}

const char *kt_plot_color(size_t i)
{
    /* Okabe-Ito, without its yellow (too pale on white) and black (the
     * axes' colour). */
    static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73",
                                          "#CC79A7", "#56B4E9", "#E69F00",
                                          "#7F7F7F"};
    return palette[i % (sizeof palette / sizeof palette[0])];
}

int kt_plot_begin(kt_plot *p, int id, double width, double height,
                  const char *title)
{
    kt_axis x = p->x, y = p->y;
    memset(p, 0, sizeof *p);
    p->x = x;
    p->y = y;
    p->id = id;
    p->width = width;
    p->height = height;
    p->left = 74;
    /* Room for the longest explicit y label (category names). */
    for (size_t i = 0; p->y.labels && i < p->y.num_ticks; ++i) {
        double w = 40 + kt_plot_text_width(p->y.labels[i], KT_PLOT_SMALL);
        if (w > p->left)
            p->left = w;
    }
    p->right = width - 24;
    p->top = 14;
    p->bottom = height - 50;
    p->x.scale.r0 = p->left;
    p->x.scale.r1 = p->right;
    p->y.scale.r0 = p->bottom;
    p->y.scale.r1 = p->top;
    snprintf(p->title, sizeof p->title, "%s", title ? title : "");
    p->body = open_memstream(&p->buf, &p->buf_size);
    return p->body ? 0 : -1;
}

static void free_layout(kt_plot *p)
{
    for (size_t i = 0; i < p->num_labels; ++i) {
        free(p->labels[i].text);
        free(p->labels[i].short_text);
    }
    free(p->labels);
    free(p->marks);
    p->labels = NULL;
    p->marks = NULL;
    p->num_labels = p->cap_labels = p->num_marks = p->cap_marks = 0;
}

void kt_plot_discard(kt_plot *p)
{
    if (p->body)
        fclose(p->body);
    free(p->buf);
    p->body = NULL;
    p->buf = NULL;
    free_layout(p);
}

/* arr (n used of *cap, elem bytes each) with room for one more: arr
 * itself, or a larger copy (arr then freed); NULL, with arr untouched and
 * p->failed set, when it cannot grow. */
static void *with_room(kt_plot *p, void *arr, size_t n, size_t *cap,
                       size_t elem)
{
    void *m;
    size_t want;
    if (n < *cap)
        return arr;
    want = *cap ? 2 * *cap : 16;
    m = realloc(arr, want * elem);
    if (!m) {
        p->failed = 1;
        return NULL;
    }
    *cap = want;
    return m;
}

/* Records a drawn mark for the label placement. */
static void add_mark(kt_plot *p, int circle, double x0, double y0, double x1,
                     double y1, double r)
{
    kt_plot_mark *m =
        with_room(p, p->marks, p->num_marks, &p->cap_marks, sizeof *m);
    if (!m)
        return;
    p->marks = m;
    p->marks[p->num_marks++] = (kt_plot_mark){circle, x0, y0, x1, y1, r};
}

static double half_width(const kt_style *s)
{
    return (s && s->width > 0 ? s->width : 1.5) / 2;
}

static double map_x(const kt_plot *p, double v)
{
    return kt_scale_map(&p->x.scale, v);
}

static double map_y(const kt_plot *p, double v)
{
    return kt_scale_map(&p->y.scale, v);
}

static void stroke_attrs(FILE *o, const kt_style *s, int fill)
{
    const char *c = s && s->color ? s->color : "currentColor";
    fprintf(o, " stroke=\"%s\" stroke-width=\"%.2f\"", c,
            s && s->width > 0 ? s->width : 1.5);
    if (s && s->dash)
        fprintf(o, " stroke-dasharray=\"%s\"", s->dash);
    if (s && s->opacity > 0 && s->opacity < 1)
        fprintf(o, " opacity=\"%.2f\"", s->opacity);
    fprintf(o, " fill=\"%s\"", fill ? c : "none");
}

/* ------------------------------------------------------------------ axes */

/* The axis' ticks into v[] (and labels into lab[][]), returns how many. */
static size_t axis_ticks(const kt_axis *a, int target, double *v,
                         char lab[][48])
{
    size_t n;
    if (a->num_ticks) {
        n = 0;
        for (size_t i = 0; i < a->num_ticks && n < KT_PLOT_MAX_TICKS; ++i) {
            if (!kt_scale_contains(&a->scale, a->ticks[i]))
                continue;
            v[n] = a->ticks[i];
            if (a->labels)
                kt_esc_string(a->labels[i], lab[n], 48);
            else if (a->format == KT_TICK_BYTES)
                kt_scale_fmt_bytes(v[n], lab[n], 48);
            else
                kt_scale_fmt_number(v[n], 6, lab[n], 48);
            ++n;
        }
        return n;
    }
    n = a->pow2 && a->scale.kind == KT_SCALE_LOG
            ? kt_scale_ticks_pow2(&a->scale, target, v, KT_PLOT_MAX_TICKS)
            : kt_scale_ticks(&a->scale, target, v, KT_PLOT_MAX_TICKS);
    /* Enough digits that neighbouring labels differ. */
    for (int digits = 3; digits <= 8; ++digits) {
        int distinct = 1;
        for (size_t i = 0; i < n; ++i) {
            if (a->format == KT_TICK_BYTES)
                kt_scale_fmt_bytes(v[i], lab[i], 48);
            else
                kt_scale_fmt_number(v[i], digits, lab[i], 48);
            if (i && strcmp(lab[i], lab[i - 1]) == 0)
                distinct = 0;
        }
        if (distinct || a->format == KT_TICK_BYTES)
            break;
    }
    return n;
}

void kt_plot_axes(kt_plot *p)
{
    double xv[KT_PLOT_MAX_TICKS], yv[KT_PLOT_MAX_TICKS];
    char xl[KT_PLOT_MAX_TICKS][48], yl[KT_PLOT_MAX_TICKS][48];
    int xt = (int)((p->right - p->left) / 80),
        yt = (int)((p->bottom - p->top) / 45);
    size_t nx = axis_ticks(&p->x, xt < 2 ? 2 : xt, xv, xl);
    size_t ny = axis_ticks(&p->y, yt < 2 ? 2 : yt, yv, yl);
    double widest = 0, spacing = INFINITY;
    int rotate;
    FILE *o = p->body;

    fprintf(o, "<g class=\"grid\" stroke=\"%s\" stroke-width=\"1\">",
            KT_PLOT_GRID);
    for (size_t i = 0; i < nx; ++i)
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                map_x(p, xv[i]), p->top, map_x(p, xv[i]), p->bottom);
    for (size_t i = 0; i < ny; ++i)
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                p->left, map_y(p, yv[i]), p->right, map_y(p, yv[i]));
    fputs("</g>\n", o);

    fprintf(o,
            "<g class=\"axis\" stroke=\"%s\" stroke-width=\"1\" fill=\"none\">"
            "<path d=\"M%.1f,%.1fV%.1fH%.1f\"/>",
            KT_PLOT_INK, p->left, p->top, p->bottom, p->right);
    for (size_t i = 0; i < nx; ++i)
        fprintf(o, "<path d=\"M%.1f,%.1fv5\"/>", map_x(p, xv[i]), p->bottom);
    for (size_t i = 0; i < ny; ++i)
        fprintf(o, "<path d=\"M%.1f,%.1fh-5\"/>", p->left, map_y(p, yv[i]));
    fputs("</g>\n", o);

    /* Labels that would overlap on the x axis are turned. */
    for (size_t i = 0; i < nx; ++i) {
        double w = kt_plot_text_width(xl[i], KT_PLOT_SMALL);
        if (w > widest)
            widest = w;
        if (i)
            spacing = fmin(spacing, map_x(p, xv[i]) - map_x(p, xv[i - 1]));
    }
    rotate = nx > 1 && widest + 6 > spacing;
    fprintf(o, "<g class=\"tick-label\" fill=\"%s\" font-size=\"11\">",
            KT_PLOT_INK);
    for (size_t i = 0; i < nx; ++i) {
        double x = map_x(p, xv[i]);
        if (rotate)
            fprintf(o,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                    "transform=\"rotate(-35 %.1f %.1f)\">%s</text>",
                    x, p->bottom + 16, x, p->bottom + 16, xl[i]);
        else
            fprintf(o,
                    "<text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">%s</text>",
                    x, p->bottom + 18, xl[i]);
    }
    for (size_t i = 0; i < ny; ++i)
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                p->left - 8, map_y(p, yv[i]) + 4, yl[i]);
    fputs("</g>\n", o);

    /* Turned labels need room: the chart grows below the axis. */
    if (rotate) {
        double drop = widest * 0.57 + 4;
        p->height += drop > 18 ? drop - 18 : 0;
    }
    fprintf(o, "<g class=\"axis-title\" fill=\"%s\" font-size=\"%.0f\">",
            KT_PLOT_INK, KT_PLOT_FONT);
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (p->left + p->right) / 2, p->height - 14);
    kt_esc_write(o, p->x.title);
    fprintf(o,
            "</text><text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 16 %.1f)\">",
            (p->top + p->bottom) / 2, (p->top + p->bottom) / 2);
    kt_esc_write(o, p->y.title);
    fputs("</text></g>\n", o);
}

/* --------------------------------------------------------------- series */

void kt_plot_path(kt_plot *p, const double *x, const double *y, size_t n,
                  const kt_style *s)
{
    int open = 0, started = 0;
    double lx = 0, ly = 0;
    for (size_t i = 0; i < n; ++i) {
        double px = map_x(p, x[i]), py = map_y(p, y[i]);
        if (!isfinite(px) || !isfinite(py)) {
            open = 0;
            continue;
        }
        if (open)
            add_mark(p, 0, lx, ly, px, py, half_width(s));
        lx = px;
        ly = py;
        if (!started) {
            fprintf(p->body,
                    "<path class=\"series\" clip-path=\"url(#kt-c%d)\"", p->id);
            stroke_attrs(p->body, s, 0);
            fputs(" stroke-linejoin=\"round\" d=\"", p->body);
            started = 1;
        }
        fprintf(p->body, "%s%.1f,%.1f", open ? "L" : "M", px, py);
        open = 1;
    }
    if (started)
        fputs("\"/>\n", p->body);
}

/* A marker's grid cell (one marker radius wide) in a long scatter. */
typedef struct kt_plot_cell {
    long long cx, cy;
    size_t i;
} kt_plot_cell;

static int by_cell(const void *a, const void *b)
{
    const kt_plot_cell *x = a, *y = b;
    if (x->cx != y->cx)
        return x->cx < y->cx ? -1 : 1;
    if (x->cy != y->cy)
        return x->cy < y->cy ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Beyond KT_PLOT_MARKERS_ALL points, one marker per cell of one radius
 * that holds any: the first point there (exactly placed, its own tip)
 * stands for the others, which its tip counts. A chart shows no more than
 * that (the others lie under it), and 100,000 circles made the page 50 MB.
 * keep[i] is 0 for a point left out, else how many it stands for.
 * Returns -1 without memory (then every point is drawn). */
static int thin_markers(const kt_plot *p, const double *x, const double *y,
                        size_t n, double r, size_t *keep)
{
    kt_plot_cell *c = malloc((n ? n : 1) * sizeof *c);
    size_t m = 0;

    if (!c)
        return -1;
    for (size_t i = 0; i < n; ++i) {
        double px = map_x(p, x[i]), py = map_y(p, y[i]);
        keep[i] = 0;
        if (isfinite(px) && isfinite(py))
            c[m++] = (kt_plot_cell){(long long)floor(px / r),
                                    (long long)floor(py / r), i};
    }
    qsort(c, m, sizeof *c, by_cell);
    for (size_t a = 0, b; a < m; a = b) {
        for (b = a; b < m && c[b].cx == c[a].cx && c[b].cy == c[a].cy; ++b)
            ;
        keep[c[a].i] = b - a;
    }
    free(c);
    return 0;
}

void kt_plot_markers(kt_plot *p, const double *x, const double *y, size_t n,
                     const kt_style *s, const char *const *tips)
{
    double r = s && s->radius > 0 ? s->radius : 3.5;
    const char *c = s && s->color ? s->color : "currentColor";
    size_t *keep = n > KT_PLOT_MARKERS_ALL ? malloc(n * sizeof *keep) : NULL;

    if (keep && thin_markers(p, x, y, n, r, keep)) {
        free(keep);
        keep = NULL;
    }
    fprintf(p->body,
            "<g class=\"markers\" clip-path=\"url(#kt-m%d)\" fill=\"%s\"",
            p->id, c);
    if (s && s->opacity > 0 && s->opacity < 1)
        fprintf(p->body, " fill-opacity=\"%.2f\"", s->opacity);
    fputs(">", p->body);
    for (size_t i = 0; i < n; ++i) {
        double px = map_x(p, x[i]), py = map_y(p, y[i]);
        if (!isfinite(px) || !isfinite(py) || (keep && !keep[i]))
            continue;
        fprintf(p->body, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\">", px, py,
                r);
        add_mark(p, 1, px, py, px, py, r);
        if (tips && tips[i]) {
            fputs("<title>", p->body);
            kt_esc_write(p->body, tips[i]);
            if (keep && keep[i] > 1)
                fprintf(p->body, " (and %zu more points under this marker)",
                        keep[i] - 1);
            fputs("</title>", p->body);
        }
        fputs("</circle>", p->body);
    }
    fputs("</g>\n", p->body);
    free(keep);
}

static void whiskers(kt_plot *p, const double *at, const double *lo,
                     const double *hi, size_t n, const kt_style *s,
                     int vertical)
{
    int started = 0;
    for (size_t i = 0; i < n; ++i) {
        double a = vertical ? map_x(p, at[i]) : map_y(p, at[i]);
        double l = vertical ? map_y(p, lo[i]) : map_x(p, lo[i]);
        double h = vertical ? map_y(p, hi[i]) : map_x(p, hi[i]);
        if (!isfinite(a) || !isfinite(l) || !isfinite(h))
            continue;
        if (!started) {
            fprintf(p->body,
                    "<path class=\"whiskers\" clip-path=\"url(#kt-m%d)\"",
                    p->id);
            stroke_attrs(p->body, s, 0);
            fputs(" d=\"", p->body);
            started = 1;
        }
        if (vertical) {
            fprintf(p->body, "M%.1f,%.1fV%.1fM%.1f,%.1fh6M%.1f,%.1fh6", a, l, h,
                    a - 3, l, a - 3, h);
            add_mark(p, 0, a, l, a, h, half_width(s));
            add_mark(p, 0, a - 3, l, a + 3, l, half_width(s));
            add_mark(p, 0, a - 3, h, a + 3, h, half_width(s));
        } else {
            fprintf(p->body, "M%.1f,%.1fH%.1fM%.1f,%.1fv6M%.1f,%.1fv6", l, a, h,
                    l, a - 3, h, a - 3);
            add_mark(p, 0, l, a, h, a, half_width(s));
            add_mark(p, 0, l, a - 3, l, a + 3, half_width(s));
            add_mark(p, 0, h, a - 3, h, a + 3, half_width(s));
        }
    }
    if (started)
        fputs("\"/>\n", p->body);
}

void kt_plot_whiskers_v(kt_plot *p, const double *x, const double *lo,
                        const double *hi, size_t n, const kt_style *s)
{
    whiskers(p, x, lo, hi, n, s, 1);
}

void kt_plot_whiskers_h(kt_plot *p, const double *y, const double *lo,
                        const double *hi, size_t n, const kt_style *s)
{
    whiskers(p, y, lo, hi, n, s, 0);
}

void kt_plot_segment(kt_plot *p, double x0, double y0, double x1, double y1,
                     const kt_style *s)
{
    double xs[2] = {x0, x1}, ys[2] = {y0, y1};
    kt_plot_path(p, xs, ys, 2, s);
}

/* Queues a label for kt_plot_end, which places it. */
static void add_label(kt_plot *p, const kt_plot_label *l, const char *text,
                      const char *short_text)
{
    kt_plot_label *slot, *grown;
    if (!text || !*text)
        return;
    grown =
        with_room(p, p->labels, p->num_labels, &p->cap_labels, sizeof *grown);
    if (!grown)
        return;
    p->labels = grown;
    slot = &p->labels[p->num_labels];
    *slot = *l;
    slot->text = strdup(text);
    slot->short_text = short_text && *short_text ? strdup(short_text) : NULL;
    if (!slot->text || (short_text && *short_text && !slot->short_text)) {
        free(slot->text);
        free(slot->short_text);
        p->failed = 1;
        return;
    }
    ++p->num_labels;
}

void kt_plot_hline(kt_plot *p, double y, const kt_style *s, const char *label)
{
    double py = map_y(p, y);
    if (!isfinite(py) || !kt_scale_contains(&p->y.scale, y))
        return;
    fprintf(p->body, "<path class=\"ref\"");
    stroke_attrs(p->body, s, 0);
    fprintf(p->body, " d=\"M%.1f,%.1fH%.1f\"/>\n", p->left, py, p->right);
    add_mark(p, 0, p->left, py, p->right, py, half_width(s));
    add_label(
        p,
        &(kt_plot_label){
            .kind = 1, .x = p->right, .y = py, .color = s ? s->color : NULL},
        label, NULL);
}

void kt_plot_vline(kt_plot *p, double x, const kt_style *s, const char *label)
{
    double px = map_x(p, x);
    if (!isfinite(px) || !kt_scale_contains(&p->x.scale, x))
        return;
    fprintf(p->body, "<path class=\"ref\"");
    stroke_attrs(p->body, s, 0);
    fprintf(p->body, " d=\"M%.1f,%.1fV%.1f\"/>\n", px, p->top, p->bottom);
    add_mark(p, 0, px, p->top, px, p->bottom, half_width(s));
    add_label(
        p,
        &(kt_plot_label){
            .kind = 2, .x = px, .y = p->top, .color = s ? s->color : NULL},
        label, NULL);
}

void kt_plot_text(kt_plot *p, double x, double y, double dx, double dy,
                  const char *anchor, const char *text, const char *short_text)
{
    double px = map_x(p, x), py = map_y(p, y);
    kt_plot_label l = {.x = px, .y = py, .dx = dx, .dy = dy};
    if (!isfinite(px) || !isfinite(py) || !text)
        return;
    snprintf(
        l.anchor, sizeof l.anchor, "%s",
        anchor && (strcmp(anchor, "middle") == 0 || strcmp(anchor, "end") == 0)
            ? anchor
            : "start");
    add_label(p, &l, text, short_text);
}

/* --------------------------------------------------------------- labels */

typedef struct box {
    double x0, y0, x1, y1;
} box;

/* A candidate place: the baseline's anchor point and the text-anchor. */
typedef struct spot {
    double x, y;
    const char *anchor;
} spot;

static box text_box(const char *text, spot at)
{
    double w = kt_plot_text_width(text, KT_PLOT_SMALL);
    double x0 = strcmp(at.anchor, "end") == 0      ? at.x - w
                : strcmp(at.anchor, "middle") == 0 ? at.x - w / 2
                                                   : at.x;
    return (box){x0, at.y - KT_PLOT_ASCENT * KT_PLOT_SMALL, x0 + w,
                 at.y + KT_PLOT_DESCENT * KT_PLOT_SMALL};
}

/* Whether the segment (x0, y0)-(x1, y1) passes through b (Liang-Barsky). */
static int segment_hits(double x0, double y0, double x1, double y1, box b)
{
    double dx = x1 - x0, dy = y1 - y0, lo = 0, hi = 1;
    double ps[4] = {-dx, dx, -dy, dy};
    double qs[4] = {x0 - b.x0, b.x1 - x0, y0 - b.y0, b.y1 - y0};
    for (int i = 0; i < 4; ++i) {
        if (ps[i] == 0) {
            if (qs[i] < 0)
                return 0;
            continue;
        }
        if (ps[i] < 0)
            lo = fmax(lo, qs[i] / ps[i]);
        else
            hi = fmin(hi, qs[i] / ps[i]);
        if (lo > hi)
            return 0;
    }
    return 1;
}

/* Whether a label at b keeps a pixel's clearance from mark m. */
static int mark_hits(const kt_plot_mark *m, box b)
{
    const double pad = 1.0 + m->r;
    if (m->circle) {
        double nx = fmin(fmax(m->x0, b.x0), b.x1);
        double ny = fmin(fmax(m->y0, b.y0), b.y1);
        return (nx - m->x0) * (nx - m->x0) + (ny - m->y0) * (ny - m->y0) <
               pad * pad;
    }
    return segment_hits(m->x0, m->y0, m->x1, m->y1,
                        (box){b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad});
}

/* Whether b is inside the plot area and clear of every mark and of the
 * labels placed before (placed[0..n)). */
static int fits(const kt_plot *p, box b, const box *placed, size_t n)
{
    if (b.x0 < p->left + 3 || b.x1 > p->right - 2 || b.y0 < p->top + 1 ||
        b.y1 > p->bottom - 3)
        return 0;
    for (size_t i = 0; i < p->num_marks; ++i)
        if (mark_hits(&p->marks[i], b))
            return 0;
    for (size_t i = 0; i < n; ++i)
        if (b.x0 < placed[i].x1 + 2 && placed[i].x0 < b.x1 + 2 &&
            b.y0 < placed[i].y1 + 1 && placed[i].y0 < b.y1 + 1)
            return 0;
    return 1;
}

/* The places a label may take, preferred first; returns how many. */
static size_t spots(const kt_plot *p, const kt_plot_label *l, spot *out)
{
    static const double around[][2] = {{10, 4}, {-10, 4}, {0, -10}, {0, 18},
                                       {8, -9}, {-8, -9}, {8, 17},  {-8, 17}};
    static const char *const side[] = {"start", "end", "middle", "middle",
                                       "start", "end", "start",  "end"};
    const double above = -5, below = 5 + KT_PLOT_ASCENT * KT_PLOT_SMALL;
    size_t n = 0;
    if (l->kind == 0) {
        out[n++] = (spot){l->x + l->dx, l->y + l->dy, l->anchor};
        for (double scale = 1; scale <= 4; scale *= 2)
            for (size_t i = 0; i < 8; ++i)
                out[n++] = (spot){l->x + scale * around[i][0],
                                  l->y + scale * around[i][1], side[i]};
    } else if (l->kind == 1) {
        const double xs[] = {p->right - 4, p->left + 8,
                             (p->left + p->right) / 2};
        const char *const as[] = {"end", "start", "middle"};
        for (size_t i = 0; i < 3; ++i) {
            out[n++] = (spot){xs[i], l->y + above, as[i]};
            out[n++] = (spot){xs[i], l->y + below, as[i]};
        }
    } else {
        /* Right of the line first unless it stands in the right part. */
        int right = l->x > p->left + 0.7 * (p->right - p->left);
        const double ys[] = {p->top + 12, p->bottom - 8,
                             (p->top + p->bottom) / 2};
        for (size_t i = 0; i < 3; ++i) {
            out[n++] =
                (spot){l->x + (right ? -4 : 4), ys[i], right ? "end" : "start"};
            out[n++] =
                (spot){l->x + (right ? 4 : -4), ys[i], right ? "start" : "end"};
        }
    }
    return n;
}

static void write_label(kt_plot *p, const kt_plot_label *l, const char *text,
                        spot at)
{
    fprintf(p->body,
            "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
            "font-size=\"%.0f\" fill=\"%s\">",
            l->kind ? "line-label" : "note", at.x, at.y, at.anchor,
            KT_PLOT_SMALL, l->color ? l->color : KT_PLOT_INK);
    kt_esc_write(p->body, text);
    fputs("</text>\n", p->body);
}

/* Every queued label at its first free place (its text, then its short
 * text), else in the legend as text. */
static void place_labels(kt_plot *p)
{
    box *placed = calloc(p->num_labels + 1, sizeof *placed);
    size_t n = 0;
    if (!placed) {
        p->failed = 1;
        return;
    }
    for (size_t i = 0; i < p->num_labels; ++i) {
        const kt_plot_label *l = &p->labels[i];
        const char *texts[2] = {l->text, l->short_text};
        spot cand[40];
        size_t nc = spots(p, l, cand);
        int done = 0;
        for (size_t t = 0; t < 2 && !done && texts[t]; ++t)
            for (size_t c = 0; c < nc && !done; ++c) {
                box b = text_box(texts[t], cand[c]);
                if (fits(p, b, placed, n)) {
                    write_label(p, l, texts[t], cand[c]);
                    placed[n++] = b;
                    done = 1;
                }
            }
        if (!done)
            kt_plot_legend(p, l->text, &(kt_style){.color = l->color},
                           KT_LEGEND_TEXT);
    }
    free(placed);
}

void kt_plot_legend(kt_plot *p, const char *label, const kt_style *s,
                    kt_legend_kind kind)
{
    if (p->num_legend >= KT_PLOT_LEGEND_MAX)
        return;
    snprintf(p->legend[p->num_legend].label,
             sizeof p->legend[p->num_legend].label, "%s", label ? label : "");
    p->legend[p->num_legend].style = s ? *s : (kt_style){0};
    p->legend[p->num_legend].kind = kind;
    ++p->num_legend;
}

/* ---------------------------------------------------------------- write */

/* Writes the legend entries in rows under the axes; returns its height. */
static double write_legend(const kt_plot *p, FILE *o, double y0)
{
    double x = p->left, y = y0 + 12, row = 0;
    if (!p->num_legend)
        return 0;
    fprintf(o, "<g class=\"legend\" font-size=\"%.0f\" fill=\"%s\">\n",
            KT_PLOT_FONT, KT_PLOT_INK);
    for (size_t i = 0; i < p->num_legend; ++i) {
        const kt_style *s = &p->legend[i].style;
        const char *c = s->color ? s->color : "currentColor";
        double sample = p->legend[i].kind ? 30 : 0;
        double w =
            sample + kt_plot_text_width(p->legend[i].label, KT_PLOT_FONT) + 18;
        if (x > p->left && x + w > p->width - 8) {
            x = p->left;
            y += KT_PLOT_LEGEND_ROW;
            row += 1;
        }
        if (p->legend[i].kind & KT_LEGEND_LINE) {
            fprintf(o, "<path");
            stroke_attrs(o, s, 0);
            fprintf(o, " d=\"M%.1f,%.1fh24\"/>", x, y - 4);
        }
        if (p->legend[i].kind & KT_LEGEND_MARKER)
            fprintf(o,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>",
                    x + 12, y - 4, s->radius > 0 ? s->radius : 3.5, c);
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">", x + sample, y);
        kt_esc_write(o, p->legend[i].label);
        fputs("</text>\n", o);
        x += w;
    }
    fputs("</g>\n", o);
    return (row + 1) * KT_PLOT_LEGEND_ROW + 6;
}

int kt_plot_end(kt_plot *p, FILE *out)
{
    char *legend_buf = NULL;
    size_t legend_size = 0;
    FILE *legend;
    double extra = 0;
    int rc = 0;

    place_labels(p);
    if (fclose(p->body) != 0 || p->failed)
        rc = -1;
    p->body = NULL;
    legend = open_memstream(&legend_buf, &legend_size);
    if (!legend) {
        rc = -1;
    } else {
        extra = write_legend(p, legend, p->height - 4);
        if (fclose(legend) != 0)
            rc = -1;
    }
    if (rc == 0) {
        double h = p->height + extra;
        fprintf(out,
                "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                "role=\"img\" aria-labelledby=\"kt-t%d\" "
                "font-family=\"system-ui, sans-serif\" font-size=\"%.0f\">\n"
                "<title id=\"kt-t%d\">",
                p->width, h, p->width, h, p->id, KT_PLOT_FONT, p->id);
        kt_esc_write(out, p->title);
        fprintf(out,
                "</title>\n<defs><clipPath id=\"kt-c%d\"><rect x=\"%.1f\" "
                "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>"
                "<clipPath id=\"kt-m%d\"><rect x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n",
                p->id, p->left, p->top, p->right - p->left, p->bottom - p->top,
                p->id, p->left - 6, p->top - 6, p->right - p->left + 12,
                p->bottom - p->top + 12);
        fwrite(p->buf, 1, p->buf_size, out);
        fwrite(legend_buf, 1, legend_size, out);
        fputs("</svg>\n", out);
    }
    free(legend_buf);
    free(p->buf);
    p->buf = NULL;
    free_layout(p);
    return rc;
}
