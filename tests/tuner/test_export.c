// SPDX-License-Identifier: Apache-2.0
/* The files of a run: the JSON summary (evaluations, best with params and
 * median_us, ties, path, trace, and in replay the recorded optimum and the
 * fraction evaluated), one CSV row per point visited, and Kernel Tuner's T4
 * results with its invalidity classes; the summary table names the answer
 * and the path; with [metrics] both show the counters (sectors per request,
 * occupancy, DRAM %) and the answer's diagnosis. */
#include "tests/tuner/tuner_test.h"

#include <math.h>

#include "records/replay.h"
#include "records/t4.h"
#include "tuner/export.h"
#include "tuner/summary.h"

typedef struct fixture {
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_evaluator *ev;
    kt_space space;
    kt_tune_config cfg;
    kt_tune_result r;
    kt_tune_facts f;
    kt_calibration calib;
} fixture;

/* [metrics] for the next run (NULL: none). */
static const kt_profiling_spec *next_profiling;

static void run(fixture *x, const char *spec, const char *recording,
                const char *strategy)
{
    kt_err err;
    memset(x, 0, sizeof *x);
    if (kt_registry_resolve(&tt_reg, spec, &x->plugin, &x->op, &err) ||
        kt_space_init(&x->space, NULL, x->op, &err) ||
        kt_replay_open(recording, x->plugin, x->op, NULL, &x->ev, &err))
        fail_msg("%s", err.msg);
    kt_space_bind(&x->space, kt_replay_sizes(x->ev), kt_replay_seed(x->ev),
                  x->ev->ops->device(x->ev));
    x->cfg.op = x->op;
    x->cfg.space = &x->space;
    x->cfg.ev = x->ev;
    x->cfg.strategy = kt_strategy_find(strategy);
    x->cfg.seed = 1;
    x->cfg.finalists = 3;
    x->cfg.min_gain = 0.005;
    for (size_t i = 0; i < x->cfg.strategy->num_options; ++i)
        x->cfg.options[i] = x->cfg.strategy->options[i].default_value;
    kt_protocol_defaults(&x->cfg.protocol);
    assert_int_equal(x->ev->ops->calibration(x->ev, 0, &x->calib, &err),
                     KT_S_OK);
    x->cfg.profiling = next_profiling;
    kt_diag_facts_ceilings(&x->cfg.diag, x->calib.copy_gbs,
                           x->calib.peak_bw_gbs, 0, 0);
    if (kt_tune_run(&x->cfg, &x->r, &err))
        fail_msg("%s", err.msg);
    x->f.spec = spec;
    x->f.plugin = x->plugin;
    x->f.op = x->op;
    x->f.space = &x->space;
    x->f.sizes = kt_replay_sizes(x->ev);
    x->f.cfg = &x->cfg;
    x->f.device_name = x->ev->ops->device(x->ev)->name;
    x->f.work = x->ev->ops->work(x->ev);
    x->f.copy_gbs = x->calib.copy_gbs;
    x->f.peak_gbs = x->calib.peak_bw_gbs;
    x->f.replay = recording;
    x->f.has_optimum = kt_replay_optimum(x->ev, &x->space, &x->f.optimum,
                                         &x->f.optimum_stats, NULL) == KT_S_OK;
}

static void done(fixture *x)
{
    kt_tune_result_free(&x->r);
    kt_space_free(&x->space);
    x->ev->ops->close(x->ev);
}

