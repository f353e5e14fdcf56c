// SPDX-License-Identifier: Apache-2.0
/* One chart as SVG: data mapped through the axes' scales into the plot
 * area, lines broken where a point cannot be shown, every text escaped,
 * ticks and titles on both axes, a legend that makes the chart taller. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/plot.h"

static char *svg_of(kt_plot *p)
{
    /* The stream's buffer lives in a heap cell, not in a local the stream
     * points at: GCC's -O3 -Wdangling-pointer takes a returned local
     * updated through open_memstream for a dangling one. */
    struct {
        char *buf;
        size_t size;
    } *m = calloc(1, sizeof *m);
    char *svg;
    FILE *f;
    assert_non_null(m);
    f = open_memstream(&m->buf, &m->size);
    assert_non_null(f);
    assert_int_equal(kt_plot_end(p, f), 0);
    assert_int_equal(fclose(f), 0);
    svg = m->buf;
    free(m);
    return svg;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

static void begin(kt_plot *p, int id)
{
    memset(p, 0, sizeof *p);
    p->x.scale = (kt_scale){KT_SCALE_LOG, 1, 100, 0, 0};
    p->x.title = "block <threads>";
    p->y.scale = (kt_scale){KT_SCALE_LINEAR, 0, 10, 0, 0};
    p->y.title = "time (\xC2\xB5s)";
    assert_int_equal(kt_plot_begin(p, id, 600, 300, "A & B"), 0);
}

static void data_lands_in_the_plot_area(void **state)
{
    kt_plot p;
    double x[] = {1, 10, 100}, y[] = {0, 5, 10};
    char *svg, want[128];
    (void)state;
    begin(&p, 3);
    /* The range is the plot area: left..right, bottom..top. */
    assert_float_equal(p.x.scale.r0, p.left, 0);
    assert_float_equal(p.x.scale.r1, p.right, 0);
    assert_float_equal(p.y.scale.r0, p.bottom, 0);
    assert_float_equal(p.y.scale.r1, p.top, 0);
    kt_plot_axes(&p);
    kt_plot_path(&p, x, y, 3, &(kt_style){.color = "#0072B2"});
    snprintf(want, sizeof want, "d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,%.1f\"", p.left,
             p.bottom, (p.left + p.right) / 2, (p.top + p.bottom) / 2, p.right,
             p.top);
    svg = svg_of(&p);
    assert_contains(svg, want);
    assert_contains(svg, "stroke=\"#0072B2\"");
    assert_contains(svg, "clip-path=\"url(#kt-c3)\"");
    assert_contains(svg, "<clipPath id=\"kt-c3\">");
    assert_contains(svg, "viewBox=\"0 0 600 300\"");
    free(svg);
}

static void points_a_log_axis_cannot_show_break_the_line(void **state)
{
    kt_plot p;
    double x[] = {1, 2, -1, 4, 8}, y[] = {1, 2, 3, NAN, 5};
    char *svg;
    (void)state;
    begin(&p, 1);
    kt_plot_path(&p, x, y, 5, NULL);
    svg = svg_of(&p);
    /* Two pieces: (1, 2), then (8) alone; -1 and NaN are left out. */
    assert_int_equal(count(svg, "<path class=\"series\""), 1);
    {
        const char *d = strstr(strstr(svg, "class=\"series\""), " d=\"");
        const char *end = strchr(d + 4, '"');
        size_t moves = 0, lines = 0;
        for (const char *c = d + 4; c < end; ++c) {
            moves += *c == 'M';
            lines += *c == 'L';
        }
        assert_int_equal(moves, 2);
        assert_int_equal(lines, 1);
    }
    free(svg);

    /* Nothing to draw: no element at all, so no empty path. */
    begin(&p, 2);
    kt_plot_path(&p, x + 2, y + 2, 1, NULL);
    svg = svg_of(&p);
    assert_null(strstr(svg, "class=\"series\""));
    free(svg);
}

static void axes_have_ticks_labels_and_titles(void **state)
{
    kt_plot p;
    char *svg;
    (void)state;
    begin(&p, 1);
    kt_plot_axes(&p);
    svg = svg_of(&p);
    /* x: decades 1, 10, 100; y: 0, 2, ..., 10 (step 2 for ~5 ticks). */
    assert_contains(svg, ">1</text>");
    assert_contains(svg, ">10</text>");
    assert_contains(svg, ">100</text>");
    assert_contains(svg, ">0</text>");
    assert_contains(svg, ">4</text>");
    assert_contains(svg, "class=\"axis-title\"");
    assert_contains(svg, ">block &lt;threads&gt;</text>");
    assert_contains(svg, ">time (\xC2\xB5s)</text>");
    assert_contains(svg, "<title id=\"kt-t1\">A &amp; B</title>");
    free(svg);
}

