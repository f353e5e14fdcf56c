// SPDX-License-Identifier: Apache-2.0
/* kt_diff without the CLI: a bench record (samples with discarded ones)
 * against another, configurations matched by variant and parameters, the
 * interval from the samples or, where a file kept none, from the medians'
 * intervals; environments compared field by field; a bench record that
 * measured nothing, a missing field and a foreign kind refused naming the
 * file. Files are written to the test's folder. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare/diff.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A bench record of vec4 block=256 at `scale` times 100 us, on `gpu`. */
static void write_bench(const char *path, double scale, const char *gpu)
{
    char text[4096];
    int used = snprintf(
        text, sizeof text,
        "{\"kind\": \"ktune.bench\", \"format\": 1, \"plugin\": "
        "\"vector_add:add\", \"operator\": \"add\", \"sizes\": {\"n\": 1024}, "
        "\"environment\": {\"device\": {\"name\": \"%s\", \"driver_version\": "
        "13000}, \"protocol\": {\"cache\": \"cold\"}}, \"result\": {\"point\": "
        "{\"variant\": \"vec4\", \"params\": {\"block\": 256, \"items\": 1}}, "
        "\"status\": \"ok\", \"timing\": {\"kernel\": {\"median\": %g, "
        "\"ci_lo\": %g, \"ci_hi\": %g}, \"samples_us\": [",
        gpu, 100 * scale, 99 * scale, 101 * scale);
    /* Sample 7 was discarded (null). */
    for (int i = 0; i < 40; ++i)
        used +=
            i == 7 ? snprintf(text + used, sizeof text - (size_t)used, ", null")
                   : snprintf(text + used, sizeof text - (size_t)used, "%s%g",
                              i ? ", " : "", scale * (99.0 + 0.05 * (i % 41)));
    snprintf(text + used, sizeof text - (size_t)used, "]}}}\n");
    write_text(path, text);
}

static void bench_records_diff_from_their_samples(void **state)
{
    kt_diff_file a, b;
    kt_diff d;
    kt_err err;
    (void)state;
    write_bench("diff_a.json", 1.0, "NVIDIA H200");
    write_bench("diff_b.json", 1.1, "NVIDIA H200");
    assert_int_equal(kt_diff_load("diff_a.json", &a, &err), KT_S_OK);
    assert_int_equal(a.num_configs, 1);
    assert_string_equal(a.configs[0].key, "vec4 block=256 items=1");
    assert_int_equal(a.configs[0].num_samples, 39); /* the null is left out */
    assert_string_equal(a.spec, "vector_add:add");
    assert_string_equal(a.sizes, "n=1024");
    assert_int_equal(kt_diff_load("diff_b.json", &b, &err), KT_S_OK);
    assert_int_equal(kt_diff_run(&a, &b, 0.02, &d, &err), KT_S_OK);
    assert_int_equal(d.num_rows, 1);
    assert_true(d.rows[0].from_samples);
    assert_true(d.rows[0].change.ratio > 1.09 && d.rows[0].change.ratio < 1.11);
    assert_int_equal(d.rows[0].verdict, KT_DIFF_REGRESSION);
    assert_int_equal(d.count[KT_DIFF_REGRESSION], 1);
    assert_int_equal(d.num_env, 0);
    kt_diff_free(&d);
}

static void a_summary_without_samples_uses_the_medians_intervals(void **state)
{
    kt_diff_file a, b;
    kt_diff d;
    kt_err err;
    (void)state;
    write_bench("diff_a.json", 1.0, "NVIDIA H200");
    /* top kept no samples; the interval is [99/101, 101/99] around 1. */
    write_text(
        "diff_t.json",
        "{\"kind\": \"ktune.tune\", \"spec\": \"vector_add:add\", "
        "\"sizes\": {\"n\": 4096}, \"device\": \"NVIDIA H100\", "
        "\"environment\": {\"device\": {\"name\": \"NVIDIA H100\", "
        "\"driver_version\": 13000}, \"protocol\": {\"cache\": "
        "\"hot\"}}, \"top\": [{\"variant\": \"vec4\", \"params\": "
        "{\"block\": 256, \"items\": 1}, \"median_us\": 100.5, "
        "\"ci_lo_us\": 99, \"ci_hi_us\": 101}, {\"variant\": "
        "\"coalesced\", \"params\": {\"block\": 128}, \"median_us\": "
        "120, \"ci_lo_us\": 119, \"ci_hi_us\": 121}], \"best\": null}\n");
    assert_int_equal(kt_diff_load("diff_a.json", &a, &err), KT_S_OK);
    assert_int_equal(kt_diff_load("diff_t.json", &b, &err), KT_S_OK);
    assert_int_equal(kt_diff_run(&a, &b, 0.0, &d, &err), KT_S_OK);
    assert_int_equal(d.num_rows, 2);
    assert_false(d.rows[0].from_samples);
    assert_true(fabs(d.rows[0].change.lo - 99.0 / 101.0) < 1e-9);
    assert_int_equal(d.rows[0].verdict, KT_DIFF_SAME);
    assert_int_equal(d.rows[1].verdict, KT_DIFF_ONLY_B);
    /* sizes, device name and protocol differ; the driver does not. */
    assert_int_equal(d.num_env, 3);
    assert_string_equal(d.env[0].field, "sizes");
    assert_string_equal(d.env[1].field, "device.name");
    assert_string_equal(d.env[1].b, "NVIDIA H100");
    assert_string_equal(d.env[2].field, "protocol.cache");
    kt_diff_free(&d);
}

static void files_that_are_not_results_are_refused(void **state)
{
    kt_diff_file f;
    kt_err err;
    (void)state;
    write_text("diff_x.json", "{\"kind\": \"ktune.bench\", \"plugin\": "
                              "\"vector_add:add\", \"result\": {\"status\": "
                              "\"mismatch\"}}\n");
    assert_int_equal(kt_diff_load("diff_x.json", &f, &err), KT_S_INPUT);
    assert_contains(err.msg, "diff_x.json: result: the configuration was not");
    write_text("diff_x.json",
               "{\"kind\": \"ktune.tune\", \"spec\": \"vector_add:add\", "
               "\"top\": [{\"params\": {}, \"median_us\": 1, \"ci_lo_us\": 1, "
               "\"ci_hi_us\": 1}]}\n");
    assert_int_equal(kt_diff_load("diff_x.json", &f, &err), KT_S_INPUT);
    assert_contains(err.msg, "diff_x.json: top[0]: expected a \"variant\"");
    write_text("diff_x.json", "{\"kind\": \"ktune.timeline\"}\n");
    assert_int_equal(kt_diff_load("diff_x.json", &f, &err), KT_S_INPUT);
    assert_contains(err.msg, "kind ktune.timeline");
    write_text("diff_x.json", "[1, 2");
    assert_int_equal(kt_diff_load("diff_x.json", &f, &err), KT_S_INPUT);
    assert_contains(err.msg, "diff_x.json:1: not JSON");
    assert_null(f.path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bench_records_diff_from_their_samples),
        cmocka_unit_test(a_summary_without_samples_uses_the_medians_intervals),
        cmocka_unit_test(files_that_are_not_results_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
