// SPDX-License-Identifier: Apache-2.0
/* Counters in tuning runs, in replay (no GPU): the replay evaluator serves
 * recorded counters and says "not recorded" otherwise; [metrics] profiles
 * every point or the best few, journals the profiles (format 2) and a
 * resumed run answers from them without profiling again; counters that
 * cannot be had leave one note and the run goes on. */
#include "tests/tuner/tuner_test.h"

#include <math.h>

#include "records/journal.h"
#include "records/replay.h"
#include "tests/support/counting_eval.h"
#include "tuner/summary.h"
#include "tuner/tune.h"

#define VA24 TT_DATA_DIR "/vector_add-synthetic-counters-n16777216.jsonl"
#define VA28 TT_DATA_DIR "/vector_add-synthetic-counters-n268435456.jsonl"
#define VA24_PLAIN TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl"

/* A replayed session over a recording. */
typedef struct session {
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_counting_eval *ev;
    kt_space space;
    kt_calibration calib;
    kt_tune_config cfg;
    kt_profiling_spec spec;
} session;

static void open_session(session *s, const char *recording, const char *spec,
                         const char *strategy)
{
    kt_evaluator *inner;
    kt_err err;

    memset(s, 0, sizeof *s);
    if (kt_registry_resolve(&tt_reg, spec, &s->plugin, &s->op, &err) ||
        kt_space_init(&s->space, NULL, s->op, &err) ||
        kt_replay_open(recording, s->plugin, s->op, NULL, &inner, &err))
        fail_msg("%s", err.msg);
    s->ev = calloc(1, sizeof *s->ev);
    assert_non_null(s->ev);
    s->ev->base.ops = &kt_counting_ops;
    s->ev->inner = inner;
    kt_space_bind(&s->space, kt_replay_sizes(inner), kt_replay_seed(inner),
                  inner->ops->device(inner));
    assert_int_equal(inner->ops->calibration(inner, 0, &s->calib, &err),
                     KT_S_OK);
    s->cfg.op = s->op;
    s->cfg.space = &s->space;
    s->cfg.ev = &s->ev->base;
    s->cfg.strategy = kt_strategy_find(strategy);
    assert_non_null(s->cfg.strategy);
    for (size_t i = 0; i < s->cfg.strategy->num_options; ++i)
        s->cfg.options[i] = s->cfg.strategy->options[i].default_value;
    s->cfg.seed = 1;
    s->cfg.finalists = 3;
    s->cfg.min_gain = 0.005;
    kt_diag_facts_ceilings(&s->cfg.diag, s->calib.copy_gbs,
                           s->calib.peak_bw_gbs, 0, 0);
    kt_protocol_defaults(&s->cfg.protocol);
}

static void close_session(session *s)
{
    kt_space_free(&s->space);
    s->ev->base.ops->close(&s->ev->base);
}

/* [metrics] with the default counters for `points`. */
static void with_metrics(session *s, kt_profiling_points points, size_t top)
{
    kt_err err;
    memset(&s->spec, 0, sizeof s->spec);
    s->spec.points = points;
    s->spec.top = top;
    s->spec.counters = 1;
    assert_int_equal(kt_metrics_resolve(NULL, 0, 1, &s->spec.set, &err),
                     KT_S_OK);
    s->cfg.profiling = &s->spec;
}

/* A fresh journal at path for s's runs, its header naming the metrics. */
static void journal_to(session *s, const char *path, kt_journal *j)
{
    json_t *header;
    kt_err err;

    remove(path);
    header = kt_journal_header(s->plugin, "vector_add:add", s->op,
                               kt_replay_sizes(s->ev->inner), 1, &s->space,
                               &s->cfg.protocol, json_object(), json_object());
    kt_journal_header_metrics(header, kt_profiling_spec_json(&s->spec));
    if (kt_journal_create(j, path, header, &err))
        fail_msg("%s", err.msg);
    json_decref(header);
    s->cfg.journal = j;
}

static void run(session *s, kt_tune_result *r)
{
    kt_err err;
    if (kt_tune_run(&s->cfg, r, &err) != KT_S_OK)
        fail_msg("%s: %s", s->cfg.strategy->name, err.msg);
}

/* ------------------------------------------------------------- replay */

