// SPDX-License-Identifier: Apache-2.0
/* The default search (one_at_a_time) on gemv:atx spaces replayed from
 * recordings written here, with a model that puts the cuBLAS reference
 * ahead of every other variant at its defaults: the search still ends at
 * the tuned best of the others (or at the reference when it truly wins),
 * walks past ridges no single change crosses, never stops while something
 * is left to try within the budget, and says why it stopped. */
#include "tests/tuner/tuner_test.h"

#include <jansson.h>
#include <math.h>

#include "core/result_json.h"
#include "core/stats.h"
#include "records/replay.h"
#include "tuner/summary.h"
#include "tuner/tune.h"

#define VA_HEADER TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl"
#define SAMPLES 30

static kt_registry reg;
static const kt_loaded_plugin *gemv;
static const kt_operator *atx;

/* The model: a bowl per variant in the indices of the values (curvature
 * per step squared), optionally a ridge between block and col_threads. */
typedef struct model {
    double vec4_us, split_us, cublas_us;
    int ridge;
    /* Non-zero: the space lists nvml_gr_clock = 1410, 1755, 1980 (ktune's
     * dimension) and a point's time grows by 10% per 100 MHz away from
     * this clock. */
    unsigned gr_best;
} model;

/* Position of pt's value of parameter `name` among the narrowed values,
 * minus the position of `best`. */
static double off(const kt_space *space, const kt_point *pt, const char *name,
                  int64_t best)
{
    long slot = kt_space_slot_of(space, pt->variant);
    const kt_space_variant *sv = &space->slots[slot];
    long p = kt_variant_find_param(&atx->variants[pt->variant], name);
    long at = -1, want = -1;
    for (uint32_t k = 0; k < sv->count[p]; ++k) {
        at = sv->values[p][k] == pt->values[p] ? (long)k : at;
        want = sv->values[p][k] == best ? (long)k : want;
    }
    return (double)(at - want);
}

static double params_us(const model *m, const kt_space *space,
                        const kt_point *pt);

static double model_us(const model *m, const kt_space *space,
                       const kt_point *pt)
{
    double away = fabs((double)pt->nvml.gr_mhz - (double)m->gr_best) / 100;
    return params_us(m, space, pt) * (m->gr_best ? 1 + 0.1 * away : 1);
}

static double params_us(const model *m, const kt_space *space,
                        const kt_point *pt)
{
    const char *id = atx->variants[pt->variant].id;
    if (strcmp(id, "cublas") == 0)
        return m->cublas_us;
    if (strcmp(id, "vec4") == 0) {
        double b = off(space, pt, "block", m->ridge ? 1024 : 512),
               c = off(space, pt, "col_threads", m->ridge ? 256 : 16),
               u = off(space, pt, "unroll", 8), s = off(space, pt, "split", 64);
        double pen = 0.01 * (b * b + c * c + u * u + s * s);
        if (m->ridge)
            pen += 0.08 * (b - c) * (b - c);
        else
            pen *= 2;
        return m->vec4_us * (1 + pen);
    }
    return m->split_us * (1 + 0.02 * (pow(off(space, pt, "block", 256), 2) +
                                      pow(off(space, pt, "unroll", 8), 2) +
                                      pow(off(space, pt, "split", 64), 2)));
}

