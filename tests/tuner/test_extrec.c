// SPDX-License-Identifier: Apache-2.0
/* Other tools' recordings (records/extrec.h, records/ktcache.h,
 * records/replay_ext.h): Kernel Tuner cache files and T4 results made from
 * our H200 journals (tools/journal_to_kernel_tuner.py) load as an operator
 * whose space is the recording's; every strategy runs on them; the clock is
 * Kernel Tuner's simulation mode's; damaged files are refused naming the
 * field. */
#include "tuner/tune.h" /* before tuner_test.h: tt_config_defaults */

#include "tests/tuner/tuner_test.h"

#include <math.h>

#include "records/extrec.h"
#include "records/ktcache.h"
#include "records/recording.h"
#include "records/replay_ext.h"
#include "records/space.h"
#include "tuner/strategy.h"

#define KT_DIR TT_DATA_DIR "/kt/"
#define TRANSPOSE_CACHE KT_DIR "transpose-h200-rows8192-cols8192.cache.json"
#define TRANSPOSE_T4 KT_DIR "transpose-h200-rows8192-cols8192.t4.json.gz"
#define VADD_CACHE KT_DIR "vector_add-h200-n1048576.cache.json.gz"
#define VADD_T4 KT_DIR "vector_add-h200-n1048576.t4.json"
#define KT150_T4 KT_DIR "transpose-h200-rows8192-cols8192.kt150.t4.json"

/* The point a record stands for. */
static kt_point point_of(const kt_extrec *rec, const kt_extrec_record *r)
{
    kt_point pt;
    kt_extrec_point(rec, r, &pt);
    return pt;
}

static kt_extrec *load(const char *path)
{
    kt_extrec *rec = NULL;
    kt_err err;
    if (kt_ktcache_load(path, &rec, &err))
        fail_msg("%s", err.msg);
    return rec;
}

/* The recorded sum Kernel Tuner's simulation charges for a brute force. */
static double charged_s(const kt_extrec *rec)
{
    double s = 0;
    for (size_t i = 0; i < rec->num_records; ++i)
        s += rec->records[i].compile_ms + rec->records[i].verify_ms +
             rec->records[i].bench_ms;
    return s / 1e3;
}

static void cache_file_of_our_recording_becomes_an_operator(void **state)
{
    kt_extrec *rec = load(TRANSPOSE_CACHE);
    const kt_extrec_record *best;
    char text[512];

    (void)state;
    assert_int_equal(rec->format, KT_EXTREC_KT_CACHE);
    assert_string_equal(rec->device, "NVIDIA H200");
    assert_int_equal(rec->num_params, 6);
    assert_string_equal(rec->params[0].name, "ktune_variant");
    assert_false(rec->params[0].integer); /* strings: an enumeration */
    assert_false(rec->params[1].integer); /* 16, 32, 64 and None */
    assert_string_equal(rec->params[1].labels[3], "null");
    assert_int_equal(rec->num_records, 45);
    assert_int_equal(rec->space_size, 2 * 4 * 6 * 4 * 3 * 6);
    assert_int_equal(rec->op.num_variants, 1);
    assert_int_equal(rec->op.variants[0].num_params, 6);
    best = kt_extrec_optimum(rec);
    assert_non_null(best);
    kt_point bp = point_of(rec, best);
    kt_point_format(&rec->op, &bp, text, sizeof text);
    assert_string_equal(text, "transpose ktune_variant=tiled bx=null by=null "
                              "tile=64 pad=1 rows_per=2");
    assert_true(fabs(best->time_ms - 0.14342400431632996) < 1e-15);
    assert_ptr_equal(kt_extrec_find(rec, &bp), best);
    kt_extrec_free(rec);
}

/* The point of t with a's values, by their labels: a T4 file declares no
 * order, so its values are sorted (numbers, then strings, then null). */
