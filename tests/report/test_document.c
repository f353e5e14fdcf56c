// SPDX-License-Identifier: Apache-2.0
/* Reports rendered from recorded results: the real H200 summary of the
 * main job with an exhaustive H200 journal, a journal alone, a synthetic
 * journal with an enumeration and failures. The document is complete and
 * self-contained, has every section with its charts, says why a section
 * is missing, and escapes hostile text wherever it comes from. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/document.h"
#include "report/sources.h"

#define DATA KT_SOURCE_DIR "/tests/data/"
#define MAIN_SUMMARY                                                           \
    KT_SOURCE_DIR "/tests/report/data/vector_add-h200-main.summary.json"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

/* vector_add's work at n: reads a and b, writes c; one add each. */
static void vector_add_work(kt_sources *s, double n)
{
    kt_work w = {.struct_size = sizeof w,
                 .bytes_read = 8 * n,
                 .bytes_written = 4 * n,
                 .flops = n};
    kt_sources_set_work(s, &w, "vector_add's work() at this n");
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

/* Tags that open must close, and nothing may be fetched or run. */
static void assert_well_formed(const char *html)
{
    static const char *const pairs[][2] = {
        {"<section", "</section>"},
        {"<svg", "</svg>"},
        {"<table", "</table>"},
        {"<figure", "</figure>"},
        {"<tr", "</tr>"},
        {"<text", "</text>"},
        {"<g ", "</g>"},
        {"<title", "</title>"},
        {"<h2", "</h2>"},
        {"<figcaption", "</figcaption>"},
    };
    const char *end = html + strlen(html);
    assert_true(strncmp(html, "<!DOCTYPE html>\n", 16) == 0);
    assert_true(end - html > 20 && strcmp(end - 8, "</html>\n") == 0);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i)
        if (count(html, pairs[i][0]) != count(html, pairs[i][1]))
            fail_msg("%zu %s but %zu %s", count(html, pairs[i][0]), pairs[i][0],
                     count(html, pairs[i][1]), pairs[i][1]);
    if (count(html, "<p>") + count(html, "<p class") != count(html, "</p>"))
        fail_msg("<p> and </p> do not pair");
    assert_contains(html, "Content-Security-Policy");
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, " src=\""));
    assert_null(strstr(html, "href=\"http"));
    assert_null(strstr(html, "url(http"));
    assert_null(strstr(html, "@import"));
    /* No coordinate or number cell printed from a NaN or an infinity
     * (a recorded reason may say "nan": it is data). */
    for (const char *const *bad =
             (const char *const[]){"=\"nan", "=\"-nan", "=\"inf", "=\"-inf",
                                   "Mnan", "Lnan", ",nan", ",-nan", ">nan<",
                                   ">-nan<", ">inf<", NULL};
         *bad; ++bad) {
        const char *at = strstr(html, *bad);
        if (at)
            fail_msg("'%s' in: %.80s", *bad, at > html + 40 ? at - 40 : at);
    }
}

/* Every <svg> holds at least one data path with coordinates, and two axis
 * titles. */
static void assert_charts_drawn(const char *html, size_t min_charts)
{
    size_t charts = 0;
    for (const char *s = strstr(html, "<svg"); s; s = strstr(s + 1, "<svg")) {
        const char *e = strstr(s, "</svg>");
        char *chart = strndup(s, (size_t)(e - s));
        assert_non_null(chart);
        if (!strstr(chart, "class=\"series\"") &&
            !strstr(chart, "class=\"whiskers\""))
            fail_msg("chart %zu has no data path", charts + 1);
        assert_contains(chart, " d=\"M");
        assert_int_equal(count(chart, "<g class=\"axis-title\""), 1);
        {
            const char *g = strstr(chart, "<g class=\"axis-title\"");
            char *titles = strndup(g, (size_t)(strstr(g, "</g>") - g));
            assert_int_equal(count(titles, "<text"), 2);
            assert_null(strstr(titles, "\"></text>")); /* none empty */
            free(titles);
        }
        assert_contains(chart, "<g class=\"tick-label\"");
        free(chart);
        ++charts;
    }
    if (charts < min_charts)
        fail_msg("%zu charts, expected at least %zu", charts, min_charts);
}