static void replay_serves_recorded_counters_and_nothing_else(void **state)
{
    session s;
    const char *names[] = {"dram__bytes_read.sum", "smsp__inst_executed.sum"};
    kt_profile_request req = {names, 2, 0};
    kt_profile_result res;
    kt_point pt;
    kt_evaluator *ev;
    kt_err err;
    (void)state;

    open_session(&s, VA24, "vector_add:add", "coordinate");
    ev = s.ev->inner;
    /* Recorded: the value as written, the kernel facts; a counter the
     * record lacks is NaN with a note. */
    kt_point_default(s.op, 0, &pt);
    assert_int_equal(ev->ops->profile(ev, &pt, &req, &res, &err), KT_S_OK);
    assert_int_equal(res.status, KT_EVAL_OK);
    assert_int_equal(res.counters, KT_S_OK);
    assert_true(res.values[0] > 8.0 * 16777216 * 0.99);
    assert_true(isnan(res.values[1]));
    assert_contains(res.note, "not recorded: 1 of 2");
    assert_contains(res.note, "smsp__inst_executed.sum");
    assert_true(res.kernel.available);
    assert_int_equal(res.kernel.num_regs, 16);
    assert_int_equal(res.kernel.block_threads, 256);
    kt_profile_result_free(&res);
    /* Nothing it asks for is recorded: unavailable, said so. */
    req.metrics = names + 1;
    req.num_metrics = 1;
    assert_int_equal(ev->ops->profile(ev, &pt, &req, &res, &err), KT_S_OK);
    assert_int_equal(res.counters, KT_S_UNSUPPORTED);
    assert_null(res.values);
    assert_contains(res.note, "not recorded");
    kt_profile_result_free(&res);
    /* Names are checked against what the recording holds. */
    req.check_only = 1;
    assert_int_equal(ev->ops->profile(ev, NULL, &req, &res, &err), KT_S_OK);
    assert_int_equal(res.counters, KT_S_OK);
    close_session(&s);

    /* A recording without counters (format 1) says so. */
    open_session(&s, VA24_PLAIN, "vector_add:add", "coordinate");
    ev = s.ev->inner;
    assert_int_equal(ev->ops->profile(ev, NULL, &req, &res, &err), KT_S_OK);
    assert_int_equal(res.counters, KT_S_UNSUPPORTED);
    assert_contains(res.note, "holds no counters");
    req.check_only = 0;
    assert_int_equal(ev->ops->profile(ev, &pt, &req, &res, &err), KT_S_OK);
    assert_int_equal(res.status, KT_EVAL_OK);
    assert_int_equal(res.counters, KT_S_UNSUPPORTED);
    assert_contains(res.note, "holds no profile of this point");
    kt_profile_result_free(&res);
    close_session(&s);
}

/* ------------------------------------------------------------ [metrics] */

static void every_point_is_profiled_once_and_journaled(void **state)
{
    session s;
    kt_tune_result r;
    kt_journal j;
    kt_journal_log log;
    kt_err err;
    size_t profiled = 0;
    (void)state;

    open_session(&s, VA24, "vector_add:add", "exhaustive");
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    journal_to(&s, "profiled_every.jsonl", &j);
    run(&s, &r);
    kt_journal_close(&j);
    /* Every point that ran, once; the counters as recorded. */
    for (size_t i = 0; i < r.num_entries; ++i) {
        const kt_tune_entry *e = &r.entries[i];
        if (e->status != KT_EVAL_OK || e->host_checked) {
            assert_null(e->profile);
            continue;
        }
        assert_non_null(e->profile);
        assert_int_equal(e->profile->counters, KT_S_OK);
        assert_true(e->profile->by_id[KT_M_LD_SECTORS_PER_REQUEST] >= 4.0);
        ++profiled;
    }
    assert_int_equal(profiled, r.measured);
    assert_int_equal(r.profiled, r.measured);
    assert_int_equal(s.ev->profiles, r.measured);
    assert_string_equal(r.counters_note, "");
    kt_tune_result_free(&r);
    /* The journal holds them, format 2, and reads back. */
    assert_int_equal(kt_journal_read("profiled_every.jsonl", s.op, &log, &err),
                     KT_S_OK);
    assert_int_equal(log.format, KT_JOURNAL_FORMAT_COUNTERS);
    assert_non_null(json_object_get(log.header, "metrics"));
    assert_int_equal(log.num_profiles, profiled);
    assert_string_equal(
        json_string_value(json_object_get(log.profiles[0].record, "counters")),
        "ok");
    kt_journal_log_free(&log);
    close_session(&s);
}

