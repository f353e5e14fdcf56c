// SPDX-License-Identifier: Apache-2.0
/* The comparison and what it writes, without a GPU: a fake evaluator with
 * known times and counters proves that every row goes into ONE evaluate()
 * call, that speed-ups are paired per-round ratios against the reference
 * with their interval, and what the Markdown, JSON and CSV say; rows that
 * fail, cannot run, or lack counters are reported as such; and a replayed
 * H200 recording gives the speed-ups its raw samples imply (computed
 * independently from the file). */
#include "tests/compare/compare_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "compare/compare.h"
#include "compare/compare_out.h"
#include "compare/compare_results.h"
#include "core/loader.h"
#include "metrics/catalog.h"
#include "records/replay.h"
#include "tests/support/fake_device.h"

#define N (1 << 24)
#define ROUNDS 20

static kt_registry reg;
static const kt_loaded_plugin *plugin;
static const kt_operator *op;

/* ------------------------------------------------------ fake evaluator */

enum { PROFILE_OK, PROFILE_UNSUPPORTED, PROFILE_FAILS, PROFILE_NONE };

typedef struct fake_eval {
    kt_evaluator base;
    kt_device dev;
    kt_work work;
    double base_us[8];        /* per variant index */
    kt_eval_status status[8]; /* per variant index */
    int profile_mode;
    size_t calls, last_n; /* evaluate() calls, points in the last */
    size_t profiles;      /* profile() calls that were not checks */
} fake_eval;

static fake_eval *self(kt_evaluator *ev)
{
    return (fake_eval *)ev;
}

/* Per round, every variant's sample moves by the same factor (drift), so
 * a per-round ratio is exactly the ratio of the base times. */
static double drift(size_t round)
{
    return 1.0 + 0.002 * (double)((int)(round % 5) - 2);
}

static kt_status fake_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                               const kt_protocol *p, kt_eval_result *out,
                               kt_err *err)
{
    fake_eval *f = self(ev);
    (void)p;
    (void)err;
    ++f->calls;
    f->last_n = n;
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; ++i) {
        uint32_t v = pts[i].variant;
        kt_timing *t = &out[i].timing;
        out[i].status = f->status[v];
        out[i].shape.block[0] = 256;
        out[i].shape.block[1] = out[i].shape.block[2] = 1;
        out[i].shape.grid[0] = 1024;
        out[i].shape.grid[1] = out[i].shape.grid[2] = 1;
        if (f->status[v] != KT_EVAL_OK) {
            snprintf(out[i].reason, sizeof out[i].reason,
                     "element 17: got nan, expected 1.5");
            continue;
        }
        t->samples_us = malloc(ROUNDS * sizeof *t->samples_us);
        t->num_rounds = ROUNDS;
        for (size_t k = 0; k < ROUNDS; ++k)
            t->samples_us[k] = f->base_us[v] * drift(k);
        kt_stats_compute(t->samples_us, ROUNDS, &t->kernel);
        t->stop_reason = "noise target";
    }
    return KT_S_OK;
}

static const kt_device *fake_device(kt_evaluator *ev)
{
    return &self(ev)->dev;
}

static kt_status fake_calibration(kt_evaluator *ev, int refresh,
                                  kt_calibration *out, kt_err *err)
{
    (void)ev;
    (void)refresh;
    (void)err;
    memset(out, 0, sizeof *out);
    out->copy_gbs = 4000;
    out->peak_bw_gbs = 5000;
    snprintf(out->date, sizeof out->date, "2026-01-01T00:00:00Z");
    return KT_S_OK;
}

static json_t *fake_environment(kt_evaluator *ev)
{
    (void)ev;
    return json_pack("{s:{s:s,s:f}}", "device", "name", "Fake H200",
                     "sm_clock_mhz", 1980.0);
}

static const kt_work *fake_work(kt_evaluator *ev)
{
    return &self(ev)->work;
}

static void fake_close(kt_evaluator *ev)
{
    (void)ev;
}