static void summary_with_journal_has_every_section(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;
    if (kt_sources_load(&s, MAIN_SUMMARY, &err) ||
        kt_sources_add_journal(&s, DATA "vector_add-h200-n268435456.jsonl",
                               &err))
        fail_msg("%s", err.msg);
    /* 61 measured, 1 refused at launch, 10 refused on the host. */
    assert_int_equal(s.num_points, 72);
    vector_add_work(&s, 268435456);
    html = render(&s);
    assert_well_formed(html);
    /* Variant chart, block, blocks_per_sm, items; path; trace; roofline;
     * calibration. */
    assert_charts_drawn(html, 8);
    assert_int_equal(count(html, "<svg"), 8);
    for (const char *const *id =
             (const char *const[]){"answer", "parameters", "search", "roofline",
                                   "calibration", "top", "failed",
                                   "environment", NULL};
         *id; ++id) {
        char want[64];
        snprintf(want, sizeof want, "<section id=\"%s\">", *id);
        assert_contains(html, want);
    }
    assert_contains(html, "<title>ktune report: vector_add:add at n = "
                          "268,435,456 (2^28) on NVIDIA H200</title>");
    /* The answer, its ties and the path from the summary. */
    assert_contains(html, "<strong>vec4 block=1024 items=1</strong>: median "
                          "733.18 \xC2\xB5s, 95% CI [732.77, 733.54]");
    assert_contains(html, "vec4 block=256 items=1 (+0.17%)");
    assert_contains(html, "<td>variant</td><td>coalesced</td><td>vec4</td>");
    assert_contains(html, "\xE2\x88\x92"
                          "22.0%");
    /* Per-point data from the journal, with quartiles. */
    assert_contains(html, "(61 measured)");
    assert_contains(html, "bars: interquartile range");
    assert_contains(html, ">blocks_per_sm</text>");
    assert_contains(html, ">items</text>");
    /* The roofline: ceilings, the theoretical compute one said so, and the
     * answer ringed. */
    assert_contains(html, "arithmetic intensity (flop / algorithm byte, "
                          "log scale)");
    assert_contains(html, "0.0833 flop/B");
    assert_contains(html, "compute ceiling: FP32 66.9 TFLOP/s (theoretical)");
    assert_contains(html, "The compute ceiling is theoretical");
    assert_contains(html, "bandwidth ceiling: measured copy, 4,226 GB/s");
    assert_contains(html, "the answer: vec4 block=1024 items=1");
    assert_contains(html, "The run&#39;s answer, vec4 block=1024 items=1, "
                          "reaches 104% of it");
    /* The calibration curve with the L2 marked. */
    assert_contains(html, ">L2 60 MiB</text>");
    assert_contains(html, ">64 MiB</text>");
    assert_contains(html, "working set: source + destination");
    /* What could not run, and the environment record. */
    assert_contains(html, "cudaErrorLaunchOutOfResources");
    assert_contains(html, "<td>on the host</td>");
    assert_contains(html, "85e0d1f6-60d6-8271-563a-44e1b45cdd36");
    assert_contains(html, "62914560 (60 MiB)");
    assert_contains(html, "<th>noise_estimate</th>");
    /* Another run's journal is accepted with a note. */
    assert_int_equal(s.num_notes, 1);
    assert_contains(html, "another run of the same operator");
    free(html);
    kt_sources_free(&s);
}