static void a_resumed_run_answers_counters_from_the_journal(void **state)
{
    session s;
    kt_tune_result a, b;
    kt_journal j;
    kt_journal_log log;
    kt_err err;
    (void)state;

    open_session(&s, VA28, "vector_add:add", "coordinate");
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    journal_to(&s, "profiled_resume.jsonl", &j);
    s.cfg.max_evals = 7;
    run(&s, &a);
    kt_journal_close(&j);
    assert_true(a.profiled > 0);
    assert_int_equal(s.ev->profiles, a.profiled);

    /* Continue it to the end: nothing already profiled is profiled again,
     * and the run ends where an uninterrupted one does. */
    assert_int_equal(kt_journal_read("profiled_resume.jsonl", s.op, &log, &err),
                     KT_S_OK);
    assert_int_equal(log.num_profiles, a.profiled);
    assert_int_equal(kt_journal_continue(&j, "profiled_resume.jsonl", &log,
                                         json_object(), &err),
                     KT_S_OK);
    s.ev->profiles = 0;
    s.cfg.resume = &log;
    s.cfg.max_evals = 0;
    run(&s, &b);
    kt_journal_close(&j);
    assert_int_equal(b.profiled_from_journal, a.profiled);
    assert_int_equal(s.ev->profiles, b.profiled - b.profiled_from_journal);
    for (size_t i = 0; i < a.num_entries && i < b.num_entries; ++i) {
        assert_int_equal(a.entries[i].index, b.entries[i].index);
        if (a.entries[i].profile) {
            assert_non_null(b.entries[i].profile);
            assert_true(b.entries[i].profile->from_journal);
            assert_memory_equal(a.entries[i].profile->by_id,
                                b.entries[i].profile->by_id,
                                sizeof a.entries[i].profile->by_id);
        }
    }
    kt_journal_log_free(&log);
    /* The resumed run's new profiles went to the journal too. */
    assert_int_equal(kt_journal_read("profiled_resume.jsonl", s.op, &log, &err),
                     KT_S_OK);
    assert_int_equal(log.num_profiles, b.profiled);
    kt_journal_log_free(&log);
    kt_tune_result_free(&a);
    kt_tune_result_free(&b);
    close_session(&s);
}

