// SPDX-License-Identifier: Apache-2.0
/*
 * kt_plot: one chart as inline SVG — a plot area with two axes (linear or
 * log, computed or explicit ticks, number or byte labels, titles), series
 * drawn as paths, markers with hover titles, whiskers (intervals),
 * reference lines with labels, and a legend under the axes.
 *
 * The chart is drawn into a buffer and written by kt_plot_end, which then
 * knows how tall the legend makes it. Every text is escaped; colours and
 * dash patterns are ktune's own literals and written as given. Points a
 * log axis cannot show (<= 0, not finite) are left out, and everything
 * drawn from data is clipped to the plot area.
 *
 * Labels in the plot area (kt_plot_text, the reference lines' labels) are
 * placed when the chart is written, once every mark is known: at the first
 * of a few positions around their anchor that stays inside the plot area
 * and clear of the markers, lines, whiskers and labels already placed
 * (estimated boxes, below); a label with no such place goes to the legend.
 */
#ifndef KT_REPORT_PLOT_H
#define KT_REPORT_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "report/scale.h"

/* The layout estimate of a text: characters x KT_PLOT_EM_PER_CHAR x font
 * size wide, KT_PLOT_ASCENT x size above the baseline and KT_PLOT_DESCENT
 * x size below. Measured in headless Chromium with DejaVu Sans (Debian's
 * sans-serif): labels of words average 0.52-0.56 em a character, digits
 * 0.64 em, so the estimate is generous for labels and a few percent short
 * for bare numbers (tick labels, which have room to spare).
 * tests/report/check_layout.py reads these numbers to check every chart
 * the report writes with the same estimate. */
#define KT_PLOT_EM_PER_CHAR 0.6
#define KT_PLOT_ASCENT 0.8
#define KT_PLOT_DESCENT 0.25

/* The estimated width in px of UTF-8 text at font_px (characters, not
 * bytes, are counted). */
double kt_plot_text_width(const char *text, double font_px);

typedef struct kt_style {
    const char *color; /* CSS colour; NULL: currentColor */
    double width;      /* stroke width in px; 0: 1.5 */
    const char *dash;  /* stroke-dasharray, or NULL for solid */
    double radius;     /* marker radius in px; 0: 3.5 */
    double opacity;    /* 0: opaque */
} kt_style;

typedef enum kt_tick_format {
    KT_TICK_NUMBER = 0, /* kt_scale_fmt_number */
    KT_TICK_BYTES       /* kt_scale_fmt_bytes */
} kt_tick_format;

typedef struct kt_axis {
    kt_scale scale; /* kind and domain from the caller; kt_plot_begin sets
                       the range */
    const char *title;
    kt_tick_format format;
    int pow2; /* computed ticks at powers of two (log scales) */
    /* Explicit ticks, else computed: values, and labels (NULL: formatted
     * values). Borrowed until kt_plot_axes returns. */
    const double *ticks;
    const char *const *labels;
    size_t num_ticks;
} kt_axis;

typedef enum kt_legend_kind {
    KT_LEGEND_TEXT = 0,   /* the text alone */
    KT_LEGEND_LINE = 1,   /* a line sample */
    KT_LEGEND_MARKER = 2, /* a marker sample */
    KT_LEGEND_BOTH = 3
} kt_legend_kind;

#define KT_PLOT_LEGEND_MAX 24

/* A drawn mark, in px, as the label placement sees it. */
typedef struct kt_plot_mark {
    int circle;            /* 1: a disc at (x0, y0), radius r */
    double x0, y0, x1, y1; /* a segment, or the disc's centre */
    double r;              /* radius, or half the stroke width */
} kt_plot_mark;

/* A label waiting for its place (kt_plot_end). */
typedef struct kt_plot_label {
    char *text;        /* owned */
    char *short_text;  /* owned, may be NULL: tried where text does not fit */
    int kind;          /* 0 at a point, 1 on a horizontal, 2 a vertical line */
    double x, y;       /* the anchor, in px */
    double dx, dy;     /* preferred offset (points) */
    char anchor[8];    /* preferred text-anchor (points) */
    const char *color; /* borrowed literal; NULL: the ink colour */
} kt_plot_label;