/* vector_add's counts at n = 2^24 with 4-byte accesses: two loads and one
 * store per element, 4 sectors per request; DRAM moves the algorithm's
 * bytes; occupancy 75%. */
static double catalog_value(kt_metric_id id, const kt_work *w)
{
    switch (id) {
    case KT_M_LD_REQUESTS: return 2.0 * N / 32;
    case KT_M_LD_SECTORS: return 4 * 2.0 * N / 32;
    case KT_M_ST_REQUESTS: return 1.0 * N / 32;
    case KT_M_ST_SECTORS: return 4 * 1.0 * N / 32;
    case KT_M_LD_BYTES: return 4 * 2.0 * N;
    case KT_M_ST_BYTES: return 4 * 1.0 * N;
    case KT_M_ACHIEVED_OCCUPANCY: return 75.0;
    case KT_M_DRAM_READ_BYTES: return w->bytes_read;
    case KT_M_DRAM_WRITE_BYTES: return w->bytes_written;
    case KT_M_DRAM_THROUGHPUT: return 85.0;
    case KT_M_MEMORY_THROUGHPUT: return 85.0;
    case KT_M_SM_THROUGHPUT: return 20.0;
    default: return 10.0;
    }
}

static double raw_value(const char *name, const kt_work *w)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    for (size_t i = 0; i < count; ++i) {
        if (cat[i].kind != KT_MK_COUNTER)
            continue;
        if (cat[i].formula == KT_MF_VALUE && strcmp(cat[i].raw[0], name) == 0)
            return catalog_value(cat[i].id, w);
        if (cat[i].id == KT_M_LONG_SCOREBOARD)
            if (strcmp(cat[i].raw[0], name) == 0 ||
                strcmp(cat[i].raw[1], name) == 0)
                return strcmp(cat[i].raw[0], name) == 0 ? 10.0 : 100.0;
    }
    return 1.0;
}

static kt_status fake_profile(kt_evaluator *ev, const kt_point *pt,
                              const kt_profile_request *req,
                              kt_profile_result *out, kt_err *err)
{
    fake_eval *f = self(ev);
    (void)pt;
    (void)err;
    memset(out, 0, sizeof *out);
    out->counters = f->profile_mode == PROFILE_OK      ? KT_S_OK
                    : f->profile_mode == PROFILE_FAILS ? KT_S_CUDA
                                                       : KT_S_UNSUPPORTED;
    if (out->counters == KT_S_UNSUPPORTED)
        snprintf(out->note, sizeof out->note,
                 "profiling restricted to admin users");
    if (out->counters == KT_S_CUDA)
        snprintf(out->note, sizeof out->note,
                 "cuptiRangeProfilerSetConfig failed");
    if (req->check_only) {
        /* Names check fine; a failing collection fails later. */
        if (out->counters == KT_S_CUDA)
            out->counters = KT_S_OK;
        return KT_S_OK;
    }
    ++f->profiles;
    out->status = KT_EVAL_OK;
    out->kernel.available = 1;
    out->kernel.num_regs = 32;
    out->kernel.block_threads = 256;
    out->kernel.max_threads_per_block = 1024;
    out->kernel.api_blocks_per_sm = 8;
    out->kernel.reserved_smem_per_block = 1024;
    if (out->counters != KT_S_OK || !req->num_metrics)
        return KT_S_OK;
    out->values = calloc(req->num_metrics, sizeof *out->values);
    out->num_values = req->num_metrics;
    for (size_t i = 0; i < req->num_metrics; ++i)
        out->values[i] = raw_value(req->metrics[i], &f->work);
    out->stats.passes = 10;
    return KT_S_OK;
}

static const kt_evaluator_ops fake_ops = {
    .kind = "fake",
    .evaluate = fake_evaluate,
    .device = fake_device,
    .calibration = fake_calibration,
    .environment = fake_environment,
    .work = fake_work,
    .close = fake_close,
    .profile = fake_profile,
};