static void summary_alone_draws_its_top_list_and_says_so(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;
    if (kt_sources_load(&s, MAIN_SUMMARY, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.num_points, 10); /* its top 10 */
    html = render(&s);
    assert_well_formed(html);
    assert_charts_drawn(html, 5);
    assert_contains(html, "Only the summary's top configurations");
    assert_contains(html, "95% confidence interval of the median (these "
                          "results keep no quartiles");
    /* No work recorded and none given: the roofline says why. */
    assert_contains(html, "The roofline needs the operator&#39;s work");
    free(html);
    kt_sources_free(&s);
}

static void journal_alone_reports_the_fastest_and_no_path(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;
    if (kt_sources_load(&s, DATA "vector_add-h200-n1048576.jsonl", &err))
        fail_msg("%s", err.msg);
    vector_add_work(&s, 1048576);
    html = render(&s);
    assert_well_formed(html);
    assert_charts_drawn(html, 6);
    assert_contains(html, "Fastest by its own measurement");
    assert_contains(html, "The path of a search is in its summary");
    assert_contains(html, "A tuning journal (strategy exhaustive)");
    assert_contains(html, "n = 1,048,576 (2^20)");
    free(html);
    kt_sources_free(&s);
}

static void enumerations_get_a_category_axis_and_failures_a_table(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;
    if (kt_sources_load(&s, DATA "good-synthetic.jsonl", &err))
        fail_msg("%s", err.msg);
    html = render(&s);
    assert_well_formed(html);
    assert_charts_drawn(html, 5);
    assert_contains(html, ">layout</text>");
    assert_contains(html, ">rows</text>");
    assert_contains(html, ">cols</text>");
    assert_contains(html, "<td>mismatch</td>");
    assert_contains(html, "<td>execution-error</td>");
    /* The synthetic header has no work and the test loads no plugin. */
    assert_contains(html, "The roofline needs the operator&#39;s work");
    free(html);
    kt_sources_free(&s);
}

static void compare_records_show_variants_side_by_side(void **state)
{
    kt_sources s;
    kt_err err;
    char *html;
    (void)state;
    /* ktune compare over the H200 journal at 2^28, replayed. */
    if (kt_sources_load(&s,
                        KT_SOURCE_DIR "/tests/report/data/"
                                      "vector_add-h200-compare-replay.json",
                        &err))
        fail_msg("%s", err.msg);
    assert_non_null(s.compare);
    assert_int_equal(s.num_points, 4);
    assert_true(s.have_work); /* the record carries it */
    html = render(&s);
    assert_well_formed(html);
    /* Time with intervals, speed-ups, roofline, calibration. */
    assert_charts_drawn(html, 4);
    assert_int_equal(count(html, "<svg"), 4);
    assert_contains(html, "<section id=\"compare\">");
    assert_null(strstr(html, "<section id=\"parameters\">"));
    assert_null(strstr(html, "<section id=\"search\">"));
    assert_contains(html, "answered from a recording (evaluator: replay)");
    assert_contains(html, ">reference: coalesced</text>");
    assert_contains(html, "speed-up against the reference");
    assert_contains(html, "<td class=\"num\">1.290\xC3\x97 [1.289, 1.290]</td>"
                          "<td>faster</td>");
    assert_contains(html, "<td class=\"num\">0.1237\xC3\x97");
    assert_contains(html, "No hardware counters in this record");
    assert_contains(html, "memory-bound (DRAM)");
    assert_contains(html, "(4 measured)");
    free(html);
    kt_sources_free(&s);
}

static void hostile_text_is_escaped_everywhere(void **state)
{
    static const char evil[] = "<img src=x onerror=alert(1)>\"'&";
    kt_sources s;
    kt_err err;
    json_t *env, *best;
    char *html;
    (void)state;
    if (kt_sources_load(&s, MAIN_SUMMARY, &err) ||
        kt_sources_add_journal(&s, DATA "vector_add-h200-n268435456.jsonl",
                               &err))
        fail_msg("%s", err.msg);
    env = json_object_get(s.summary, "environment");
    json_object_set_new(json_object_get(env, "host"), "command_line",
                        json_string(evil));
    json_object_set_new(env, "newer_part", json_pack("{s:s}", evil, evil));
    best = json_object_get(s.summary, "best");
    json_object_set_new(best, "config", json_string(evil));
    s.points[0].reason = evil;
    s.points[0].ok = 0;
    kt_sources_note(&s, "%s", evil);
    html = render(&s);
    assert_well_formed(html);
    assert_null(strstr(html, "<img"));
    assert_null(strstr(html, "onerror=alert(1)>"));
    assert_contains(html, "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    /* A part of the environment record this ktune does not know shows. */
    assert_contains(html, "<h3>newer_part</h3>");
    free(html);
    kt_sources_free(&s);
}

static void unreadable_and_foreign_inputs_are_refused(void **state)
{
    kt_sources s;
    kt_err err;
    char path[] = "/tmp/kt_report_test_XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs("{\"kind\": \"ktune.bench\"}\n", f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, "kind \"ktune.bench\" is not one ktune report "
                             "reads");
    f = fopen(path, "w");
    fputs("not json at all", f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, "not JSON");
    /* A document is read once: blanks may follow it, text may not. */
    f = fopen(path, "w");
    fputs("{\"kind\": \"ktune.bench\"}\n\n  \n", f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, "kind \"ktune.bench\" is not one ktune report");
    f = fopen(path, "w");
    fputs("{\"kind\": \"ktune.tune\"}\n{\"kind\": \"ktune.tune\"}\n", f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, ":2: not one JSON document");
    /* A journal with a broken line in the middle names the line. */
    f = fopen(path, "w");
    fputs("{\"kind\":\"ktune.journal\",\"format\":1,\"operator\":\"b\","
          "\"sizes\":{\"n\":1},\"plugin_spec\":\"a:b\"}\n{oops\n"
          "{\"kind\":\"check\"}\n",
          f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, ":2: expected a JSON record");
    /* A torn last line is dropped with a note. */
    f = fopen(path, "w");
    fputs("{\"kind\":\"ktune.journal\",\"format\":1,\"operator\":\"b\","
          "\"sizes\":{\"n\":1},\"plugin_spec\":\"a:b\"}\n"
          "{\"kind\":\"eval\",\"point\":{\"variant\":\"v\",\"params\":{}},"
          "\"status\":\"ok\",\"timing\":{\"kernel\":{\"median\":2}}}\n"
          "{\"kind\":\"eval\",\"po",
          f);
    fclose(f);
    if (kt_sources_load(&s, path, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.num_points, 1);
    assert_true(s.points[0].ok);
    assert_int_equal(s.num_notes, 1);
    assert_contains(s.notes[0], "incomplete");
    kt_sources_free(&s);
    unlink(path);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
}

/* A new journal file at path (a mkstemp template) with its header
 * written: operator add of size n=1024. */
static FILE *new_journal(char *path)
{
    int fd = mkstemp(path);
    FILE *f;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"kind\":\"ktune.journal\",\"format\":2,\"operator\":\"add\","
          "\"plugin_spec\":\"v:add\",\"sizes\":{\"n\":1024}}\n",
          f);
    return f;
}

static void counters_recorded_with_points_are_shown(void **state)
{
    kt_sources s;
    kt_err err;
    char path[] = "/tmp/kt_report_counters_XXXXXX", *html;
    FILE *f;
    (void)state;
    f = new_journal(path);
    /* Two evaluations; a profile record (format 2) for the second; a record
     * kind this ktune does not know. */
    fputs("{\"kind\":\"eval\",\"purpose\":\"measure\",\"point\":"
          "{\"variant\":\"a\",\"params\":{\"block\":64}},\"status\":"
          "\"ok\",\"timing\":{\"kernel\":{\"median\":2.5,\"q1\":2.4,"
          "\"q3\":2.6,\"n\":10}}}\n"
          "{\"kind\":\"eval\",\"purpose\":\"measure\",\"point\":"
          "{\"variant\":\"a\",\"params\":{\"block\":128}},\"status\":"
          "\"ok\",\"timing\":{\"kernel\":{\"median\":2.0,\"q1\":1.9,"
          "\"q3\":2.1,\"n\":10}}}\n"
          "{\"kind\":\"profile\",\"point\":{\"variant\":\"a\",\"params\":"
          "{\"block\":128}},\"status\":\"ok\",\"counters\":\"ok\","
          "\"metrics\":[{\"name\":\"global_load_sectors_per_request\","
          "\"value\":4.0,\"unit\":\"sectors/request\"},{\"name\":"
          "\"achieved_occupancy\",\"value\":74.5,\"unit\":\"%\"}]}\n"
          "{\"kind\":\"from_the_future\",\"x\":1}\n",
          f);
    fclose(f);
    if (kt_sources_load(&s, path, &err))
        fail_msg("%s", err.msg);
    unlink(path);
    assert_int_equal(s.num_points, 2);
    assert_null(s.points[0].profile);
    assert_non_null(s.points[1].profile);
    assert_float_equal(
        kt_src_counter(&s.points[1], "global_load_sectors_per_request"), 4, 0);
    assert_float_equal(kt_src_counter(&s.points[1], "achieved_occupancy"), 74.5,
                       0);
    assert_true(isnan(kt_src_counter(&s.points[1], "dram_throughput")));
    assert_true(isnan(kt_src_counter(&s.points[0], "achieved_occupancy")));
    html = render(&s);
    assert_well_formed(html);
    assert_contains(html, "<th>load sectors / request</th>");
    /* The faster point first, with its counters. */
    assert_contains(html, "a block=128</td><td class=\"num\">2.0000</td>");
    assert_contains(html, "<td class=\"num\">4.00</td>");
    assert_contains(html, "<td class=\"num\">74.5%</td>");
    free(html);
    kt_sources_free(&s);
}

/* A configuration of many parameters (a T1 kernel's can have dozens) is
 * named whole in the points and in the report: 40 parameters of 30-character
 * names make a text of over 1,300 characters. */
static void a_long_configuration_is_named_whole(void **state)
{
    enum { PARAMS = 40 };
    kt_sources s;
    kt_err err;
    char path[] = "/tmp/kt_report_long_XXXXXX", *html;
    char last[64];
    FILE *f;
    (void)state;
    f = new_journal(path);
    fputs("{\"kind\":\"eval\",\"purpose\":\"measure\",\"point\":"
          "{\"variant\":\"a\",\"params\":{",
          f);
    for (int i = 0; i < PARAMS; ++i)
        fprintf(f, "%s\"a_rather_long_parameter_name_%02d\":%d", i ? "," : "",
                i, 1000 + i);
    fputs("}},\"status\":\"ok\",\"timing\":{\"kernel\":{\"median\":2.5,"
          "\"q1\":2.4,\"q3\":2.6,\"n\":10}}}\n",
          f);
    fclose(f);
    if (kt_sources_load(&s, path, &err))
        fail_msg("%s", err.msg);
    unlink(path);
    assert_int_equal(s.num_points, 1);
    assert_non_null(s.points[0].config);
    assert_true(strlen(s.points[0].config) > 1300);
    snprintf(last, sizeof last, " a_rather_long_parameter_name_%02d=%d",
             PARAMS - 1, 1000 + PARAMS - 1);
    assert_non_null(strstr(s.points[0].config, last));
    html = render(&s);
    assert_well_formed(html);
    assert_contains(html, last + 1);
    free(html);
    kt_sources_free(&s);
}

static void sparse_results_say_what_each_section_lacks(void **state)
{
    kt_sources s;
    kt_err err;
    char path[] = "/tmp/kt_report_sparse_XXXXXX", *html;
    int fd = mkstemp(path);
    FILE *f;
    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    /* A summary with almost nothing in it (values of the wrong types where
     * the report reads only labels: trace, the device's name). */
    fputs("{\"kind\":\"ktune.tune\",\"spec\":\"x:y\",\"best\":null,"
          "\"top\":[],\"trace\":[null],"
          "\"environment\":{\"device\":{\"name\":7}}}",
          f);
    fclose(f);
    if (kt_sources_load(&s, path, &err))
        fail_msg("%s", err.msg);
    html = render(&s);
    assert_well_formed(html);
    assert_int_equal(count(html, "<svg"), 0);
    assert_contains(html, "No configuration verified and measured");
    assert_contains(html, "No measured configuration in these results");
    assert_contains(html, "holds no calibration");
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, " inf "));
    assert_null(strstr(html, "inf%"));
    assert_null(strstr(html, ">inf"));
    assert_contains(html, "The roofline needs the operator&#39;s work");
    free(html);
    kt_sources_free(&s);
    /* Numbers of the wrong kind are refused, not drawn (D28). */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"kind\":\"ktune.tune\",\"spec\":\"x:y\",\"best\":null,"
          "\"top\":[{\"variant\":\"v\",\"params\":{\"b\":\"wide\"},"
          "\"median_us\":null}],\"path\":\"not a list\"}",
          f);
    fclose(f);
    assert_int_equal(kt_sources_load(&s, path, &err), KT_S_INPUT);
    assert_contains(err.msg, "path: expected a list of steps");
    unlink(path);
}