static void carry(const kt_extrec *c, const kt_point *a, const kt_extrec *t,
                  kt_point *out)
{
    memset(out, 0, sizeof *out);
    out->count = a->count;
    for (uint32_t p = 0; p < a->count; ++p) {
        const kt_extrec_param *from = &c->params[p], *to = &t->params[p];
        long at = -1;
        for (uint32_t k = 0; k < from->count; ++k)
            if (from->integer ? from->ints[k] == a->values[p]
                              : (int64_t)k == a->values[p])
                at = (long)k;
        for (uint32_t k = 0; at >= 0 && k < to->count; ++k)
            if (strcmp(to->labels[k], from->labels[at]) == 0) {
                out->values[p] = to->integer ? to->ints[k] : (int64_t)k;
                break;
            }
    }
}

/* The same measurements in both formats: the same space, the same
 * verdicts, the same optimum. */
static void t4_and_cache_files_of_one_recording_agree(void **state)
{
    const char *pairs[][2] = {{TRANSPOSE_CACHE, TRANSPOSE_T4},
                              {VADD_CACHE, VADD_T4}};
    (void)state;
    for (size_t k = 0; k < 2; ++k) {
        kt_extrec *c = load(pairs[k][0]), *t = load(pairs[k][1]);
        assert_int_equal(t->format, KT_EXTREC_T4);
        assert_int_equal(c->num_records, t->num_records);
        assert_int_equal(c->num_params, t->num_params);
        for (size_t i = 0; i < c->num_records; ++i) {
            char text[512];
            const kt_extrec_record *a = &c->records[i], *b;
            kt_point ap = point_of(c, a), pt;
            kt_point_format(&c->op, &ap, text, sizeof text);
            carry(c, &ap, t, &pt);
            b = kt_extrec_find(t, &pt);
            if (!b)
                fail_msg("%s: %s is not in the T4 file", pairs[k][0], text);
            assert_int_equal(a->verdict, b->verdict);
            assert_true(a->time_ms == b->time_ms);
        }
        assert_true(kt_extrec_optimum(c)->time_ms ==
                    kt_extrec_optimum(t)->time_ms);
        kt_extrec_free(c);
        kt_extrec_free(t);
    }
}

/* vector_add's launch the driver refused is RuntimeFailedConfig in the
 * cache: evaluated (charged, counted), invalid, never the answer. */
static void recorded_failures_keep_their_verdict(void **state)
{
    kt_extrec *rec = load(VADD_CACHE);
    kt_evaluator *ev;
    size_t failed = 0;
    kt_err err;

    (void)state;
    assert_int_equal(kt_replay_ext_open(rec, &ev, &err), KT_S_OK);
    for (size_t i = 0; i < rec->num_records; ++i) {
        kt_eval_result r;
        kt_point pt = point_of(rec, &rec->records[i]);
        if (rec->records[i].verdict == KT_EXTREC_CORRECT)
            continue;
        ++failed;
        assert_int_equal(rec->records[i].verdict, KT_EXTREC_RUNTIME);
        assert_int_equal(ev->ops->evaluate(ev, &pt, 1, NULL, &r, &err),
                         KT_S_OK);
        assert_int_equal(r.status, KT_EVAL_INVALID);
        assert_contains(r.reason, "recorded as RuntimeFailedConfig");
        assert_string_equal(kt_replay_ext_invalidity(rec->records[i].verdict),
                            "runtime");
    }
    assert_int_equal(failed, 1);
    ev->ops->close(ev);
    kt_extrec_free(rec);
}

/* Points the file does not hold are refused on the host: the feasible
 * points are exactly the recorded ones. */