static const kt_evaluator_ops fake_ops_no_profile = {
    .kind = "fake",
    .evaluate = fake_evaluate,
    .device = fake_device,
    .calibration = fake_calibration,
    .environment = fake_environment,
    .work = fake_work,
    .close = fake_close,
};

static uint32_t variant(const char *id)
{
    size_t index;
    kt_err err;
    if (kt_operator_find_variant(op, id, &index, &err))
        fail_msg("%s", err.msg);
    return (uint32_t)index;
}

/* Base times that give round bandwidths for 12 * 2^24 bytes: coalesced
 * 3000 GB/s, strided 400, grid_stride 3200, vec4 4000. */
static void fake_init(fake_eval *f, int profile_mode)
{
    int64_t sizes[KT_MAX_SIZES] = {N};
    kt_problem problem;
    double bytes = 12.0 * N;

    memset(f, 0, sizeof *f);
    f->base.ops =
        profile_mode == PROFILE_NONE ? &fake_ops_no_profile : &fake_ops;
    f->profile_mode = profile_mode;
    f->dev = kt_test_h200();
    f->dev.name = "Fake H200";
    memset(&problem, 0, sizeof problem);
    problem.struct_size = sizeof problem;
    problem.num_sizes = 1;
    problem.sizes = sizes;
    problem.seed = 1;
    problem.device = &f->dev;
    f->work.struct_size = sizeof f->work;
    assert_int_equal(op->work(&problem, &f->work), KT_OK);
    assert_near(f->work.bytes_read + f->work.bytes_written, bytes, 0);
    f->base_us[variant("coalesced")] = bytes / 3000e3;
    f->base_us[variant("strided")] = bytes / 400e3;
    f->base_us[variant("grid_stride")] = bytes / 3200e3;
    f->base_us[variant("vec4")] = bytes / 4000e3;
}

/* A comparison of the given variants (defaults), reference index ref. */
static void compare_init(kt_compare *c, const char *const *ids, size_t n,
                         size_t ref)
{
    kt_err err;
    assert_int_equal(kt_compare_init(c, n, &err), KT_S_OK);
    c->spec = "vector_add:add";
    c->plugin_name = "vector_add";
    c->op = op;
    c->sizes[0] = N;
    c->seed = 1;
    kt_protocol_defaults(&c->protocol);
    c->reference = ref;
    c->counters = 1;
    assert_int_equal(kt_metrics_resolve_list(NULL, 1, &c->set, &err), KT_S_OK);
    snprintf(c->command, sizeof c->command, "ktune compare vector_add:add");
    for (size_t i = 0; i < n; ++i) {
        c->rows[i].pick.found = 1;
        c->rows[i].pick.kind = KT_PICK_DEFAULTS;
        kt_point_default(op, variant(ids[i]), &c->rows[i].pick.point);
    }
}

static char *markdown_of(const kt_compare *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    kt_compare_markdown(f, c);
    fclose(f);
    return text;
}

static char *file_text(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 20);
    if (!f)
        fail_msg("cannot read %s", path);
    if (fread(text, 1, (1 << 20) - 1, f) == 0)
        fail_msg("%s is empty", path);
    fclose(f);
    return text;
}

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

/* ---------------------------------------------------------------- tests */

static const char *const three[] = {"coalesced", "grid_stride", "vec4"};

static void every_variant_is_measured_in_one_interleaved_call(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(f.calls, 1);
    assert_int_equal(f.last_n, 3);
    assert_int_equal(c.rounds, ROUNDS);
    assert_string_equal(c.evaluator, "fake");
    assert_string_equal(c.device, "Fake H200");
    /* Paired per-round ratios: the drift cancels exactly. */
    assert_near(c.rows[2].speedup.ratio, 4.0 / 3.0, 1e-12);
    assert_near(c.rows[2].speedup.lo, 4.0 / 3.0, 1e-12);
    assert_near(c.rows[2].speedup.hi, 4.0 / 3.0, 1e-12);
    assert_int_equal(c.rows[2].speedup.n, ROUNDS);
    assert_int_equal(c.rows[2].verdict, 1);
    assert_near(c.rows[1].speedup.ratio, 3200.0 / 3000.0, 1e-12);
    assert_near(c.rows[0].speedup.ratio, 1.0, 0);
    assert_int_equal(c.rows[0].verdict, 0);
    /* Derived figures from the interleaved medians. */
    assert_near(c.rows[2].derived.bandwidth_gbs, 4000, 1e-9);
    assert_near(c.rows[2].derived.pct_of_copy, 100, 1e-9);
    assert_near(c.rows[0].derived.bandwidth_gbs, 3000, 1e-9);
    assert_false(kt_compare_failed(&c));
    kt_compare_free(&c);
}

