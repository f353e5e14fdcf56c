// SPDX-License-Identifier: Apache-2.0
/* `ktune compare --from`: each variant's best verified point from the real
 * H200 journals, from journals written here (ties, failures, repeated
 * measurements, a torn last line), from `ktune tune --json` summaries
 * (best, then finalists, then top), and across several files; files of
 * another operator, of no known kind, or with points this build cannot
 * represent are refused by name. */
#include "tests/compare/compare_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compare/compare_results.h"
#include "core/loader.h"
#include "core/stats.h"
#include "records/journal.h"
#include "records/space.h"

#define DATA KT_SOURCE_DIR "/tests/data/"

static kt_registry reg;
static const kt_loaded_plugin *plugin;
static const kt_operator *op;

static int setup(void **state)
{
    kt_err err;
    (void)state;
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_BUILTIN_PLUGIN_DIR "/vector_add.so",
                              &err) ||
        kt_registry_resolve(&reg, "vector_add:add", &plugin, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static uint32_t variant(const char *id)
{
    size_t index;
    kt_err err;
    if (kt_operator_find_variant(op, id, &index, &err))
        fail_msg("%s", err.msg);
    return (uint32_t)index;
}

/* The pick of variant id, formatted "block=256 items=2". */
static const char *pick_text(const kt_results *r, const char *id)
{
    static char text[256];
    const kt_pick *p = &r->picks[variant(id)];
    if (!p->found)
        return "(none)";
    kt_point_format(op, &p->point, text, sizeof text);
    return text;
}

/* The fastest ok record of each variant, checked against the recordings
 * (values read off the files with a script, not with this code). */
static void
h200_journals_give_the_fastest_ok_record_of_each_variant(void **state)
{
    static const struct {
        const char *file;
        int64_t n;
        const char *picks[4];
        double median[4];
    } cases[] = {
        {"vector_add-h200-n268435456.jsonl",
         268435456,
         {"coalesced block=256", "strided block=1024",
          "grid_stride block=256 blocks_per_sm=8", "vec4 block=32 items=2"},
         {941.3280189037323, 7608.07991027832, 887.4239921569824,
          730.0159931182861}},
        {"vector_add-h200-n16777216.jsonl",
         16777216,
         {"coalesced block=256", "strided block=64",
          "grid_stride block=256 blocks_per_sm=8", "vec4 block=128 items=1"},
         {65.79200178384781, 459.8720073699951, 63.9520026743412,
          51.67999863624573}},
        {"vector_add-h200-n1048576.jsonl",
         1048576,
         {"coalesced block=256", "strided block=128",
          "grid_stride block=512 blocks_per_sm=4", "vec4 block=64 items=1"},
         {7.968000136315823, 31.775999814271927, 8.1599997356534,
          7.360000163316727}},
    };
    static const char *const ids[4] = {"coalesced", "strided", "grid_stride",
                                       "vec4"};
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char path[512];
        kt_results r;
        kt_err err;
        snprintf(path, sizeof path, DATA "%s", cases[c].file);
        if (kt_results_load(path, "vector_add", op, &r, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(r.kind, KT_RESULTS_JOURNAL);
        assert_int_equal(r.sizes[0], cases[c].n);
        assert_true(r.has_seed);
        assert_int_equal(r.seed, 1);
        assert_string_equal(r.device, "NVIDIA H200");
        for (int v = 0; v < 4; ++v) {
            const kt_pick *p = &r.picks[variant(ids[v])];
            assert_true(p->found);
            assert_int_equal(p->kind, KT_PICK_RESULTS);
            assert_string_equal(pick_text(&r, ids[v]), cases[c].picks[v]);
            assert_near(p->recorded_us, cases[c].median[v], 1e-9);
            assert_contains(p->detail, "fastest of ");
        }
        kt_results_free(&r);
    }
}

/* A journal written here: eval records of chosen points and medians. */
typedef struct rec {
    const char *variant;
    int64_t values[2];
    kt_eval_status status;
    double median_us;
    const char *purpose;
} rec;

static void write_journal(const char *path, const rec *recs, size_t n,
                          const char *torn_tail)
{
    kt_space space;
    kt_protocol protocol;
    kt_journal j;
    int64_t sizes[KT_MAX_SIZES] = {1 << 20};
    json_t *header;
    kt_err err;

    unlink(path);
    assert_int_equal(kt_space_init(&space, NULL, op, &err), KT_S_OK);
    kt_protocol_defaults(&protocol);
    header = kt_journal_header(
        plugin, "vector_add:add", op, sizes, 7, &space, &protocol,
        json_object(), json_pack("{s:{s:s}}", "device", "name", "Test GPU"));
    assert_int_equal(kt_journal_create(&j, path, header, &err), KT_S_OK);
    for (size_t i = 0; i < n; ++i) {
        kt_eval_result r;
        kt_point pt;
        double samples[5];
        memset(&r, 0, sizeof r);
        kt_point_default(op, variant(recs[i].variant), &pt);
        for (uint32_t k = 0; k < pt.count; ++k)
            pt.values[k] = recs[i].values[k];
        r.status = recs[i].status;
        if (r.status == KT_EVAL_OK) {
            for (int k = 0; k < 5; ++k)
                samples[k] = recs[i].median_us * (1.0 + 0.01 * (k - 2));
            kt_stats_compute(samples, 5, &r.timing.kernel);
            r.timing.samples_us = samples;
            r.timing.num_rounds = 5;
        } else {
            snprintf(r.reason, sizeof r.reason, "wrong results");
        }
        assert_int_equal(kt_journal_eval(&j, op, i + 1, 0, 1, recs[i].purpose,
                                         (double)i, &pt, &r, &err),
                         KT_S_OK);
    }
    kt_journal_close(&j);
    if (torn_tail) {
        FILE *f = fopen(path, "a");
        fputs(torn_tail, f);
        fclose(f);
    }
    json_decref(header);
    kt_space_free(&space);
}

static void
a_journal_keeps_the_earlier_of_equal_records_and_skips_failures(void **state)
{
    static const rec recs[] = {
        {"coalesced", {64}, KT_EVAL_OK, 10.0, "measure"},
        {"coalesced", {128}, KT_EVAL_OK, 10.0, "measure"},
        {"coalesced", {256}, KT_EVAL_MISMATCH, 0, "measure"},
        {"vec4", {128, 2}, KT_EVAL_OK, 12.0, "measure"},
        {"vec4", {256, 1}, KT_EVAL_OK, 11.0, "measure"},
        /* vec4 128/2 measured again, faster, in the closing round. */
        {"vec4", {128, 2}, KT_EVAL_OK, 8.0, "final"},
        {"strided", {32}, KT_EVAL_EXEC, 0, "measure"},
    };
    kt_results r;
    kt_err err;
    (void)state;
    write_journal("written.jsonl", recs, sizeof recs / sizeof recs[0], NULL);
    if (kt_results_load("written.jsonl", "vector_add", op, &r, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(pick_text(&r, "coalesced"), "coalesced block=64");
    assert_string_equal(r.picks[variant("coalesced")].detail,
                        "fastest of 2 ok records");
    assert_string_equal(pick_text(&r, "vec4"), "vec4 block=128 items=2");
    assert_near(r.picks[variant("vec4")].recorded_us, 8.0, 1e-12);
    assert_string_equal(r.picks[variant("vec4")].detail,
                        "fastest of 3 ok records");
    assert_false(r.picks[variant("strided")].found);
    assert_false(r.picks[variant("grid_stride")].found);
    assert_int_equal(r.records, 7);
    assert_int_equal(r.sizes[0], 1 << 20);
    assert_int_equal(r.seed, 7);
    assert_string_equal(r.device, "Test GPU");
    assert_string_equal(r.note, "");
    kt_results_free(&r);
}

static void a_torn_journal_is_read_up_to_its_last_complete_line(void **state)
{
    static const rec recs[] = {
        {"vec4", {256, 1}, KT_EVAL_OK, 11.0, "measure"},
    };
    kt_results r;
    kt_err err;
    (void)state;
    write_journal("torn.jsonl", recs, 1, "{\"kind\":\"eval\",\"call\":2,");
    if (kt_results_load("torn.jsonl", "vector_add", op, &r, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(pick_text(&r, "vec4"), "vec4 block=256 items=1");
    assert_contains(r.note, "incomplete");
    kt_results_free(&r);
}

/* A summary as `ktune tune --json` writes it (the fields read). */
static void write_summary(const char *path, const char *plugin_name,
                          const char *top_extra)
{
    FILE *f = fopen(path, "w");
    fprintf(f,
            "{\"kind\": \"ktune.tune\", \"format\": 1, \"spec\": "
            "\"%s:add\", \"plugin\": \"%s\", \"operator\": \"add\", "
            "\"sizes\": {\"n\": 16777216}, \"device\": \"NVIDIA H200\", "
            "\"best\": {\"variant\": \"vec4\", \"params\": {\"block\": 128, "
            "\"items\": 1}, \"median_us\": 52.0},\n"
            "\"finalists\": [\n"
            " {\"variant\": \"vec4\", \"params\": {\"block\": 128, \"items\": "
            "1}, \"median_us\": 52.0},\n"
            " {\"variant\": \"vec4\", \"params\": {\"block\": 64, \"items\": "
            "1}, \"median_us\": 51.9},\n"
            " {\"variant\": \"grid_stride\", \"params\": {\"block\": 512, "
            "\"blocks_per_sm\": 4}, \"median_us\": 64.0}],\n"
            "\"top\": [\n"
            " {\"variant\": \"vec4\", \"params\": {\"block\": 64, \"items\": "
            "1}, \"median_us\": 51.8},\n"
            " {\"variant\": \"grid_stride\", \"params\": {\"block\": 256, "
            "\"blocks_per_sm\": 8}, \"median_us\": 63.0},\n"
            " {\"variant\": \"coalesced\", \"params\": {\"block\": 512}, "
            "\"median_us\": 66.0},\n"
            " {\"variant\": \"coalesced\", \"params\": {\"block\": 256}, "
            "\"median_us\": 65.0}%s]}\n",
            plugin_name, plugin_name, top_extra);
    fclose(f);
}

static void a_summary_gives_the_answer_then_finalists_then_top(void **state)
{
    kt_results r;
    kt_err err;
    (void)state;
    write_summary("summary.json", "vector_add", "");
    if (kt_results_load("summary.json", "vector_add", op, &r, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(r.kind, KT_RESULTS_SUMMARY);
    assert_int_equal(r.sizes[0], 16777216);
    assert_false(r.has_seed);
    /* The answer wins for its variant although a finalist and a top entry
     * of it have lower medians: it won the paired comparison. */
    assert_string_equal(pick_text(&r, "vec4"), "vec4 block=128 items=1");
    assert_string_equal(r.picks[variant("vec4")].detail, "best");
    /* A finalist wins over a faster-looking top entry. */
    assert_string_equal(pick_text(&r, "grid_stride"),
                        "grid_stride block=512 blocks_per_sm=4");
    assert_string_equal(r.picks[variant("grid_stride")].detail, "finalist");
    /* Top entries: the fastest. */
    assert_string_equal(pick_text(&r, "coalesced"), "coalesced block=256");
    assert_string_equal(r.picks[variant("coalesced")].detail, "top #4");
    assert_near(r.picks[variant("coalesced")].recorded_us, 65.0, 0);
    assert_false(r.picks[variant("strided")].found);
    assert_int_equal(r.records, 8);
    kt_results_free(&r);
}

static void files_that_cannot_be_used_are_refused_by_name(void **state)
{
    kt_results r;
    kt_err err;
    (void)state;
    write_summary("other.json", "saxpy", "");
    assert_int_equal(kt_results_load("other.json", "vector_add", op, &r, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "other.json records saxpy:add, not "
                             "vector_add:add");
    assert_int_equal(kt_results_load(DATA "good-synthetic.jsonl", "vector_add",
                                     op, &r, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "records good:scale, not vector_add:add");
    write_summary("badvalue.json", "vector_add",
                  ",\n {\"variant\": \"vec4\", \"params\": {\"block\": 100, "
                  "\"items\": 1}, \"median_us\": 1.0}");
    assert_int_equal(
        kt_results_load("badvalue.json", "vector_add", op, &r, &err),
        KT_S_INPUT);
    assert_contains(err.msg, "badvalue.json: top[4]: ");
    assert_contains(err.msg, "100");
    {
        FILE *f = fopen("kind.json", "w");
        fputs("{\"kind\": \"ktune.bench\"}\n", f);
        fclose(f);
    }
    assert_int_equal(kt_results_load("kind.json", "vector_add", op, &r, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "its kind is \"ktune.bench\"");
    assert_int_equal(kt_results_load(KT_SOURCE_DIR "/configs/vector_add.ini",
                                     "vector_add", op, &r, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "not a results file");
    assert_int_equal(
        kt_results_load("does-not-exist.json", "vector_add", op, &r, &err),
        KT_S_INPUT);
    assert_contains(err.msg, "does-not-exist.json: cannot open");
}

static void several_files_give_the_fastest_recorded_pick(void **state)
{
    static const rec slow[] = {
        {"vec4", {256, 1}, KT_EVAL_OK, 60.0, "measure"},
        {"coalesced", {64}, KT_EVAL_OK, 65.0, "measure"},
    };
    kt_results files[2];
    kt_pick p;
    kt_err err;
    (void)state;
    write_journal("slow.jsonl", slow, 2, NULL);
    write_summary("fast.json", "vector_add", "");
    if (kt_results_load("slow.jsonl", "vector_add", op, &files[0], &err) ||
        kt_results_load("fast.json", "vector_add", op, &files[1], &err))
        fail_msg("%s", err.msg);
    assert_true(kt_results_best(files, 2, variant("vec4"), &p));
    assert_int_equal(p.file, 1);
    assert_near(p.recorded_us, 52.0, 0);
    /* Equal medians (65 us in both): the earlier file. */
    assert_true(kt_results_best(files, 2, variant("coalesced"), &p));
    assert_int_equal(p.file, 0);
    assert_true(kt_results_best(files, 2, variant("grid_stride"), &p));
    assert_int_equal(p.file, 1);
    assert_false(kt_results_best(files, 2, variant("strided"), &p));
    kt_results_free(&files[0]);
    kt_results_free(&files[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            h200_journals_give_the_fastest_ok_record_of_each_variant),
        cmocka_unit_test(
            a_journal_keeps_the_earlier_of_equal_records_and_skips_failures),
        cmocka_unit_test(a_torn_journal_is_read_up_to_its_last_complete_line),
        cmocka_unit_test(a_summary_gives_the_answer_then_finalists_then_top),
        cmocka_unit_test(files_that_cannot_be_used_are_refused_by_name),
        cmocka_unit_test(several_files_give_the_fastest_recorded_pick),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