static void the_recorded_points_are_the_feasible_ones(void **state)
{
    kt_extrec *rec = load(TRANSPOSE_T4);
    kt_evaluator *ev;
    kt_space space;
    uint64_t feasible = 0;
    int64_t sizes[KT_MAX_SIZES] = {0};
    kt_err err;

    (void)state;
    assert_int_equal(kt_replay_ext_open(rec, &ev, &err), KT_S_OK);
    assert_int_equal(kt_space_init(&space, NULL, &rec->op, &err), KT_S_OK);
    assert_int_equal(space.size, rec->space_size);
    kt_space_bind(&space, sizes, 0, ev->ops->device(ev));
    assert_int_equal(
        kt_space_count_feasible(&space, UINT64_MAX, &feasible, &err), KT_S_OK);
    assert_int_equal(feasible, rec->num_records);
    {
        kt_point pt;
        kt_space_point(&space, 0, &pt); /* naive with tile=16: not recorded */
        assert_int_equal(kt_space_feasible(&space, &pt, &err), KT_S_INVALID);
        assert_contains(err.msg, "not in the recording");
    }
    kt_space_free(&space);
    ev->ops->close(ev);
    kt_extrec_free(rec);
}

/* The space of the last run: a result's entries hold their indices in it,
 * so it lives until finish() frees both. */
static kt_space space;

static void run(kt_extrec *rec, const kt_strategy *s, double max_seconds,
                kt_tune_result *res)
{
    kt_evaluator *ev;
    kt_tune_config cfg;
    int64_t sizes[KT_MAX_SIZES] = {0};
    kt_err err;

    assert_int_equal(kt_replay_ext_open(rec, &ev, &err), KT_S_OK);
    assert_int_equal(kt_space_init(&space, NULL, &rec->op, &err), KT_S_OK);
    kt_space_bind(&space, sizes, 0, ev->ops->device(ev));
    memset(&cfg, 0, sizeof cfg);
    tt_config_defaults(&cfg, s);
    cfg.op = &rec->op;
    cfg.space = &space;
    cfg.ev = ev;
    cfg.max_seconds = max_seconds;
    if (kt_tune_run(&cfg, res, &err))
        fail_msg("%s: %s", s->name, err.msg);
    ev->ops->close(ev);
}

static void finish(kt_tune_result *res)
{
    kt_tune_result_free(res);
    kt_space_free(&space);
}

/* Every strategy ktune has runs on another tool's recording unchanged;
 * the exhaustive one ends at the file's own optimum. */
static void every_strategy_runs_on_a_recording(void **state)
{
    kt_extrec *rec = load(VADD_CACHE);
    const kt_extrec_record *best = kt_extrec_optimum(rec);

    (void)state;
    assert_true(kt_strategy_count() >= 2);
    for (size_t i = 0; i < kt_strategy_count(); ++i) {
        const kt_strategy *s = kt_strategy_at(i);
        kt_tune_result res;
        run(rec, s, 0, &res);
        if (!res.has_best)
            fail_msg("%s found no answer: %s", s->name, res.note);
        assert_true(res.evaluations >= 1);
        assert_true(res.evaluations <= rec->num_records);
        if (strcmp(s->name, "exhaustive") == 0) {
            assert_int_equal(res.evaluations, rec->num_records);
            kt_point bp = point_of(rec, best);
            assert_true(kt_point_equal(&res.finals[0].point, &bp));
            /* Its statistics are its recorded runs'. */
            assert_int_equal(res.finals[0].stats.n, best->num_runs);
        }
        finish(&res);
    }
    kt_extrec_free(rec);
}

/* The clock: a brute force charges every recorded compile, verification
 * and benchmark time once (the closing round, revisits, nothing more);
 * max_seconds stops the run once simulated time passes it, as Kernel
 * Tuner's time_limit does (the point that crosses it still counts). */
