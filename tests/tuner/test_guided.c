// SPDX-License-Identifier: Apache-2.0
/* Counters in tuning runs and the counter-guided strategy, in replay (no
 * GPU): the replay evaluator serves recorded counters and says "not
 * recorded" otherwise; [metrics] profiles every point or the best few,
 * journals the profiles (format 2) and a resumed run answers from them
 * without profiling again; counters that cannot be had leave one note and
 * the run goes on; guided makes exactly coordinate's moves when no rule
 * speaks, and when one does it orders the moves as the rules say (an
 * uncoalesced incumbent tries other mappings first, a latency-bound one the
 * block sizes that raise its occupancy first); it is deterministic for a
 * seed, honours budgets and never answers with a point that cannot run. */
#include "tests/tuner/tuner_test.h"

#include <math.h>

#include "core/parse.h"
#include "tests/support/counting_eval.h"
#include "tuner/journal.h"
#include "tuner/replay.h"
#include "tuner/summary.h"
#include "tuner/tune.h"

#define VA24 TT_DATA_DIR "/vector_add-synthetic-counters-n16777216.jsonl"
#define VA28 TT_DATA_DIR "/vector_add-synthetic-counters-n268435456.jsonl"
#define VA24_PLAIN TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl"
#define GOOD TT_DATA_DIR "/good-synthetic-counters.jsonl"
#define GOOD_PLAIN TT_DATA_DIR "/good-synthetic.jsonl"

static kt_registry reg;

static int setup(void **state)
{
    (void)state;
    return tt_load_plugins(&reg);
}

static int teardown(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

/* A replayed session over a recording, with its space narrowed by
 * NAME=V1,V2 items ("variant=grid_stride", "blocks_per_sm=1"). */
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
                         const char *const *narrow, size_t num_narrow,
                         const char *strategy)
{
    kt_evaluator *inner;
    kt_err err;

    memset(s, 0, sizeof *s);
    if (kt_registry_resolve(&reg, spec, &s->plugin, &s->op, &err) ||
        kt_space_init(&s->space, s->op, &err) ||
        kt_replay_open(recording, s->plugin, s->op, NULL, &inner, &err))
        fail_msg("%s", err.msg);
    s->ev = calloc(1, sizeof *s->ev);
    assert_non_null(s->ev);
    s->ev->base.ops = &kt_counting_ops;
    s->ev->inner = inner;
    for (size_t i = 0; i < num_narrow; ++i) {
        char buf[256], *eq, **items = NULL;
        size_t n;
        snprintf(buf, sizeof buf, "%s", narrow[i]);
        eq = strchr(buf, '=');
        assert_non_null(eq);
        *eq = '\0';
        assert_int_equal(kt_parse_list(eq + 1, &items, &n, &err), KT_S_OK);
        if (strcmp(buf, "variant") == 0) {
            uint32_t keep[8];
            for (size_t k = 0; k < n; ++k) {
                size_t index;
                assert_int_equal(
                    kt_operator_find_variant(s->op, items[k], &index, &err),
                    KT_S_OK);
                keep[k] = (uint32_t)index;
            }
            assert_int_equal(kt_space_keep_variants(&s->space, keep, n, &err),
                             KT_S_OK);
        } else if (kt_space_narrow(&s->space, buf, items, n, &err)) {
            fail_msg("%s", err.msg);
        }
        free(items);
    }
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
    s->cfg.copy_gbs = s->calib.copy_gbs;
    s->cfg.peak_bw_gbs = s->calib.peak_bw_gbs;
    kt_protocol_defaults(&s->cfg.protocol);
}

static void close_session(session *s)
{
    kt_space_free(&s->space);
    s->ev->base.ops->close(&s->ev->base);
}

