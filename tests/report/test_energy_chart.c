// SPDX-License-Identifier: Apache-2.0
/* The report's time-energy chart: the Pareto front of made-up points, and
 * the chart drawn from a real H200 summary given an energy object (the
 * front's points marked, the answer's energy and power in the caption),
 * or a line saying why when the summary has no energy; and from a journal
 * with energy records (tools/gen_energy_fixture.py), each configuration's
 * joules per launch, power against the limit and energy per byte and per
 * flop against the device's best, every configuration under its device
 * setting. And the search section's best-so-far chart under
 * objective=energy (issue 53, first contact: "the 'best median so far'
 * curve rises"): the trace is the time of the best point by energy, which
 * rises where a slower point costs less; a chart labelled "so far" is the
 * best by the objective (the summary's trace_objective), which never gets
 * worse, and the time of that point is labelled as what it is. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/document.h"
#include "report/figures.h"
#include "report/sources.h"

#define MAIN_SUMMARY                                                           \
    KT_SOURCE_DIR "/tests/report/data/vector_add-h200-main.summary.json"
#define ENERGY_JOURNAL                                                         \
    KT_SOURCE_DIR "/tests/report/data/vector_add-energy-synthetic.jsonl"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

static void the_front_keeps_what_nothing_beats_in_both(void **state)
{
    /* a fast and hungry, b slow and frugal, c beaten by a in both, d a tie
     * in time with a but hungrier, e between a and b. */
    const double t[] = {10, 30, 12, 10, 20}, e[] = {5, 1, 6, 7, 3};
    int front[5];
    (void)state;

    assert_int_equal(kt_fig_pareto(t, e, 5, front), 3);
    assert_true(front[0] && front[1] && front[4]);
    assert_false(front[2] || front[3]);
    assert_int_equal(kt_fig_pareto(t, e, 1, front), 1);
    assert_int_equal(kt_fig_pareto(t, e, 0, front), 0);
}

/* The sorted sweep against every pair compared, on random points with
 * ties in time, in energy, whole duplicates and NaNs (issue 53, N24: the
 * front was found in O(n^2), 45 s for 100k points). */
static void the_front_agrees_with_every_pair_compared(void **state)
{
    enum { N = 2000 };
    static double t[N], e[N];
    static int front[N];
    uint64_t x = 88172645463325252u;
    size_t want = 0;
    (void)state;
    for (size_t i = 0; i < N; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t[i] = (double)(x % 50);
        e[i] = (double)((x >> 20) % 50);
        if (i % 97 == 0)
            t[i] = NAN;
        if (i % 89 == 0)
            e[i] = NAN;
    }
    kt_fig_pareto(t, e, N, front);
    for (size_t i = 0; i < N; ++i) {
        int dominated = 0;
        for (size_t k = 0; k < N && !dominated; ++k)
            dominated = k != i && t[k] <= t[i] && e[k] <= e[i] &&
                        (t[k] < t[i] || e[k] < e[i]);
        if (front[i] != !dominated)
            fail_msg("point %zu (%g, %g): front %d", i, t[i], e[i], front[i]);
        want += !dominated;
    }
    assert_int_equal(kt_fig_pareto(t, e, N, front), want);
}