static void the_summary_has_the_answer_and_the_replay_facts(void **state)
{
    fixture x;
    json_t *j, *best, *rep;
    kt_err err;
    json_error_t jerr;
    (void)state;
    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl", "coordinate");
    assert_int_equal(kt_export_json("summary.json", &x.f, &x.r, 5, &err),
                     KT_S_OK);
    j = json_load_file("summary.json", 0, &jerr);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "evaluations")),
                     x.r.evaluations);
    best = json_object_get(j, "best");
    assert_string_equal(json_string_value(json_object_get(best, "variant")),
                        x.op->variants[x.r.finals[0].point.variant].id);
    assert_true(json_is_object(json_object_get(best, "params")));
    assert_true(json_real_value(json_object_get(best, "median_us")) ==
                x.r.finals[0].stats.median);
    assert_true(json_real_value(json_object_get(best, "pct_of_copy")) > 0);
    assert_int_equal(json_array_size(json_object_get(j, "top")), 5);
    assert_int_equal(json_array_size(json_object_get(j, "trace")),
                     x.r.evaluations);
    /* The best by the objective after each evaluation: one per
     * evaluation, never worse than before (the report's "so far"). */
    {
        const json_t *tobj = json_object_get(j, "trace_objective");
        const json_t *b = json_object_get(tobj, "best");
        double last = INFINITY;
        assert_string_equal(
            json_string_value(json_object_get(tobj, "objective")), "time");
        assert_string_equal(json_string_value(json_object_get(tobj, "unit")),
                            "us");
        assert_int_equal(json_array_size(b), x.r.evaluations);
        for (size_t i = 0; i < json_array_size(b); ++i) {
            const json_t *v = json_array_get(b, i);
            if (json_is_null(v))
                continue;
            assert_true(json_real_value(v) <= last);
            last = json_real_value(v);
        }
        assert_true(isfinite(last));
    }
    /* The path: its start, then each step. */
    assert_int_equal(json_array_size(json_object_get(j, "path")),
                     x.r.num_steps + 1);
    assert_true(x.r.num_steps > 0);
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(j, "path"), 0), "dim")),
        "start");
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(j, "path"), 1), "dim")),
        "variant");
    rep = json_object_get(j, "replay");
    assert_non_null(json_object_get(rep, "recorded_optimum"));
    assert_true(
        fabs(json_real_value(json_object_get(rep, "fraction_evaluated")) -
             (double)x.r.evaluations / (double)x.r.feasible) < 1e-12);
    assert_true(json_real_value(json_object_get(rep, "best_vs_optimum")) <=
                1.03);
    assert_non_null(json_object_get(json_object_get(j, "overhead"),
                                    "tuner_ms_per_evaluation"));
    json_decref(j);
    done(&x);
}

/* Splits one CSV line into fields (quotes honoured); returns the count. */
static size_t csv_fields(const char *line, char fields[][256], size_t max)
{
    size_t n = 0, k = 0;
    int quoted = 0;
    for (const char *c = line;; ++c) {
        if (quoted && *c == '"' && c[1] == '"') {
            fields[n][k++] = '"';
            ++c;
        } else if (*c == '"') {
            quoted = !quoted;
        } else if ((!quoted && *c == ',') || *c == '\n' || !*c) {
            fields[n][k] = '\0';
            if (++n == max || *c != ',')
                return n;
            k = 0;
        } else if (k + 1 < 256) {
            fields[n][k++] = *c;
        }
    }
}

static void csv_has_a_row_per_point_with_its_status(void **state)
{
    fixture x;
    kt_err err;
    FILE *f;
    char line[4096], fields[32][256];
    size_t header_n, rows = 0, mismatch = 0, o;
    (void)state;
    run(&x, "good:scale", TT_DATA_DIR "/good-synthetic.jsonl", "exhaustive");
    assert_int_equal(kt_export_csv("points.csv", &x.f, &x.r, &err), KT_S_OK);
    f = fopen("points.csv", "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    header_n = csv_fields(line, fields, 32);
    /* device, operator and one column per size first: runs concatenate. */
    o = 2 + x.f.op->num_sizes;
    assert_string_equal(fields[0], "device");
    assert_string_equal(fields[1], "operator");
    assert_string_equal(fields[2], x.f.op->sizes[0].name);
    assert_string_equal(fields[o + 0], "evaluation");
    assert_string_equal(fields[o + 1], "variant");
    assert_string_equal(fields[o + 2], "block");
    assert_string_equal(fields[o + 5], "layout");
    assert_string_equal(fields[o + 6], "status");
    assert_string_equal(fields[o + 8], "median_us");
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(csv_fields(line, fields, 32), header_n);
        assert_string_equal(fields[1], "good:scale");
        if (strcmp(fields[o + 6], "mismatch") == 0) {
            assert_contains(fields[o + 7], "verification failed: c[17] = nan");
            assert_string_equal(fields[o + 8], "");
            ++mismatch;
        }
        if (strcmp(fields[o + 6], "ok") == 0)
            assert_true(atof(fields[o + 8]) > 0);
        ++rows;
    }
    fclose(f);
    assert_int_equal(rows, x.r.num_entries);
    assert_true(mismatch > 0);
    done(&x);
}