static int setup(void **state)
{
    kt_err err;
    (void)state;
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_BUILTIN_PLUGIN_DIR "/gemv.so", &err) ||
        kt_registry_resolve(&reg, "gemv:atx", &gemv, &atx, &err)) {
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

/* vec4, col_split_atomic and cublas at m = 65536, n = 4096, narrowed to
 * a few values each (the defaults among them). */
static void narrowed(kt_space *space, int ridge)
{
    char *blocks[] = {"64", "128", "256", "512", "1024"};
    char *cols[] = {"16", "32", "64", "128", "256"};
    char *unroll[] = {"4", "8"}, *split[] = {"16", "64"};
    char *cache[] = {"default"}, *sched[] = {"occupancy"};
    uint32_t keep[] = {0, 3, 5};
    kt_err err;
    assert_int_equal(kt_space_init(space, gemv, atx, &err), KT_S_OK);
    assert_int_equal(kt_space_keep_variants(space, keep, 3, &err), KT_S_OK);
    assert_int_equal(
        kt_space_narrow(space, "block", blocks, 5, &err) ||
            kt_space_narrow(space, "col_threads", cols, ridge ? 5 : 3, &err) ||
            kt_space_narrow(space, "unroll", unroll, 2, &err) ||
            kt_space_narrow(space, "split", split, 2, &err) ||
            kt_space_narrow(space, "cache", cache, 1, &err) ||
            kt_space_narrow(space, "schedule", sched, 1, &err),
        KT_S_OK);
}

/* The header of a recording, turned into one of gemv:atx at m x n. */
static json_t *gemv_header(void)
{
    json_error_t jerr;
    FILE *f = fopen(VA_HEADER, "r");
    json_t *h;
    assert_non_null(f);
    h = json_loadf(f, JSON_DISABLE_EOF_CHECK, &jerr);
    fclose(f);
    assert_non_null(h);
    json_object_set_new(h, "plugin_spec", json_string("gemv:atx"));
    json_object_set_new(json_object_get(h, "plugin"), "name",
                        json_string("gemv"));
    json_object_set_new(h, "operator", json_string("atx"));
    json_object_set_new(h, "sizes",
                        json_pack("{s:i,s:i}", "m", 65536, "n", 4096));
    return h;
}

/* Writes an exhaustive recording of the space under model m: every point,
 * those the host refuses too (replay never asks for them). */
static void record(const char *path, const model *m, kt_space *space)
{
    json_t *h = gemv_header();
    FILE *out = fopen(path, "w");
    int call = 0;
    assert_non_null(out);
    json_dumpf(h, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(h);
    for (uint64_t i = 0; i < space->size; ++i) {
        kt_eval_result r;
        kt_point pt;
        double x[SAMPLES], us;
        json_t *rec, *extra;
        kt_space_point(space, i, &pt);
        us = model_us(m, space, &pt);
        for (int k = 0; k < SAMPLES; ++k)
            x[k] = us * (1 + 0.001 * ((k * 7 + (int)i) % 11));
        memset(&r, 0, sizeof r);
        r.status = KT_EVAL_OK;
        r.timing.samples_us = x;
        r.timing.num_rounds = SAMPLES;
        kt_stats_compute(x, SAMPLES, &r.timing.kernel);
        rec = kt_eval_result_to_json(atx, &pt, &r, 1);
        ++call;
        extra = json_pack("{s:s,s:i,s:i,s:i,s:s,s:i,s:f}", "kind", "eval",
                          "call", call, "slot", 0, "of", 1, "purpose",
                          "measure", "env", 0, "elapsed_s", 0.1 * call);
        json_object_update(rec, extra);
        json_decref(extra);
        json_dumpf(rec, out, JSON_COMPACT);
        fputc('\n', out);
        json_decref(rec);
    }
    fclose(out);
}

typedef struct outcome {
    kt_tune_result r;
    kt_space space;
    char summary[16384];
    double optimum_us; /* the fastest non-reference point of the model */
    kt_point optimum;
} outcome;

/* The strategy tune() runs. */
static const char *strategy_name = "one_at_a_time";

static void tune(const char *path, const model *m, size_t max_evals, outcome *o)
{
    kt_evaluator *ev;
    kt_tune_config cfg;
    kt_tune_facts f;
    kt_err err;
    FILE *s;

    memset(o, 0, sizeof *o);
    narrowed(&o->space, m->ridge);
    if (m->gr_best) {
        const unsigned gr[] = {1410, 1755, 1980};
        assert_int_equal(kt_space_set_nvml(&o->space, 0, gr, 3, &err), KT_S_OK);
    }
    record(path, m, &o->space);
    assert_int_equal(kt_replay_open(path, gemv, atx, NULL, &ev, &err), KT_S_OK);
    kt_space_bind(&o->space, kt_replay_sizes(ev), 1, ev->ops->device(ev));
    for (uint64_t i = 0; i < o->space.size; ++i) {
        kt_point pt;
        kt_space_point(&o->space, i, &pt);
        if (kt_space_feasible(&o->space, &pt, NULL) == KT_S_OK &&
            strcmp(atx->variants[pt.variant].id, "cublas") != 0 &&
            (!o->optimum_us || model_us(m, &o->space, &pt) < o->optimum_us)) {
            o->optimum_us = model_us(m, &o->space, &pt);
            o->optimum = pt;
        }
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.op = atx;
    cfg.space = &o->space;
    cfg.ev = ev;
    cfg.strategy = kt_strategy_find(strategy_name);
    for (size_t i = 0; i < cfg.strategy->num_options; ++i)
        cfg.options[i] = cfg.strategy->options[i].default_value;
    cfg.seed = 1;
    cfg.max_evals = max_evals;
    cfg.finalists = 3;
    cfg.min_gain = 0.005;
    kt_protocol_defaults(&cfg.protocol);
    assert_int_equal(kt_tune_run(&cfg, &o->r, &err), KT_S_OK);
    memset(&f, 0, sizeof f);
    f.spec = "gemv:atx";
    f.plugin = gemv;
    f.op = atx;
    f.space = &o->space;
    f.sizes = kt_replay_sizes(ev);
    f.cfg = &cfg;
    f.device_name = "NVIDIA H200";
    s = fmemopen(o->summary, sizeof o->summary - 1, "w");
    assert_non_null(s);
    kt_summary_print(s, &f, &o->r, 5);
    fclose(s);
    ev->ops->close(ev);
}

static void done(outcome *o)
{
    kt_tune_result_free(&o->r);
    kt_space_free(&o->space);
}

static const char *variant_of(const kt_point *pt)
{
    return atx->variants[pt->variant].id;
}

/* A separable space: from the defaults cuBLAS (258 us) beats vec4
 * (238 us at best, 33% slower at its defaults) and col_split_atomic. */
static void
a_reference_fastest_at_the_defaults_does_not_end_the_search(void **state)
{
    model m = {.vec4_us = 238, .split_us = 262, .cublas_us = 258};
    kt_tune_entry const *e;
    outcome o;
    (void)state;
    tune("ref-loses.jsonl", &m, 0, &o);
    e = kt_summary_entry(&o.r, &o.optimum);
    assert_non_null(e); /* the tuned best of vec4 was measured */
    assert_true(kt_point_equal(&o.r.finals[0].point, &o.optimum));
    assert_contains(o.summary, "stopped: converged: ");
    assert_contains(o.summary, "against the reference cublas (259.");
    assert_contains(o.summary, "the answer is 1.08");
    done(&o);
}

static void the_reference_is_the_answer_when_it_truly_wins(void **state)
{
    model m = {.vec4_us = 238, .split_us = 262, .cublas_us = 230};
    outcome o;
    (void)state;
    tune("ref-wins.jsonl", &m, 0, &o);
    assert_string_equal(variant_of(&o.r.finals[0].point), "cublas");
    /* Still a search of the others, to their tuned best. */
    assert_non_null(kt_summary_entry(&o.r, &o.optimum));
    assert_contains(o.summary, "the reference cublas is faster than every "
                               "tuned variant: the best of them, vec4 "
                               "block=512 col_threads=16 unroll=8 split=64");
    assert_contains(o.summary, "takes 3.");
    done(&o);
}

/* The SM clock listed in the job is a dimension the default strategy
 * searches like a parameter, from its first value (1410) to the one the
 * recording says is best (1755), in a replay of a journal that recorded
 * each point's setting; the summary names it with the answer. */
static void a_listed_clock_is_searched_from_a_recording_of_it(void **state)
{
    model m = {
        .vec4_us = 238, .split_us = 262, .cublas_us = 400, .gr_best = 1755};
    size_t under[3] = {0, 0, 0};
    outcome o;
    (void)state;
    tune("clocks.jsonl", &m, 0, &o);
    assert_true(kt_point_equal(&o.r.finals[0].point, &o.optimum));
    assert_int_equal(o.optimum.nvml.gr_mhz, 1755);
    for (size_t i = 0; i < o.r.num_entries; ++i) {
        unsigned gr = kt_tune_entry_point(&o.r, &o.r.entries[i]).nvml.gr_mhz;
        under[gr == 1410 ? 0 : gr == 1755 ? 1 : 2]++;
    }
    /* Points were measured under each of the three. */
    assert_true(under[0] > 0 && under[1] > 0 && under[2] > 0);
    assert_contains(o.summary, "best  vec4 block=512 col_threads=16 unroll=8 "
                               "split=64 cache=default schedule=occupancy "
                               "nvml_gr_clock=1755\n");
    done(&o);
}

/* Every strategy searches the listed clock: each run ends normally and
 * measures points under more than one of its values. */
static void every_strategy_searches_a_listed_clock(void **state)
{
    model m = {
        .vec4_us = 238, .split_us = 262, .cublas_us = 400, .gr_best = 1755};
    (void)state;
    for (size_t k = 0; k < kt_strategy_count(); ++k) {
        unsigned seen = 0;
        outcome o;
        strategy_name = kt_strategy_at(k)->name;
        tune("clocks-any.jsonl", &m, 40, &o);
        for (size_t i = 0; i < o.r.num_entries; ++i) {
            unsigned gr =
                kt_tune_entry_point(&o.r, &o.r.entries[i]).nvml.gr_mhz;
            assert_true(gr == 1410 || gr == 1755 || gr == 1980);
            seen |= gr == 1410 ? 1u : gr == 1755 ? 2u : 4u;
        }
        if (seen == 1 || seen == 2 || seen == 4)
            fail_msg("%s measured under one clock only", strategy_name);
        done(&o);
    }
    strategy_name = "one_at_a_time";
}

/* block and col_threads two steps below their best together: one step of
 * either alone costs more than it saves. */
static void a_ridge_no_single_change_crosses_is_crossed(void **state)
{
    model m = {.vec4_us = 238, .split_us = 300, .cublas_us = 258, .ridge = 1};
    outcome o;
    (void)state;
    tune("ridge.jsonl", &m, 0, &o);
    assert_true(kt_point_equal(&o.r.finals[0].point, &o.optimum));
    assert_contains(o.summary, "  pair ");
    done(&o);
}

/* The budget, not the first local optimum, ends a run that is cut short;
 * and the summary says which of the two it was. */
static void a_run_stops_on_its_budget_or_says_it_converged(void **state)
{
    model m = {.vec4_us = 238, .split_us = 262, .cublas_us = 258};
    outcome o;
    size_t full;
    (void)state;
    tune("budget.jsonl", &m, 0, &o);
    full = o.r.evaluations;
    assert_true(strncmp(o.r.stop_reason, "converged: ", 11) == 0);
    done(&o);
    for (size_t cap = 3; cap < full; cap += 7) {
        tune("budget.jsonl", &m, cap, &o);
        assert_int_equal(o.r.evaluations, cap);
        assert_string_equal(o.r.stop_reason, "max_evals reached");
        assert_contains(o.summary, "stopped: max_evals reached");
        done(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            a_reference_fastest_at_the_defaults_does_not_end_the_search),
        cmocka_unit_test(the_reference_is_the_answer_when_it_truly_wins),
        cmocka_unit_test(a_ridge_no_single_change_crosses_is_crossed),
        cmocka_unit_test(a_listed_clock_is_searched_from_a_recording_of_it),
        cmocka_unit_test(every_strategy_searches_a_listed_clock),
        cmocka_unit_test(a_run_stops_on_its_budget_or_says_it_converged),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