static void top_profiles_the_best_few_and_the_answer(void **state)
{
    session s;
    kt_tune_result r;
    const kt_tune_entry **ranked;
    size_t n, profiled = 0;
    (void)state;

    open_session(&s, VA24, "vector_add:add", "random");
    with_metrics(&s, KT_PROFILING_TOP, 3);
    s.cfg.max_evals = 20;
    run(&s, &r);
    ranked = kt_tune_ranked(&r, &n);
    for (size_t i = 0; i < n; ++i)
        if (i < 3)
            assert_non_null(ranked[i]->profile);
    for (size_t i = 0; i < r.num_entries; ++i)
        profiled += r.entries[i].profile != NULL;
    /* The top 3 by their own medians, and the answer when it is not one
     * of them. */
    assert_true(profiled == 3 || profiled == 4);
    assert_non_null(kt_summary_entry(&r, &r.finals[0].point)->profile);
    assert_int_equal(s.ev->profiles, profiled);
    free(ranked);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void without_recorded_counters_one_note_and_the_run_goes_on(void **state)
{
    session s;
    kt_tune_result r;
    (void)state;

    open_session(&s, VA24_PLAIN, "vector_add:add", "coordinate");
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    run(&s, &r);
    assert_true(r.has_best);
    assert_contains(r.counters_note, "not recorded");
    assert_int_equal(r.profiled, r.measured);
    for (size_t i = 0; i < r.num_entries; ++i)
        if (r.entries[i].profile)
            assert_int_equal(r.entries[i].profile->counters, KT_S_UNSUPPORTED);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void counters_refused_here_are_one_line_and_asked_for_once(void **state)
{
    /* The counting evaluator as a live GPU, not a replay. */
    static kt_evaluator_ops live_ops;
    session s;
    kt_tune_result r;
    char *text = NULL;
    size_t len = 0;
    FILE *notes;
    (void)state;

    open_session(&s, VA24, "vector_add:add", "coordinate");
    live_ops = kt_counting_ops;
    live_ops.kind = "worker";
    s.ev->base.ops = &live_ops;
    s.ev->no_privileges = 1;
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    notes = open_memstream(&text, &len);
    s.cfg.notes = notes;
    run(&s, &r);
    fclose(notes);
    /* One line says why; counters are not asked for again, kernel facts
     * still are; the run finds its answer. */
    assert_contains(text, "ktune: no hardware counters for coalesced "
                          "block=256: profiling needs privileges");
    assert_contains(text, "continuing without them\n");
    {
        size_t lines = 0;
        for (const char *c = text; *c; ++c)
            lines += *c == '\n';
        assert_int_equal(lines, 1);
    }
    assert_int_equal(s.ev->asked_counters, 1);
    assert_int_equal(s.ev->profiles, r.profiled);
    assert_contains(r.counters_note, "privileges");
    assert_true(r.has_best);
    for (size_t i = 0; i < r.num_entries; ++i)
        if (r.entries[i].profile) {
            assert_int_equal(r.entries[i].profile->counters, KT_S_UNSUPPORTED);
            assert_true(r.entries[i].profile->kernel.available);
        }
    free(text);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void a_failed_profile_costs_the_profile_not_the_run(void **state)
{
    session s;
    kt_tune_result r;
    (void)state;

    open_session(&s, VA24, "vector_add:add", "coordinate");
    s.ev->fail_with = KT_S_CUDA;
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    run(&s, &r);
    assert_true(r.has_best);
    assert_int_equal(r.profiled, r.measured);
    assert_contains(r.counters_note, "profiling failed: "
                                     "cuptiRangeProfilerSetConfig failed");
    for (size_t i = 0; i < r.num_entries; ++i)
        if (r.entries[i].profile)
            assert_int_equal(r.entries[i].profile->counters, KT_S_CUDA);
    /* A failure is not unavailability: counters were asked for each time. */
    assert_int_equal(s.ev->asked_counters, r.measured);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void journal_formats_1_and_2_are_read_and_others_refused(void **state)
{
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_journal_log log;
    char *line = NULL;
    size_t cap = 0;
    FILE *in, *out;
    json_t *head;
    kt_err err;
    (void)state;

    assert_int_equal(
        kt_registry_resolve(&tt_reg, "vector_add:add", &plugin, &op, &err),
        KT_S_OK);
    assert_int_equal(kt_journal_read(VA24_PLAIN, op, &log, &err), KT_S_OK);
    assert_int_equal(log.format, 1);
    assert_int_equal(log.num_profiles, 0);
    kt_journal_log_free(&log);
    assert_int_equal(kt_journal_read(VA24, op, &log, &err), KT_S_OK);
    assert_int_equal(log.format, 2);
    assert_int_equal(log.num_profiles, 62);
    kt_journal_log_free(&log);
    /* A format from a newer ktune is refused with what this one reads. */
    in = fopen(VA24_PLAIN, "r");
    assert_non_null(in);
    assert_true(getline(&line, &cap, in) > 0);
    fclose(in);
    head = json_loads(line, 0, NULL);
    free(line);
    assert_non_null(head);
    json_object_set_new(head, "format", json_integer(3));
    out = fopen("format3.jsonl", "w");
    assert_non_null(out);
    assert_int_equal(json_dumpf(head, out, JSON_COMPACT), 0);
    fputc('\n', out);
    fclose(out);
    json_decref(head);
    assert_int_equal(kt_journal_read("format3.jsonl", op, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "format3.jsonl:1: journal format 3; this ktune "
                             "reads formats 1 to 2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_serves_recorded_counters_and_nothing_else),
        cmocka_unit_test(every_point_is_profiled_once_and_journaled),
        cmocka_unit_test(a_resumed_run_answers_counters_from_the_journal),
        cmocka_unit_test(top_profiles_the_best_few_and_the_answer),
        cmocka_unit_test(
            without_recorded_counters_one_note_and_the_run_goes_on),
        cmocka_unit_test(counters_refused_here_are_one_line_and_asked_for_once),
        cmocka_unit_test(a_failed_profile_costs_the_profile_not_the_run),
        cmocka_unit_test(journal_formats_1_and_2_are_read_and_others_refused),
    };
    return cmocka_run_group_tests(tests, tt_setup, tt_teardown);
}