static void the_clock_is_kernel_tuners_simulated_time(void **state)
{
    kt_extrec *rec = load(TRANSPOSE_CACHE);
    const kt_strategy *ex = kt_strategy_find("exhaustive");
    double total = charged_s(rec), last = 0;
    kt_tune_result res;

    (void)state;
    run(rec, ex, 0, &res);
    assert_true(res.elapsed_s >= total);
    assert_true(res.elapsed_s < total + 2.0); /* plus the run's own time */
    finish(&res);

    run(rec, ex, total / 2, &res);
    assert_true(res.evaluations < rec->num_records);
    assert_true(res.elapsed_s >= total / 2);
    assert_string_equal(res.stop_reason, "max_seconds reached");
    for (size_t i = 0; i < res.num_entries; ++i) {
        const kt_point pt = kt_tune_entry_point(&res, &res.entries[i]);
        const kt_extrec_record *r = kt_extrec_find(rec, &pt);
        if (r && !res.entries[i].host_checked)
            last = (r->compile_ms + r->verify_ms + r->bench_ms) / 1e3;
    }
    /* It stopped at the first evaluation that crossed the budget. */
    assert_true(res.elapsed_s - last < total / 2 + 1.0);
    finish(&res);
    kt_extrec_free(rec);
}

/* A T4 file Kernel Tuner 1.5.0 itself wrote (tune_cache's brute force over
 * our converted cache, store_output_file) replays to the same optimum. */
static void kernel_tuners_own_t4_file_replays(void **state)
{
    kt_extrec *kt = load(KT150_T4), *ours = load(TRANSPOSE_CACHE);

    (void)state;
    assert_int_equal(kt->num_records, ours->num_records);
    assert_true(kt_extrec_optimum(kt)->time_ms ==
                kt_extrec_optimum(ours)->time_ms);
    kt_extrec_free(kt);
    kt_extrec_free(ours);
}

/* ------------------------------------------------------ damaged files */

typedef struct bad_case {
    const char *text;
    const char *expect;
} bad_case;

#define CACHE_HEAD                                                             \
    "{\"tune_params_keys\": [\"x\"], \"tune_params\": {\"x\": [1, 2]}, "       \
    "\"cache\": "
#define TIMES                                                                  \
    "\"compile_time\": 1, \"verification_time\": 0, \"benchmark_time\": 2"
#define T4_HEAD "{\"schema_version\": \"1.0.0\", \"results\": ["
#define T4_TIMES                                                               \
    "\"times\": {\"compilation\": 1, \"validation\": 0, \"benchmark\": 2}"
#define T4_OK(x)                                                               \
    "{\"configuration\": {\"x\": " #x "}, " T4_TIMES                           \
    ", \"invalidity\": \"correct\", \"measurements\": [{\"name\": "            \
    "\"time\", \"value\": 1.5, \"unit\": \"ms\"}]}"