static void counters_give_sectors_occupancy_dram_and_a_diagnosis(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    const kt_compare_row *v;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(f.profiles, 3);
    assert_true(c.counters_collected);
    v = &c.rows[2];
    assert_int_equal(v->counters, KT_S_OK);
    assert_near(v->metrics[KT_M_LD_SECTORS_PER_REQUEST], 4.0, 0);
    assert_near(v->metrics[KT_M_ST_SECTORS_PER_REQUEST], 4.0, 0);
    assert_near(v->metrics[KT_M_ACHIEVED_OCCUPANCY], 75.0, 0);
    assert_true(v->have_occ);
    assert_near(v->occ.theoretical, 100.0, 1e-9);
    /* The dram_throughput counter itself: one number per quantity. */
    assert_near(v->diag.dram_pct, 85.0, 1e-9);
    assert_int_equal(v->diag.bound, KT_BOUND_MEMORY);
    assert_string_equal(v->diag.unit, "DRAM");
    assert_true(v->diag.load.have);
    assert_near(v->diag.load.ideal, 4.0, 0);
    assert_false(v->diag.load.uncoalesced);
    kt_compare_free(&c);
}

static void the_markdown_report_shows_every_figure(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    char *md;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    c.rows[2].pick.kind = KT_PICK_CONFIG;
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    md = markdown_of(&c);
    assert_contains(md, "## vector_add:add at n=16777216 on Fake H200");
    assert_contains(md, "```\nktune compare vector_add:add\n```");
    assert_contains(md, "3 of 3 variants verified and measured together in "
                        "20 interleaved rounds");
    assert_contains(md, "Reference: **coalesced**");
    assert_contains(md, "copy ceiling 4,000 GB/s");
    assert_contains(md, "| variant | configuration | from | median µs | min "
                        "µs | IQR/median | 95% CI of median µs | speed-up vs "
                        "coalesced [95% CI] | GB/s | % of copy |");
    /* vec4: 50.331648 us, min 0.4% lower, IQR 0.40%. */
    assert_contains(md, "| vec4 | block=256 items=1 | --config | 50.33 | "
                        "50.13 | 0.40% | 50.23 – 50.43 | **1.333x [1.333, "
                        "1.333] faster** | 4,000 | 100.0% |");
    assert_contains(md, "| **coalesced** (reference) | block=256 | defaults "
                        "| 67.11 |");
    assert_contains(md, "| 1 (reference) | 3,000 | 75.0% |");
    assert_contains(md, "**1.067x [1.067, 1.067] faster** | 3,200 | 80.0% |");
    assert_contains(md, "| vec4 | 4.00 (ideal 4) | 4.00 (ideal 4) | 75.0% | "
                        "100.0% | 85.0% | memory-bound (DRAM) |");
    assert_contains(md, "- vec4: ");
    assert_false(strstr(md, "Not measured") != NULL);
    free(md);
    kt_compare_free(&c);
}

