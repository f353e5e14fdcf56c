// SPDX-License-Identifier: Apache-2.0
#include "report/fig_timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/outfile.h"
#include "records/journal_slim.h"
#include "report/escape.h"
#include "report/plot.h"

#define LANE_PX 34.0
#define BAR_FRAC 0.6
/* Operations closer than this many pixels in a lane are drawn as one bar
 * (its hover text counts them): a bench run has thousands of launches. */
#define MERGE_PX 1.0
/* A merged bar is at most this wide, and as opaque as it is busy, so that
 * a lane of thousands of short launches still shows its idle share. */
#define MERGE_MAX_PX 4.0

typedef struct lane {
    json_int_t pid, device, stream;
    char label[96];
} lane;

typedef struct chart {
    kt_plot plot;
    lane *lanes;
    size_t num_lanes;
    int many_pids;
    double t0, t1; /* ms, the x domain */
} chart;

static json_int_t int_of(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static const char *text_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Whether the file is more than one JSON value: its first object, read
 * from its first 64 KiB, is followed by more than blanks (a journal's
 * header line). */
static int several_values(const char *path)
{
    char head[1 << 16];
    size_t got = 0, end;
    kt_err err;
    FILE *f = kt_file_open_regular(path, "input", "rb", &err);

    if (f) {
        got = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    if (!(end = kt_journal_slim_object_length(head, got)))
        return 0;
    while (end < got && strchr(" \t\r\n", head[end]) && head[end])
        ++end;
    return end < got;
}

int kt_fig_timeline_detect(const char *path)
{
    static const char want[] = "\"ktune-timeline\"";
    char *text = NULL;
    const char *at;
    size_t len = 0, n;
    json_t *root;
    kt_err err;
    int is = 0, found;

    /* A timeline is one document: a journal (a record per line) is told
     * from its first line, not read whole. */
    if (several_values(path) ||
        kt_file_read(path, "input", KT_FILE_MAX_BYTES, &text, &len, &err))
        return 0;
    /* "format" found without building the document: a tune summary of
     * 100,000 points was parsed whole here, then again to be read. */
    found = kt_journal_slim_member(text, len, "format", &at, &n);
    if (found >= 0) {
        is = found && n == sizeof want - 1 && memcmp(at, want, n) == 0;
    } else if ((root = json_loadb(text, len, 0, NULL))) {
        is = strcmp(text_of(root, "format"), "ktune-timeline") == 0;
        json_decref(root);
    }
    free(text);
    return is;
}

static size_t lane_of(const chart *c, const json_t *op)
{
    for (size_t i = 0; i < c->num_lanes; ++i)
        if (c->lanes[i].pid == int_of(op, "pid") &&
            c->lanes[i].device == int_of(op, "device") &&
            c->lanes[i].stream == int_of(op, "stream"))
            return i;
    return c->num_lanes;
}

/* Lanes in the order their first operation starts (ops are sorted by
 * start). */
static kt_status find_lanes(chart *c, const json_t *ops, kt_err *err)
{
    size_t i;
    json_t *op;
    json_int_t pid0 = 0;
    c->lanes = calloc(json_array_size(ops) + 1, sizeof *c->lanes);
    if (!c->lanes)
        return kt_err_set(err, KT_S_NOMEM, "timeline chart: out of memory");
    json_array_foreach (ops, i, op) {
        if (!json_is_object(op) || !json_is_integer(json_object_get(op, "pid")))
            return kt_err_set(err, KT_S_INPUT,
                              "timeline: ops[%zu]: expected an object with "
                              "pid, device, stream",
                              i);
        if (i == 0)
            pid0 = int_of(op, "pid");
        c->many_pids |= int_of(op, "pid") != pid0;
        if (lane_of(c, op) == c->num_lanes) {
            lane *l = &c->lanes[c->num_lanes++];
            l->pid = int_of(op, "pid");
            l->device = int_of(op, "device");
            l->stream = int_of(op, "stream");
        }
    }
    for (i = 0; i < c->num_lanes; ++i) {
        lane *l = &c->lanes[i];
        if (c->many_pids)
            snprintf(l->label, sizeof l->label, "pid %lld stream %lld",
                     (long long)l->pid, (long long)l->stream);
        else
            snprintf(l->label, sizeof l->label, "GPU %lld stream %lld",
                     (long long)l->device, (long long)l->stream);
    }
    return KT_S_OK;
}

static double lane_y(const chart *c, size_t i)
{
    return (double)(c->num_lanes - i) - 0.5;
}

/* The kinds a bar is coloured by, in legend order. */
enum { KIND_KERNEL, KIND_HTOD, KIND_DTOH, KIND_COPY, KIND_MEMSET, NUM_KINDS };

static const size_t kind_color[NUM_KINDS] = {0, 1, 2, 3, 6};

static int kind_of(const json_t *op)
{
    const char *kind = text_of(op, "kind"), *copy = text_of(op, "copy");
    if (strcmp(kind, "kernel") == 0)
        return KIND_KERNEL;
    if (strcmp(kind, "memset") == 0)
        return KIND_MEMSET;
    if (strcmp(copy, "Host-to-Device") == 0)
        return KIND_HTOD;
    return strcmp(copy, "Device-to-Host") == 0 ? KIND_DTOH : KIND_COPY;
}

/* A bar being built in one lane. Operations less than MERGE_PX apart join
 * it when they are of its kind or too narrow to see: a bench run has
 * thousands of launches per pixel. It takes the colour of the kind with
 * the most time in it; its hover text counts what it holds. */
typedef struct bar {
    double x0, x1; /* px */
    double t0, t1; /* ms */
    int kind;
    size_t count, per_kind[NUM_KINDS];
    double time[NUM_KINDS];
    char tip[320]; /* the first operation */
} bar;

static void flush_bar(chart *c, bar *b, size_t lane_index)
{
    kt_plot *p = &c->plot;
    double yc = kt_scale_map(&p->y.scale, lane_y(c, lane_index));
    double h = (p->bottom - p->top) / (double)c->num_lanes * BAR_FRAC;
    double busy = 0;
    int top = 0;
    if (!b->count)
        return;
    for (int k = 0; k < NUM_KINDS; ++k) {
        busy += b->time[k];
        if (b->time[k] > b->time[top])
            top = k;
    }
    fprintf(p->body,
            "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
            "fill=\"%s\"",
            b->x0, yc - h / 2, fmax(b->x1 - b->x0, 0.5), h,
            kt_plot_color(kind_color[top]));
    if (b->count > 1 && b->t1 > b->t0 && busy < b->t1 - b->t0)
        fprintf(p->body, " fill-opacity=\"%.2f\"",
                fmax(busy / (b->t1 - b->t0), 0.15));
    fputs("><title>", p->body);
    if (b->count == 1)
        kt_esc_write(p->body, b->tip);
    else
        fprintf(p->body,
                "%zu operations from %.3f to %.3f ms (busy %.0f%%): %zu "
                "kernels, %zu copies, %zu memsets; the first: ",
                b->count, b->t0, b->t1,
                b->t1 > b->t0 ? 100 * busy / (b->t1 - b->t0) : 100.0,
                b->per_kind[KIND_KERNEL],
                b->per_kind[KIND_HTOD] + b->per_kind[KIND_DTOH] +
                    b->per_kind[KIND_COPY],
                b->per_kind[KIND_MEMSET]);
    if (b->count > 1)
        kt_esc_write(p->body, b->tip);
    fputs("</title></rect>\n", p->body);
    memset(b, 0, sizeof *b);
}

static void describe(const json_t *op, double start_ms, double dur_ms,
                     char *out, size_t size)
{
    const char *kind = text_of(op, "kind");
    if (strcmp(kind, "kernel") == 0)
        snprintf(out, size, "%s: %.3f ms at %.3f ms, grid %lld, block %lld",
                 text_of(op, "name"), dur_ms, start_ms,
                 (long long)json_integer_value(
                     json_array_get(json_object_get(op, "grid"), 0)),
                 (long long)json_integer_value(
                     json_array_get(json_object_get(op, "block"), 0)));
    else
        snprintf(out, size, "%s %lld bytes: %.3f ms at %.3f ms",
                 strcmp(kind, "memset") == 0 ? "memset" : text_of(op, "copy"),
                 (long long)int_of(op, "bytes"), dur_ms, start_ms);
}

static void add_to_bar(bar *b, const json_t *op, int kind, double s, double e,
                       double x0, double x1)
{
    if (!b->count) {
        b->x0 = x0;
        b->t0 = s;
        b->kind = kind;
        describe(op, s, e - s, b->tip, sizeof b->tip);
    }
    b->x1 = fmax(b->x1, x1);
    b->t1 = fmax(b->t1, e);
    b->count++;
    b->per_kind[kind]++;
    b->time[kind] += e - s;
}

static void draw_lane(chart *c, const json_t *ops, size_t li)
{
    kt_plot *p = &c->plot;
    bar b = {0};
    size_t i;
    json_t *op;
    fprintf(p->body, "<g clip-path=\"url(#kt-c%d)\">\n", p->id);
    json_array_foreach (ops, i, op) {
        double s, e, x0, x1;
        int kind;
        if (lane_of(c, op) != li)
            continue;
        s = (double)int_of(op, "start_ns") / 1e6;
        e = (double)int_of(op, "end_ns") / 1e6;
        x0 = kt_scale_map(&p->x.scale, s);
        x1 = kt_scale_map(&p->x.scale, e);
        kind = kind_of(op);
        if (b.count && !(x0 - b.x1 < MERGE_PX && x1 - b.x0 <= MERGE_MAX_PX &&
                         (kind == b.kind || x1 - x0 < MERGE_PX)))
            flush_bar(c, &b, li);
        add_to_bar(&b, op, kind, s, e, x0, x1);
    }
    flush_bar(c, &b, li);
    fputs("</g>\n", p->body);
}

/* The largest idle gaps (the JSON keeps ten), shaded across the lanes and
 * labelled with their length when there is room. */
static void draw_gaps(chart *c, const json_t *root)
{
    kt_plot *p = &c->plot;
    const json_t *gaps =
        json_object_get(json_object_get(root, "gpu"), "largest_gaps");
    double span = c->t1 - c->t0;
    size_t i;
    json_t *g;
    fprintf(p->body, "<g clip-path=\"url(#kt-c%d)\">\n", p->id);
    json_array_foreach (gaps, i, g) {
        double s = (double)int_of(g, "start_ns") / 1e6;
        double len = (double)int_of(g, "length_ns") / 1e6;
        double x0 = kt_scale_map(&p->x.scale, s),
               x1 = kt_scale_map(&p->x.scale, s + len);
        char label[64];
        if (len < span * 0.01)
            continue;
        fprintf(p->body,
                "<rect class=\"region\" x=\"%.2f\" y=\"%.1f\" "
                "width=\"%.2f\" height=\"%.1f\" "
                "fill=\"#D55E00\" opacity=\"0.10\"><title>idle %.3f ms, "
                "after ",
                x0, p->top, x1 - x0, p->bottom - p->top, len);
        kt_esc_write(p->body, text_of(g, "before"));
        fputs(", before ", p->body);
        kt_esc_write(p->body, text_of(g, "after"));
        fputs("</title></rect>\n", p->body);
        snprintf(label, sizeof label, "idle %.2f ms", len);
        if (x1 - x0 > kt_plot_text_width(label, 11) + 4)
            fprintf(p->body,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                    "fill=\"#A04000\" font-size=\"11\">%s</text>\n",
                    (x0 + x1) / 2, p->top + 12, label);
    }
    fputs("</g>\n", p->body);
}

static kt_status check_root(const json_t *root, kt_err *err)
{
    const json_t *ops = json_object_get(root, "ops");
    if (strcmp(text_of(root, "format"), "ktune-timeline") != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "timeline: \"format\" is not \"ktune-timeline\"");
    if (int_of(root, "version") != 1)
        return kt_err_set(err, KT_S_INPUT,
                          "timeline: version %lld, this ktune draws version 1",
                          (long long)int_of(root, "version"));
    if (!json_is_array(ops))
        return kt_err_set(err, KT_S_INPUT,
                          "timeline: \"ops\": expected an "
                          "array");
    if (json_array_size(ops) == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "timeline: no GPU operation was recorded: nothing "
                          "to draw");
    return KT_S_OK;
}

static void chart_title(const json_t *root, char *out, size_t size)
{
    const json_t *program = json_object_get(root, "program");
    const json_t *gpu = json_object_get(root, "gpu");
    const char *name = json_string_value(json_array_get(program, 0));
    const char *base = name ? strrchr(name, '/') : NULL;
    snprintf(out, size,
             "GPU timeline of %s: busy %.2f ms, idle %.2f ms between "
             "operations; program wall time %.1f ms",
             base   ? base + 1
             : name ? name
                    : "the program",
             (double)int_of(gpu, "busy_ns") / 1e6,
             (double)int_of(gpu, "idle_ns") / 1e6,
             (double)int_of(root, "wall_ns") / 1e6);
}

static void add_legend(kt_plot *p)
{
    static const char *const labels[] = {"kernel", "Host-to-Device copy",
                                         "Device-to-Host copy", "other copy",
                                         "memset"};
    for (size_t i = 0; i < NUM_KINDS; ++i) {
        kt_style s = {.color = kt_plot_color(kind_color[i]), .width = 8};
        kt_plot_legend(p, labels[i], &s, KT_LEGEND_LINE);
    }
    kt_style gap = {.color = "#D55E00", .width = 8, .opacity = 0.25};
    kt_plot_legend(p, "idle gap (the largest)", &gap, KT_LEGEND_LINE);
}

kt_status kt_fig_timeline_svg(FILE *out, const json_t *root, kt_err *err)
{
    const json_t *ops = json_object_get(root, "ops");
    chart c = {0};
    double *ticks = NULL;
    const char **labels = NULL;
    char title[512];
    size_t i;
    json_t *op;
    kt_status s = check_root(root, err);

    if (s || (s = find_lanes(&c, ops, err)))
        goto done;
    c.t0 = INFINITY;
    c.t1 = -INFINITY;
    json_array_foreach (ops, i, op) {
        c.t0 = fmin(c.t0, (double)int_of(op, "start_ns") / 1e6);
        c.t1 = fmax(c.t1, (double)int_of(op, "end_ns") / 1e6);
    }
    ticks = calloc(c.num_lanes, sizeof *ticks);
    labels = calloc(c.num_lanes, sizeof *labels);
    if (!ticks || !labels) {
        s = kt_err_set(err, KT_S_NOMEM, "timeline chart: out of memory");
        goto done;
    }
    for (i = 0; i < c.num_lanes; ++i) {
        ticks[i] = lane_y(&c, i);
        labels[i] = c.lanes[i].label;
    }
    c.plot.x = (kt_axis){.scale = {.kind = KT_SCALE_LINEAR},
                         .title = "time from the program's start (ms)"};
    kt_scale_nice_domain(&c.plot.x.scale, c.t0, c.t1 > c.t0 ? c.t1 : c.t0 + 1,
                         10);
    c.plot.y = (kt_axis){
        .scale = {.kind = KT_SCALE_LINEAR, .d0 = 0, .d1 = (double)c.num_lanes},
        .title = "",
        .ticks = ticks,
        .labels = labels,
        .num_ticks = c.num_lanes};
    chart_title(root, title, sizeof title);
    if (kt_plot_begin(&c.plot, 0, 1100, 90 + LANE_PX * (double)c.num_lanes,
                      title) != 0) {
        s = kt_err_set(err, KT_S_NOMEM, "timeline chart: out of memory");
        goto done;
    }
    kt_plot_axes(&c.plot);
    draw_gaps(&c, root);
    for (i = 0; i < c.num_lanes; ++i)
        draw_lane(&c, ops, i);
    add_legend(&c.plot);
    if (kt_plot_end(&c.plot, out) != 0)
        s = kt_err_set(err, KT_S_IO, "timeline chart: cannot be written");
done:
    if (c.plot.body)
        kt_plot_discard(&c.plot);
    free(ticks);
    free(labels);
    free(c.lanes);
    return s;
}

kt_status kt_fig_timeline_write(const char *in, const char *out_path,
                                kt_err *err)
{
    json_error_t jerr;
    json_t *root;
    FILE *out;
    kt_status s;

    if ((s = kt_file_check_regular(in, "timeline", err)))
        return s;
    if (!(root = json_load_file(in, 0, &jerr)))
        return kt_err_set(err, KT_S_INPUT, "%s:%d: %s", in, jerr.line,
                          jerr.text);
    if (!(out = kt_out_open(out_path))) {
        json_decref(root);
        return kt_err_set(err, KT_S_IO, "%s: %s", out_path, strerror(errno));
    }
    s = kt_fig_timeline_svg(out, root, err);
    if (s)
        kt_out_discard(out);
    else if (kt_out_close(out) != 0)
        s = kt_err_set(err, KT_S_IO, "%s: cannot be written: %s", out_path,
                       strerror(errno));
    json_decref(root);
    return s;
}