static const bad_case bad_cases[] = {
    {"[1, 2]", "the top level is not a JSON object"},
    {"{\"foo\": 1}", "neither a Kernel Tuner cache file"},
    {"{\"tune_params\": {\"x\": [1]}, \"cache\": {}}",
     "tune_params_keys: missing"},
    {"{\"tune_params_keys\": [\"x\"], \"tune_params\": [1], \"cache\": {}}",
     "tune_params: an array, expected an object"},
    {"{\"tune_params_keys\": [\"y\"], \"tune_params\": {\"x\": [1]}, "
     "\"cache\": {}}",
     "tune_params_keys[0]: 'y' is not in tune_params"},
    {"{\"tune_params_keys\": [\"x\"], \"tune_params\": {\"x\": [1, 1]}, "
     "\"cache\": {}}",
     "tune_params.x: the value at [1] is the one at [0] again"},
    {"{\"tune_params_keys\": [\"x\"], \"tune_params\": {\"x\": [[1]]}, "
     "\"cache\": {}}",
     "tune_params.x[0]: an array, expected a number"},
    {CACHE_HEAD "[]}", "cache: an array, expected an object"},
    {CACHE_HEAD "{}}", "no configuration is recorded"},
    {CACHE_HEAD "{\"1\": {\"time\": 1.0, " TIMES
                "}, \"1\": {\"time\": 2.0, " TIMES "}}}",
     "duplicate object key"},
    {CACHE_HEAD "{\"3\": {\"time\": 1.0, " TIMES "}}}",
     "cache key '3': x = 3 is not one of the values tune_params declares"},
    {CACHE_HEAD "{\"1,2\": {\"time\": 1.0, " TIMES "}}}",
     "cache key '1,2': expected 1 values joined by commas"},
    {CACHE_HEAD "{\"1\": {" TIMES "}}}", "cache['1'].time: missing"},
    {CACHE_HEAD "{\"1\": {\"time\": [1], " TIMES "}}}",
     "cache['1'].time: an array"},
    {CACHE_HEAD "{\"1\": {\"time\": \"Broken\", " TIMES "}}}",
     "cache['1'].time: 'Broken', expected a time"},
    {CACHE_HEAD "{\"1\": {\"time\": 1.0, \"verification_time\": 0, "
                "\"benchmark_time\": 2}}}",
     "cache['1'].compile_time: missing"},
    {CACHE_HEAD "{\"1\": {\"time\": 1.0, \"compile_time\": \"x\", "
                "\"verification_time\": 0, \"benchmark_time\": 2}}}",
     "cache['1'].compile_time: a string, expected a time"},
    {CACHE_HEAD "{\"1\": {\"x\": 2, \"time\": 1.0, " TIMES "}}}",
     "cache['1'].x: the entry's value is not the key's 1"},
    {CACHE_HEAD "{\"1\": {\"time\": 1.0, \"times\": {}, " TIMES "}}}",
     "cache['1'].times: an object, expected a list"},
    {"{\"objective\": \"GFLOP/s\", \"tune_params_keys\": [\"x\"], "
     "\"tune_params\": {\"x\": [1]}, \"cache\": {}}",
     "objective: 'GFLOP/s', expected \"time\""},
    {CACHE_HEAD "{\"1\": {\"time\": 1.0, " TIMES "}",
     "'}' expected near end of file"},
    {T4_HEAD "]}", "results: an empty list"},
    {T4_HEAD "{\"times\": {}}]}", "results[0].configuration: missing"},
    {T4_HEAD T4_OK(1) ", " T4_OK(1) "]}",
     "results[1]: the same configuration as results[0]"},
    {T4_HEAD T4_OK(1) ", {\"configuration\": {\"x\": 2, \"y\": 1}}]}",
     "results[1].configuration: 2 parameters, the first result has 1"},
    {T4_HEAD "{\"configuration\": {\"x\": {}}}]}",
     "expected a number, a string or a boolean"},
    {T4_HEAD "{\"configuration\": {\"x\": 1}, " T4_TIMES
             ", \"invalidity\": \"bogus\", \"measurements\": []}]}",
     "results[0].invalidity: 'bogus'"},
    {T4_HEAD "{\"configuration\": {\"x\": 1}, " T4_TIMES
             ", \"invalidity\": \"correct\", \"measurements\": []}]}",
     "results[0].measurements: no \"time\""},
    {T4_HEAD "{\"configuration\": {\"x\": 1}, \"times\": {\"validation\": 0}, "
             "\"invalidity\": \"correct\", \"measurements\": [{\"name\": "
             "\"time\", \"value\": 1.5}]}]}",
     "results[0].times.compilation: missing"},
    {T4_HEAD T4_OK(1) "], \"metadata\": {\"timeunit\": \"fortnights\"}}",
     "metadata.timeunit: 'fortnights'"},
};

/* Each is KT_S_INPUT (exit 2 at the command line) naming the field. */
static void damaged_files_are_refused_naming_the_field(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; ++i) {
        kt_extrec *rec = (kt_extrec *)1;
        kt_err err;
        kt_status rc;
        tt_write("bad.json", bad_cases[i].text);
        kt_err_clear(&err);
        rc = kt_ktcache_load("bad.json", &rec, &err);
        if (rc != KT_S_INPUT)
            fail_msg("case %zu: status %d (%s), expected input", i, rc,
                     err.msg);
        assert_null(rec);
        assert_contains(err.msg, "bad.json");
        assert_contains(err.msg, bad_cases[i].expect);
    }
}