static const char *const t4_times[] = {"compilation",      "validation",
                                       "benchmark",        "framework",
                                       "search_algorithm", NULL};

static void t4_follows_the_schema_and_its_invalidity_classes(void **state)
{
    fixture x;
    json_t *t4, *results;
    size_t i;
    json_t *item;
    int seen_correct = 0, seen_constraints = 0, seen_correctness = 0,
        seen_runtime = 0;
    (void)state;
    run(&x, "good:scale", TT_DATA_DIR "/good-synthetic.jsonl", "exhaustive");
    t4 = kt_export_t4_json(&x.f, &x.r);
    assert_string_equal(
        json_string_value(json_object_get(t4, "schema_version")), "1.0.0");
    results = json_object_get(t4, "results");
    assert_int_equal(json_array_size(results), x.r.num_entries);
    json_array_foreach (results, i, item) {
        const char *inv =
            json_string_value(json_object_get(item, "invalidity"));
        const kt_tune_entry *e = &x.r.entries[i];
        /* The schema's required keys, and Kernel Tuner's times. */
        assert_true(json_is_object(json_object_get(item, "configuration")));
        assert_true(json_is_object(json_object_get(item, "times")));
        for (const char *const *k = t4_times; *k; ++k)
            assert_true(json_is_number(
                json_object_get(json_object_get(item, "times"), *k)));
        assert_true(json_is_number(json_object_get(item, "correctness")));
        assert_non_null(inv);
        assert_string_equal(
            json_string_value(json_object_get(
                json_object_get(item, "configuration"), "variant")),
            x.op->variants[kt_tune_entry_point(&x.r, e).variant].id);
        if (strcmp(inv, "correct") == 0) {
            json_t *m =
                json_array_get(json_object_get(item, "measurements"), 0);
            assert_string_equal(json_string_value(json_object_get(m, "name")),
                                "time");
            assert_string_equal(json_string_value(json_object_get(m, "unit")),
                                "ms");
            assert_true(fabs(json_real_value(json_object_get(m, "value")) -
                             e->timing.kernel.median / 1e3) < 1e-12);
            assert_int_equal(json_array_size(json_object_get(
                                 json_object_get(item, "times"), "runtimes")),
                             e->timing.num_rounds);
            seen_correct = 1;
        } else if (strcmp(inv, "constraints") == 0) {
            assert_true(e->host_checked);
            seen_constraints = 1;
        } else if (strcmp(inv, "correctness") == 0) {
            assert_int_equal(e->status, KT_EVAL_MISMATCH);
            seen_correctness = 1;
        } else if (strcmp(inv, "runtime") == 0) {
            assert_true(
                e->status == KT_EVAL_EXEC || e->status == KT_EVAL_ERROR ||
                (e->status == KT_EVAL_INVALID && strstr(e->reason, "refused")));
            seen_runtime = 1;
        } else {
            fail_msg("invalidity '%s' is not a T4 class here", inv);
        }
    }
    assert_true(seen_correct && seen_constraints && seen_correctness &&
                seen_runtime);
    json_decref(t4);
    done(&x);
}

static void the_table_names_the_answer_path_and_failures(void **state)
{
    fixture x;
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    (void)state;
    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl", "coordinate");
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 10);
    fclose(out);
    assert_contains(text, "vector_add:add  n=16777216  on NVIDIA H200");
    assert_contains(text, "strategy coordinate, seed 1");
    assert_contains(text, "\nbest");
    assert_contains(text, "95% CI [");
    assert_contains(text, "% of copy");
    assert_contains(text, "path (coordinate");
    assert_contains(text, "  start  coalesced block=256");
    assert_contains(text, "variant coalesced -> vec4");
    assert_contains(text, "recorded optimum");
    assert_contains(text, "top 10 of");
    free(text);
    done(&x);
    run(&x, "good:scale", TT_DATA_DIR "/good-synthetic.jsonl", "exhaustive");
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 3);
    fclose(out);
    assert_contains(text, "refused on the host");
    assert_contains(text, "mismatch, skipped:");
    assert_contains(text, "execution-error, skipped:");
    assert_contains(text, "not in the recording");
    free(text);
    done(&x);
}