static char *render(const kt_sources *s)
{
    char *buf = NULL;
    size_t size = 0;
    kt_err err;
    kt_doc_options opt = {.generator = "ktune test"};
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    if (kt_doc_write(f, s, &opt, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static json_t *point(const char *cfg, double us, double j)
{
    return json_pack("{s:s,s:f,s:f}", "config", cfg, "median_us", us, "joules",
                     j);
}

static void
the_chart_marks_the_front_and_states_the_answers_energy(void **state)
{
    kt_sources s;
    json_t *pts = json_array(), *f0;
    char *html;
    kt_err err;
    (void)state;

    memset(&s, 0, sizeof s);
    assert_int_equal(kt_sources_load(&s, MAIN_SUMMARY, &err), KT_S_OK);
    html = render(&s);
    assert_contains(html, "<section id=\"energy\">");
    assert_contains(html, "No configuration of this run was measured with "
                          "energy");
    free(html);

    json_array_append_new(pts, point("vec4 block=1024 items=1", 729, 0.30));
    json_array_append_new(pts, point("vec4 block=256 items=1", 731, 0.28));
    json_array_append_new(pts, point("vec4 block=128 items=2", 740, 0.31));
    json_array_append_new(pts, point("scalar block=256", 900, 0.40));
    json_object_set_new(
        s.summary, "energy",
        json_pack("{s:s,s:o}", "objective", "time", "points", pts));
    f0 = json_array_get(json_object_get(s.summary, "finalists"), 0);
    assert_non_null(f0);
    json_object_set_new(f0, "energy",
                        json_pack("{s:b,s:f,s:f,s:f}", "measured", 1,
                                  "joules_per_launch", 0.30, "power_w", 411.5,
                                  "power_limit_w", 700.0));
    html = render(&s);
    assert_contains(html, "Time against energy, the Pareto front marked");
    assert_int_equal(count(html, "(Pareto front)</title>"), 2);
    assert_contains(html, "4 configurations measured with energy");
    assert_contains(html, "2 of them on the Pareto front");
    assert_contains(html, "takes 300.0 mJ per launch at 411.5 W");
    assert_contains(html, "of the 700 W limit");
    free(html);
    kt_sources_free(&s);
}

/* The fixture's coalesced block=32: 24.23 us at 1410 MHz, 300 W, so
 * 7.268 mJ; vector_add at n = 2^20 moves 12 MiB and does 2^20 flops. */
static void
a_journal_with_energy_shows_each_configurations_energy_against_the_best(
    void **state)
{
    kt_sources s;
    kt_work w = {
        .bytes_read = 8 << 20, .bytes_written = 4 << 20, .flops = 1 << 20};
    char *html;
    kt_err err;
    (void)state;

    memset(&s, 0, sizeof s);
    assert_int_equal(kt_sources_load(&s, ENERGY_JOURNAL, &err), KT_S_OK);
    kt_sources_set_work(&s, &w, "plugin vector_add");
    html = render(&s);
    assert_contains(html, "<section id=\"energy\">");
    assert_contains(html, "Time against energy, the Pareto front marked");
    assert_contains(html, "8 configurations measured with energy");
    /* Each point under its own setting, a row each. */
    assert_contains(html, "<tr><td>coalesced block=32 nvml_gr_clock=1410</td>"
                          "<td>24.23</td><td>7.268 [7.196, 7.341]</td>"
                          "<td>300.0 W (42.9% of 700 W)</td>"
                          "<td>578 pJ/B (72.2x the best)</td>"
                          "<td>6,932 pJ/flop (4,621x the best)</td></tr>");
    assert_contains(html, "<td>coalesced block=32 nvml_gr_clock=1980</td>");
    /* Four rows under 1410 in the energy table, and in the top table. */
    assert_int_equal(count(html, " nvml_gr_clock=1410</td>"), 8);
    assert_contains(html, "The device&#39;s best: the copy&#39;s pJ per byte");
    free(html);
    kt_sources_free(&s);
}

static json_t *reals(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; ++i)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

/* Every figure of the search section whose text says "so far": its
 * series' points (SVG y grows downwards) never go up. Returns how many
 * such figures there are. */
static size_t assert_so_far_never_rises(const char *html)
{
    const char *sec = strstr(html, "<section id=\"search\">");
    const char *end = sec ? strstr(sec, "</section>") : NULL;
    size_t charts = 0;
    assert_non_null(end);
    for (const char *f = strstr(sec, "<figure>"); f && f < end;
         f = strstr(f + 1, "<figure>")) {
        const char *stop = strstr(f, "</figure>");
        const char *d = strstr(f, "class=\"series\"");
        double x, y, last = -1;
        int used;
        if (!stop || !d || d > stop)
            continue;
        {
            /* Only figures that claim a best so far. */
            char *text = strndup(f, (size_t)(stop - f));
            int claims = strstr(text, "so far") != NULL;
            free(text);
            if (!claims)
                continue;
        }
        ++charts;
        d = strstr(d, " d=\"") + 4;
        while ((*d == 'M' || *d == 'L') &&
               sscanf(d + 1, "%lf,%lf%n", &x, &y, &used) == 2) {
            if (y < last)
                fail_msg("a chart labelled \"so far\" rises (y %g after %g)", y,
                         last);
            last = y;
            d += 1 + used;
        }
    }
    return charts;
}

static void under_energy_the_best_so_far_is_the_best_energy(void **state)
{
    /* Evaluation 3 finds a slower point that costs less energy. */
    const double time_of_best[] = {100, 90, 140, 140, 120};
    const double best_j[] = {0.30, 0.28, 0.20, 0.20, 0.15};
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;

    memset(&s, 0, sizeof s);
    assert_int_equal(kt_sources_load(&s, MAIN_SUMMARY, &err), KT_S_OK);
    json_object_set_new(s.summary, "trace", reals(time_of_best, 5));
    json_object_set_new(s.summary, "energy",
                        json_pack("{s:s}", "objective", "energy"));
    json_object_set_new(s.summary, "trace_objective",
                        json_pack("{s:s,s:s,s:o}", "objective", "energy",
                                  "unit", "J", "best", reals(best_j, 5)));
    html = render(&s);
    assert_int_equal(assert_so_far_never_rises(html), 1);
    assert_contains(html, "Best energy after each evaluation");
    assert_contains(html, "best energy per launch so far (mJ)");
    assert_contains(html, "median of the best point by the objective");
    free(html);

    /* A summary without trace_objective: no curve claims a best so far. */
    json_object_del(s.summary, "trace_objective");
    html = render(&s);
    assert_int_equal(assert_so_far_never_rises(html), 0);
    assert_contains(html, "in summaries of a newer ktune");
    free(html);
    kt_sources_free(&s);
}

static void under_time_the_best_median_so_far_is_drawn(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;

    memset(&s, 0, sizeof s);
    assert_int_equal(kt_sources_load(&s, MAIN_SUMMARY, &err), KT_S_OK);
    html = render(&s);
    assert_contains(html, "Best median time after each evaluation");
    assert_int_equal(assert_so_far_never_rises(html), 1);
    free(html);
    kt_sources_free(&s);
}

/* A journal of n evaluations with energy: the fixture's header and its
 * first record, each copy with its own block (beyond a batch of parsed
 * lines, report/sources.c, and beyond the energy table's rows). Returns
 * the temporary file's path (the caller unlinks it). */
static char *many_points(size_t n)
{
    FILE *in = fopen(ENERGY_JOURNAL, "r"), *out;
    char *head = NULL, *rec = NULL,
         *path = strdup("/tmp/kt_report_many_XXXXXX");
    size_t hc = 0, rc = 0;
    json_t *r;
    int fd;

    assert_non_null(in);
    assert_true(getline(&head, &hc, in) > 0 && getline(&rec, &rc, in) > 0);
    fclose(in);
    r = json_loads(rec, 0, NULL);
    assert_non_null(r);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    out = fdopen(fd, "w");
    assert_non_null(out);
    fputs(head, out);
    for (size_t i = 0; i < n; ++i) {
        char *line;
        json_object_set_new(
            json_object_get(json_object_get(r, "point"), "params"), "block",
            json_integer((json_int_t)(32 + i)));
        json_object_set_new(r, "call", json_integer((json_int_t)(i + 1)));
        line = json_dumps(r, JSON_COMPACT);
        fprintf(out, "%s\n", line);
        free(line);
    }
    assert_int_equal(fclose(out), 0);
    json_decref(r);
    free(head);
    free(rec);
    return path;
}

/* 5,000 configurations: every one read (in order, across parsing
 * batches), the first 1,000 as table rows and the rest as tab-separated
 * text, and the scatter thinned to what the chart can show. */
static void many_configurations_stay_on_a_page_of_bounded_size(void **state)
{
    char *path = many_points(5000), *html;
    const char *sec, *end;
    kt_sources s;
    kt_err err;
    (void)state;

    memset(&s, 0, sizeof s);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_OK);
    assert_int_equal(s.num_points, 5000);
    assert_string_equal(s.points[4999].config,
                        "coalesced block=5031 nvml_gr_clock=1410");
    html = render(&s);
    sec = strstr(html, "<section id=\"energy\">");
    assert_non_null(sec);
    end = strstr(sec, "</section>");
    assert_contains(sec, "5000 configurations measured with energy");
    assert_contains(sec, "The other 4000 configurations measured with "
                         "energy (the table&#39;s first 1000 shown above)");
    assert_contains(sec, "<tr><td>coalesced block=1031 nvml_gr_clock=1410");
    assert_null(strstr(sec, "<tr><td>coalesced block=1032 nvml_gr_clock"));
    assert_contains(sec, "\ncoalesced block=5031 nvml_gr_clock=1410\t24.23\t");
    assert_true((size_t)(end - sec) < 5000 * 120);
    free(html);
    kt_sources_free(&s);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_front_keeps_what_nothing_beats_in_both),
        cmocka_unit_test(the_front_agrees_with_every_pair_compared),
        cmocka_unit_test(
            the_chart_marks_the_front_and_states_the_answers_energy),
        cmocka_unit_test(
            a_journal_with_energy_shows_each_configurations_energy_against_the_best),
        cmocka_unit_test(under_energy_the_best_so_far_is_the_best_energy),
        cmocka_unit_test(under_time_the_best_median_so_far_is_drawn),
        cmocka_unit_test(many_configurations_stay_on_a_page_of_bounded_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