static void explicit_ticks_use_their_labels_escaped(void **state)
{
    kt_plot p;
    double ticks[] = {0, 1, 2, 9};
    const char *labels[] = {"rows", "<cols>", "x&y", "outside"};
    char *svg;
    (void)state;
    memset(&p, 0, sizeof p);
    p.x.scale = (kt_scale){KT_SCALE_LINEAR, -0.5, 2.5, 0, 0};
    p.x.ticks = ticks;
    p.x.labels = labels;
    p.x.num_ticks = 4;
    p.y.scale = (kt_scale){KT_SCALE_LINEAR, 0, 1, 0, 0};
    assert_int_equal(kt_plot_begin(&p, 1, 600, 300, "t"), 0);
    kt_plot_axes(&p);
    svg = svg_of(&p);
    assert_contains(svg, ">rows</text>");
    assert_contains(svg, ">&lt;cols&gt;</text>");
    assert_contains(svg, ">x&amp;y</text>");
    assert_null(strstr(svg, "outside")); /* not in the domain */
    free(svg);
}

static void crowded_labels_are_turned_and_the_chart_grows(void **state)
{
    kt_plot p;
    double ticks[12];
    const char *labels[12];
    char *svg;
    (void)state;
    for (int i = 0; i < 12; ++i) {
        ticks[i] = i;
        labels[i] = "a_rather_long_variant_name";
    }
    memset(&p, 0, sizeof p);
    p.x.scale = (kt_scale){KT_SCALE_LINEAR, -0.5, 11.5, 0, 0};
    p.x.ticks = ticks;
    p.x.labels = labels;
    p.x.num_ticks = 12;
    p.y.scale = (kt_scale){KT_SCALE_LINEAR, 0, 1, 0, 0};
    assert_int_equal(kt_plot_begin(&p, 1, 600, 300, "t"), 0);
    kt_plot_axes(&p);
    assert_true(p.height > 300);
    svg = svg_of(&p);
    assert_int_equal(count(svg, "rotate(-35"), 12);
    free(svg);
}

static void markers_carry_escaped_hover_titles(void **state)
{
    kt_plot p;
    double x[] = {10, 0}, y[] = {5, 5};
    const char *tips[] = {"vec4 <block=256>", "never shown"};
    char *svg;
    (void)state;
    begin(&p, 1);
    kt_plot_markers(&p, x, y, 2, &(kt_style){.color = "#D55E00"}, tips);
    svg = svg_of(&p);
    assert_int_equal(count(svg, "<circle"), 1); /* x = 0 is off a log axis */
    assert_contains(svg, "<title>vec4 &lt;block=256&gt;</title>");
    free(svg);
}

static void whiskers_reference_lines_and_legend(void **state)
{
    kt_plot p;
    double x[] = {10}, lo[] = {2}, hi[] = {8};
    double h0;
    char *svg;
    (void)state;
    begin(&p, 1);
    h0 = p.height;
    kt_plot_whiskers_v(&p, x, lo, hi, 1, NULL);
    kt_plot_hline(&p, 5, &(kt_style){.dash = "4 2"}, "ceiling <5>");
    kt_plot_hline(&p, 50, NULL, "outside the domain");
    kt_plot_vline(&p, 60, NULL, "L2 60 MiB");
    kt_plot_legend(&p, "variant & co", &(kt_style){.color = "#009E73"},
                   KT_LEGEND_BOTH);
    svg = svg_of(&p);
    assert_contains(svg, "class=\"whiskers\"");
    assert_contains(svg, "stroke-dasharray=\"4 2\"");
    assert_contains(svg, ">ceiling &lt;5&gt;</text>");
    assert_null(strstr(svg, "outside the domain"));
    assert_contains(svg, ">L2 60 MiB</text>");
    assert_contains(svg, "class=\"legend\"");
    assert_contains(svg, ">variant &amp; co</text>");
    /* The legend is below the axes: the viewBox grew. */
    assert_null(strstr(svg, "viewBox=\"0 0 600 300\""));
    assert_true(h0 == 300);
    free(svg);
}

static void text_width_counts_characters_not_bytes(void **state)
{
    (void)state;
    assert_float_equal(kt_plot_text_width("abcd", 10),
                       4 * KT_PLOT_EM_PER_CHAR * 10, 1e-9);
    /* "µs": two characters, three bytes. */
    assert_float_equal(kt_plot_text_width("\xC2\xB5s", 10),
                       2 * KT_PLOT_EM_PER_CHAR * 10, 1e-9);
    assert_float_equal(kt_plot_text_width("", 10), 0, 0);
}