static void set_option(session *s, const char *name, double value)
{
    for (size_t i = 0; i < s->cfg.strategy->num_options; ++i)
        if (strcmp(s->cfg.strategy->options[i].name, name) == 0) {
            s->cfg.options[i] = value;
            return;
        }
    fail_msg("%s has no option %s", s->cfg.strategy->name, name);
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

static void run(session *s, kt_tune_result *r)
{
    kt_err err;
    if (kt_tune_run(&s->cfg, r, &err) != KT_S_OK)
        fail_msg("%s: %s", s->cfg.strategy->name, err.msg);
}

/* "grid_stride block=256 blocks_per_sm=1" of the k-th evaluation. */
static const char *evaluated(const session *s, const kt_tune_result *r,
                             size_t k, char *buf, size_t size)
{
    for (size_t i = 0; i < r->num_entries; ++i)
        if (r->entries[i].order == k) {
            kt_point_format(s->op, &r->entries[i].point, buf, size);
            return buf;
        }
    return "(none)";
}

static void assert_order(const session *s, const kt_tune_result *r,
                         const char *const *want, size_t n)
{
    char buf[256];
    for (size_t k = 0; k < n; ++k)
        if (strcmp(evaluated(s, r, k + 1, buf, sizeof buf), want[k]) != 0) {
            for (size_t j = 1; j <= r->num_entries; ++j)
                print_message("  evaluation %zu: %s\n", j,
                              evaluated(s, r, j, buf, sizeof buf));
            fail_msg("%s: evaluation %zu is %s, expected %s",
                     s->cfg.strategy->name, k + 1,
                     evaluated(s, r, k + 1, buf, sizeof buf), want[k]);
        }
}

/* ------------------------------------------------------------ the rules */

static void launch_occupancy_is_capped_by_the_grid(void **state)
{
    kt_occupancy occ;
    (void)state;
    memset(&occ, 0, sizeof occ);
    occ.blocks_per_sm = 8;
    occ.warps_per_block = 8;
    occ.max_warps_per_sm = 64;
    occ.theoretical = 100;
    /* One block per SM: a grid-stride launch with blocks_per_sm = 1. */
    assert_true(fabs(kt_guide_launch_occupancy(&occ, 132, 132) - 12.5) < 1e-9);
    assert_true(fabs(kt_guide_launch_occupancy(&occ, 133, 132) - 25.0) < 1e-9);
    /* A large grid reaches what the resources allow. */
    assert_true(fabs(kt_guide_launch_occupancy(&occ, 1 << 20, 132) - 100.0) <
                1e-9);
    assert_true(kt_guide_launch_occupancy(&occ, 0, 132) < 0);
    assert_true(kt_guide_launch_occupancy(NULL, 10, 132) < 0);
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

    open_session(&s, VA24, "vector_add:add", NULL, 0, "coordinate");
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
    open_session(&s, VA24_PLAIN, "vector_add:add", NULL, 0, "coordinate");
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
    json_t *header;
    kt_err err;
    size_t profiled = 0;
    (void)state;

    remove("guided_every.jsonl");
    open_session(&s, VA24, "vector_add:add", NULL, 0, "exhaustive");
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    header = kt_journal_header(s.plugin, "vector_add:add", s.op,
                               kt_replay_sizes(s.ev->inner), 1, &s.space,
                               &s.cfg.protocol, json_object(), json_object());
    kt_journal_header_metrics(header, kt_profiling_spec_json(&s.spec));
    assert_int_equal(kt_journal_create(&j, "guided_every.jsonl", header, &err),
                     KT_S_OK);
    json_decref(header);
    s.cfg.journal = &j;
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
    assert_int_equal(kt_journal_read("guided_every.jsonl", s.op, &log, &err),
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
    json_t *header;
    kt_err err;
    (void)state;

    remove("guided_resume.jsonl");
    open_session(&s, VA28, "vector_add:add", NULL, 0, "guided");
    with_metrics(&s, KT_PROFILING_EVERY, 0);
    header = kt_journal_header(s.plugin, "vector_add:add", s.op,
                               kt_replay_sizes(s.ev->inner), 1, &s.space,
                               &s.cfg.protocol, json_object(), json_object());
    kt_journal_header_metrics(header, kt_profiling_spec_json(&s.spec));
    assert_int_equal(kt_journal_create(&j, "guided_resume.jsonl", header, &err),
                     KT_S_OK);
    json_decref(header);
    s.cfg.journal = &j;
    s.cfg.max_evals = 7;
    run(&s, &a);
    kt_journal_close(&j);
    assert_true(a.profiled > 0);
    assert_int_equal(s.ev->profiles, a.profiled);

    /* Continue it to the end: nothing already profiled is profiled again,
     * and the run ends where an uninterrupted one does. */
    assert_int_equal(kt_journal_read("guided_resume.jsonl", s.op, &log, &err),
                     KT_S_OK);
    assert_int_equal(log.num_profiles, a.profiled);
    assert_int_equal(kt_journal_continue(&j, "guided_resume.jsonl", &log,
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
    assert_int_equal(kt_journal_read("guided_resume.jsonl", s.op, &log, &err),
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

    open_session(&s, VA24, "vector_add:add", NULL, 0, "random");
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

    open_session(&s, VA24_PLAIN, "vector_add:add", NULL, 0, "coordinate");
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

    open_session(&s, VA24, "vector_add:add", NULL, 0, "guided");
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

    open_session(&s, VA24, "vector_add:add", NULL, 0, "coordinate");
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
        kt_registry_resolve(&reg, "vector_add:add", &plugin, &op, &err),
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

/* --------------------------------------------------------------- guided */

/* Every recording without counters: the same evaluations in the same
 * order, the same path and answer. */
static void without_counters_guided_makes_coordinates_moves(void **state)
{
    static const char *const recordings[][2] = {
        {VA24_PLAIN, "vector_add:add"},
        {TT_DATA_DIR "/vector_add-synthetic-n1048576.jsonl", "vector_add:add"},
        {TT_DATA_DIR "/vector_add-h200-n268435456.jsonl", "vector_add:add"},
        {GOOD_PLAIN, "good:scale"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof recordings / sizeof recordings[0]; ++i) {
        for (int start = 0; start <= 1; ++start) {
            for (uint64_t seed = 1; seed <= (start ? 5u : 1u); ++seed) {
                session a, b;
                kt_tune_result ra, rb;
                open_session(&a, recordings[i][0], recordings[i][1], NULL, 0,
                             "coordinate");
                open_session(&b, recordings[i][0], recordings[i][1], NULL, 0,
                             "guided");
                set_option(&a, "random_start", start);
                set_option(&b, "random_start", start);
                a.cfg.seed = b.cfg.seed = seed;
                run(&a, &ra);
                run(&b, &rb);
                if (ra.num_entries != rb.num_entries)
                    fail_msg("%s seed %llu: %zu points, guided %zu",
                             recordings[i][0], (unsigned long long)seed,
                             ra.num_entries, rb.num_entries);
                for (size_t e = 0; e < ra.num_entries; ++e)
                    assert_int_equal(ra.entries[e].index, rb.entries[e].index);
                assert_int_equal(ra.num_steps, rb.num_steps);
                assert_true(
                    kt_point_equal(&ra.finals[0].point, &rb.finals[0].point));
                /* No counters: no rule spoke. */
                assert_int_equal(rb.guide.first + rb.guide.skipped, 0);
                kt_tune_result_free(&ra);
                kt_tune_result_free(&rb);
                close_session(&a);
                close_session(&b);
            }
        }
    }
}

static void
a_latency_bound_incumbent_tries_raising_block_sizes_first(void **state)
{
    static const char *const narrow[] = {"variant=grid_stride",
                                         "blocks_per_sm=1"};
    static const char *const guided[] = {
        "grid_stride block=256 blocks_per_sm=1",
        "grid_stride block=512 blocks_per_sm=1",
        "grid_stride block=1024 blocks_per_sm=1",
        "grid_stride block=32 blocks_per_sm=1",
    };
    static const char *const plain[] = {
        "grid_stride block=256 blocks_per_sm=1",
        "grid_stride block=32 blocks_per_sm=1",
        "grid_stride block=64 blocks_per_sm=1",
        "grid_stride block=128 blocks_per_sm=1",
        "grid_stride block=512 blocks_per_sm=1",
    };
    session s;
    kt_tune_result r;
    kt_diagnosis d;
    (void)state;

    /* One block per SM: 256 threads keep 12.5% of the warp slots busy, the
     * kernel waits on memory; 512 and 1024 raise that, 32..128 cannot. */
    open_session(&s, VA24, "vector_add:add", narrow, 2, "guided");
    run(&s, &r);
    assert_order(&s, &r, guided, 4);
    assert_true(r.guide.by_rule[1] > 0);
    assert_true(r.guide.skipped >= 3);
    assert_contains(r.guide.example[1], "latency-bound");
    assert_int_equal(r.num_steps, 2);
    assert_string_equal(r.steps[1].after, "1024");
    /* The start was diagnosed latency-bound from its counters. */
    assert_non_null(r.entries[0].profile);
    {
        kt_tune_facts f;
        memset(&f, 0, sizeof f);
        f.space = &s.space;
        f.work = s.ev->base.ops->work(&s.ev->base);
        f.copy_gbs = s.calib.copy_gbs;
        f.peak_gbs = s.calib.peak_bw_gbs;
        f.cfg = &s.cfg;
        kt_summary_diagnose(&f, &r.entries[0], &d, NULL);
        assert_int_equal(d.bound, KT_BOUND_LATENCY);
    }
    kt_tune_result_free(&r);
    close_session(&s);

    /* With skip = 1 the skipped block sizes wait until the rules no longer
     * skip them: never here, as 1024 (DRAM 24%, SM 7.6%, 93% of warp
     * cycles waiting on memory) is latency-bound too. */
    open_session(&s, VA24, "vector_add:add", narrow, 2, "guided");
    set_option(&s, "skip", 1);
    run(&s, &r);
    assert_order(&s, &r, guided, 3);
    {
        char buf[256];
        assert_string_equal(evaluated(&s, &r, 4, buf, sizeof buf), "(none)");
    }
    kt_tune_result_free(&r);
    close_session(&s);

    /* coordinate sweeps the block sizes in order. */
    open_session(&s, VA24, "vector_add:add", narrow, 2, "coordinate");
    run(&s, &r);
    assert_order(&s, &r, plain, 5);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void an_uncoalesced_incumbent_tries_other_mappings_first(void **state)
{
    /* good:scale is latency-bound everywhere (a few blocks on 132 SMs), and
     * layout = cols is uncoalesced (32 sectors per request, ideal 4). */
    static const char *const cols[] = {"layout=cols"};
    static const char *const rows[] = {"layout=rows"};
    char buf[256];
    session s;
    kt_tune_result r;
    (void)state;

    /* Uncoalesced: the mapping first (variant plain), then the rest, the
     * block sizes that cannot raise occupancy last. */
    open_session(&s, GOOD, "good:scale", cols, 1, "guided");
    run(&s, &r);
    assert_string_equal(evaluated(&s, &r, 1, buf, sizeof buf),
                        "tiled block=128 unroll=2 pad=0 layout=cols");
    assert_string_equal(evaluated(&s, &r, 2, buf, sizeof buf),
                        "plain block=128");
    assert_true(r.guide.by_rule[0] > 0);
    assert_contains(r.guide.example[0], "8.0x the ideal sectors per request");
    kt_tune_result_free(&r);
    close_session(&s);

    /* The same incumbent coalesced: a block size that raises occupancy
     * goes before the mapping. */
    open_session(&s, GOOD, "good:scale", rows, 1, "guided");
    run(&s, &r);
    assert_string_equal(evaluated(&s, &r, 1, buf, sizeof buf),
                        "tiled block=128 unroll=2 pad=0 layout=rows");
    assert_string_equal(evaluated(&s, &r, 2, buf, sizeof buf),
                        "tiled block=256 unroll=2 pad=0 layout=rows");
    assert_int_equal(r.guide.by_rule[0], 0);
    kt_tune_result_free(&r);
    close_session(&s);

    /* coordinate tries the mapping first either way, then block=32. */
    open_session(&s, GOOD, "good:scale", rows, 1, "coordinate");
    run(&s, &r);
    assert_string_equal(evaluated(&s, &r, 2, buf, sizeof buf),
                        "plain block=128");
    assert_string_equal(evaluated(&s, &r, 3, buf, sizeof buf),
                        "tiled block=32 unroll=2 pad=0 layout=rows");
    kt_tune_result_free(&r);
    close_session(&s);
}

/* Deterministic for a seed, within budgets, answering only with points
 * that ran, from random starts, skipping or not. */
static void guided_is_deterministic_within_budgets_and_valid(void **state)
{
    static const char *const recordings[][2] = {{VA24, "vector_add:add"},
                                                {VA28, "vector_add:add"},
                                                {GOOD, "good:scale"}};
    (void)state;
    for (size_t i = 0; i < 3; ++i) {
        for (uint64_t seed = 1; seed <= 6; ++seed) {
            for (size_t budget = 3; budget <= 15; budget += 6) {
                session s;
                kt_tune_result a, b;
                open_session(&s, recordings[i][0], recordings[i][1], NULL, 0,
                             "guided");
                set_option(&s, "random_start", 1);
                set_option(&s, "skip", (double)(seed % 2));
                s.cfg.seed = seed;
                s.cfg.max_evals = budget;
                run(&s, &a);
                run(&s, &b);
                assert_true(a.evaluations <= budget);
                assert_int_equal(a.num_entries, b.num_entries);
                for (size_t e = 0; e < a.num_entries; ++e)
                    assert_int_equal(a.entries[e].index, b.entries[e].index);
                assert_true(a.has_best);
                for (size_t f = 0; f < a.num_finals; ++f) {
                    const kt_eval_result *rec =
                        kt_replay_lookup(s.ev->inner, &a.finals[f].point);
                    assert_non_null(rec);
                    assert_int_equal(rec->status, KT_EVAL_OK);
                    assert_int_equal(
                        kt_space_feasible(&s.space, &a.finals[f].point, NULL),
                        KT_S_OK);
                }
                /* Profiling is not an evaluation. */
                assert_true(a.profiled >= 1);
                kt_tune_result_free(&a);
                kt_tune_result_free(&b);
                close_session(&s);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launch_occupancy_is_capped_by_the_grid),
        cmocka_unit_test(replay_serves_recorded_counters_and_nothing_else),
        cmocka_unit_test(every_point_is_profiled_once_and_journaled),
        cmocka_unit_test(a_resumed_run_answers_counters_from_the_journal),
        cmocka_unit_test(top_profiles_the_best_few_and_the_answer),
        cmocka_unit_test(
            without_recorded_counters_one_note_and_the_run_goes_on),
        cmocka_unit_test(counters_refused_here_are_one_line_and_asked_for_once),
        cmocka_unit_test(a_failed_profile_costs_the_profile_not_the_run),
        cmocka_unit_test(journal_formats_1_and_2_are_read_and_others_refused),
        cmocka_unit_test(without_counters_guided_makes_coordinates_moves),
        cmocka_unit_test(
            a_latency_bound_incumbent_tries_raising_block_sizes_first),
        cmocka_unit_test(an_uncoalesced_incumbent_tries_other_mappings_first),
        cmocka_unit_test(guided_is_deterministic_within_budgets_and_valid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