/* Good small files in both formats: reals and booleans become labels;
 * 2.0 in a key is the declared 2; T4 seconds become milliseconds. */
static void odd_but_valid_files_load(void **state)
{
    kt_extrec *rec;

    (void)state;
    tt_write("reals.json",
             "{\"tune_params_keys\": [\"f\", \"b\"], \"tune_params\": "
             "{\"f\": [0.5, 2], \"b\": [true, false]}, \"cache\": {"
             "\"0.5,True\": {\"time\": 3.0, " TIMES "}, "
             "\"2.0,False\": {\"time\": 1.0, " TIMES "}}}");
    rec = load("reals.json");
    assert_false(rec->params[0].integer);
    assert_string_equal(rec->params[0].labels[0], "0.5");
    assert_string_equal(rec->params[1].labels[0], "true");
    assert_int_equal(rec->num_records, 2);
    assert_int_equal(point_of(rec, kt_extrec_optimum(rec)).values[0],
                     1); /* 2 */
    kt_extrec_free(rec);
    tt_write("seconds.json",
             T4_HEAD T4_OK(4) ", " T4_OK(2) "], \"metadata\": {\"timeunit\": "
                                            "\"seconds\"}}");
    rec = load("seconds.json");
    assert_true(rec->params[0].integer);
    assert_int_equal(rec->params[0].ints[0], 2); /* sorted */
    assert_true(rec->records[0].compile_ms == 1000);
    assert_true(rec->records[0].time_ms == 1.5); /* its unit is ms */
    kt_extrec_free(rec);
}

/* A recording that holds at least half its space finds its points by
 * rank in an array, one that holds less through its hash map: both find
 * every recorded point and no other. */
static void dense_and_sparse_recordings_find_their_points(void **state)
{
    static const char *const files[] = {
        CACHE_HEAD "{\"1\": {\"time\": 1, " TIMES "}}}", /* 1 of 2 */
        "{\"tune_params_keys\": [\"x\"], \"tune_params\": {\"x\": [1, 2, "
        "3]}, \"cache\": {\"3\": {\"time\": 1, " TIMES "}}}", /* 1 of 3 */
    };
    (void)state;
    for (size_t f = 0; f < 2; ++f) {
        kt_extrec *rec;
        kt_point pt;
        tt_write("dense.json", files[f]);
        rec = load("dense.json");
        assert_int_equal(!rec->dense, f); /* the first dense */
        pt = point_of(rec, &rec->records[0]);
        assert_ptr_equal(kt_extrec_find(rec, &pt), &rec->records[0]);
        pt.values[0] = 2; /* declared, not recorded */
        assert_null(kt_extrec_find(rec, &pt));
        kt_extrec_free(rec);
    }
}

/* A cache of three points, x = 1 and 2 tied (the same runs but one, in
 * another order), x = 3 twice as slow, each with 32 recorded runs with
 * spread when spread is 1, else none (one number a point). */