static void
the_json_record_holds_points_samples_ratios_and_counters(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_results back;
    kt_err err;
    json_t *j, *v, *samples;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    j = kt_compare_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "kind")),
                        "ktune.compare");
    assert_int_equal(json_integer_value(json_object_get(j, "format")), 1);
    assert_string_equal(json_string_value(json_object_get(j, "reference")),
                        "coalesced");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(j, "sizes"), "n")),
        N);
    assert_true(json_is_object(json_object_get(j, "environment")));
    assert_true(json_is_object(json_object_get(j, "protocol")));
    assert_int_equal(json_array_size(json_object_get(j, "variants")), 3);
    v = json_array_get(json_object_get(j, "variants"), 2);
    assert_string_equal(json_string_value(json_object_get(v, "variant")),
                        "vec4");
    assert_string_equal(json_string_value(json_object_get(v, "status")), "ok");
    assert_false(json_is_true(json_object_get(v, "reference")));
    samples = json_object_get(json_object_get(v, "timing"), "samples_us");
    assert_int_equal(json_array_size(samples), ROUNDS);
    assert_near(json_number_value(json_object_get(
                    json_object_get(v, "vs_reference"), "speedup")),
                4.0 / 3.0, 1e-12);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(v, "vs_reference"), "verdict")),
                        "faster");
    assert_near(json_number_value(
                    json_object_get(json_object_get(v, "stats"), "median_us")),
                12.0 * N / 4000e3, 1e-9);
    assert_true(json_is_true(
        json_object_get(json_object_get(v, "counters"), "collected")));
    assert_near(json_number_value(json_object_get(json_object_get(v, "figures"),
                                                  "ld_sectors_per_request")),
                4.0, 0);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(v, "diagnosis"), "bound")),
                        "memory-bound");
    assert_true(json_is_true(json_object_get(
        json_array_get(json_object_get(j, "variants"), 0), "reference")));
    json_decref(j);

    /* The record is itself a results file: the same points come back. */
    assert_int_equal(kt_compare_write_json("record.json", &c, &err), KT_S_OK);
    if (kt_results_load("record.json", "vector_add", op, &back, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(back.kind, KT_RESULTS_COMPARE);
    for (size_t i = 0; i < 3; ++i) {
        const kt_pick *p = &back.picks[c.rows[i].pick.point.variant];
        assert_true(p->found);
        assert_true(kt_point_equal(&p->point, &c.rows[i].pick.point));
        assert_near(p->recorded_us, c.rows[i].result.timing.kernel.median,
                    1e-9);
    }
    assert_false(back.picks[variant("strided")].found);
    kt_results_free(&back);
    kt_compare_free(&c);
}

static void the_csv_has_one_row_per_variant(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    char *csv;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(kt_compare_write_csv("rows.csv", &c, &err), KT_S_OK);
    csv = file_text("rows.csv");
    assert_contains(csv, "spec,n,variant,block,blocks_per_sm,items,config,"
                         "reference,source,source_file,source_detail,status,"
                         "reason,median_us,");
    assert_contains(csv, ",diagnosis\n");
    assert_contains(csv, ",vector_add:add,16777216,vec4,256,,1,block=256 "
                         "items=1,0,defaults,,,ok,,50.331648,");
    assert_contains(csv, ",faster,4000,100,4,4,75,85,memory-bound (DRAM)\n");
    assert_contains(csv, ",vector_add:add,16777216,coalesced,256,,,block=256,"
                         "1,defaults,");
    {
        size_t lines = 0;
        for (const char *p = csv; *p; ++p)
            lines += *p == '\n';
        assert_int_equal(lines, 4);
    }
    free(csv);
    kt_compare_free(&c);
}

static void
a_row_that_fails_verification_is_shown_and_fails_the_run(void **state)
{
    static const char *const ids[] = {"coalesced", "strided", "vec4"};
    fake_eval f;
    kt_compare c;
    kt_err err;
    char *md;
    json_t *j, *v;
    (void)state;
    fake_init(&f, PROFILE_OK);
    f.status[variant("strided")] = KT_EVAL_MISMATCH;
    compare_init(&c, ids, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_true(kt_compare_failed(&c));
    assert_int_equal(f.profiles, 2);
    md = markdown_of(&c);
    assert_contains(md, "2 of 3 variants verified");
    assert_contains(md, "| strided | block=256 | defaults | **mismatch** (see "
                        "below) | — |");
    assert_contains(md, "Not measured:\n\n- strided: mismatch: element 17: "
                        "got nan, expected 1.5\n");
    free(md);
    j = kt_compare_json(&c);
    v = json_array_get(json_object_get(j, "variants"), 1);
    assert_string_equal(json_string_value(json_object_get(v, "status")),
                        "mismatch");
    assert_null(json_object_get(v, "stats"));
    assert_null(json_object_get(v, "timing"));
    json_decref(j);
    kt_compare_free(&c);
}

/* grid_stride block=1024 blocks_per_sm=32: 32 blocks of 1024 threads per
 * SM cannot be resident on the fake H200 (2048 threads per SM). */
static void set_unrunnable(kt_compare_row *r)
{
    kt_point_default(op, variant("grid_stride"), &r->pick.point);
    r->pick.point.values[0] = 1024;
    r->pick.point.values[1] = 32;
}

static void rows_that_cannot_run_are_refused_on_the_host(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    char *md;
    (void)state;
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    set_unrunnable(&c.rows[1]);
    c.rows[1].pick.kind = KT_PICK_RESULTS;
    {
        kt_results file;
        memset(&file, 0, sizeof file);
        file.path = (char *)"tuned.jsonl";
        file.sizes[0] = N;
        c.files = &file;
        c.num_files = 1;
        if (kt_compare_run(&c, &f.base, &err))
            fail_msg("%s", err.msg);
        assert_true(c.rows[1].host_invalid);
        assert_int_equal(c.rows[1].result.status, KT_EVAL_INVALID);
        assert_int_equal(f.last_n, 2);
        /* Cannot run here: reported, not a failure of the comparison. */
        assert_false(kt_compare_failed(&c));
        md = markdown_of(&c);
        assert_contains(md, "- grid_stride: invalid (refused on the host): ");
        free(md);
        c.files = NULL;
        c.num_files = 0;
    }
    kt_compare_free(&c);

    /* Given on the command line, it is the user's mistake. */
    fake_init(&f, PROFILE_OK);
    compare_init(&c, three, 3, 0);
    set_unrunnable(&c.rows[1]);
    c.rows[1].pick.kind = KT_PICK_CONFIG;
    assert_int_equal(kt_compare_run(&c, &f.base, &err), KT_S_INPUT);
    assert_contains(err.msg, "--config grid_stride block=1024 "
                             "blocks_per_sm=32 cannot run at n=16777216 on "
                             "Fake H200: ");
    assert_int_equal(f.calls, 0);
    kt_compare_free(&c);
}

static void a_reference_that_does_not_measure_fails_the_run(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    (void)state;
    fake_init(&f, PROFILE_OK);
    f.status[variant("coalesced")] = KT_EVAL_ERROR;
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(c.rows[2].speedup.n, 0);
    assert_true(kt_compare_failed(&c));
    kt_compare_free(&c);
}

static void without_counters_the_diagnosis_says_so(void **state)
{
    static const int modes[] = {PROFILE_UNSUPPORTED, PROFILE_NONE};
    (void)state;
    for (size_t m = 0; m < 2; ++m) {
        fake_eval f;
        kt_compare c;
        kt_err err;
        char *md;
        fake_init(&f, modes[m]);
        compare_init(&c, three, 3, 0);
        if (kt_compare_run(&c, &f.base, &err))
            fail_msg("%s", err.msg);
        assert_false(c.counters_collected);
        assert_false(kt_compare_failed(&c));
        md = markdown_of(&c);
        assert_contains(md, modes[m] == PROFILE_NONE
                                ? "Counters: none (the fake evaluator cannot "
                                  "profile)"
                                : "Counters: none (profiling restricted to "
                                  "admin users)");
        assert_contains(md, "| vec4 | — | — | — |");
        assert_contains(md, "memory-bound (DRAM; from bandwidth alone)");
        free(md);
        kt_compare_free(&c);
    }
}

static void a_failed_collection_fails_the_run(void **state)
{
    fake_eval f;
    kt_compare c;
    kt_err err;
    char *md;
    (void)state;
    fake_init(&f, PROFILE_FAILS);
    compare_init(&c, three, 3, 0);
    if (kt_compare_run(&c, &f.base, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(c.rows[0].counters, KT_S_CUDA);
    assert_contains(c.rows[0].counters_note, "cuptiRangeProfilerSetConfig");
    assert_true(kt_compare_failed(&c));
    md = markdown_of(&c);
    assert_contains(md, "Counters: none (the collection failed; see below)");
    assert_contains(md, "(no counters: cuptiRangeProfilerSetConfig failed)");
    free(md);
    kt_compare_free(&c);
}

/* The H200 recording at 2^28, each variant at its fastest record: the
 * speed-ups against coalesced its raw samples imply (median of per-round
 * ratios over the common rounds, computed from the file by a script). */
static void a_replayed_recording_gives_the_speedups_of_its_samples(void **state)
{
    static const char *const ids[] = {"coalesced", "strided", "grid_stride",
                                      "vec4"};
    static const double speedup[] = {1.0, 0.12370921731317833,
                                     1.061055593234665, 1.2895192992167621};
    const char *path =
        KT_SOURCE_DIR "/tests/data/vector_add-h200-n268435456.jsonl";
    kt_evaluator *ev;
    kt_results file;
    kt_compare c;
    kt_err err;
    char *md;
    (void)state;
    if (kt_replay_open(path, plugin, op, NULL, &ev, &err) ||
        kt_results_load(path, "vector_add", op, &file, &err))
        fail_msg("%s", err.msg);
    compare_init(&c, ids, 4, 0);
    c.sizes[0] = 268435456;
    c.files = &file;
    c.num_files = 1;
    for (size_t i = 0; i < 4; ++i)
        assert_true(
            kt_results_best(&file, 1, variant(ids[i]), &c.rows[i].pick));
    if (kt_compare_run(&c, ev, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(c.evaluator, "replay");
    for (size_t i = 0; i < 4; ++i) {
        assert_int_equal(c.rows[i].result.status, KT_EVAL_OK);
        assert_near(c.rows[i].speedup.ratio, speedup[i], 1e-12);
        assert_true(c.rows[i].speedup.lo <= c.rows[i].speedup.ratio &&
                    c.rows[i].speedup.ratio <= c.rows[i].speedup.hi);
        assert_near(c.rows[i].result.timing.kernel.median,
                    c.rows[i].pick.recorded_us, 1e-9);
    }
    assert_near(c.rows[3].derived.pct_of_copy, 104.42, 0.01);
    md = markdown_of(&c);
    assert_contains(md, "Replayed from a recording");
    assert_contains(md, "| vec4 | block=32 items=2 | "
                        "`vector_add-h200-n268435456.jsonl` journal: fastest "
                        "of 26 ok records, 730.0 µs there | 730.0 |");
    assert_contains(md, "**1.290x [");
    /* Replay has counters only where the recording holds them. */
    assert_contains(md, "Counters: none (");
    free(md);
    kt_compare_free(&c);
    kt_results_free(&file);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_measured_in_one_interleaved_call),
        cmocka_unit_test(counters_give_sectors_occupancy_dram_and_a_diagnosis),
        cmocka_unit_test(the_markdown_report_shows_every_figure),
        cmocka_unit_test(
            the_json_record_holds_points_samples_ratios_and_counters),
        cmocka_unit_test(the_csv_has_one_row_per_variant),
        cmocka_unit_test(
            a_row_that_fails_verification_is_shown_and_fails_the_run),
        cmocka_unit_test(rows_that_cannot_run_are_refused_on_the_host),
        cmocka_unit_test(a_reference_that_does_not_measure_fails_the_run),
        cmocka_unit_test(without_counters_the_diagnosis_says_so),
        cmocka_unit_test(a_failed_collection_fails_the_run),
        cmocka_unit_test(
            a_replayed_recording_gives_the_speedups_of_its_samples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