/* The x attribute of the <text> holding label, and its text-anchor. */
static double label_x(const char *svg, const char *label, char *anchor)
{
    const char *end = strstr(svg, label), *t = end;
    double x = NAN;
    assert_non_null(end);
    while (t > svg && strncmp(t, "<text", 5) != 0)
        --t;
    assert_int_equal(sscanf(t, "<text class=\"%*[^\"]\" x=\"%lf\"", &x), 1);
    assert_int_equal(
        sscanf(strstr(t, "text-anchor=\""), "text-anchor=\"%7[a-z]", anchor),
        1);
    return x;
}

static void labels_move_off_the_edge_and_off_the_lines(void **state)
{
    kt_plot p;
    double x[] = {1, 100}, y[] = {0, 10};
    char anchor[8], *svg;
    double at;
    (void)state;
    begin(&p, 1);
    /* At the right edge the preferred "start" would run out of the plot. */
    kt_plot_text(&p, 90, 2, 4, 16, "start", "a long label near the edge", NULL);
    /* A line from corner to corner passes right of (10, 5)'s label. */
    kt_plot_path(&p, x, y, 2, NULL);
    kt_plot_text(&p, 10, 5.5, 10, 4, "start", "left of the line", NULL);
    svg = svg_of(&p);
    at = label_x(svg, ">a long label near the edge<", anchor);
    assert_string_equal(anchor, "end");
    assert_true(at <= p.right);
    label_x(svg, ">left of the line<", anchor);
    assert_string_equal(anchor, "end");
    free(svg);
}

static void a_label_without_room_goes_to_the_legend(void **state)
{
    kt_plot p;
    char *svg;
    (void)state;
    begin(&p, 1);
    kt_plot_text(&p, 10, 5, 10, 4, "start",
                 "a label far too long to fit anywhere in a plot area of "
                 "six hundred pixels, however it is turned",
                 "short one");
    kt_plot_text(&p, 10, 5, 10, 4, "start",
                 "another label far too long to fit anywhere in this plot "
                 "area, and without a short form",
                 NULL);
    svg = svg_of(&p);
    assert_contains(svg, "class=\"note\"");
    assert_contains(svg, ">short one</text>");
    assert_null(strstr(svg, "however it is turned"));
    assert_contains(strstr(svg, "class=\"legend\""),
                    ">another label far too long");
    free(svg);
}

static void palette_cycles(void **state)
{
    (void)state;
    assert_string_equal(kt_plot_color(0), "#0072B2");
    assert_string_equal(kt_plot_color(7), kt_plot_color(0));
    assert_string_not_equal(kt_plot_color(1), kt_plot_color(0));
}

/* Beyond KT_PLOT_MARKERS_ALL points a scatter draws one marker per cell
 * of one radius that holds any, its tip counting the points it stands
 * for (100,000 circles made a 50 MB page); below it, every point. */
static void a_long_scatter_draws_what_a_chart_can_show(void **state)
{
    enum { N = 20000 };
    static double x[N], y[N];
    static const char *tips[N];
    kt_plot p;
    char *svg;
    (void)state;
    for (size_t i = 0; i < N; ++i) {
        /* 100 distinct spots, each 200 times, and one lone point */
        x[i] = 1 + (double)(i % 10) * 10;
        y[i] = (double)((i / 10) % 10);
        tips[i] = "vec4 block=256";
    }
    x[N - 1] = 99;
    y[N - 1] = 9.9;
    tips[N - 1] = "the lone one";
    begin(&p, 1);
    kt_plot_markers(&p, x, y, N, NULL, tips);
    svg = svg_of(&p);
    assert_int_equal(count(svg, "<circle"), 101);
    assert_int_equal(count(svg, "(and 199 more points under this marker)"), 99);
    assert_contains(svg, "<title>the lone one</title>");
    free(svg);

    begin(&p, 2);
    kt_plot_markers(&p, x, y, KT_PLOT_MARKERS_ALL, NULL, tips);
    svg = svg_of(&p);
    assert_int_equal(count(svg, "<circle"), KT_PLOT_MARKERS_ALL);
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_lands_in_the_plot_area),
        cmocka_unit_test(points_a_log_axis_cannot_show_break_the_line),
        cmocka_unit_test(axes_have_ticks_labels_and_titles),
        cmocka_unit_test(explicit_ticks_use_their_labels_escaped),
        cmocka_unit_test(crowded_labels_are_turned_and_the_chart_grows),
        cmocka_unit_test(markers_carry_escaped_hover_titles),
        cmocka_unit_test(a_long_scatter_draws_what_a_chart_can_show),
        cmocka_unit_test(whiskers_reference_lines_and_legend),
        cmocka_unit_test(text_width_counts_characters_not_bytes),
        cmocka_unit_test(labels_move_off_the_edge_and_off_the_lines),
        cmocka_unit_test(a_label_without_room_goes_to_the_legend),
        cmocka_unit_test(palette_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