static void write_runs_cache(const char *path, int spread)
{
    char text[16384];
    size_t at = 0;

    at += (size_t)snprintf(text + at, sizeof text - at,
                           "{\"tune_params_keys\": [\"x\"], \"tune_params\": "
                           "{\"x\": [1, 2, 3]}, \"cache\": {");
    for (int x = 1; x <= 3; ++x) {
        at += (size_t)snprintf(text + at, sizeof text - at,
                               "%s\"%d\": {\"time\": %g, " TIMES,
                               x > 1 ? ", " : "", x, x == 3 ? 2.0 : 1.0);
        if (spread) {
            at +=
                (size_t)snprintf(text + at, sizeof text - at, ", \"times\": [");
            for (int k = 0; k < 32; ++k) {
                /* 0.97 .. 1.03 ms, x = 2 in reverse order and 0.1% slower
                 * on one run. */
                int j = x == 2 ? 31 - k : k;
                double v = (0.97 + 0.06 * j / 31.0) * (x == 3 ? 2 : 1) +
                           (x == 2 && k == 0 ? 0.001 : 0);
                at += (size_t)snprintf(text + at, sizeof text - at, "%s%.6f",
                                       k ? ", " : "", v);
            }
            at += (size_t)snprintf(text + at, sizeof text - at, "]");
        }
        at += (size_t)snprintf(text + at, sizeof text - at, "}");
    }
    snprintf(text + at, sizeof text - at, "}}");
    tt_write(path, text);
}

/* Issue 51 part 4: a replay computes each point's statistics from its
 * recorded runtimes (median, interval, noise), so ties and finalists are
 * decided as live: the tied pair is marked tied, the slow point is not,
 * and the answer's interval is not a point; a file of one number a point
 * keeps point intervals and says so. */
static void recorded_runs_give_the_statistics_and_decide_ties(void **state)
{
    const kt_strategy *ex = kt_strategy_find("exhaustive");
    kt_tune_result res;
    kt_evaluator *ev;
    kt_extrec *rec;
    char note[2048];
    kt_err err;

    (void)state;
    write_runs_cache("runs.json", 1);
    rec = load("runs.json");
    run(rec, ex, 0, &res);
    assert_true(res.has_best && res.num_finals == 3);
    assert_int_equal(res.finals[0].stats.n, 32);
    assert_true(res.finals[0].stats.ci_lo < res.finals[0].stats.ci_hi);
    assert_true(res.finals[0].stats.noise > 0);
    for (size_t i = 1; i < res.num_finals; ++i) {
        int slow = res.finals[i].point.values[0] == 3;
        assert_int_equal(res.finals[i].tied, !slow);
        assert_true(res.finals[i].vs_winner.lo < res.finals[i].vs_winner.hi);
    }
    finish(&res);
    assert_int_equal(kt_replay_ext_open(rec, &ev, &err), KT_S_OK);
    kt_replay_ext_note(ev, note, sizeof note);
    assert_non_null(strstr(note, "from its recorded runtimes (32 runs"));
    ev->ops->close(ev);
    kt_extrec_free(rec);

    write_runs_cache("one.json", 0);
    rec = load("one.json");
    run(rec, ex, 0, &res);
    assert_true(res.has_best);
    assert_int_equal(res.finals[0].stats.n, 1);
    assert_true(res.finals[0].stats.ci_lo == res.finals[0].stats.ci_hi);
    finish(&res);
    assert_int_equal(kt_replay_ext_open(rec, &ev, &err), KT_S_OK);
    kt_replay_ext_note(ev, note, sizeof note);
    assert_non_null(strstr(note, "the file holds one number per point"));
    ev->ops->close(ev);
    kt_extrec_free(rec);
}

/* One recording interface (records/recording.h): opened from the
 * recording's own operator it is the external replay, and it answers the
 * optimum and the note as that evaluator does, with no problem of its own;
 * an evaluator that replays nothing has none of them. */