/* When kernels compiled at run time, the summary's "compile:" line and
 * the JSON's "compile" object say how the pool kept ahead (takes, of
 * them hinted in time, hinted but not started, never hinted; compiles at
 * once and the peak; the GPU's wait), with exactly the fields
 * docs/schemas/tune.schema.json requires, of its types; a run that
 * compiled nothing has neither. */
static void the_summary_and_json_give_the_compile_pool_s_stats(void **state)
{
    fixture x;
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    json_t *j, *c, *schema, *props, *req, *v;
    json_error_t jerr;
    size_t i;
    const char *key;
    (void)state;

    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl", "coordinate");
    j = kt_export_summary(&x.f, &x.r, 3);
    assert_null(json_object_get(j, "compile"));
    json_decref(j);
    x.r.compiled = 130;
    x.r.compile_taken = 120;
    x.r.compile_took_queued = 5;
    x.r.compile_unhinted = 1;
    x.r.compile_work_s = 60;
    x.r.compile_busy_s = 10;
    x.r.compile_peak = 16;
    x.r.compile_wait_s = 2;
    x.r.compile_cpu_s = 130 * 1.5;
    x.r.compile_threads = 16;
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 3);
    fclose(out);
    assert_contains(text, "compile: 120 kernel(s) taken by verification, 114 "
                          "compiled or compiling ahead (hinted), 5 hinted but "
                          "not started (compiled while the GPU waited), 1 "
                          "never hinted; 6.0 compile(s) at once while "
                          "compiling (peak 16)\n");
    /* Issue 54: the pool's occupancy and the CPU per compile. */
    assert_contains(text, "compile occupancy: 6.0 compiles at once while "
                          "compiling (19.5 CPUs busy compiling) of 16; 1.50 "
                          "CPU-s per compile\n");
    free(text);
    j = kt_export_summary(&x.f, &x.r, 3);
    c = json_object_get(json_object_get(j, "compilation"), "cpu_per_compile_s");
    assert_true(fabs(json_real_value(c) - 1.5) < 1e-9);
    c = json_object_get(json_object_get(j, "compilation"), "occupancy");
    assert_true(fabs(json_real_value(c) - 6) < 1e-9);
    c = json_object_get(j, "compile");
    assert_int_equal(json_integer_value(json_object_get(c, "ahead")), 114);
    assert_true(fabs(json_real_value(json_object_get(c, "parallel")) - 6) <
                1e-9);
    schema = json_load_file(KT_SOURCE_DIR "/docs/schemas/tune.schema.json", 0,
                            &jerr);
    assert_non_null(schema);
    props = json_object_get(
        json_object_get(json_object_get(schema, "properties"), "compile"),
        "properties");
    req = json_object_get(
        json_object_get(json_object_get(schema, "properties"), "compile"),
        "required");
    assert_int_equal(json_array_size(req), json_object_size(c));
    json_array_foreach (req, i, v)
        assert_non_null(json_object_get(c, json_string_value(v)));
    json_object_foreach (c, key, v) {
        const char *type = json_string_value(
            json_object_get(json_object_get(props, key), "type"));
        assert_non_null(type);
        assert_true(strcmp(type, "integer") == 0 ? json_is_integer(v)
                                                 : json_is_number(v));
    }
    json_decref(schema);
    json_decref(j);
    done(&x);
}

/* A point whose parameters change its work (kt_variant.work) is reported
 * with its own rate, not the operator's. */
static void the_answer_is_reported_with_its_own_work(void **state)
{
    fixture x;
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    (void)state;
    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl", "coordinate");
    for (size_t i = 0; i < x.r.num_entries; ++i) {
        x.r.entries[i].has_work = 1;
        x.r.entries[i].work = (kt_work){sizeof(kt_work), 0, 8.0, 8.0, 3e9};
    }
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 3);
    fclose(out);
    assert_contains(text, "GFLOP/s of this configuration's work (3e+09 flop");
    /* 16 bytes in some microseconds: far below the operator's GB/s. */
    assert_contains(text, "0.0 GB/s");
    free(text);
    done(&x);
}