typedef struct kt_plot {
    char *buf; /* the body, owned until kt_plot_end */
    size_t buf_size;
    FILE *body;
    int id;                          /* unique in the document */
    double width, height;            /* without the legend */
    double left, right, top, bottom; /* the plot area, in px */
    kt_axis x, y;
    char title[256];
    struct {
        char label[160];
        kt_style style;
        kt_legend_kind kind;
    } legend[KT_PLOT_LEGEND_MAX];
    size_t num_legend;
    kt_plot_mark *marks; /* owned */
    size_t num_marks, cap_marks;
    kt_plot_label *labels; /* owned */
    size_t num_labels, cap_labels;
    int failed; /* an allocation failed: kt_plot_end returns -1 */
} kt_plot;

/* Starts a chart of width x height px (legend rows come on top of that)
 * whose accessible title is title. p->x and p->y must hold their scale
 * kind, domain and titles. id makes the chart's element ids unique in the
 * document. Returns 0, or -1 when the buffer cannot be allocated. */
int kt_plot_begin(kt_plot *p, int id, double width, double height,
                  const char *title);

/* Grid lines, axis lines, ticks, tick labels and axis titles. */
void kt_plot_axes(kt_plot *p);

/* A line through the points in order; a point it cannot show breaks it. */
void kt_plot_path(kt_plot *p, const double *x, const double *y, size_t n,
                  const kt_style *s);

/* A marker per point; tips[i] (optional, may be NULL) is its hover text.
 * Beyond KT_PLOT_MARKERS_ALL points, one marker per cell of one marker
 * radius that holds any (the first point there, its tip counting the
 * others): what the chart shows, at a size a page can carry. */
#define KT_PLOT_MARKERS_ALL 2000
void kt_plot_markers(kt_plot *p, const double *x, const double *y, size_t n,
                     const kt_style *s, const char *const *tips);

/* Intervals: vertical from lo[i] to hi[i] at x[i], or horizontal from
 * lo[i] to hi[i] at y[i]; with short caps. */
void kt_plot_whiskers_v(kt_plot *p, const double *x, const double *lo,
                        const double *hi, size_t n, const kt_style *s);
void kt_plot_whiskers_h(kt_plot *p, const double *y, const double *lo,
                        const double *hi, size_t n, const kt_style *s);

/* A straight line between two data points (clipped). */
void kt_plot_segment(kt_plot *p, double x0, double y0, double x1, double y1,
                     const kt_style *s);

/* Reference lines across the plot area, labelled near the right end
 * (horizontal) or the top (vertical) where the label has room. label may
 * be NULL. */
void kt_plot_hline(kt_plot *p, double y, const kt_style *s, const char *label);
void kt_plot_vline(kt_plot *p, double x, const kt_style *s, const char *label);

/* Text at a data point, offset by (dx, dy) px where it has room (anchor
 * "start", "middle" or "end"), else at another place around the point;
 * short_text (may be NULL) is tried where text has none, before the
 * legend. Left out when the point cannot be shown. */
void kt_plot_text(kt_plot *p, double x, double y, double dx, double dy,
                  const char *anchor, const char *text, const char *short_text);

/* Adds a legend entry (at most KT_PLOT_LEGEND_MAX; the rest are left
 * out). */
void kt_plot_legend(kt_plot *p, const char *label, const kt_style *s,
                    kt_legend_kind kind);

/* Writes the chart (<svg>…</svg>) to out and frees the buffer. Returns 0,
 * or -1 when the buffer could not be written. */
int kt_plot_end(kt_plot *p, FILE *out);

/* Frees the buffer of a chart that will not be written. */
void kt_plot_discard(kt_plot *p);

/* Colour i of the series palette (Okabe-Ito: distinguishable with the
 * common colour-vision deficiencies), cycling. */
const char *kt_plot_color(size_t i);

#endif