static void a_journal_of_another_problem_is_refused(void **state)
{
    kt_sources s;
    kt_err err;
    (void)state;
    if (kt_sources_load(&s, MAIN_SUMMARY, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(
        kt_sources_add_journal(&s, DATA "vector_add-h200-n1048576.jsonl", &err),
        KT_S_INPUT);
    assert_contains(err.msg, "the journal is at sizes {\"n\":1048576}, the "
                             "results at {\"n\":268435456}");
    assert_int_equal(
        kt_sources_add_journal(&s, DATA "good-synthetic.jsonl", &err),
        KT_S_INPUT);
    assert_contains(err.msg, "the journal records good:scale, the results "
                             "vector_add:add");
    /* The summary is untouched by the refusals. */
    assert_int_equal(s.num_points, 10);
    kt_sources_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_with_journal_has_every_section),
        cmocka_unit_test(summary_alone_draws_its_top_list_and_says_so),
        cmocka_unit_test(journal_alone_reports_the_fastest_and_no_path),
        cmocka_unit_test(enumerations_get_a_category_axis_and_failures_a_table),
        cmocka_unit_test(compare_records_show_variants_side_by_side),
        cmocka_unit_test(hostile_text_is_escaped_everywhere),
        cmocka_unit_test(unreadable_and_foreign_inputs_are_refused),
        cmocka_unit_test(counters_recorded_with_points_are_shown),
        cmocka_unit_test(a_long_configuration_is_named_whole),
        cmocka_unit_test(sparse_results_say_what_each_section_lacks),
        cmocka_unit_test(a_journal_of_another_problem_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