static void the_summary_shows_counters_and_the_diagnosis(void **state)
{
    kt_profiling_spec spec;
    fixture x;
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    json_t *j, *best, *m, *top0;
    json_error_t jerr;
    kt_err err;
    (void)state;
    memset(&spec, 0, sizeof spec);
    spec.points = KT_PROFILING_EVERY;
    spec.counters = 1;
    assert_int_equal(
        kt_metrics_resolve_list("registers_per_thread, theoretical_occupancy",
                                1, &spec.set, &err),
        KT_S_OK);
    next_profiling = &spec;
    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-counters-n268435456.jsonl",
        "one_at_a_time");
    next_profiling = NULL;
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 5);
    fclose(out);
    assert_contains(text, "point(s) profiled (every)");
    assert_contains(text, "ld s/req  st s/req  occ %  theo %  DRAM %  class");
    /* The answer is float4: 16 sectors per request, ideal for 16 bytes. */
    assert_contains(text, "   16.00     16.00 ");
    assert_contains(text, "  best vec4 ");
    assert_contains(text, "memory-bound (DRAM)");
    assert_contains(text,
                    "coalescing: loads: 16.00 sectors/request, 512 B asked for "
                    "per request need 16.00");
    free(text);

    assert_int_equal(kt_export_json("counters.json", &x.f, &x.r, 3, &err),
                     KT_S_OK);
    j = json_load_file("counters.json", 0, &jerr);
    assert_non_null(j);
    m = json_object_get(j, "metrics");
    assert_string_equal(json_string_value(json_object_get(m, "points")),
                        "every");
    assert_int_equal(json_integer_value(json_object_get(m, "profiled")),
                     x.r.measured);
    assert_true(json_is_null(json_object_get(m, "unavailable")));
    best = json_object_get(j, "best");
    assert_true(json_is_true(json_object_get(best, "counters_collected")));
    assert_true(
        json_real_value(json_object_get(json_object_get(best, "counters"),
                                        "achieved_occupancy")) > 0);
    assert_true(
        json_real_value(json_object_get(json_object_get(best, "counters"),
                                        "registers_per_thread")) > 0);
    assert_true(
        json_real_value(json_object_get(json_object_get(best, "counters"),
                                        "theoretical_occupancy")) > 0);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(best, "diagnosis"), "bound")),
                        "memory-bound");
    top0 = json_array_get(json_object_get(j, "top"), 0);
    assert_true(json_is_object(json_object_get(top0, "counters")));
    assert_true(json_is_object(json_object_get(top0, "kernel")));
    /* The fields every summary had are still there. */
    assert_true(json_real_value(json_object_get(best, "median_us")) > 0);
    json_decref(j);
    done(&x);

    /* Without [metrics] the summary is as it was. */
    run(&x, "vector_add:add",
        TT_DATA_DIR "/vector_add-synthetic-counters-n268435456.jsonl",
        "one_at_a_time");
    out = open_memstream(&text, &len);
    kt_summary_print(out, &x.f, &x.r, 5);
    fclose(out);
    assert_null(strstr(text, "profiled"));
    free(text);
    j = kt_export_summary(&x.f, &x.r, 3);
    assert_null(json_object_get(j, "metrics"));
    assert_null(json_object_get(json_object_get(j, "best"), "counters"));
    json_decref(j);
    done(&x);
}

/* Kernel Tuner's classes: CompilationFailedConfig is "compile", a launch
 * the driver refused (RuntimeFailedConfig) "runtime", what is refused
 * before launching (InvalidConfig) "constraints". */