static void one_recording_interface_answers_for_another_tools_file(void **state)
{
    kt_evaluator *ev;
    kt_extrec *rec;
    kt_point pt, want_pt;
    kt_stats stats, want_stats;
    double cost = -1;
    char note[2048], want[2048];
    kt_err err;

    (void)state;
    write_runs_cache("iface.json", 1);
    rec = load("iface.json");
    assert_int_equal(kt_recording_open("not-read.json", &rec->plugin, &rec->op,
                                       NULL, &ev, &err),
                     KT_S_OK);
    assert_true(kt_replay_ext_is(ev) && kt_recording_is(ev));
    assert_ptr_equal(kt_recording_external(ev), rec);
    assert_null(kt_recording_sizes(ev));
    assert_int_equal(kt_recording_seed(ev), 0);
    assert_int_equal(kt_recording_note(ev, note, sizeof note), 1);
    kt_replay_ext_note(ev, want, sizeof want);
    assert_string_equal(note, want);
    assert_int_equal(
        kt_recording_optimum(ev, NULL, KT_OBJ_TIME, &pt, &stats, &cost), 1);
    assert_int_equal(kt_replay_ext_optimum(ev, &want_pt, &want_stats), 1);
    assert_true(kt_point_equal(&pt, &want_pt));
    assert_true(stats.median == want_stats.median && cost == -1);
    ev->ops->close(ev);
    kt_extrec_free(rec);

    assert_false(kt_recording_is(NULL));
    assert_int_equal(kt_recording_note(NULL, note, sizeof note), 0);
    assert_string_equal(note, "");
    assert_int_equal(
        kt_recording_optimum(NULL, NULL, KT_OBJ_TIME, &pt, &stats, &cost), 0);
    assert_null(kt_recording_sizes(NULL));
    assert_null(kt_recording_external(NULL));
}

/* A cache an interrupted Kernel Tuner run left open (its last entry
 * followed by ",", no closing braces) reads as Kernel Tuner reads it. */
static void a_cache_left_open_reads_as_kernel_tuner_reads_it(void **state)
{
    kt_extrec *rec;
    kt_err err;

    (void)state;
    tt_write("open.json", "{\n\"tune_params_keys\": [\"x\"],\n"
                          "\"tune_params\": {\"x\": [1, 2]},\n\"cache\": {"
                          "\n\"1\": {\"time\": 2.0, " TIMES "},"
                          "\n\"2\": {\"time\": 1.0, " TIMES "},\n \n");
    rec = load("open.json");
    assert_int_equal(rec->num_records, 2);
    assert_int_equal(point_of(rec, kt_extrec_optimum(rec)).values[0], 2);
    kt_extrec_free(rec);
    tt_write("fresh.json", "{\n\"tune_params_keys\": [\"x\"],\n"
                           "\"tune_params\": {\"x\": [1, 2]},\n\"cache\": {");
    assert_int_equal(kt_ktcache_load("fresh.json", &rec, &err), KT_S_INPUT);
    assert_contains(err.msg, "no configuration is recorded");
    /* Cut inside an entry: a syntax error, not a guess. */
    tt_write("cut.json", "{\"tune_params_keys\": [\"x\"], \"tune_params\": "
                         "{\"x\": [1]}, \"cache\": {\"1\": {\"time\": 2.0,");
    assert_int_equal(kt_ktcache_load("cut.json", &rec, &err), KT_S_INPUT);
    assert_contains(err.msg, "cut.json:");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cache_file_of_our_recording_becomes_an_operator),
        cmocka_unit_test(t4_and_cache_files_of_one_recording_agree),
        cmocka_unit_test(recorded_failures_keep_their_verdict),
        cmocka_unit_test(the_recorded_points_are_the_feasible_ones),
        cmocka_unit_test(dense_and_sparse_recordings_find_their_points),
        cmocka_unit_test(every_strategy_runs_on_a_recording),
        cmocka_unit_test(the_clock_is_kernel_tuners_simulated_time),
        cmocka_unit_test(kernel_tuners_own_t4_file_replays),
        cmocka_unit_test(damaged_files_are_refused_naming_the_field),
        cmocka_unit_test(odd_but_valid_files_load),
        cmocka_unit_test(a_cache_left_open_reads_as_kernel_tuner_reads_it),
        cmocka_unit_test(recorded_runs_give_the_statistics_and_decide_ties),
        cmocka_unit_test(
            one_recording_interface_answers_for_another_tools_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