static void t4_invalidity_is_mapped_like_kernel_tuner(void **state)
{
    (void)state;
    assert_string_equal(kt_t4_invalidity(KT_EVAL_OK, "", 0), "correct");
    assert_string_equal(
        kt_t4_invalidity(KT_EVAL_INVALID,
                         "constraint: block * items must divide n", 1),
        "constraints");
    assert_string_equal(
        kt_t4_invalidity(KT_EVAL_INVALID,
                         "block of 2048 threads > device limit 1024", 1),
        "constraints");
    assert_string_equal(
        kt_t4_invalidity(KT_EVAL_INVALID,
                         "verifying at n=1: launch refused: too many "
                         "resources requested for launch "
                         "(cudaErrorLaunchOutOfResources)",
                         0),
        "runtime");
    assert_string_equal(
        kt_t4_invalidity(KT_EVAL_INVALID,
                         "variant 'v' refused to launch: twice<3> does not "
                         "compile: error: static assertion failed",
                         0),
        "compile");
    assert_string_equal(
        kt_t4_invalidity(KT_EVAL_INVALID,
                         "cudaLibraryLoadData: no kernel image is available "
                         "(cudaErrorNoKernelImageForDevice)",
                         0),
        "compile");
    assert_string_equal(kt_t4_invalidity(KT_EVAL_MISMATCH, "y[3]", 0),
                        "correctness");
    assert_string_equal(kt_t4_invalidity(KT_EVAL_TIMEOUT, "", 0), "timeout");
    assert_string_equal(kt_t4_invalidity(KT_EVAL_EXEC, "illegal address", 0),
                        "runtime");
    assert_string_equal(kt_t4_invalidity(KT_EVAL_CRASH, "signal 11", 0),
                        "runtime");
    assert_string_equal(kt_t4_invalidity(KT_EVAL_ERROR, "init failed", 0),
                        "runtime");
}

static void t4_metadata_sits_next_to_the_results(void **state)
{
    char out[64];
    kt_err err;
    (void)state;
    assert_int_equal(
        kt_t4_metadata_path("run/x-results.json", out, sizeof out, &err),
        KT_S_OK);
    assert_string_equal(out, "run/x-metadata.json");
    assert_int_equal(kt_t4_metadata_path("s.t4", out, sizeof out, &err),
                     KT_S_OK);
    assert_string_equal(out, "s.t4-metadata.json");
    assert_int_equal(kt_t4_metadata_path("s.t4.json", out, sizeof out, &err),
                     KT_S_OK);
    assert_string_equal(out, "s.t4-metadata.json");
    assert_int_equal(kt_t4_metadata_path("a-very-long-name-that-does-not-"
                                         "fit-in-sixty-four-characters.json",
                                         out, sizeof out, &err),
                     KT_S_INPUT);
}

static void t4_metadata_names_the_machine_and_device(void **state)
{
    fixture x;
    json_t *m, *hw, *req;
    (void)state;
    run(&x, "good:scale", TT_DATA_DIR "/good-synthetic.jsonl", "exhaustive");
    m = kt_t4_metadata_json(&x.f);
    assert_string_equal(json_string_value(json_object_get(m, "schema_version")),
                        "1.0.0");
    hw = json_object_get(
        json_object_get(json_object_get(m, "metadata"), "hardware"),
        "hardware_description");
    assert_true(json_array_size(hw) >= 1);
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(hw, json_array_size(hw) - 1), "product")),
        x.f.device_name);
    req = json_object_get(
        json_object_get(json_object_get(m, "metadata"), "environment"),
        "requirements");
    assert_true(
        strncmp(json_string_value(json_array_get(req, 0)), "ktune==", 7) == 0);
    json_decref(m);
    done(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_summary_has_the_answer_and_the_replay_facts),
        cmocka_unit_test(csv_has_a_row_per_point_with_its_status),
        cmocka_unit_test(t4_follows_the_schema_and_its_invalidity_classes),
        cmocka_unit_test(t4_invalidity_is_mapped_like_kernel_tuner),
        cmocka_unit_test(t4_metadata_sits_next_to_the_results),
        cmocka_unit_test(t4_metadata_names_the_machine_and_device),
        cmocka_unit_test(the_table_names_the_answer_path_and_failures),
        cmocka_unit_test(the_summary_and_json_give_the_compile_pool_s_stats),
        cmocka_unit_test(the_answer_is_reported_with_its_own_work),
        cmocka_unit_test(the_summary_shows_counters_and_the_diagnosis),
    };
    return cmocka_run_group_tests(tests, tt_setup, tt_teardown);
}
